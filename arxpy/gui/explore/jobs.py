"""Background computations of the Explore perspective, via the shell's JobWorker.

:class:`~arxpy.engine.result.Result` computes each output from its stored data with a
search context of the call's own, so jobs of several views ask it for outputs at once
without waiting for each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from arxpy.gui.workers import JobWorker


def start_job(parent: QObject, function: Callable[[], Any],
              finished: Callable[[Any], None],
              failed: Callable[[str], None] | None = None) -> JobWorker:
    """Run ``function()`` on a worker thread; ``finished(value)`` runs on the GUI thread."""

    def job(progress: Callable[[float, str], None], cancel: Any) -> Any:
        cancel.raise_if_cancelled()
        return function()

    worker = JobWorker(job, parent)
    worker.finished.connect(finished)
    if failed is not None:
        worker.failed.connect(failed)
    worker.start()
    return worker
