"""Start the Qt application."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata, resources
from pathlib import Path

from PySide6.QtCore import QTimer, qVersion
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QApplication

from arxpy._version import __version__
from arxpy.jobs import INTERRUPTED

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


def application_icon() -> QIcon:
    """The arxpy icon (``arxpy.resources/icons/arxpy.svg``, read as package data)."""
    data = (resources.files("arxpy.resources") / "icons" / "arxpy.svg").read_bytes()
    pixmap = QPixmap()
    pixmap.loadFromData(data, "SVG")  # Qt's svg image-format plugin
    return QIcon(pixmap)


def run_app(project_path: Path | None = None, example: bool = False, *,
            startup_time: bool = False, smoke_output: Path | None = None) -> int:
    """Open the main window, optionally with a project or the example; returns the exit code.

    Without either, an autosaved copy left by a crash is offered first.
    ``startup_time`` prints when the window became usable and quits; ``smoke_output``
    anonymizes the open project, exports to that file and quits
    (see :mod:`arxpy.gui.smoke`).
    """
    from arxpy.gui.main_window import MainWindow
    from arxpy.gui.platform_check import check_platform

    if QApplication.instance() is None:
        check_platform()  # one clear line instead of Qt's abort on a machine without X libraries
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("arxpy")
    app.setOrganizationName("arxpy")
    app.setWindowIcon(application_icon())
    with _quit_on_interrupt(app):
        window = MainWindow()
        window.show()
        non_interactive = startup_time or smoke_output is not None
        if non_interactive:  # before the project opens: errors must not wait for a person
            from arxpy.gui import smoke

            if smoke_output is not None:
                smoke.SmokeTest(app, window, smoke_output)
            else:
                smoke.report_startup(app, window)
        if project_path is not None:
            window.projects.open_project(project_path)
        elif example:
            window.projects.open_example()
        elif not non_interactive:  # a recovery question would wait for a person
            window.projects.offer_recovery()
        code = app.exec()
    if INTERRUPTED.is_set():
        raise KeyboardInterrupt  # the CLI prints one line and exits with status 130
    return code


@contextmanager
def _quit_on_interrupt(app: QApplication) -> Iterator[None]:
    """Ctrl-C in the terminal ends the application, whatever it is doing.

    Before the event loop runs (start-up, loading a project) the interrupt is raised
    as usual; a slot called by Qt may swallow it, but the CLI has noted it
    (:data:`arxpy.jobs.INTERRUPTED`). Once the loop runs, the handler leaves it (nested
    dialogs included) instead of raising inside whichever slot runs next. Qt runs no
    Python between events, so a timer gives the handler a turn and leaves a loop that a
    swallowed interrupt could not. Unsaved work stays in the autosave (see
    :mod:`arxpy.gui.autosave`), which the next start offers.
    """
    looping = [False]
    previous = signal.getsignal(signal.SIGINT)

    def handle(signum: int, frame: object) -> None:
        INTERRUPTED.set()
        if looping[0]:
            app.exit(1)
        elif callable(previous):
            previous(signum, frame)
        else:
            raise KeyboardInterrupt

    def tick() -> None:
        looping[0] = True
        if INTERRUPTED.is_set():
            app.exit(1)

    on_main_thread = threading.current_thread() is threading.main_thread()
    if on_main_thread:
        signal.signal(signal.SIGINT, handle)
    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(200)
    try:
        yield
    finally:
        timer.stop()
        if on_main_thread:
            signal.signal(signal.SIGINT, previous)
