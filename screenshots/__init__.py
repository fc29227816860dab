"""Renders of the GUI for review and for the docs (not part of the installed package).

Run from the repository's root, with Qt offscreen:
``QT_QPA_PLATFORM=offscreen python -m screenshots.app --output DIR`` (the perspectives)
and ``QT_QPA_PLATFORM=offscreen python -m screenshots.methods DIR`` (the methods' views).
"""


def fail_on_message_boxes() -> None:
    """A message box ends the render with its text instead of waiting for a click that
    never comes offscreen (a refused run would otherwise hang the script)."""
    from PySide6.QtWidgets import QMessageBox

    def refuse(_parent, title, text, *_args, **_kwargs):
        raise RuntimeError(f"A message box interrupted the render: {title}: {text}")

    for name in ("critical", "warning", "information", "question"):
        setattr(QMessageBox, name, staticmethod(refuse))


#: The two screens every render is judged at.
SIZES = {"": (1280, 720), "-1080p": (1920, 1080)}


def example_window(size: tuple[int, int]):
    """``(app, window, scratch)``: the main window at ``size`` with the example open, its
    settings and recovery folder in a scratch folder of its own."""
    import sys
    import tempfile
    from pathlib import Path

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="arxpy-shots-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=scratch / "recovery")
    window.resize(*size)
    window.show()
    window.projects.open_example()
    app.processEvents()
    return app, window, scratch


def dialogs_over_window(window, size: tuple[int, int], shown, path):
    """The window with each ``(dialog, QPoint offset)`` drawn centred on it, as a user sees a
    dialog over the application; prints each dialog's size; returns ``path``."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QPainter

    screen = window.grab()
    painter = QPainter(screen)
    for dialog, offset in shown:
        picture = dialog.grab()
        corner = QPoint(max((size[0] - picture.width()) // 2, 0),
                        max((size[1] - picture.height()) // 2, 0))
        painter.drawPixmap(corner + offset, picture)
        print(f"{dialog.windowTitle()}: {picture.width()}x{picture.height()} on "
              f"{size[0]}x{size[1]}")
    painter.end()
    screen.save(str(path))
    return path


def render_main(render, argv=None) -> int:
    """``python -m screenshots.X [DIR]``: ``render(output, size, suffix)`` at both sizes."""
    import os
    import sys
    from pathlib import Path

    argv = sys.argv[1:] if argv is None else argv
    output = Path(argv[0] if argv else "/tmp/arxpy-shots")
    output.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    fail_on_message_boxes()
    for suffix, size in SIZES.items():
        for path in render(output, size, suffix):
            print(path)
    return 0
