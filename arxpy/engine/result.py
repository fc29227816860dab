"""The result of an anonymization: the searched lattice, its optimum and lazy outputs.

Relative scores follow ARX's ``InformationLoss.relativeTo(min, max)``:
``(score - min) / (max - min)`` clipped to [0, 1], where ``min`` is the lowest score
the lattice can hold (the bottom's lower bound when the quality model has one, else
the lowest score checked) and ``max`` the highest (the top's score, or the highest
checked if larger). With Loss and default weights this is 0 for no generalization and
1 for everything generalized to the top of its hierarchy.

A Result is a value: it keeps what the search found and the data it needs to compute
any candidate again (the encoded table, the run's prepared models, the bottom's
classes as roll-up root), never the search's working state. Every computation builds
its own :class:`~arxpy.search.SearchContext` over that data, so views on worker threads
compute releases, classes and scores at the same time without waiting for each other.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.apply import completely_generalized, release_of
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.local_recoding import locally_recoded
from arxpy.engine.prepare import clone
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.lattice.lattice import Lattice
from arxpy.quality.base import QualityModel
from arxpy.release import RecodingPasses, Release, table_sha256
from arxpy.search import STATE_NAMES, Check, SearchContext, SearchOutcome
from arxpy.search.base import ANONYMOUS, NOT_ANONYMOUS

#: Largest lattice for which per-node arrays (states_array, scores_array) are built.
MAX_NODE_ARRAY = 5_000_000


@dataclass(frozen=True)
class TransformationState:
    """What the search knows about one transformation."""

    levels: tuple[int, ...]
    state: str  # "anonymous", "not anonymous" or "not checked"
    checked: bool  # its classes were computed (predictively tagged nodes were not)
    score: float | None
    relative_score: float | None
    suppressed_records: int | None
    #: Kept records generalized to a single value in every quasi-identifier (ARX counts
    #: them as suppressed too); None when not checked.
    completely_generalized_records: int | None = None


class Result:
    """Outcome of :func:`arxpy.engine.anonymize`."""

    def __init__(self, frame: pd.DataFrame, definition: DataDefinition,
                 config: AnonymizationConfig, context: SearchContext, outcome: SearchOutcome,
                 elapsed_seconds: float, release_cache_bytes: int = 512 << 20, *,
                 passes: RecodingPasses | None = None) -> None:
        self.config = config
        #: Local recoding's passes from the optimum (None: global recoding only).
        self.passes = passes
        self.definition = definition
        self.lattice: Lattice = outcome.lattice
        self.quasi_identifiers = list(self.lattice.names)
        self.transformations_checked = outcome.transformations_checked
        self.rollups = outcome.rollups
        self.optimal = outcome.optimal
        self.elapsed_seconds = float(elapsed_seconds)
        self.records = context.data.n_records
        self.notes = dict(outcome.notes)
        self._frame = frame
        self._outcome = outcome
        self._data = context.data
        # The search's pinned roll-up root; read only from here on.
        self._bottom = context.classes(self.lattice.bottom)
        self._tracked = frozenset(t.name for t in context.grouper.tracked)
        self._releases: OrderedDict[tuple[int, ...], Release] = OrderedDict()
        self._input_sha256: str | None = None  # hashed on first need (a second on 10^6)
        self._release_cache_bytes = release_cache_bytes
        # Guards the release cache's bookkeeping only: releases are computed outside it.
        self._cache_lock = threading.Lock()
        self.score_range = self._score_range(context)

    # --- the lattice --------------------------------------------------------------------

    @property
    def outcome(self) -> SearchOutcome:
        """What the search found (read-only; :mod:`arxpy.engine.stored` keeps it)."""
        return self._outcome

    @property
    def lattice_size(self) -> int:
        return self.lattice.size

    @property
    def optimum(self) -> TransformationState | None:
        best = self._outcome.optimum
        return None if best is None else self.transformation(best.levels)

    def _score_range(self, ctx: SearchContext) -> tuple[float, float]:
        # As ARX: relative to the anonymous transformations' scores, so the optimum is 0 %.
        quality = ctx.quality  # the run's prepared copy
        top = self.lattice.top
        top_classes = ctx.classes(top)
        top_score, _ = quality.evaluate(top_classes, ~ctx.kept(top_classes))
        top_check = self._outcome.checks.get(top) or ctx.check(top, top_classes)
        anonymous = [c.score for c in self._outcome.checks.values() if c.anonymous]
        if top_check.anonymous:
            anonymous.append(float(top_score))
        if anonymous:
            return float(min(anonymous)), float(max(anonymous))
        scores = [c.score for c in self._outcome.checks.values()  # nothing anonymous
                  if not math.isnan(c.score)]
        bound = quality.lower_bound(ctx.classes(self.lattice.bottom))
        low = float(bound) if bound is not None else min(scores, default=float(top_score))
        return low, max(scores + [float(top_score)])

    def relative(self, score: float) -> float:
        """``score`` placed between the lowest and highest score of the anonymous
        transformations (the lattice's, if none is anonymous), clipped to [0, 1]."""
        low, high = self.score_range
        if high - low == 0:
            return 0.0
        return float(min(max((score - low) / (high - low), 0.0), 1.0))

    def _check(self, levels: tuple[int, ...]) -> Check | None:
        return self._outcome.checks.get(levels)

    def transformation(self, levels: Sequence[int]) -> TransformationState:
        """State, score and relative score of one transformation."""
        levels = self._levels(levels)
        check = self._check(levels)
        if check is not None:
            state = "anonymous" if check.anonymous else "not anonymous"
            scored = not math.isnan(check.score)  # not anonymous: not scored (as ARX)
            return TransformationState(
                levels, state, True, check.score if scored else None,
                self.relative(check.score) if scored else None,
                check.suppressed_records,
                self._completely_generalized(levels, check.suppressed_records))
        states = self._outcome.states
        code = 0 if states is None else int(states[self.lattice.index(levels)])
        return TransformationState(levels, STATE_NAMES[code], False, None, None, None)

    def _completely_generalized(self, levels: tuple[int, ...], suppressed: int) -> int:
        return completely_generalized(self._data, levels, self.records - suppressed)

    def tied_optima(self) -> list[TransformationState]:
        """Checked anonymous transformations as good as the optimum, the optimum first.

        The optimum among them is the one ARX returns (the lower generalization level,
        else the first its Flash search checks: :mod:`arxpy.search.flash`); the others
        may suppress fewer records. Transformations the search settled without checking
        (predictive tagging, pruning) are not listed.
        """
        best = self._outcome.optimum
        if best is None:
            return []
        ties = [c for c in self._outcome.checks.values() if c.anonymous and c.key == best.key]
        ties.sort(key=lambda c: (c.levels != best.levels, sum(c.levels), c.levels))
        return [self.transformation(c.levels) for c in ties]

    def checked_transformations(self) -> list[TransformationState]:
        """Every transformation whose score is known, in the order checked."""
        return [self.transformation(levels) for levels in self._outcome.checks]

    def _levels(self, levels: Sequence[int] | dict[str, int] | None) -> tuple[int, ...]:
        if levels is None:
            if self._outcome.optimum is None:
                raise ConfigurationError(
                    "No transformation satisfies the privacy models within the suppression "
                    "limit; allow more suppression or relax the privacy models."
                )
            return self._outcome.optimum.levels
        if isinstance(levels, dict):
            levels = [levels[name] for name in self.quasi_identifiers]
        out = tuple(int(v) for v in levels)
        if not self.lattice.contains(out):
            raise ConfigurationError(
                f"Transformation {list(out)} is outside the lattice: levels run from "
                f"{list(self.lattice.bottom)} to {list(self.lattice.top)}."
            )
        return out

    # --- releases -----------------------------------------------------------------------

    @property
    def input_sha256(self) -> str:
        return self._input_hash()

    def _input_hash(self, cancel: CancelToken | None = None) -> str:
        if self._input_sha256 is None:
            self._input_sha256 = table_sha256(self._frame, cancel)
        return self._input_sha256

    def context(self) -> SearchContext:
        """A search context of the caller's own over the run's stored data (encoded
        table, prepared models, the bottom's classes as roll-up root): what engine code
        needs to group or judge a transformation again. Nothing in it is shared with
        another caller's but read-only arrays and models."""
        ctx = SearchContext(self._data, self.config.privacy_models, self.config.quality_model,
                            self.config.suppression_limit)
        ctx.cache.put(self._bottom, pinned=True)
        return ctx

    @property
    def encoded(self) -> EncodedData:
        """The run's encoded table (read only)."""
        return self._data

    def release(self, levels: Sequence[int] | dict[str, int] | None = None, *,
                cancel: CancelToken | None = None) -> Release:
        """The release of transformation ``levels`` (default: the optimum); cached (LRU).

        With local recoding configured, the optimum's release is the locally recoded one
        (as ARX recodes the optimum's output): each record at the levels of the pass that
        released it (:attr:`passes`). Any other transformation's is its global release.

        Safe to call from several threads at once; two asking for the same uncached
        release may both compute it, and both get the one cached first. ``cancel`` is
        looked at while the input is hashed and the release built.
        """
        levels = self._levels(levels)
        with self._cache_lock:
            if levels in self._releases:
                self._releases.move_to_end(levels)
                return self._releases[levels]
        release = release_of(self.context(), self._frame, self.definition, self.config,
                             levels, input_sha256=self._input_hash(cancel),
                             elapsed_seconds=self.elapsed_seconds, cancel=cancel)
        if self.passes is not None and levels == self.passes.passes[0].levels:
            release = locally_recoded(release, self.passes, self._data)
        with self._cache_lock:
            release = self._releases.setdefault(levels, release)
            self._releases.move_to_end(levels)
            while len(self._releases) > 1 and sum(
                    _nbytes(r) for r in self._releases.values()) > self._release_cache_bytes:
                self._releases.popitem(last=False)
        return release

    def classes_of(self, levels: Sequence[int] | None) -> tuple[EquivalenceClasses, np.ndarray]:
        """The equivalence classes of ``levels`` and which of them are kept (not
        suppressed): the search's own view, for re-checking its models. Each call
        computes them afresh (rolled up from the bottom's classes)."""
        levels = self._levels(levels)
        ctx = self.context()
        classes = ctx.classes(levels)
        return classes, ctx.kept(classes)

    # --- read-only views for explorers and reports (vectorized) ------------------------

    @property
    def hierarchies(self) -> dict[str, Hierarchy]:
        """The hierarchy of each quasi-identifier, in lattice order."""
        return {q.name: q.hierarchy for q in self._data.quasi_identifiers}

    def _require_node_arrays(self) -> None:
        if self.lattice.size > MAX_NODE_ARRAY:
            raise ConfigurationError(
                f"The lattice has {self.lattice.size:,} transformations, more than the "
                f"{MAX_NODE_ARRAY:,} that per-node arrays hold; use checked_arrays() instead."
            )

    def checked_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every checked transformation: ``(levels (n, n_qi) int64, anonymous (n,) bool,
        scores (n,) float64, suppressed records (n,) int64)``, in the order checked."""
        checks = list(self._outcome.checks.values())
        width = len(self.quasi_identifiers)
        levels = np.array([c.levels for c in checks], dtype=np.int64).reshape(len(checks), width)
        anonymous = np.array([c.anonymous for c in checks], dtype=bool)
        scores = np.array([c.score for c in checks], dtype=np.float64)
        suppressed = np.array([c.suppressed_records for c in checks], dtype=np.int64)
        return levels, anonymous, scores, suppressed

    def states_array(self) -> np.ndarray:
        """State code per node index, int8: 0 not checked, 1 anonymous, 2 not anonymous.

        Raises ConfigurationError for lattices above ``MAX_NODE_ARRAY`` nodes.
        """
        self._require_node_arrays()
        states = self._outcome.states
        out = np.zeros(self.lattice.size, dtype=np.int8) if states is None else \
            np.asarray(states, dtype=np.int8).copy()
        levels, anonymous, _, _ = self.checked_arrays()
        out[self.lattice.indices(levels)] = np.where(anonymous, ANONYMOUS, NOT_ANONYMOUS)
        return out

    def scores_array(self) -> tuple[np.ndarray, np.ndarray]:
        """Per node index: raw score and suppressed records (NaN / -1 where not checked)."""
        self._require_node_arrays()
        scores = np.full(self.lattice.size, np.nan)
        suppressed = np.full(self.lattice.size, -1, dtype=np.int64)
        levels, _, checked_scores, checked_suppressed = self.checked_arrays()
        index = self.lattice.indices(levels)
        scores[index] = checked_scores
        suppressed[index] = checked_suppressed
        return scores, suppressed

    def configured_score(self, levels: Sequence[int]) -> float:
        """Raw score of one transformation under the configured quality model: the
        search's, or computed now for one it did not score (not anonymous, as in ARX, or
        not checked)."""
        check = self._check(self._levels(levels))
        if check is not None and not math.isnan(check.score):
            return check.score
        return self.score_under(levels, self.config.quality_model)

    def score_under(self, levels: Sequence[int], model: QualityModel) -> float:
        """Raw score of one transformation under another quality model (lower is better).

        ``model`` itself is left as it was: a clone of it is prepared and scores.
        Raises ConfigurationError when ``model`` needs attributes this run did not track
        (e.g. a classification model's class attribute) or does not fit the data.
        """
        levels = self._levels(levels)
        data = self._data
        tracked = self._tracked
        missing = [a for a in model.tracked_attributes
                   if a not in tracked and a not in data.qi_names]
        if missing:
            raise ConfigurationError(
                f"{model.label} needs the distribution of {', '.join(missing)}, which this run "
                "did not track; choose it as the quality model and run again."
            )
        classes, kept = self.classes_of(levels)
        model = clone(model)  # prepare() stores state on the model: never on the caller's
        model.validate(data)
        model.prepare(data)
        return float(model.score(classes, ~kept))

    # --- reports ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (see ``arxpy anonymize --report``)."""
        best = self.optimum
        return {
            "quasi_identifiers": self.quasi_identifiers,
            "transformation": None if best is None else dict(
                zip(self.quasi_identifiers, best.levels, strict=True)),
            "score": None if best is None else best.score,
            "relative_score": None if best is None else best.relative_score,
            "suppressed_records": None if best is None else best.suppressed_records,
            "completely_generalized_records": None if best is None
            else best.completely_generalized_records,
            "tied_optima": [
                {"transformation": dict(zip(self.quasi_identifiers, t.levels, strict=True)),
                 "suppressed_records": t.suppressed_records,
                 "completely_generalized_records": t.completely_generalized_records}
                for t in self.tied_optima()],
            "records": self.records,
            "lattice_size": self.lattice_size,
            "transformations_checked": self.transformations_checked,
            "rollups": self.rollups,
            "optimal": self.optimal,
            "elapsed_seconds": self.elapsed_seconds,
            "privacy_models": [m.to_dict() for m in self.config.privacy_models],
            "quality_model": self.config.quality_model.to_dict(),
            "suppression_limit": self.config.suppression_limit,
            "strategy": self.config.strategy,
            **({} if self.passes is None else
               {"local_recoding": self.passes.to_dict(self.quasi_identifiers)}),
            # Aggregated attributes stand outside "quasi_identifiers" (the lattice's).
            **({"microaggregation": self.config.to_dict()["microaggregation"]}
               if self.config.microaggregation else {}),
            **self._differential_privacy(),
        }

    def _differential_privacy(self) -> dict[str, Any]:
        """SafePub's accounting for the report: ε spent by the sampling and by the search,
        δ, the derived β and k, the seed and the records sampled (none without it)."""
        for model in self.config.privacy_models:
            if model.kind == "differential-privacy":
                return {"differential_privacy": {
                    **model.claim_parameters(), "sampled_records": self.records,
                    "steps_taken": int(self.notes.get("dp_steps_taken", 0)),
                    "score": self.notes.get("dp_score")}}
        return {}


def _nbytes(release: Release) -> int:
    return int(release.table.memory_usage(index=True, deep=False).sum()
               + release.suppressed.nbytes
               + (release.groups.nbytes if release.groups is not None else 0))
