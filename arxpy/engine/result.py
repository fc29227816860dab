"""The result of an anonymization: the searched lattice, its optimum and lazy outputs.

Relative scores follow ARX's ``InformationLoss.relativeTo(min, max)``:
``(score - min) / (max - min)`` clipped to [0, 1], where ``min`` is the lowest score
the lattice can hold (the bottom's lower bound when the quality model has one, else
the lowest score checked) and ``max`` the highest (the top's score, or the highest
checked if larger). With Loss and default weights this is 0 for no generalization and
1 for everything generalized to the top of its hierarchy.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.config import AnonymizationConfig
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.lattice import Lattice
from arxpy.lattice.search import STATE_NAMES, Check, SearchContext, SearchOutcome
from arxpy.lattice.search.base import ANONYMOUS, NOT_ANONYMOUS
from arxpy.quality.base import QualityModel

#: What a suppressed record shows in every quasi-identifier (ARX's convention).
SUPPRESSED_VALUE = "*"
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


@dataclass(frozen=True)
class ClassStatistics:
    """Equivalence classes of an output, suppressed records left out."""

    n_classes: int
    min_size: int
    max_size: int
    mean_size: float
    suppressed_records: int
    records: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Output:
    """One transformation applied to the data."""

    levels: tuple[int, ...]
    frame: pd.DataFrame  # identifying attributes removed, original row order
    statistics: ClassStatistics
    anonymous: bool
    classes: EquivalenceClasses
    suppressed: np.ndarray  # (n_records,) bool, per original row

    @property
    def nbytes(self) -> int:
        return int(self.frame.memory_usage(index=True, deep=False).sum() + self.suppressed.nbytes
                   + self.classes.keys.nbytes + self.classes.sizes.nbytes)


class Result:
    """Outcome of :func:`arxpy.engine.anonymize`."""

    def __init__(self, frame: pd.DataFrame, definition: DataDefinition,
                 config: AnonymizationConfig, context: SearchContext, outcome: SearchOutcome,
                 elapsed_seconds: float, output_cache_bytes: int = 512 << 20) -> None:
        self.config = config
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
        self._context = context
        self._outcome = outcome
        self._outputs: OrderedDict[tuple[tuple[int, ...], bool], Output] = OrderedDict()
        self._output_cache_bytes = output_cache_bytes
        # Views compute outputs on worker threads; the cache and the search context's
        # grouping state are shared, so one output is computed at a time.
        self._lock = threading.RLock()
        self.score_range = self._score_range()
        context.cache.clear()  # keep only the pinned bottom as a roll-up root

    # --- the lattice --------------------------------------------------------------------

    @property
    def lattice_size(self) -> int:
        return self.lattice.size

    @property
    def optimum(self) -> TransformationState | None:
        best = self._outcome.optimum
        return None if best is None else self.transformation(best.levels)

    def _score_range(self) -> tuple[float, float]:
        # As ARX: relative to the anonymous transformations' scores, so the optimum is 0 %.
        ctx, quality = self._context, self.config.quality_model
        top = self.lattice.top
        top_classes = ctx.classes(top)
        top_score, _ = quality.evaluate(top_classes, ~ctx.kept(top_classes))
        top_check = self._outcome.checks.get(top) or ctx.check(top, top_classes)
        anonymous = [c.score for c in self._outcome.checks.values() if c.anonymous]
        if top_check.anonymous:
            anonymous.append(float(top_score))
        if anonymous:
            return float(min(anonymous)), float(max(anonymous))
        scores = [c.score for c in self._outcome.checks.values()]  # nothing anonymous
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
            return TransformationState(levels, state, True, check.score,
                                       self.relative(check.score), check.suppressed_records)
        states = self._outcome.states
        code = 0 if states is None else int(states[self.lattice.index(levels)])
        return TransformationState(levels, STATE_NAMES[code], False, None, None, None)

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

    # --- outputs ------------------------------------------------------------------------

    def output(self, levels: Sequence[int] | dict[str, int] | None = None,
               remove_suppressed: bool | None = None) -> Output:
        """The data transformed by ``levels`` (default: the optimum); cached (LRU)."""
        levels = self._levels(levels)
        remove = self.config.remove_suppressed if remove_suppressed is None else remove_suppressed
        key = (levels, bool(remove))
        with self._lock:
            if key in self._outputs:
                self._outputs.move_to_end(key)
                return self._outputs[key]
            result = self._compute_output(levels, bool(remove))
            self._outputs[key] = result
            while len(self._outputs) > 1 and sum(o.nbytes for o in self._outputs.values()) > \
                    self._output_cache_bytes:
                self._outputs.popitem(last=False)
            return result

    def _compute_output(self, levels: tuple[int, ...], remove: bool) -> Output:
        ctx = self._context
        classes, inverse = ctx.grouper.group_records(levels)
        kept = ctx.kept(classes)
        suppressed = ~kept[inverse]
        frame = self._frame.drop(columns=self.definition.identifying)
        frame = frame.copy(deep=False)
        for qi, level in zip(ctx.data.quasi_identifiers, levels, strict=True):
            labels = np.asarray(qi.labels[level], dtype=object)[qi.level_maps[level][qi.codes]]
            labels[suppressed] = SUPPRESSED_VALUE
            frame[qi.name] = labels
        if remove:
            frame = frame.loc[~suppressed]
        sizes = classes.sizes[kept]
        stats = ClassStatistics(
            n_classes=int(len(sizes)),
            min_size=int(sizes.min()) if len(sizes) else 0,
            max_size=int(sizes.max()) if len(sizes) else 0,
            mean_size=float(sizes.mean()) if len(sizes) else 0.0,
            suppressed_records=int(suppressed.sum()),
            records=int(len(suppressed)),
        )
        check = self._check(levels) or ctx.check(levels, classes)
        return Output(levels, frame, stats, check.anonymous, classes, suppressed)

    # --- read-only views for explorers and reports (vectorized) ------------------------

    @property
    def hierarchies(self) -> dict[str, Hierarchy]:
        """The hierarchy of each quasi-identifier, in lattice order."""
        return {q.name: q.hierarchy for q in self._context.data.quasi_identifiers}

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

    def node_indices(self, levels: np.ndarray) -> np.ndarray:
        """Lattice index of each row of an (n, n_qi) level matrix (see Lattice.index)."""
        widths = self.lattice.widths
        place = np.concatenate((np.cumprod(widths[::-1])[::-1][1:], [1])).astype(np.int64)
        offsets = np.asarray(levels, dtype=np.int64) - np.asarray(self.lattice.bottom, np.int64)
        return offsets @ place if len(place) else np.zeros(len(offsets), dtype=np.int64)

    def states_array(self) -> np.ndarray:
        """State code per node index, int8: 0 not checked, 1 anonymous, 2 not anonymous.

        Raises ConfigurationError for lattices above ``MAX_NODE_ARRAY`` nodes.
        """
        self._require_node_arrays()
        states = self._outcome.states
        out = np.zeros(self.lattice.size, dtype=np.int8) if states is None else \
            np.asarray(states, dtype=np.int8).copy()
        levels, anonymous, _, _ = self.checked_arrays()
        out[self.node_indices(levels)] = np.where(anonymous, ANONYMOUS, NOT_ANONYMOUS)
        return out

    def scores_array(self) -> tuple[np.ndarray, np.ndarray]:
        """Per node index: raw score and suppressed records (NaN / -1 where not checked)."""
        self._require_node_arrays()
        scores = np.full(self.lattice.size, np.nan)
        suppressed = np.full(self.lattice.size, -1, dtype=np.int64)
        levels, _, checked_scores, checked_suppressed = self.checked_arrays()
        index = self.node_indices(levels)
        scores[index] = checked_scores
        suppressed[index] = checked_suppressed
        return scores, suppressed

    def kept_classes(self, output: Output) -> np.ndarray:
        """Per class of ``output.classes``: does it meet every privacy model (not suppressed)?"""
        with self._lock:
            return self._context.kept(output.classes)

    def score_under(self, levels: Sequence[int], model: QualityModel) -> float:
        """Raw score of one transformation under another quality model (lower is better).

        Raises ConfigurationError when ``model`` needs attributes this run did not track
        (e.g. a classification model's class attribute) or does not fit the data.
        """
        levels = self._levels(levels)
        data = self._context.data
        tracked = {t.name for t in self._context.grouper.tracked}
        missing = [a for a in model.tracked_attributes if a not in tracked]
        if missing:
            raise ConfigurationError(
                f"{model.label} needs the distribution of {', '.join(missing)}, which this run "
                "did not track; choose it as the quality model and run again."
            )
        output = self.output(levels, remove_suppressed=False)
        kept = self.kept_classes(output)
        with self._lock:  # prepare() stores state on the model
            model.validate(data)
            model.prepare(data)
            return float(model.score(output.classes, ~kept))

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
        }
