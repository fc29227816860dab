"""Background computations of the Explore perspective, via the shell's JobWorker.

Outputs of a :class:`~arxpy.engine.result.Result` share a cache, so the explorer's
jobs take :data:`RESULT_LOCK` and never compute two outputs at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from arxpy.gui.workers import JobWorker

RESULT_LOCK = threading.Lock()


def start_job(parent: QObject, function: Callable[[], Any],
              finished: Callable[[Any], None],
              failed: Callable[[str], None] | None = None) -> JobWorker:
    """Run ``function()`` on a worker thread; ``finished(value)`` runs on the GUI thread."""

    def job(progress: Callable[[float, str], None], cancel: Any) -> Any:
        with RESULT_LOCK:
            cancel.raise_if_cancelled()
            return function()

    worker = JobWorker(job, parent)
    worker.finished.connect(finished)
    if failed is not None:
        worker.failed.connect(failed)
    worker.start()
    return worker
