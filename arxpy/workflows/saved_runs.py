"""Runs kept in a project file and brought back when it is opened (no Qt).

A run is saved as what decides its release: the method and its parameters (the seed it
drew included), its label, the candidates pinned for Compare, the fingerprint of the
data and configuration it ran on, and the SHA-256 of its released table. A lattice
search is kept with its stored outcome and reopened without searching (every stored
check judged again, as the project's saved result is). Another method's release is
kept pickled under this installation's seal (:mod:`arxpy.workflows.sealed`): opened on
the machine that saved it, with unchanged data and configuration, it comes back
without running the method; without a seal that verifies (a file from elsewhere, an
edited record, another arxpy version) the run is computed again from its parameters,
which the method's declaration checks first, and kept only if it gives the very release
that was saved (same ``output_sha256``). Every restored release is judged afresh by the
one verdict, and the user is told about every run that is not restored and why.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.stored import reopen_result, store_outcome
from arxpy.errors import ArxpyError, ProjectError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.methods import Generalization, Method, method_from_dict
from arxpy.release import Release, table_sha256
from arxpy.workflows.sealed import seal, unseal

#: Layout of a saved run; records of another version are not restored.
RUNS_VERSION = 1
#: Most runs a project keeps (the GUI keeps fewer; a file cannot ask for more work).
MAX_SAVED_RUNS = 32
#: Most candidates pinned for Compare, over all runs.
MAX_PINS = 8
#: A pinned candidate of a run: a lattice search's transformation (levels), or None for
#: the release of a run of another method.
Candidate = tuple[int, ...] | None


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
    """A run brought back from its record: the method, its release, label and pins."""

    method: Method
    release: Release
    label: str
    #: Its candidates pinned for Compare (see :data:`Candidate`).
    pins: tuple[Candidate, ...] = ()
    #: A lattice search's result, reopened from its stored outcome (None otherwise).
    result: Any = None
    #: True when the method had to run again (no seal of this installation held it).
    recomputed: bool = False

    @property
    def pinned(self) -> bool:
        return bool(self.pins)


def run_record(method: Method, release: Release, label: str, pins: Sequence[Candidate],
               input_print: str, result: Any = None, *,
               key: bytes | None = None) -> dict[str, Any]:
    """The JSON-able record of one run (parameters with the seed the run used) and its
    pinned candidates. A lattice search's ``result`` is stored whole, so it reopens
    without searching; raises :class:`~arxpy.engine.stored.ResultTooLarge` for one a
    project does not keep. With the installation's ``key`` another method's release is
    kept sealed, so it reopens here without running again."""
    params = dict(method.get_params())
    if "seed" in params and params["seed"] is None:
        params["seed"] = release.seed  # a drawn seed: the same release next time
    record = {"version": RUNS_VERSION, "method": {"name": method.name, **params},
              "label": label, "pinned": bool(pins),
              "pins": [None if p is None else [int(v) for v in p] for p in pins],
              "fingerprint": input_print, "output_sha256": release.output_sha256}
    if result is not None:
        record["outcome"] = store_outcome(result)
    elif key is not None:
        sealed = seal(_without_cache(release), key, _seal_context(record))
        if sealed is not None:
            record["release"] = sealed
    return record


def restore_runs(records: list[Any], data: pd.DataFrame, definition: DataDefinition,
                 hierarchies: Mapping[str, Hierarchy], *, key: bytes | None = None,
                 progress: Progress | None = None, cancel: CancelToken | None = None
                 ) -> tuple[list[RestoredRun], list[str]]:
    """The runs of ``records`` brought back (a job; sealed releases are read with the
    installation's ``key``, the others computed again), and a sentence per run or pin
    that is not restored (each saying why)."""
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    now = input_fingerprint(data, definition, hierarchies)
    restored, problems = [], []
    if len(records) > MAX_SAVED_RUNS:
        problems.append(f"the file holds {len(records)} runs; the first {MAX_SAVED_RUNS} "
                        "were restored")
    pins = 0
    for index, record in enumerate(records[:MAX_SAVED_RUNS]):
        report(index / max(len(records), 1), f"Restoring run {index + 1} of {len(records)}")
        try:
            if any(r.label == _label_of(record) for r in restored):
                raise ProjectError("another run has the same name")
            run = _restore(record, data, definition, hierarchies, now, key, cancel)
        except ArxpyError as exc:
            cancel.raise_if_cancelled()
            problems.append(f"{_label(record)}: {str(exc).rstrip('.')}")
            continue
        run, refused = _checked_pins(run, record, MAX_PINS - pins)
        pins += len(run.pins)
        problems += refused
        restored.append(run)
    report(1.0, "Runs restored")
    return restored, problems


def _restore(record: Any, data: pd.DataFrame, definition: DataDefinition,
             hierarchies: Mapping[str, Hierarchy], now: str, key: bytes | None,
             cancel: CancelToken) -> RestoredRun:
    if not isinstance(record, dict) or record.get("version") != RUNS_VERSION:
        raise ProjectError("it was saved in an unknown layout")
    spec, label = record.get("method"), record.get("label")
    if not isinstance(spec, dict) or not isinstance(label, str) or not label.strip():
        raise ProjectError("its method or label is missing")
    method = method_from_dict(spec)  # the declaration checks every value
    if record.get("fingerprint") != now:
        raise ProjectError("the data or the attributes changed since it ran")
    stored, recomputed = record.get("outcome"), False
    if stored is not None and isinstance(method, Generalization):
        # The search's outcome, every check judged again: no search on open.
        outcome = reopen_result(data, definition, hierarchies, method.config(), stored,
                                cancel=cancel)
    else:
        outcome = _sealed_release(record, key, data)
        if outcome is None:
            outcome, recomputed = method.run(data, definition, hierarchies=hierarchies,
                                             cancel=cancel), True
    release = outcome.release() if hasattr(outcome, "release") else outcome
    if release.output_sha256 != record.get("output_sha256"):
        raise ProjectError("running it again gives another release than the one saved")
    result = outcome if hasattr(outcome, "release") else None
    return RestoredRun(method, release, label.strip(), result=result, recomputed=recomputed)


def _seal_context(record: Mapping[str, Any]) -> str:
    """What a sealed release belongs to: the run's method, input and output."""
    return json.dumps([record["method"], record["fingerprint"], record["output_sha256"]],
                      sort_keys=True, default=str)


def _without_cache(release: Release) -> Release:
    """``release`` without its cached figures: the verdict is always judged afresh."""
    copy = object.__new__(type(release))
    copy.__dict__.update({k: v for k, v in release.__dict__.items() if k not in _CACHED})
    return copy


_CACHED = ("verdict", "output_sha256", "class_sizes", "statistics")


def _sealed_release(record: Mapping[str, Any], key: bytes | None,
                    data: pd.DataFrame) -> Release | None:
    """The release sealed in ``record`` by this installation, if it is one of ``data``."""
    if key is None or "release" not in record:
        return None
    try:
        release = unseal(record["release"], key, _seal_context(record))
    except (KeyError, TypeError, ValueError):
        return None
    if not isinstance(release, Release) or release.input_sha256 != table_sha256(data):
        return None
    return _without_cache(release)


def _checked_pins(run: RestoredRun, record: Mapping[str, Any],
                  room: int) -> tuple[RestoredRun, list[str]]:
    """``run`` with the pins its record names that fit it (a transformation of its
    search, or its release), and a sentence per pin refused."""
    saved = record.get("pins")
    if saved is None:  # a record written before pins: "pinned" pinned its release
        saved = [None if run.result is None else list(run.release.levels or ())] \
            if record.get("pinned") is True else []
    if not isinstance(saved, list):
        return run, [f"{_label(record)}: its pins are damaged"]
    pins, problems = [], []
    for pin in saved:
        candidate = _candidate(run, pin)
        if candidate == "refused":
            problems.append(f"{_label(record)}: a pinned candidate that is not one of its "
                            "candidates was left out")
        elif len(pins) >= room:
            problems.append(f"{_label(record)}: at most {MAX_PINS} candidates stay pinned")
            break
        elif candidate not in pins:
            pins.append(candidate)
    return dataclasses.replace(run, pins=tuple(pins)), problems


def _candidate(run: RestoredRun, pin: Any) -> Candidate | str:
    if run.result is None:
        return None if pin is None else "refused"
    if not isinstance(pin, list) or not all(type(v) is int for v in pin):
        return "refused"
    try:
        run.result.transformation(pin)  # within the lattice, or refused
    except (ArxpyError, IndexError, ValueError):
        return "refused"
    return tuple(pin)


def _label_of(record: Any) -> str | None:
    label = record.get("label") if isinstance(record, dict) else None
    return label.strip() if isinstance(label, str) else None


def _label(record: Any) -> str:
    label = record.get("label") if isinstance(record, dict) else None
    return f"run '{label}'" if isinstance(label, str) and label.strip() else "a run"
