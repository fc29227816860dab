"""Jobs: long work as plain functions with a progress callback and a cancel token.

A job is a callable taking keyword arguments ``progress`` and ``cancel``. It reports
``progress(fraction, message)`` with ``fraction`` in [0, 1] and calls
``cancel.raise_if_cancelled()`` often enough to stop within 200 ms. Cancelling
raises :class:`~arxpy.errors.CancelledError` out of the job, which therefore leaves
no half-built result behind. :class:`JobRunner` runs one job on a worker thread for
the GUI and the CLI.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any, Generic, Protocol, TypeVar

from arxpy.errors import CancelledError

T = TypeVar("T")


class Progress(Protocol):
    """``progress(fraction, message)``: fraction done in [0, 1] and what is happening."""

    def __call__(self, fraction: float, message: str) -> None: ...


def no_progress(fraction: float, message: str) -> None:
    """A progress callback that ignores every report."""


def progress_part(progress: Progress | None, start: float, share: float) -> Progress | None:
    """``progress`` of a step that fills ``share`` of the bar from ``start`` (None stays
    None)."""
    if progress is None:
        return None
    return lambda fraction, message: progress(start + share * fraction, message)


class CancelToken:
    """A thread-safe flag a job polls to learn that it should stop."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the job to stop; safe from any thread, idempotent."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        """Raise :class:`CancelledError` if :meth:`cancel` was called."""
        if self._event.is_set():
            raise CancelledError("The job was cancelled; nothing it produced was kept.")


class ThrottledProgress:
    """Forwards at most one report per ``interval`` seconds (plus the first and the last)."""

    def __init__(self, progress: Progress | None, interval: float = 0.05) -> None:
        self._progress = progress or no_progress
        self._interval = interval
        self._last = -1.0

    def __call__(self, fraction: float, message: str) -> None:
        now = time.monotonic()
        if fraction >= 1.0 or now - self._last >= self._interval:
            self._last = now
            self._progress(min(max(float(fraction), 0.0), 1.0), message)


class Job(Generic[T]):
    """A job running on a worker thread; see :class:`JobRunner`."""

    def __init__(self, function: Callable[..., T], progress: Progress | None,
                 cancel: CancelToken, on_done: Callable[[], None] | None = None) -> None:
        self.cancel_token = cancel
        self._function = function
        self._progress = progress or no_progress
        self._on_done = on_done
        self._result: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="arxpy-job", daemon=True)

    def _run(self) -> None:
        try:
            self._result = self._function(progress=self._progress, cancel=self.cancel_token)
        except BaseException as exc:  # handed to the caller of result()
            self._error = exc
        if self._on_done is not None:  # on the job's thread, once the outcome is stored
            self._on_done()

    def start(self) -> Job[T]:
        self._thread.start()
        return self

    def cancel(self) -> None:
        self.cancel_token.cancel()

    @property
    def done(self) -> bool:
        return self._thread.ident is not None and not self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the job ends; ``True`` if it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def result(self, timeout: float | None = None) -> T:
        """The job's return value; re-raises the job's exception (CancelledError included)."""
        if not self.wait(timeout):
            raise TimeoutError("The job is still running.")
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]


class JobRunner:
    """Starts jobs on worker threads."""

    def start(self, function: Callable[..., T], progress: Progress | None = None,
              cancel: CancelToken | None = None, *,
              on_done: Callable[[], None] | None = None, **kwargs: Any) -> Job[T]:
        """Run ``function(**kwargs, progress=..., cancel=...)`` on a new thread;
        ``on_done()`` is called on that thread when the job's outcome is known."""
        def bound(progress: Progress, cancel: CancelToken) -> T:
            return function(progress=progress, cancel=cancel, **kwargs)
        return Job(bound, progress, cancel or CancelToken(), on_done).start()


def run_job(function: Callable[..., T], progress: Progress | None = None,
            cancel: CancelToken | None = None, **kwargs: Any) -> Job[T]:
    """Shortcut for ``JobRunner().start(...)``."""
    return JobRunner().start(function, progress, cancel, **kwargs)


# --- Ctrl-C ----------------------------------------------------------------------------

#: Set once a SIGINT arrived while :func:`noting_interrupts` was active: a library or a
#: Qt slot may swallow the KeyboardInterrupt, the note stays (the GUI reads it).
INTERRUPTED = threading.Event()


@contextmanager
def noting_interrupts() -> Iterator[None]:
    """Within the block, Ctrl-C raises KeyboardInterrupt as usual and also sets
    :data:`INTERRUPTED`, cleared on entry (main thread only; elsewhere nothing changes)."""
    INTERRUPTED.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def note(_signum: int, _frame: FrameType | None) -> None:
        INTERRUPTED.set()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class InterruptWatch:
    """Within ``with InterruptWatch() as watch:``, ``watch.seen`` turns True on SIGINT.

    pandas' C parser reads a non-UTF-8 file through a Python-level decoder; a Ctrl-C
    landing there surfaces as ``ParserError: Error tokenizing data. C error: Calling
    read(nbytes) on source failed`` with the interrupt itself gone. The watch notes it,
    so the caller can give the interrupt back instead of blaming the file. The previous
    handler still runs; off the main thread (no signals there) the watch does nothing.
    """

    def __init__(self) -> None:
        self.seen = False
        self._previous: Any = None

    def __enter__(self) -> InterruptWatch:
        if threading.current_thread() is not threading.main_thread():
            return self
        previous = signal.getsignal(signal.SIGINT)
        if not callable(previous):  # ignored or the default action: nothing to chain
            return self

        def noting(signum: int, frame: FrameType | None) -> None:
            self.seen = True
            previous(signum, frame)

        self._previous = previous
        signal.signal(signal.SIGINT, noting)
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def reraise(self) -> None:
        """Raise KeyboardInterrupt if a SIGINT arrived (call where a parse failed)."""
        if self.seen:
            raise KeyboardInterrupt
