"""The last result, kept in the project file and restored when it is opened (no Qt).

A result is not stored whole (its equivalence classes can be larger than the data):
the project keeps a record of it, with a fingerprint of the data and configuration it
was computed for. On open, a matching record is restored by running the search again
(deterministic) and checking it finds the same optimum; the applied and pinned
transformations then come back. A record whose fingerprint no longer matches is not
restored, and the user is told why.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.result import Result
from arxpy.hierarchy.model import Hierarchy

RECORD_VERSION = 1


def fingerprint(data: pd.DataFrame, definition: DataDefinition,
                hierarchies: dict[str, Hierarchy], settings: dict[str, Any]) -> str:
    """A hash of everything a result depends on: data, definition, hierarchies, settings."""
    digest = hashlib.sha256()
    digest.update(json.dumps(list(map(str, data.columns))).encode())
    digest.update(pd.util.hash_pandas_object(data, index=False).to_numpy().tobytes())
    digest.update(json.dumps(definition.to_list(), sort_keys=True, default=str).encode())
    for name in sorted(hierarchies):
        digest.update(name.encode())
        digest.update(json.dumps([list(r) for r in hierarchies[name].rows]).encode())
    digest.update(json.dumps(settings, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def record(result: Result, applied: tuple[int, ...] | None,
           pinned: list[tuple[int, ...]], fingerprint_now: str) -> dict[str, Any]:
    """The JSON-able record of ``result`` saved with the project."""
    best = result.optimum
    return {
        "version": RECORD_VERSION,
        "fingerprint": fingerprint_now,
        "quasi_identifiers": list(result.quasi_identifiers),
        "optimum": None if best is None else list(best.levels),
        "applied": None if applied is None else list(applied),
        "pinned": [list(p) for p in pinned],
        "transformations_checked": int(result.transformations_checked),
        "elapsed_seconds": float(result.elapsed_seconds),
    }


def mismatch(saved: dict[str, Any], fingerprint_now: str) -> str | None:
    """Why ``saved`` cannot be restored for the project as it is now; None if it can."""
    if saved.get("version") != RECORD_VERSION:
        return "it was saved by another version of arxpy"
    if saved.get("fingerprint") != fingerprint_now:
        return "the data or the configuration changed since it was saved"
    return None


def same_optimum(saved: dict[str, Any], result: Result) -> bool:
    best = result.optimum
    return (None if best is None else list(best.levels)) == saved.get("optimum")
