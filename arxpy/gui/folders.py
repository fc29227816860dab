"""File dialogs that start where the user last was, per kind of file.

Data, hierarchies, projects and exports each remember their last folder in the
application settings; hierarchies start in the data's folder until one is chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLineEdit, QPushButton, QWidget

KINDS = ("data", "hierarchies", "projects", "exports", "keys")
#: Where a kind starts before it has a folder of its own.
_FALLBACK = {"hierarchies": "data", "data": "projects", "exports": "projects",
             "keys": "projects"}


def settings_of(widget: QWidget | None) -> QSettings:
    """The main window's settings (tests give it its own file), else the application's."""
    window = widget.window() if widget is not None else None
    settings = getattr(window, "settings", None)
    return settings if isinstance(settings, QSettings) else QSettings()


def last_folder(settings: QSettings, kind: str) -> str:
    """The folder to start a dialog of ``kind`` in ("" for the working directory)."""
    while kind:
        folder = settings.value(f"folders/{kind}", "")
        if folder and Path(str(folder)).is_dir():
            return str(folder)
        kind = _FALLBACK.get(kind, "")
    return ""


def remember(settings: QSettings, kind: str, path: str | Path) -> None:
    """``path`` was chosen for ``kind``: its folder is where the next dialog starts."""
    settings.setValue(f"folders/{kind}", str(Path(path).resolve().parent))


def start_path(settings: QSettings, kind: str, name: str = "") -> str:
    """Where a dialog opens: ``name`` (a file name or absolute path) in the kind's folder."""
    if name and Path(name).is_absolute():
        return name
    folder = last_folder(settings, kind)
    return str(Path(folder, name)) if folder else name


def pick_path(parent: QWidget, kind: str, save: bool, title: str, filters: str,
              name: str = "") -> str:
    """Ask for a file of ``kind`` (one of :data:`KINDS`); "" if cancelled."""
    settings = settings_of(parent)
    start = start_path(settings, kind, name)
    dialog = QFileDialog.getSaveFileName if save else QFileDialog.getOpenFileName
    path = dialog(parent, title, start, filters)[0]
    if path:
        remember(settings, kind, path)
    return path


def pick_paths(parent: QWidget, kind: str, title: str, filters: str) -> list[str]:
    """Ask for several existing files of ``kind``; [] if cancelled."""
    settings = settings_of(parent)
    paths = QFileDialog.getOpenFileNames(parent, title, last_folder(settings, kind), filters)[0]
    if paths:
        remember(settings, kind, paths[0])
    return list(paths)


def pick_folder(parent: QWidget, kind: str, title: str) -> str:
    """Ask for a folder of ``kind`` (where the next dialog of that kind starts); "" if
    cancelled."""
    settings = settings_of(parent)
    path = QFileDialog.getExistingDirectory(parent, title, last_folder(settings, kind))
    if path:
        settings.setValue(f"folders/{kind}", str(Path(path).resolve()))
    return path


def path_row(button_text: str, slot: Callable[[], object]) -> tuple[QLineEdit, QWidget]:
    """A path field with a button beside it that fills it."""
    edit = QLineEdit()
    button = QPushButton(button_text)
    button.clicked.connect(slot)
    row = QWidget()
    box = QHBoxLayout(row)
    box.setContentsMargins(0, 0, 0, 0)
    box.addWidget(edit, 1)
    box.addWidget(button)
    return edit, row
