"""Start the Qt application."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from arxpy.gui.main_window import MainWindow


def run_app(project_path: Path | None = None, example: bool = False) -> int:
    """Open the main window, optionally with a project or the example; returns the exit code."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("arxpy")
    app.setOrganizationName("arxpy")
    window = MainWindow()
    if project_path is not None:
        window.open_project(project_path)
    elif example:
        window.open_example()
    window.show()
    return app.exec()
