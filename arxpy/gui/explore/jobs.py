"""Background computations of the Explore perspective and its neighbours: a function
without progress run as a view's job (see :class:`arxpy.gui.workers.ViewJob`).

:class:`~arxpy.engine.result.Result` computes each output from its stored data with a
search context of the call's own, so jobs of several views ask it for outputs at once
without waiting for each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from arxpy.gui.workers import JobWorker, view_job


def start_job(parent: QObject, function: Callable[[], Any],
              finished: Callable[[Any], None],
              failed: Callable[[str], None] | None = None, slot: str = "") -> JobWorker:
    """Run ``function()`` on a worker thread as ``parent``'s job of ``slot``, replacing
    the previous one (whose result is then never delivered); ``finished(value)`` runs
    on the GUI thread."""

    def job(progress: Callable[[float, str], None], cancel: Any) -> Any:
        cancel.raise_if_cancelled()
        return function()

    return view_job(parent, slot).start(job, on_finished=finished, on_failed=failed)
