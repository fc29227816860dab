"""Jobs that give way to the GUI thread while it is busy.

Python threads share one interpreter lock: while an analysis runs, a GUI-thread slot or
paint gets the lock only every other switch interval, so 30 ms of drawing took 60-90 ms
with one or two analyses running (measured with benchmarks/risk_responsiveness.py).
The GUI thread refreshes a :class:`EventLoopBeat` every few milliseconds; a job checks
it wherever it checks for cancellation and, while the beat is late (the GUI thread is in
a long slot or paint), sleeps briefly so that the GUI thread has the lock to itself.
The results are unchanged: the job only waits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

from arxpy.jobs import CancelToken

#: How often the GUI thread shows it is free (ms).
BEAT_MS = 5
#: A beat older than this (s) means the GUI thread is busy.
LATE = 0.015
#: A job sleeps in steps of this (s) while the GUI thread is busy ...
PAUSE = 0.002
#: ... but at most this long (s) per check, so a GUI thread blocked outside Python
#: (which needs no lock) slows a job down without stopping it.
MAX_PAUSE = 0.25
#: A beat older than this (s) is not a busy GUI thread but a gone one (its window was
#: closed while a job still ran, or its loop blocks outside Python): jobs stop pausing.
GONE = 1.0


class EventLoopBeat(QObject):
    """A timestamp the GUI thread's event loop refreshes every BEAT_MS while running."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.last = time.monotonic()
        self._running = False  # read by jobs: a plain attribute, no Qt call off the GUI thread
        self._timer = QTimer(self)
        self._timer.setInterval(BEAT_MS)
        self._timer.timeout.connect(self._beat)

    def _beat(self) -> None:
        self.last = time.monotonic()

    def start(self) -> None:
        """Beat (while jobs run); idempotent."""
        if not self._running:
            self._beat()
            self._timer.start()
            self._running = True

    def stop(self) -> None:
        self._running = False
        self._timer.stop()

    @property
    def late(self) -> bool:
        """True while the GUI thread has not reached its event loop for LATE seconds, but
        for less than GONE (read from a job's thread)."""
        return self._running and LATE < time.monotonic() - self.last < GONE


class CourteousToken(CancelToken):
    """``token`` (cancelling one cancels the other) whose checks pause while ``beat``
    is late."""

    def __init__(self, token: CancelToken, beat: EventLoopBeat) -> None:  # noqa: D107
        # No super().__init__(): the flag is the wrapped token's.
        self._token = token
        self._beat = beat

    def cancel(self) -> None:
        self._token.cancel()

    @property
    def cancelled(self) -> bool:
        return self._token.cancelled

    def raise_if_cancelled(self) -> None:
        self._token.raise_if_cancelled()
        waited = 0.0
        while self._beat.late and waited < MAX_PAUSE:
            time.sleep(PAUSE)
            waited += PAUSE
        self._token.raise_if_cancelled()


def courteous(function: Callable[..., Any], beat: EventLoopBeat) -> Callable[..., Any]:
    """The job ``function`` with its cancel token made courteous to the GUI thread."""

    def run(*, progress: Any, cancel: CancelToken, **kwargs: Any) -> Any:
        return function(progress=progress, cancel=CourteousToken(cancel, beat), **kwargs)

    return run
