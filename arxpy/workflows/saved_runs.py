"""Method runs kept in a project file and brought back when it is opened (no Qt).

A run is saved as what decides its release: the method and its parameters (the seed it
drew included), its label and pin, the fingerprint of the data and configuration it ran
on, and the SHA-256 of its released table. Releases are not stored (a release of a
condensation run holds matrices a project file need not carry, and an untrusted file
must not be able to hand the application a release): on open each run is computed
again from its parameters, which the method's declaration checks first, and kept only
if it gives the very release that was saved (same ``output_sha256``); the user is told
about every run that is not restored and why. A lattice search is kept with its stored
outcome and reopened without searching (every stored check judged again, as the
project's saved result is).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.stored import reopen_result, store_outcome
from arxpy.errors import ArxpyError, ProjectError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.methods import Generalization, Method, method_from_dict
from arxpy.release import Release

#: Layout of a saved run; records of another version are not restored.
RUNS_VERSION = 1
#: Most runs a project keeps (the GUI keeps fewer; a file cannot ask for more work).
MAX_SAVED_RUNS = 32


def fingerprint(data: pd.DataFrame, definition: DataDefinition,
                hierarchies: Mapping[str, Hierarchy], settings: Mapping[str, Any]) -> str:
    """A hash of everything a result depends on: data, definition, hierarchies, settings."""
    digest = hashlib.sha256()
    digest.update(json.dumps(list(map(str, data.columns))).encode())
    digest.update(pd.util.hash_pandas_object(data, index=False).to_numpy().tobytes())
    digest.update(json.dumps(definition.to_list(), sort_keys=True, default=str).encode())
    for name in sorted(hierarchies):
        digest.update(name.encode())
        digest.update(json.dumps([list(r) for r in hierarchies[name].rows]).encode())
    digest.update(json.dumps(dict(settings), sort_keys=True, default=str).encode())
    return digest.hexdigest()


def input_fingerprint(data: pd.DataFrame, definition: DataDefinition,
                      hierarchies: Mapping[str, Hierarchy]) -> str:
    """What a method run depends on besides its own parameters."""
    return fingerprint(data, definition, hierarchies, {})


@dataclass(frozen=True)
class RestoredRun:
    """A run computed again from its record: the method, its release, label and pin."""

    method: Method
    release: Release
    label: str
    pinned: bool
    #: A lattice search's result, reopened from its stored outcome (None otherwise).
    result: Any = None


def run_record(method: Method, release: Release, label: str, pinned: bool,
               input_print: str, result: Any = None) -> dict[str, Any]:
    """The JSON-able record of one run (parameters with the seed the run used). A
    lattice search's ``result`` is stored whole, so it reopens without searching;
    raises :class:`~arxpy.engine.stored.ResultTooLarge` for one a project does not keep."""
    params = dict(method.get_params())
    if "seed" in params and params["seed"] is None:
        params["seed"] = release.seed  # a drawn seed: the same release next time
    record = {"version": RUNS_VERSION, "method": {"name": method.name, **params},
              "label": label, "pinned": bool(pinned), "fingerprint": input_print,
              "output_sha256": release.output_sha256}
    if result is not None:
        record["outcome"] = store_outcome(result)
    return record


def restore_runs(records: list[Any], data: pd.DataFrame, definition: DataDefinition,
                 hierarchies: Mapping[str, Hierarchy], *,
                 progress: Progress | None = None, cancel: CancelToken | None = None
                 ) -> tuple[list[RestoredRun], list[str]]:
    """The runs of ``records`` computed again (a job), and a sentence per run that is
    not restored (each saying why)."""
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    now = input_fingerprint(data, definition, hierarchies)
    restored, problems = [], []
    if len(records) > MAX_SAVED_RUNS:
        problems.append(f"the file holds {len(records)} runs; the first {MAX_SAVED_RUNS} "
                        "were restored")
    for index, record in enumerate(records[:MAX_SAVED_RUNS]):
        report(index / max(len(records), 1), f"Restoring run {index + 1} of {len(records)}")
        try:
            restored.append(_restore(record, data, definition, hierarchies, now, cancel))
        except ArxpyError as exc:
            cancel.raise_if_cancelled()
            problems.append(f"{_label(record)}: {str(exc).rstrip('.')}")
    report(1.0, "Runs restored")
    return restored, problems


def _restore(record: Any, data: pd.DataFrame, definition: DataDefinition,
             hierarchies: Mapping[str, Hierarchy], now: str,
             cancel: CancelToken) -> RestoredRun:
    if not isinstance(record, dict) or record.get("version") != RUNS_VERSION:
        raise ProjectError("it was saved in an unknown layout")
    spec, label = record.get("method"), record.get("label")
    if not isinstance(spec, dict) or not isinstance(label, str) or not label.strip():
        raise ProjectError("its method or label is missing")
    method = method_from_dict(spec)  # the declaration checks every value
    if record.get("fingerprint") != now:
        raise ProjectError("the data or the attributes changed since it ran")
    stored = record.get("outcome")
    if stored is not None and isinstance(method, Generalization):
        # The search's outcome, every check judged again: no search on open.
        outcome = reopen_result(data, definition, hierarchies, method.config(), stored,
                                cancel=cancel)
    else:
        outcome = method.run(data, definition, hierarchies=hierarchies, cancel=cancel)
    release = outcome.release() if hasattr(outcome, "release") else outcome
    if release.output_sha256 != record.get("output_sha256"):
        raise ProjectError("running it again gives another release than the one saved")
    result = outcome if hasattr(outcome, "release") else None
    return RestoredRun(method, release, label.strip(), record.get("pinned") is True, result)


def _label(record: Any) -> str:
    label = record.get("label") if isinstance(record, dict) else None
    return f"run '{label}'" if isinstance(label, str) and label.strip() else "a run"
