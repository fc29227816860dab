"""Start the Qt application."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QApplication

from arxpy._version import __version__

#: Libraries whose versions Help > About lists.
LIBRARIES = ("PySide6", "numpy", "pandas", "pyqtgraph", "scikit-learn", "statsmodels",
             "lifelines", "openpyxl")


#: Distributions that provide a library under another name (PySide6 comes as
#: PySide6-Essentials alone, without the PySide6 meta-package).
DISTRIBUTIONS = {"PySide6": ("PySide6", "PySide6-Essentials", "PySide6-Addons")}


def versions() -> dict[str, str]:
    """arxpy, Python and the libraries it uses, with their installed versions."""
    out = {"arxpy": __version__, "Python": sys.version.split()[0]}
    for name in LIBRARIES:
        out[name] = _installed_version(name)
    out["Qt"] = qVersion()  # the Qt library PySide6 runs on
    return out


def _installed_version(name: str) -> str:
    for distribution in DISTRIBUTIONS.get(name, (name,)):
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    return "not installed"


def run_app(project_path: Path | None = None, example: bool = False) -> int:
    """Open the main window, optionally with a project or the example; returns the exit code.

    Without either, an autosaved copy left by a crash is offered first.
    """
    from arxpy.gui.main_window import MainWindow
    from arxpy.gui.platform_check import check_platform

    if QApplication.instance() is None:
        check_platform()  # one clear line instead of Qt's abort on a machine without X libraries
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("arxpy")
    app.setOrganizationName("arxpy")
    window = MainWindow()
    window.show()
    if project_path is not None:
        window.projects.open_project(project_path)
    elif example:
        window.projects.open_example()
    else:
        window.projects.offer_recovery()
    return app.exec()
