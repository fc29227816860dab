"""File actions of the main window: new, open, import, save, save as, export, recent,
the prompt before discarding changes, and restoring an autosaved copy."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QDialog, QMessageBox

from arxpy.engine.stored import ResultTooLarge
from arxpy.errors import ArxpyError, ProjectError
from arxpy.gui.folders import remember
from arxpy.gui.plain_text import escaped
from arxpy.gui.workers import JobWorker, ViewJob, view_job
from arxpy.params import drawn_seed
from arxpy.project import PROJECT_SUFFIX, Project
from arxpy.workflows.linked_release import write_linked_files
from arxpy.workflows.pins import Pin
from arxpy.workflows.runs import MethodRun
from arxpy.workflows.saved_runs import RestoredRun, restore_runs
from arxpy.workflows.session_linked import STALE_LINKED_RELEASE

if TYPE_CHECKING:
    from arxpy.gui.main_window import MainWindow
    from arxpy.identifiers.reidentification import ReidentificationRequest
    from arxpy.workflows.current_release import CurrentRelease

log = logging.getLogger(__name__)

RECENT_KEY = "recent_projects"
MAX_RECENT = 8
PROJECT_FILTER = f"arxpy projects (*{PROJECT_SUFFIX})"
_Button = QMessageBox.StandardButton


def load_checked(path: Path) -> Project:
    """A project whose settings were checked too, before any view sees them."""
    from arxpy.engine.config import check_settings
    from arxpy.workflows.linked_project import linked_of

    project = Project.load(path)
    try:
        check_settings(project.settings)
        linked_of(project.settings)  # the linked tables' aggregates read
    except ArxpyError as exc:
        raise ProjectError(f"Project file '{path}' has unusable settings: {exc}") from None
    return project


class ProjectActions:
    """What the File menu does, for one window."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.runs_worker: JobWorker | None = None  # restores the saved runs of a project
        self.linked_export_dialog: QDialog | None = None  # the last linked export asked

    @property
    def state(self):
        return self.window.state

    def _guarded(self, action: Callable[[], object]) -> bool:
        """Run ``action``; show a user error in a dialog. True if it succeeded."""
        try:
            action()
        except ArxpyError as exc:
            self.window.error("arxpy", str(exc))
            return False
        return True

    # --- opening ---------------------------------------------------------------------------

    def confirm_discard(self, doing: str = "continuing") -> bool:
        """True if there are no unsaved changes, or the user saved or discarded them."""
        if not self.state.modified:
            return True
        answer = QMessageBox.question(
            self.window, "Unsaved changes",
            escaped(f"'{self.state.project.name}' has unsaved changes. Save them before "
                    f"{doing}?"),
            _Button.Save | _Button.Discard | _Button.Cancel, _Button.Save)
        if answer == _Button.Save:
            return self.save()
        return answer == _Button.Discard

    def confirm_stop_run(self, doing: str) -> bool:
        """True if no anonymization runs, or the user agreed to cancel it (it is ended)."""
        if self.window.worker is None:
            return True
        answer = QMessageBox.question(
            self.window, "Anonymization running",
            f"An anonymization is running. Cancel it before {doing}?",
            _Button.Yes | _Button.No, _Button.No)
        if answer != _Button.Yes:
            return False
        self.window.stop_run()
        return True

    def _may_replace(self, doing: str) -> bool:
        """Before another project replaces this one: no run on it, nothing unsaved lost."""
        return self.confirm_stop_run(doing) and self.confirm_discard(doing)

    def new_project(self) -> None:
        if self._may_replace("closing the project"):
            self.window.autosave.remove()
            self.window.set_project(None)

    def open_example(self) -> None:
        from arxpy.example import example_project

        if self._may_replace("opening the example"):
            self._guarded(lambda: self.window.set_project(example_project()))

    def open_project(self, path: str | Path | None = None) -> bool:
        if not self._may_replace("opening another project"):
            return False
        if path is None:
            path = self.window.pick_file(False, "Open project", PROJECT_FILTER)
            if not path:
                return False
        path = Path(path)
        if not self._guarded(lambda: self.window.set_project(load_checked(path), path)):
            return False
        self.add_recent(path)
        remember(self.window.settings, "projects", path)
        log.info("Opened %s", path)
        self.window.keys.ask_on_open()  # before restoring: the runs were made with the key
        self.window.restore_saved_result()
        self.restore_saved_runs()
        return True

    def restore_saved_runs(self) -> JobWorker | None:
        """Compute the saved method runs again in the background and bring back those
        that give the release that was saved (arxpy.workflows.saved_runs)."""
        records = self.state.project.saved_runs if self.state.has_project else None
        if not records:
            return None
        state, revision = self.state, self.state.revision
        try:
            data, definition = state.release_inputs()  # runs were made of the treated table
        except ArxpyError as exc:
            self.window.statusBar().showMessage(f"The saved runs were not restored: {exc}")
            return None
        # Opening another project meanwhile replaces this job: its answer is never heard.
        worker = view_job(self.window, "restore-runs").start(
            restore_runs, records=records, data=data, definition=definition,
            hierarchies=state.release_hierarchies(), key=state.sealing_key,
            on_finished=lambda outcome: self._runs_restored(outcome, revision),
            on_failed=lambda message: self.window.statusBar().showMessage(
                f"The saved runs were not restored: {message}"))
        self.runs_worker = worker
        return worker

    def _runs_restored(self, outcome: tuple[list[RestoredRun], list[str]],
                       revision: int) -> None:
        if revision != self.state.revision:  # another project was opened meanwhile
            return
        restored, problems = outcome
        state = self.state
        data, definition = state.release_inputs()  # the tables the worker was given
        state.restore_runs([MethodRun(r.method, r.release, data, definition,
                                      r.label, r.pinned, r.result) for r in restored],
                           [Pin(r.label, levels) for r in restored for levels in r.pins])
        log.info("Restored %d saved run(s), %d computed again", len(restored),
                 sum(r.recomputed for r in restored))
        if state.pins:  # the comparison of the pinned candidates returns with them
            self.window.runs_page.compare_pinned()
        if problems:  # restored runs show in Explore; only what is missing needs a word
            message = "Saved runs not restored: " + "; ".join(problems) + "."
            log.warning("%s", message)
            self.window.statusBar().showMessage(message)

    def import_data(self) -> None:
        from arxpy.gui.import_wizard import ImportWizard

        if not self._may_replace("importing data"):
            return
        wizard = ImportWizard(self.window)
        if wizard.exec() == QDialog.DialogCode.Accepted and wizard.project is not None:
            source = wizard.source_page.path.text()
            if Path(source).is_file():  # hierarchy imports start beside the data
                remember(self.window.settings, "data", source)
            self.window.set_project(wizard.project, None, modified=True)
            self.state.input_delimiter = wizard.csv_delimiter()
            log.info("Imported %s", wizard.source_description())

    # --- saving ----------------------------------------------------------------------------

    def save(self) -> bool:
        if not self.state.has_project:
            return False
        if self.state.path is None:
            return self.save_as()
        return self.save_to(self.state.path)

    def save_as(self) -> bool:
        if not self.state.has_project:
            return False
        start = str(self.state.path or f"{self.state.project.name}{PROJECT_SUFFIX}")
        path = self.window.pick_file(True, "Save project as", PROJECT_FILTER, start)
        if not path:
            return False
        path = Path(path)
        if path.suffix != PROJECT_SUFFIX:
            path = path.with_name(path.name + PROJECT_SUFFIX)
        return self.save_to(path)

    def save_to(self, path: Path) -> bool:
        """Write the project to ``path``; on success it is no longer modified."""
        self.window.configure.settings_panel.commit()
        note = ""
        self.state.project.saved_runs = self.state.saved_runs_records()
        try:
            self.state.project.saved_result = self.state.saved_result_record()
        except ResultTooLarge as exc:
            self.state.project.saved_result = None
            note = f" without its result ({exc}); anonymize again after opening it"
        if not self._guarded(lambda: self.state.project.save(path)):
            return False
        self.state.mark_saved(path)
        self.window.autosave.remove()
        self.add_recent(path)
        self.window.statusBar().showMessage(f"Saved {path}{note}", 5000 if not note else 0)
        log.info("Saved %s", path)
        return True

    def export_data(self, path: str | Path | None = None) -> bool:
        """Export the current release (applied transformation or method run): without
        ``path`` through the export dialog (the same one Explore opens), with it straight
        to that file (CSV or Excel by extension, suppressed records kept as in the
        configuration, input delimiter). With linked tables ``path`` is the folder of
        :meth:`export_linked`, and the call returns once they are written."""
        from arxpy.engine.export import export_release

        current = self.state.current_release()
        if current is None:
            return False
        if self.state.events:  # a patient-level view: every table goes out
            return self.export_linked(path, wait=path is not None)
        if path is None:
            self.window.explore.export_dialog().open()
            return True
        delimiter = self.state.input_delimiter if Path(path).suffix == ".csv" else None
        seed = drawn_seed()  # rows shuffled
        ok = self._guarded(lambda: export_release(
            current.release(), path, overwrite=True, delimiter=delimiter, shuffle_seed=seed))
        if ok:
            self.window.statusBar().showMessage(f"Exported {path}", 5000)
            log.info("Exported the output of %s to %s", current.label, path)
        return ok

    def export_linked(self, folder: str | Path | None = None,
                      reidentification: ReidentificationRequest | None = None, *,
                      job: ViewJob | None = None, wait: bool = False) -> bool:
        """Write every table of the current release of a patient-level view into
        ``folder`` as a background job: ``<project>.csv`` and one file per event table,
        rows shuffled, the JSON report the command line's ``--report`` writes
        (:data:`~arxpy.workflows.linked_release.REPORT_FILE`), then the encrypted
        re-identification table if ``reidentification`` asks for one
        (:func:`~arxpy.workflows.linked_release.write_linked_files`: all or nothing).

        A folder holding one of the files, or a release that is not of the current
        view, is refused (False) before the job starts. ``job`` is the export dialog's
        (which shows progress and failures); without it the window's own slot runs the
        job and a failure is shown in a message box. ``wait`` returns once the job has
        ended (scripts, tests): True if everything was written. Without ``folder`` the
        :class:`~arxpy.gui.linked_export_dialog.LinkedExportDialog` asks for both."""
        state = self.state
        current = state.current_release()
        if folder is None:
            return self._open_linked_export(current)
        problem = self.linked_export_problem(folder)
        view = state.linked_view(current) if current is not None else None
        if not problem and view is None:
            problem = STALE_LINKED_RELEASE
        if problem:  # an input, an earlier release or a stale one: never written from here
            self.window.error("Export failed", problem)
            return False
        files, folder = self.linked_export_files(), Path(folder)

        def work(progress, cancel) -> dict[str, Path]:
            return write_linked_files(view.released(current.release()), view.original,
                                      folder, files, reidentification, progress, cancel)

        worker = (job or view_job(self.window, "linked-export")).start(
            work, on_finished=lambda written: self._linked_exported(folder, written),
            on_failed=None if job is not None else
            lambda message: self.window.error("Export failed", message))
        return self._waited(worker) if wait else True

    def _linked_exported(self, folder: Path, written: dict[str, Path]) -> None:
        table = written.pop("reidentification", None)
        names = ", ".join(path.name for path in written.values())
        also = f"; the re-identification table to {table}" if table else ""
        self.window.statusBar().showMessage(f"Exported {names} to {folder}{also}", 8000)
        log.info("Exported %d linked tables and their report to %s%s", len(written) - 1,
                 folder, " (and a re-identification table)" if table else "")

    @staticmethod
    def _waited(worker: JobWorker) -> bool:
        """Run the event loop until ``worker`` ended; True if it finished."""
        finished: list[bool] = []
        loop = QEventLoop()
        worker.finished.connect(lambda _outcome: (finished.append(True), loop.quit()))
        worker.failed.connect(lambda _message: loop.quit())
        worker.cancelled.connect(loop.quit)
        loop.exec()
        return bool(finished)

    def linked_export_files(self) -> dict[str, str]:
        """The released tables' file names by table name, the patient table first."""
        state = self.state
        return {name: f"{name}.csv" for name in (state.patient_table, *state.events)}

    def linked_export_problem(self, folder: str | Path) -> str:
        """Why the linked tables cannot go to ``folder`` ("" if they can)."""
        from arxpy.workflows.linked_release import REPORT_FILE

        existing = [n for n in (*self.linked_export_files().values(), REPORT_FILE)
                    if (Path(folder) / n).exists()]
        return (f"The folder already holds {existing[0]}; choose another folder."
                if existing else "")

    def _open_linked_export(self, current: CurrentRelease | None) -> bool:
        from arxpy.gui.linked_export_dialog import LinkedExportDialog

        if current is None:
            return False
        self.linked_export_dialog = LinkedExportDialog(self, current)
        self.linked_export_dialog.open()
        return True

    # --- recent projects and recovery ----------------------------------------------------

    def recent(self) -> list[str]:
        value = self.window.settings.value(RECENT_KEY, [])
        items = [value] if isinstance(value, str) else list(value or [])
        return [str(v) for v in items if v]

    def add_recent(self, path: Path) -> None:
        path_text = str(Path(path).resolve())
        items = [path_text] + [p for p in self.recent() if p != path_text]
        self.window.settings.setValue(RECENT_KEY, items[:MAX_RECENT])
        self.refresh_recent()

    def refresh_recent(self) -> None:
        items = [p for p in self.recent() if Path(p).exists()]
        self.window.start_page.set_recent(items)
        menu = getattr(self.window, "recent_menu", None)
        if menu is None:
            return
        menu.clear()
        for path in items:
            menu.addAction(Path(path).name, lambda p=path: self.open_project(p))
        menu.setEnabled(bool(items))

    def offer_recovery(self) -> bool:
        """After a crash: offer the autosaved copy; True if it was restored."""
        autosave = self.window.autosave
        pending = autosave.pending()
        if pending is None:
            return False
        when = dt.datetime.fromtimestamp(pending["saved_at"]).strftime("%Y-%m-%d %H:%M") \
            if pending.get("saved_at") else "an earlier session"
        answer = QMessageBox.question(
            self.window, "Recover unsaved changes",
            escaped(f"arxpy did not close cleanly. An autosaved copy of '{pending['name']}' "
                    f"from {when} has unsaved changes. Restore it?"),
            _Button.Yes | _Button.No, _Button.Yes)
        if answer != _Button.Yes:
            autosave.remove()
            return False
        try:
            project, path = autosave.restore()
        except ArxpyError as exc:
            self.window.error("Recovery failed", str(exc))
            autosave.remove()
            return False
        self.window.set_project(project, path, modified=True)
        log.info("Restored the autosaved copy of '%s'", pending["name"])
        self.window.keys.ask_on_open()
        return True
