"""Non-interactive runs of the real desktop start-up: start-up timing and a smoke test.

Both drive the window that ``arxpy gui`` opens, through the same actions a person
uses, so a frozen bundle can be checked on a machine without a screen
(``QT_QPA_PLATFORM=offscreen``):

- ``arxpy gui --startup-time`` prints the seconds from the start of the process until
  the window is *usable* (shown, and the event loop about to wait for input with no
  work pending), and the CPU time used until then, then quits with status 0.
- ``arxpy gui --example --smoke-test OUT.csv`` waits for that moment, runs the default
  anonymization of the open project (Configure's Anonymize), exports the applied
  transformation to OUT.csv (File > Export), closes the window and exits 0. Any
  failure prints one line on stderr and exits 1; nothing waits for a person.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractEventDispatcher, QObject, QTimer
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from arxpy.gui.main_window import MainWindow

#: Exit status of a smoke test that failed (a user error of the CLI is 2).
SMOKE_FAILED = 1
#: A smoke test that has not finished after this long has hung (s); the example's
#: default search takes a few seconds.
SMOKE_TIMEOUT_S = 300.0

# Interpreter start, the fallback where the process start time is unknown.
_IMPORTED_AT = time.monotonic() - time.process_time()


def seconds_since_process_start() -> float:
    """Wall-clock seconds since this program was started (Linux), else an estimate.

    On Linux the kernel's start time of the process (``/proc/<pid>/stat``, in clock
    ticks on the boot-time clock) covers the interpreter's start; for a frozen bundle
    whose bootloader started this process as its child, the bootloader's start is
    taken. Elsewhere the estimate starts when this module was imported, less the CPU
    time used until then.
    """
    try:
        pid = os.getpid()
        if getattr(sys, "frozen", False) and _is_bootloader(os.getppid()):
            pid = os.getppid()
        return time.clock_gettime(time.CLOCK_BOOTTIME) - _start_seconds(pid)
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic() - _IMPORTED_AT


def _start_seconds(pid: int) -> float:
    """When process ``pid`` started, in seconds on the boot-time clock (Linux)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        # Fields after the command name (which may hold spaces); start time is field 22.
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[19]) / os.sysconf("SC_CLK_TCK")


def _is_bootloader(pid: int) -> bool:
    """Is ``pid`` the same executable as this one (PyInstaller's parent process)?"""
    try:
        return os.path.realpath(f"/proc/{pid}/exe") == os.path.realpath(sys.executable)
    except OSError:
        return False


def when_usable(app: QApplication, window: MainWindow,
                action: Callable[[], None]) -> Callable[[], None]:
    """Call ``action`` once, the first time the event loop idles with ``window`` usable.

    Usable: the window is visible and, on a real display, exposed (mapped by the window
    manager; the offscreen platform never exposes a window). Idle: the event dispatcher
    is about to block waiting for events, so start-up work queued on the loop is done.
    """
    dispatcher = QAbstractEventDispatcher.instance()
    offscreen = app.platformName() == "offscreen"
    connected = [True]

    def forget() -> None:
        """Stop waiting (done, or the window went before it became usable)."""
        if connected[0]:
            connected[0] = False
            dispatcher.aboutToBlock.disconnect(check)

    def check() -> None:
        try:
            handle = window.windowHandle()
            usable = window.isVisible() and (
                offscreen or (handle is not None and handle.isExposed()))
        except RuntimeError:  # the window was deleted while this waited
            forget()
            return
        if usable:
            forget()
            action()

    dispatcher.aboutToBlock.connect(check)
    return forget


def report_startup(app: QApplication, window: MainWindow) -> None:
    """Print the start-up time when the window becomes usable, then quit (status 0)."""

    def report() -> None:
        # CPU time too: on a busy machine it says what the wall time would be on a quiet one.
        print(f"arxpy: window usable after {seconds_since_process_start():.2f} s "
              f"({time.process_time():.2f} s of CPU)", flush=True)
        _quit(app, window, 0)

    when_usable(app, window, report)


class SmokeTest(QObject):
    """Anonymize the open project with its settings, export the result, quit.

    Errors the window would show in a dialog end the run instead (status
    :data:`SMOKE_FAILED`), as does a run that takes longer than ``timeout`` seconds.
    """

    def __init__(self, app: QApplication, window: MainWindow, output: Path,
                 timeout: float = SMOKE_TIMEOUT_S) -> None:
        super().__init__(window)
        self.app, self.window, self.output = app, window, Path(output)
        self._done = False
        window.error = self._error  # a modal dialog would wait for a person forever
        self._watchdog = QTimer(self, singleShot=True, interval=int(timeout * 1000))
        self._watchdog.timeout.connect(
            lambda: self._fail(f"no result after {timeout:.0f} s"))
        self._watchdog.start()
        self._stop_waiting = when_usable(app, window, self._start)

    def _start(self) -> None:
        if self._done:  # opening the project failed
            return
        if not self.window.state.has_project:
            self._fail("no project is open (pass --example or a project file)")
            return
        # A project saved with its result is already being restored on open.
        worker = self.window.worker or self.window.anonymize()
        if worker is None:
            if not self._done:
                self._fail("the anonymization did not start")
            return
        # Connected after the window's own slots, so the result is applied when these run.
        worker.finished.connect(lambda _result: QTimer.singleShot(1, self._export))
        worker.cancelled.connect(lambda: self._fail("the anonymization was cancelled"))
        # A saved result that is refused leaves the project open: anonymize it then (a
        # failed search has already failed the smoke test through the error dialog).
        worker.failed.connect(lambda _message: QTimer.singleShot(1, self._start))

    def _export(self) -> None:
        state = self.window.state
        if state.applied is None:
            self._fail("the search found no transformation that satisfies the privacy "
                       "models")
            return
        if not self.window.projects.export_data(self.output) or self._done:
            if not self._done:
                self._fail(f"nothing was exported to {self.output}")
            return
        records = len(state.result.release(state.applied).export_table())
        print(f"arxpy: smoke test passed: anonymized {len(state.data):,} records, "
              f"transformation {list(state.applied)}, exported {records:,} records to "
              f"{self.output}", flush=True)
        self._finish(0)

    def _error(self, title: str, message: str) -> None:
        self._fail(f"{title}: {message}")

    def _fail(self, why: str) -> None:
        if self._done:
            return
        print(f"arxpy: smoke test failed: {why}", file=sys.stderr, flush=True)
        self._finish(SMOKE_FAILED)

    def _finish(self, code: int) -> None:
        self._done = True
        self._stop_waiting()  # a failure before the window was usable leaves nothing behind
        self._watchdog.stop()
        if self.window.worker is not None:
            self.window.stop_run()
        _quit(self.app, self.window, code)


def _quit(app: QApplication, window: MainWindow, code: int) -> None:
    """Leave the event loop with ``code`` without asking about unsaved changes.

    Nothing a non-interactive run changed is worth keeping, so the autosaved copy goes
    too (it would otherwise be offered for recovery at the next start).
    """
    window.autosave.timer.stop()
    window.autosave.remove()
    window.hide()
    # Deferred: before the event loop runs (a project failing to open) exit() is ignored.
    QTimer.singleShot(1, lambda: app.exit(code))
