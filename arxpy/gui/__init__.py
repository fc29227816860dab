"""The desktop application (the only package that imports Qt).

``state.AppState`` holds the project, result and selection and emits signals; the
perspectives (``configure``, ``perspectives``) and panels observe it and edit it
through undoable commands. ``workers.JobWorker`` adapts engine jobs to Qt signals;
``main_window.MainWindow`` ties everything together; ``app.run_app`` starts it.
"""
