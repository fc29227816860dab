"""A search result stored whole and reopened without searching (no Qt).

What a reopened :class:`Result` needs of its search is the :class:`SearchOutcome`:
every check (levels, verdict, score, ordering key, suppressed records, classes), the
optimum, the per-node states and the run's figures. They are stored as compressed
numpy arrays inside one JSON object (exact: floats keep every bit). Reopening encodes
the data again (cheap next to a search) and rebuilds the Result around the stored
outcome.

The record comes from a file, so it is untrusted: its layout and every array's dtype,
shape and range are checked, decompression is bounded by the declared shape, and the
optimum (plus any transformation the caller names, e.g. applied and pinned ones) is
checked again against the data, every stored check among them (a file may call any
node anonymous, give it any score or name a worse node the optimum); a stored verdict,
score or key that differs, or an optimum that is not the best anonymous check, refuses
the record. Releases of a reopened result are always computed and judged afresh.

A differential-privacy (SafePub) result also stores the seed of its random sample and
hashes of the rows drawn and of its release: SafePub's choice is a random draw, not the
best check, so it is run again from that seed (the same sample, the same walk) and every
stored check, the choice and the release must come out the same.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.backends.base import RecordSample
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.local_recoding import recode_from
from arxpy.engine.prepare import prepare
from arxpy.engine.result import MAX_NODE_ARRAY, Result
from arxpy.engine.safepub import anonymize_safepub, differential_privacy_of
from arxpy.errors import ProjectError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.lattice.lattice import Lattice
from arxpy.search import Check, SearchContext, SearchOutcome

#: Layout of the stored outcome; records of another version are not reopened.
OUTCOME_VERSION = 1
#: Most checks a stored result keeps (a heuristic search under a long budget may check
#: more; such a result is not stored). About 80 bytes each before compression.
MAX_STORED_CHECKS = 500_000
#: Relative tolerance when re-checked scores are compared with stored ones.
_SCORE_TOLERANCE = 1e-9

_CHECK_ARRAYS = {  # name -> (dtype, dimensions)
    "levels": ("<i8", 2), "anonymous": ("|b1", 1), "score": ("<f8", 1), "key": ("<f8", 2),
    "suppressed": ("<i8", 1), "classes": ("<i8", 1), "fails_downward": ("|b1", 1),
}


class ResultTooLarge(ProjectError):
    """The result holds more than a project file keeps (see MAX_STORED_CHECKS)."""


def store_outcome(result: Result) -> dict[str, Any]:
    """The JSON-able record of ``result``'s search; raises :class:`ResultTooLarge`."""
    outcome = result.outcome
    checks = list(outcome.checks.values())
    if len(checks) > MAX_STORED_CHECKS:
        raise ResultTooLarge(
            f"the search checked {len(checks):,} transformations, more than the "
            f"{MAX_STORED_CHECKS:,} a project file keeps")
    width = len(result.quasi_identifiers)
    key_width = len(checks[0].key) if checks else 1
    if any(len(c.key) != key_width for c in checks):
        raise ResultTooLarge("the quality model's ordering keys differ in length")
    arrays = {
        "levels": np.array([c.levels for c in checks], dtype="<i8").reshape(-1, width),
        "anonymous": np.array([c.anonymous for c in checks], dtype="|b1"),
        "score": np.array([c.score for c in checks], dtype="<f8"),
        "key": np.array([c.key for c in checks], dtype="<f8").reshape(-1, key_width),
        "suppressed": np.array([c.suppressed_records for c in checks], dtype="<i8"),
        "classes": np.array([c.n_classes for c in checks], dtype="<i8"),
        "fails_downward": np.array([c.fails_downward for c in checks], dtype="|b1"),
    }
    lattice = result.lattice
    record = {
        "version": OUTCOME_VERSION,
        "quasi_identifiers": list(lattice.names),
        "bottom": list(lattice.bottom),
        "top": list(lattice.top),
        "checks": {name: _pack(array) for name, array in arrays.items()},
        "optimum": None if outcome.optimum is None else list(outcome.optimum.levels),
        "optimal": bool(outcome.optimal),
        "transformations_checked": int(outcome.transformations_checked),
        "rollups": int(outcome.rollups),
        "states": None if outcome.states is None else _pack(
            np.asarray(outcome.states, dtype="|i1")),
        "notes": {str(k): float(v) for k, v in outcome.notes.items()},
        "elapsed_seconds": float(result.elapsed_seconds),
    }
    sample = _sample_record(result)
    if sample is not None:
        record["sample"] = sample
    return record


def _sample_record(result: Result) -> dict[str, Any] | None:
    """A differential-privacy result's random sample as reopening redraws it: the seed,
    and hashes of the rows drawn and of the release to compare the redrawn ones with."""
    model = differential_privacy_of(result.config)
    if model is None or model.sample is None:
        return None
    return {"seed": model.seed_used, "rows_sha256": _rows_sha256(model.sample),
            "release_sha256": None if result.optimum is None else
            result.release().output_sha256}


def _rows_sha256(sample: np.ndarray) -> str:
    return hashlib.sha256(np.flatnonzero(sample).astype("<i8").tobytes()).hexdigest()


def reopen_result(frame: pd.DataFrame, definition: DataDefinition,
                  hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig,
                  stored: Mapping[str, Any], *, verify: Sequence[Sequence[int]] = (),
                  progress: Progress | None = None,
                  cancel: CancelToken | None = None) -> Result:
    """The :class:`Result` ``stored`` describes, for this data and configuration,
    without searching.

    Costs one encoding plus one grouping per re-checked transformation (the optimum and
    ``verify``). Raises :class:`~arxpy.errors.ProjectError` when the record is damaged
    or does not fit (another lattice, a verdict or score that differs), and any error
    :func:`~arxpy.engine.prepare.prepare` raises for the configuration.
    """
    if differential_privacy_of(config) is not None:
        return _redrawn(frame, definition, hierarchies, config, stored, verify=verify,
                        progress=progress, cancel=cancel)
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    report(0.0, "Checking and encoding the data")
    data, config = prepare(frame, definition, hierarchies, config, cancel)
    context = SearchContext(data, config.privacy_models, config.quality_model,
                            config.suppression_limit, cancel=cancel)
    outcome = _outcome(stored, context.lattice)
    # Every stored check is judged again (a file may name any node anonymous, give it
    # any score, or call the top the optimum), lowest levels first so that classes roll
    # up from checks already made; then the optimum must be the best of them.
    wanted = sorted(outcome.checks, key=lambda levels: (sum(levels), levels))
    wanted += [tuple(int(v) for v in levels) for levels in verify]
    wanted = list(dict.fromkeys(wanted))
    for done, levels in enumerate(wanted):
        report(0.2 + 0.8 * done / len(wanted), "Checking the saved transformations")
        _verify(context, outcome, levels)
    _check_optimum(outcome)
    # Local recoding's passes are searched again from the checked optimum (a second or
    # so on Adult) rather than read from the file.
    passes = recode_from(context, config, outcome.optimum, cancel=cancel) \
        if config.local_recoding and outcome.optimum is not None else None
    context.detach()
    result = Result(frame, definition, config, context, outcome,
                    _number(stored, "elapsed_seconds", float), passes=passes)
    report(1.0, "Done")
    return result


def _redrawn(frame: pd.DataFrame, definition: DataDefinition,
             hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig,
             stored: Mapping[str, Any], *, verify: Sequence[Sequence[int]],
             progress: Progress | None, cancel: CancelToken | None) -> Result:
    """A differential-privacy result run again from its stored seed: the same sample and
    the same walk of the exponential mechanism, so the same checks, choice and release,
    each compared with the record (SafePub's choice is random, not the best check, so
    it cannot be judged from the checks alone; the run is a few hundred checks)."""
    sample = stored.get("sample") if isinstance(stored, Mapping) else None
    seed = sample.get("seed") if isinstance(sample, Mapping) else None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise _damaged("it holds no seed of its random sample")
    model = differential_privacy_of(config)
    assert model is not None
    result = anonymize_safepub(frame, definition, hierarchies, config, progress, cancel,
                               sample=RecordSample(seed, model.beta))
    outcome = _outcome(stored, result.lattice)
    redrawn = differential_privacy_of(result.config)
    assert redrawn is not None and redrawn.sample is not None
    if _rows_sha256(redrawn.sample) != sample.get("rows_sha256"):
        raise ProjectError("The saved result does not match this data: its seed draws "
                           "another random sample. Anonymize again.")
    for levels, saved in outcome.checks.items():
        now = result.outcome.checks.get(levels)
        if now is None or now.anonymous != saved.anonymous or not _same_scores(now, saved):
            raise ProjectError(
                f"The saved result does not match this data: transformation {list(levels)} "
                f"was saved as {_verdict(saved)} and is now "
                f"{'unchecked' if now is None else _verdict(now)}. Anonymize again.")
    chosen = None if result.optimum is None else result.optimum.levels
    if chosen != (None if outcome.optimum is None else outcome.optimum.levels) or \
            len(outcome.checks) != len(result.outcome.checks):
        raise ProjectError("The saved result does not match this data: the search chooses "
                           "otherwise from its seed. Anonymize again.")
    if chosen is not None and result.release().output_sha256 != sample.get("release_sha256"):
        raise ProjectError("The saved result does not match this data: its release differs "
                           "from the one saved. Anonymize again.")
    for levels in verify:
        _levels_of(list(levels), result.lattice)
    return result


def _verify(context: SearchContext, outcome: SearchOutcome, levels: tuple[int, ...]) -> None:
    """Check ``levels`` again; refuse the record if its stored check says otherwise."""
    if not context.lattice.contains(levels):
        raise _damaged(f"transformation {list(levels)} lies outside the lattice")
    saved = outcome.checks.get(levels)
    if saved is None:
        return  # not checked by the search: nothing stored to contradict
    now = context.evaluate(levels, context.classes(levels))
    context.cancel.raise_if_cancelled()
    # A transformation that is not anonymous has no score now (older records kept one);
    # an anonymous one's score must match (a missing one does not).
    if (now.anonymous != saved.anonymous or now.suppressed_records != saved.suppressed_records
            or now.n_classes != saved.n_classes
            or now.anonymous and not _same_scores(now, saved)):
        raise ProjectError(
            f"The saved result does not match this data: transformation {list(levels)} was "
            f"saved as {_verdict(saved)} and is now {_verdict(now)}. Anonymize again.")


def _same_scores(now: Check, saved: Check) -> bool:
    """Score and ordering key equal within the tolerance (a key orders the optimum)."""
    close = [math.isclose(a, b, rel_tol=_SCORE_TOLERANCE, abs_tol=_SCORE_TOLERANCE)
             for a, b in zip((now.score, *now.key), (saved.score, *saved.key), strict=False)]
    return len(now.key) == len(saved.key) and all(close)


def _check_optimum(outcome: SearchOutcome) -> None:
    """The stored optimum must be an anonymous check with the best ordering key of all
    anonymous checks (ties are the search's to break)."""
    anonymous = [c for c in outcome.checks.values() if c.anonymous]
    if outcome.optimum is None:
        if anonymous:
            raise _damaged("it names no optimum although it holds anonymous transformations")
        return
    best = min(anonymous, key=lambda c: c.key)
    if best.key < outcome.optimum.key:
        raise ProjectError(
            f"The saved result does not match this data: its optimum "
            f"{list(outcome.optimum.levels)} is not the best anonymous transformation "
            f"({list(best.levels)} scores better). Anonymize again.")


def _verdict(check: Check) -> str:
    state = "anonymous" if check.anonymous else "not anonymous"
    score = "no score" if math.isnan(check.score) else f"score {check.score:.6g}"
    return f"{state} ({score}, {check.suppressed_records} suppressed)"


def _outcome(stored: Mapping[str, Any], lattice: Lattice) -> SearchOutcome:
    """The stored outcome, checked against ``lattice`` before any of it is used."""
    if not isinstance(stored, Mapping) or stored.get("version") != OUTCOME_VERSION:
        raise _damaged("it has an unknown layout")
    for name, expected in (("quasi_identifiers", lattice.names),
                           ("bottom", list(lattice.bottom)), ("top", list(lattice.top))):
        if stored.get(name) != list(expected):
            raise _damaged(f"its {name.replace('_', ' ')} are {stored.get(name)!r}, the "
                           f"project's are {list(expected)!r}")
    checks = _checks(stored.get("checks"), lattice)
    optimum_levels = stored.get("optimum")
    optimum = None
    if optimum_levels is not None:
        optimum = checks.get(_levels_of(optimum_levels, lattice))
        if optimum is None or not optimum.anonymous:
            raise _damaged("its optimum is not among its anonymous checked transformations")
    states = None
    if stored.get("states") is not None:
        if lattice.size > MAX_NODE_ARRAY:
            raise _damaged("it holds node states for a lattice too large for them")
        states = _unpack(stored["states"], "states", "|i1", (lattice.size,))
        if states.size and (states.min() < 0 or states.max() > 2):
            raise _damaged("its node states hold unknown codes")
    notes = stored.get("notes", {})
    if not isinstance(notes, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in notes.values()):
        raise _damaged("its notes are not numbers")
    optimal = stored.get("optimal")
    if not isinstance(optimal, bool):
        raise _damaged("'optimal' is not true or false")
    return SearchOutcome(
        lattice=lattice, checks=checks, optimum=optimum, optimal=optimal,
        transformations_checked=_number(stored, "transformations_checked", int),
        rollups=_number(stored, "rollups", int), states=states,
        notes={str(k): float(v) for k, v in notes.items()})


def _checks(packed: Any, lattice: Lattice) -> dict[tuple[int, ...], Check]:
    if not isinstance(packed, dict) or set(packed) != set(_CHECK_ARRAYS):
        raise _damaged(f"its checks must hold exactly {', '.join(_CHECK_ARRAYS)}")
    arrays = {name: _unpack(packed[name], name, dtype, None, dimensions)
              for name, (dtype, dimensions) in _CHECK_ARRAYS.items()}
    n = len(arrays["levels"])
    if n > MAX_STORED_CHECKS or any(len(a) != n for a in arrays.values()):
        raise _damaged("its check arrays differ in length or are too long")
    levels = arrays["levels"]
    if levels.shape[1] != len(lattice.names) or (n and (
            (levels < np.array(lattice.bottom)).any() or (levels > np.array(lattice.top)).any())):
        raise _damaged("a checked transformation lies outside the lattice")
    if n and (arrays["suppressed"].min() < 0 or arrays["classes"].min() < 0):
        raise _damaged("a check counts fewer than zero records or classes")
    rows = zip(map(tuple, levels.tolist()), arrays["anonymous"].tolist(),
               arrays["score"].tolist(), map(tuple, arrays["key"].tolist()),
               arrays["suppressed"].tolist(), arrays["classes"].tolist(),
               arrays["fails_downward"].tolist(), strict=True)
    checks = {row[0]: Check(*row) for row in rows}
    if len(checks) != n:
        raise _damaged("a transformation is checked twice")
    return checks


def _levels_of(value: Any, lattice: Lattice) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value) \
            or not lattice.contains(value):
        raise _damaged(f"{value!r} is not a transformation of the lattice")
    return tuple(value)


def _number(stored: Mapping[str, Any], name: str, kind: Callable[[Any], Any]) -> Any:
    value = stored.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (
            kind is int and not isinstance(value, int)):
        raise _damaged(f"'{name}' is not a non-negative number")
    return kind(value)


def _pack(array: np.ndarray) -> dict[str, Any]:
    array = np.ascontiguousarray(array)
    return {"dtype": array.dtype.str, "shape": list(array.shape),
            "data": base64.b64encode(zlib.compress(array.tobytes(), 6)).decode("ascii")}


def _unpack(packed: Any, name: str, dtype: str, shape: tuple[int, ...] | None,
            dimensions: int = 1) -> np.ndarray:
    """One stored array, checked: the dtype expected, a bounded shape, and exactly the
    bytes that shape needs (decompression stops there, so no zip bomb inflates)."""
    if not isinstance(packed, dict) or packed.get("dtype") != dtype:
        raise _damaged(f"array '{name}' is not of type {dtype}")
    declared = packed.get("shape")
    if not isinstance(declared, list) or len(declared) != dimensions or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in declared):
        raise _damaged(f"array '{name}' has no valid shape")
    if shape is not None and tuple(declared) != shape:
        raise _damaged(f"array '{name}' has shape {declared}, expected {list(shape)}")
    itemsize = np.dtype(dtype).itemsize
    size = math.prod(declared) * itemsize
    if size > max(MAX_NODE_ARRAY, MAX_STORED_CHECKS * 64) * 8:
        raise _damaged(f"array '{name}' is too large")
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(base64.b64decode(packed.get("data", ""), validate=True),
                                  size + 1)
    except (binascii.Error, zlib.error, TypeError, ValueError) as exc:
        raise _damaged(f"array '{name}' cannot be decoded ({exc})") from None
    if len(raw) != size or not inflater.eof:
        raise _damaged(f"array '{name}' holds {len(raw)} bytes, not the {size} its shape needs")
    return np.frombuffer(raw, dtype=dtype).reshape(declared).copy()


def _damaged(problem: str) -> ProjectError:
    return ProjectError(f"The saved result is damaged: {problem}. Anonymize again.")
