"""The one place that adapts engine jobs (plain functions on worker threads) to Qt signals.

The job runs on a Python thread started by :class:`arxpy.jobs.JobRunner`. Its progress
(the latest report, coalesced) and its end reach the GUI thread as
queued signals, so the public signals are emitted on the GUI thread, nothing polls, and
no widget is touched from the worker.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QProgressBar, QWidget

from arxpy.errors import ArxpyError, CancelledError
from arxpy.jobs import CancelToken, Job, JobRunner

log = logging.getLogger(__name__)


class _GcPause:
    """Keeps long-lived objects out of full garbage collections while any job runs.

    A job's allocations trigger full collections that pause every thread; rescanning
    the long-lived objects (modules, the project, the widgets) made each pause 60-100 ms
    on the GUI thread. They are frozen while jobs run and unfrozen when the last one
    ends: frozen objects are never collected, so an old result that became garbage
    during a run must be collectable again afterwards.
    """

    def __init__(self) -> None:
        self._running = 0
        self._lock = threading.Lock()

    def around(self, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` with the pause held while it runs (on the job's own thread, so
        the pause ends with the job even if nobody polls it any more)."""
        with self._lock:
            if self._running == 0:
                gc.freeze()
            self._running += 1

        def run(**kwargs: Any) -> Any:
            try:
                return function(**kwargs)
            finally:
                with self._lock:
                    self._running -= 1
                    if self._running == 0:
                        gc.unfreeze()
        return run


_GC_PAUSE = _GcPause()


class JobWorker(QObject):
    """Runs one job; emits ``progress(percent, message)`` then exactly one of
    ``finished(result)``, ``failed(message)`` or ``cancelled()``."""

    progress = Signal(int, str)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    # Emitted on the job's thread; queued to this object's (the GUI) thread.
    _reported = Signal()
    _ended = Signal()

    def __init__(self, function: Callable[..., Any], parent: QObject | None = None,
                 **kwargs: Any) -> None:
        super().__init__(parent)
        self._function = function
        self._kwargs = kwargs
        self._job: Job[Any] | None = None
        self._token = CancelToken()
        # The job's latest report, and whether a signal about it is on its way: reports
        # coalesce, so a busy job never floods the event loop and the latest is never lost.
        self._lock = threading.Lock()
        self._latest: tuple[float, str] | None = None
        queued = Qt.ConnectionType.QueuedConnection
        self._reported.connect(self._show_progress, queued)
        self._ended.connect(self._end, queued)

    @property
    def running(self) -> bool:
        return self._job is not None

    def start(self) -> None:
        # Hand the GIL to a waiting thread after 1 ms instead of Python's 5 ms, so the GUI
        # thread is not kept waiting by a busy job.
        sys.setswitchinterval(0.001)
        self._job = JobRunner().start(_GC_PAUSE.around(self._function), self._report,
                                      self._token, on_done=self._from_job(self._ended.emit),
                                      **self._kwargs)

    @property
    def token(self) -> CancelToken:
        return self._token

    def cancel(self) -> None:
        """Ask the job to stop; ``cancelled`` follows once it has (within ~200 ms)."""
        self._token.cancel()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job's thread ends (for tests and shutdown); True if it has."""
        return self._job is None or self._job.wait(timeout)

    @staticmethod
    def _from_job(emit: Callable[..., None]) -> Callable[..., None]:
        """``emit`` as called from the job's thread: the window may have been closed and
        this object deleted meanwhile, and then nobody is waiting for the signal."""
        def call(*args: Any) -> None:
            try:
                emit(*args)
            except RuntimeError:  # "Internal C++ object already deleted"
                pass
        return call

    def _report(self, fraction: float, message: str) -> None:  # the job's thread
        with self._lock:
            waiting = self._latest is not None
            self._latest = (fraction, message)
        if not waiting:
            self._from_job(self._reported.emit)()

    def _show_progress(self) -> None:  # GUI thread
        with self._lock:
            latest, self._latest = self._latest, None
        if latest is not None and self._job is not None:  # none after the end
            self.progress.emit(round(100 * latest[0]), latest[1])

    def _end(self) -> None:  # GUI thread
        job, self._job = self._job, None
        if job is None:
            return
        # Nothing of the run stays reachable from this worker (a child of a long-lived
        # widget): not the job, its result, nor the inputs it was given.
        self._function, self._kwargs = None, {}
        self._finish(job)

    def _finish(self, job: Job[Any]) -> None:
        try:
            result = job.result()  # the outcome is stored; the thread is ending
        except CancelledError:
            self.cancelled.emit()
        except ArxpyError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # a bug: keep the traceback in the log, show the message
            log.error("The job failed unexpectedly", exc_info=exc)
            self.failed.emit(f"Unexpected error ({type(exc).__name__}): {exc}")
        else:
            self.finished.emit(result)


class ViewJob(QObject):
    """The background job a view owns: the one way views run jobs.

    Starting a job cancels the previous one and cuts its signals, so a late result of a
    replaced job never reaches the view; progress, cancel and the end are signals of
    this object. Each worker is deleted once it has ended.
    """

    progress = Signal(int, str)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    #: True when a job starts, False when it ends or is forgotten (for buttons and bars).
    busy = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker: JobWorker | None = None
        # When the view goes (its run closed, the window shut), the job is cancelled:
        # nobody will see its result and it would hold a core. The closure holds only
        # plain Python, which still works once the Qt objects are gone.
        tokens: list[CancelToken] = []
        self._tokens = tokens
        self.destroyed.connect(lambda *_: [token.cancel() for token in tokens])

    @property
    def running(self) -> bool:
        """Until the job's end has been signalled, not merely until its thread ended."""
        return self.worker is not None

    def start(self, function: Callable[..., Any], *,
              on_finished: Callable[[Any], None] | None = None,
              on_failed: Callable[[str], None] | None = None, **kwargs: Any) -> JobWorker:
        """Run ``function(**kwargs, progress=..., cancel=...)``, replacing any job.
        ``on_finished``/``on_failed`` hear this job only (not the next one)."""
        self.forget()
        worker = JobWorker(function, self, **kwargs)
        worker.progress.connect(self.progress)
        for signal, handler in ((worker.finished, self._finished), (worker.failed, self._failed),
                                (worker.cancelled, self._cancelled),
                                (worker.finished, on_finished), (worker.failed, on_failed)):
            if handler is not None:
                signal.connect(handler)
        self.worker = worker
        self._tokens[:] = [worker.token]
        worker.start()
        self.busy.emit(True)
        return worker

    def cancel(self) -> None:
        """Ask the job to stop; ``cancelled`` follows (within ~200 ms)."""
        if self.worker is not None:
            self.worker.cancel()

    def forget(self) -> None:
        """Cancel the job and hear nothing more of it (what it analysed is gone)."""
        worker, self.worker = self.worker, None
        if worker is None:
            return
        worker.cancel()
        for signal in (worker.progress, worker.finished, worker.failed, worker.cancelled):
            signal.disconnect()
        # It is deleted when its thread has ended (the end is still signalled to it).
        worker.finished.connect(worker.deleteLater)
        worker.failed.connect(worker.deleteLater)
        worker.cancelled.connect(worker.deleteLater)
        self.busy.emit(False)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job's thread ends (tests and shutdown); True if it has."""
        return self.worker is None or self.worker.wait(timeout)

    def _ended(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.deleteLater()
        self.busy.emit(False)

    def _finished(self, result: Any) -> None:
        self._ended()
        self.finished.emit(result)

    def _failed(self, message: str) -> None:
        self._ended()
        self.failed.emit(message)

    def _cancelled(self) -> None:
        self._ended()
        self.cancelled.emit()


def view_job(owner: QObject, slot: str = "") -> ViewJob:
    """The :class:`ViewJob` of ``owner`` for ``slot`` (made on first use): a view whose
    jobs of one kind replace each other asks for the same slot every time."""
    name = f"view-job:{slot}"
    job = owner.findChild(ViewJob, name, Qt.FindChildOption.FindDirectChildrenOnly)
    if job is None:
        job = ViewJob(owner)
        job.setObjectName(name)
    return job


class JobProgressBar(QProgressBar):
    """The progress bar of a background job: a new value is painted at the next
    event-loop turn, with everything else.

    QProgressBar.setValue repaints at once (not at the next turn), and that paints every
    other dirty widget of the window with it (plots included): with a job reporting every
    few tens of milliseconds the event loop stalled for a whole window's painting.
    """

    def setValue(self, value: int) -> None:  # noqa: N802 - Qt's name
        self.setUpdatesEnabled(False)
        super().setValue(value)
        self.setUpdatesEnabled(True)  # schedules an update()


class JobDialog(QDialog):
    """A dialog that runs one background job (:attr:`job`, a :class:`ViewJob`): Run,
    Cancel run and Close buttons that follow whether it runs; closing the dialog cancels
    the job. Subclasses build their form, add :meth:`job_buttons` and define ``run``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = ViewJob(self)
        self.job.busy.connect(self._set_running)

    def job_buttons(self, run_text: str,
                    cancel: Callable[[], None] | None = None) -> QDialogButtonBox:
        """The button row; ``cancel`` (default: cancel the job) for Cancel run."""
        role = QDialogButtonBox.ButtonRole
        self.buttons = QDialogButtonBox()
        self.run_button = self.buttons.addButton(run_text, role.AcceptRole)
        self.cancel_button = self.buttons.addButton("Cancel run", role.ActionRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(cancel or self.job.cancel)
        self.close_button.clicked.connect(self.reject)
        self.cancel_button.setEnabled(False)
        return self.buttons

    def run(self) -> Any:
        raise NotImplementedError

    def reject(self) -> None:  # closing the dialog stops its job
        if self.job.running:
            self.job.cancel()
            self.job.wait(5)
        super().reject()

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
