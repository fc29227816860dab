"""File actions of the main window: new, open, import, save, save as, export, recent,
the prompt before discarding changes, and restoring an autosaved copy."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QMessageBox

from arxpy.errors import ArxpyError, ProjectError
from arxpy.gui.plain_text import escaped
from arxpy.project import PROJECT_SUFFIX, Project

if TYPE_CHECKING:
    from arxpy.gui.main_window import MainWindow

log = logging.getLogger(__name__)

RECENT_KEY = "recent_projects"
MAX_RECENT = 8
PROJECT_FILTER = f"arxpy projects (*{PROJECT_SUFFIX})"
_Button = QMessageBox.StandardButton


def load_checked(path: Path) -> Project:
    """A project whose settings were checked too, before any view sees them."""
    from arxpy.engine.config import check_settings

    project = Project.load(path)
    try:
        check_settings(project.settings)
    except ArxpyError as exc:
        raise ProjectError(f"Project file '{path}' has unusable settings: {exc}") from None
    return project


class ProjectActions:
    """What the File menu does, for one window."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

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

    def new_project(self) -> None:
        if self.confirm_discard("closing the project"):
            self.window.autosave.remove()
            self.window.set_project(None)

    def open_example(self) -> None:
        from arxpy.example import example_project

        if self.confirm_discard("opening the example"):
            self._guarded(lambda: self.window.set_project(example_project()))

    def open_project(self, path: str | Path | None = None) -> bool:
        if not self.confirm_discard("opening another project"):
            return False
        if path is None:
            path = self.window.pick_file(False, "Open project", PROJECT_FILTER)
            if not path:
                return False
        path = Path(path)
        if not self._guarded(lambda: self.window.set_project(load_checked(path), path)):
            return False
        self.add_recent(path)
        log.info("Opened %s", path)
        return True

    def import_data(self) -> None:
        from arxpy.gui.import_wizard import ImportWizard

        if not self.confirm_discard("importing data"):
            return
        wizard = ImportWizard(self.window)
        if wizard.exec() == QDialog.DialogCode.Accepted and wizard.project is not None:
            self.window.set_project(wizard.project, None, modified=True)
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
        if not self._guarded(lambda: self.state.project.save(path)):
            return False
        self.state.mark_saved(path)
        self.window.autosave.remove()
        self.add_recent(path)
        self.window.statusBar().showMessage(f"Saved {path}", 5000)
        log.info("Saved %s", path)
        return True

    def export_data(self, path: str | Path | None = None) -> bool:
        """Write the applied transformation's output (CSV or Excel by extension)."""
        from arxpy.data.export import export_table

        result, levels = self.state.result, self.state.applied
        if result is None or levels is None:
            return False
        if path is None:
            path = self.window.pick_file(True, "Export anonymized data",
                                         "CSV (*.csv);;Excel (*.xlsx)", "anonymized.csv")
            if not path:
                return False
        ok = self._guarded(lambda: export_table(result.output(levels).frame, path))
        if ok:
            self.window.statusBar().showMessage(f"Exported {path}", 5000)
            log.info("Exported the output of %s to %s", list(levels), path)
        return ok

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
        return True
