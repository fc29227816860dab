"""Autosave: a recovery copy of a modified project, offered again after a crash.

While the project is modified, a timer writes it every :data:`INTERVAL_MS` to
``recovery.arxpy`` in the recovery folder (by default the application's data folder
from QStandardPaths), with ``recovery.json`` naming the project file it belongs to.
Saving or closing cleanly removes both; finding them at start means arxpy did not
end cleanly, and the window offers to restore the copy.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QStandardPaths, QTimer

from arxpy.data.atomic import atomic_write
from arxpy.errors import ArxpyError
from arxpy.gui.state import AppState
from arxpy.project import Project

log = logging.getLogger(__name__)

INTERVAL_MS = 60_000
RECOVERY_FILE = "recovery.arxpy"
META_FILE = "recovery.json"


def default_recovery_dir() -> Path:
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(location or Path.home() / ".arxpy") / "recovery"


class Autosave(QObject):
    """Writes recovery copies of ``state``'s project while it is modified."""

    def __init__(self, state: AppState, directory: Path | None = None,
                 interval_ms: int = INTERVAL_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.directory = Path(directory) if directory is not None else default_recovery_dir()
        self.timer = QTimer(self, interval=interval_ms)
        self.timer.timeout.connect(self.save_now)
        state.modified_changed.connect(self._modified_changed)

    @property
    def file(self) -> Path:
        return self.directory / RECOVERY_FILE

    @property
    def meta_file(self) -> Path:
        return self.directory / META_FILE

    def _modified_changed(self, modified: bool) -> None:
        if modified:
            self.timer.start()
        else:
            self.timer.stop()
            self.remove()

    def save_now(self) -> Path | None:
        """Write the recovery copy if the project is modified; returns its path."""
        if not self.state.modified or self.state.project is None:
            return None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self.state.project.save(self.file)
            meta = {"project_path": str(self.state.path) if self.state.path else None,
                    "name": self.state.project.name, "saved_at": time.time()}
            with atomic_write(self.meta_file) as handle:
                handle.write(json.dumps(meta))
        except (ArxpyError, OSError) as exc:  # autosave must never interrupt the user
            log.warning("Autosave failed: %s", exc)
            return None
        log.info("Autosaved a recovery copy to %s", self.file)
        return self.file

    def remove(self) -> None:
        """Delete the recovery copy (after a clean save or close)."""
        for path in (self.file, self.meta_file):
            path.unlink(missing_ok=True)

    def pending(self) -> dict[str, Any] | None:
        """The description of a recovery copy left by an earlier session, or None."""
        if not self.file.exists():
            return None
        try:
            meta = json.loads(self.meta_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        return {"project_path": meta.get("project_path"), "name": meta.get("name", "project"),
                "saved_at": meta.get("saved_at")}

    def restore(self) -> tuple[Project, Path | None]:
        """The recovered project and the file it belongs to; raises ProjectError."""
        meta = self.pending() or {}
        path = meta.get("project_path")
        return Project.load(self.file), Path(path) if path else None
