"""The last result, kept in the project file and restored when it is opened (no Qt).

The project keeps the result itself (the search's checks, optimum and node states, see
:mod:`arxpy.engine.stored`), the applied and pinned transformations, and a fingerprint
of the data and configuration it was computed for. On open a matching record is
reopened without searching (the data is encoded again and the optimum, applied and
pinned transformations are checked again); a record whose fingerprint no longer
matches, or that is damaged, is not restored and the user is told why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.result import Result
from arxpy.engine.stored import reopen_result, store_outcome
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress

#: 1: a summary (the search ran again on open); 2: the result itself.
RECORD_VERSION = 2
#: Most transformations pinned for comparison (the state's bound too).
MAX_PINNED = 4


def record(result: Result, applied: tuple[int, ...] | None,
           pinned: list[tuple[int, ...]], fingerprint_now: str) -> dict[str, Any]:
    """The JSON-able record of ``result`` saved with the project; raises
    :class:`~arxpy.engine.stored.ResultTooLarge` for a result a project does not keep."""
    return {
        "version": RECORD_VERSION,
        "fingerprint": fingerprint_now,
        "applied": None if applied is None else list(applied),
        "pinned": [list(p) for p in pinned],
        "outcome": store_outcome(result),
    }


def mismatch(saved: dict[str, Any], fingerprint_now: str) -> str | None:
    """Why ``saved`` cannot be restored for the project as it is now; None if it can."""
    if saved.get("version") == 1:
        return "it was saved by an older arxpy, which kept only a summary of it"
    if saved.get("version") != RECORD_VERSION:
        return "it was saved by another version of arxpy"
    if saved.get("fingerprint") != fingerprint_now:
        return "the data or the configuration changed since it was saved"
    return None


def transformations(saved: Mapping[str, Any], key: str) -> list[tuple[int, ...]]:
    """The applied (``key="applied"``) or pinned transformations of a record; a value
    of the wrong shape gives none (the record is untrusted)."""
    value = saved.get(key)
    rows = [value] if key == "applied" and value is not None else value
    if not isinstance(rows, list) or not all(
            isinstance(r, list) and all(isinstance(v, int) and not isinstance(v, bool)
                                        for v in r) for r in rows):
        return []
    return [tuple(r) for r in rows]


def reopen(frame: pd.DataFrame, definition: DataDefinition,
           hierarchies: dict[str, Hierarchy], config: AnonymizationConfig,
           saved: Mapping[str, Any], progress: Progress | None = None,
           cancel: CancelToken | None = None) -> Result:
    """The saved result, rebuilt without searching (a job: runs on a worker thread)."""
    extra = transformations(saved, "applied") + transformations(saved, "pinned")[:MAX_PINNED]
    return reopen_result(frame, definition, hierarchies, config, saved.get("outcome", {}),
                         verify=extra, progress=progress, cancel=cancel)
