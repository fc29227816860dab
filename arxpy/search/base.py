"""What every search strategy shares: checking a transformation and recording states.

Checking = equivalence classes (cached, rolled up, or grouped from the records) →
every privacy model's per-class verdict → classes failing any model are suppressed
when the records in them stay within the suppression limit → every model's
``dataset_satisfied`` must hold → the quality model scores the result.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.lattice.grouping import Grouper, SnapshotCache
from arxpy.lattice.lattice import Lattice
from arxpy.privacy.base import PrivacyModel
from arxpy.quality.base import QualityModel

NOT_CHECKED, ANONYMOUS, NOT_ANONYMOUS = 0, 1, 2
STATE_NAMES = {NOT_CHECKED: "not checked", ANONYMOUS: "anonymous", NOT_ANONYMOUS: "not anonymous"}

#: Relative slack when comparing bounds with scores: both are float sums in different
#: orders, so a bound may exceed the score it bounds by a few ulps.
_SLACK = 1e-12


#: The score of a transformation that is not anonymous (not computed, as in ARX).
NOT_SCORED = math.nan


def _records_outside(sizes: np.ndarray, kept: np.ndarray) -> int:
    """Records in the classes not ``kept``: an integer dot product, several times faster
    than selecting them with a boolean mask (this runs once or more per check)."""
    return int(np.dot(sizes, ~kept))


@dataclass(frozen=True)
class Check:
    """The outcome of checking one transformation."""

    levels: tuple[int, ...]
    anonymous: bool
    score: float
    key: tuple[float, ...]
    suppressed_records: int
    n_classes: int
    #: Fails the per-class models that are monotonic under the configured suppression,
    #: so neither it nor any specialization of it is anonymous (Flash's down-tagging,
    #: valid even when other models are not monotonic).
    fails_downward: bool = False


@dataclass
class SearchOutcome:
    """What a strategy found."""

    lattice: Lattice
    checks: dict[tuple[int, ...], Check]
    optimum: Check | None
    optimal: bool
    transformations_checked: int
    rollups: int
    #: Known anonymity per node index (checked or predictively tagged); None if the
    #: lattice is too large to hold one entry per node.
    states: np.ndarray | None = None
    #: Strategy-specific figures (e.g. nodes skipped by bound) for reports.
    notes: dict[str, float] = field(default_factory=dict)
    #: Were transformations skipped whose bound equals the optimum's score (possible
    #: ties left unchecked, for ARX's choice among them to settle)?
    unchecked_ties: bool = False


def exceeds(bound: Sequence[float], best: Sequence[float]) -> bool:
    """Is ``bound`` surely worse than ``best`` (lexicographically, with float slack)?"""
    if len(bound) == 1 and len(best) == 1:  # the usual case, per check: no tuples built
        b = bound[0]
        return b - _SLACK * max(1.0, abs(b)) > best[0]
    relaxed = tuple(b - _SLACK * max(1.0, abs(b)) for b in bound)
    return relaxed > tuple(best)


def reaches(bound: Sequence[float], best: Sequence[float]) -> bool:
    """Can nothing bounded by ``bound`` beat ``best`` (bound >= best, no slack)?

    ARX prunes then (``FLASHAlgorithmImpl.skip``/``prune``: ``compareTo(bound) <= 0``);
    what it skips can only tie with ``best``.
    """
    if len(bound) == 1 and len(best) == 1:
        return bound[0] >= best[0]
    return tuple(bound) >= tuple(best)


def _judges_classes_only(model: PrivacyModel) -> bool:
    """Does ``model`` judge each class alone (no dataset-level check or enforcement)?

    Only then does failing it with the suppression budget imply failing every model
    together: the classes all models keep are a subset of the ones it keeps.
    """
    kind = type(model)
    return kind.dataset_satisfied is PrivacyModel.dataset_satisfied and \
        kind.enforce is PrivacyModel.enforce


def better(a: Check, b: Check | None) -> bool:
    """Order of optima: key, then fewer generalization steps, then levels."""
    if b is None:
        return True
    return (a.key, sum(a.levels), a.levels) < (b.key, sum(b.levels), b.levels)


def tracks_optimum(check: Check, best: Check | None) -> bool:
    """ARX's ``trackOptimum`` (best-effort strategies): less loss, or as little on a lower
    level; of equals, the first found stays (the optimal strategies break such ties by
    ARX's Flash order)."""
    if best is None or check.key < best.key:
        return True
    return check.key == best.key and sum(check.levels) < sum(best.levels)


class SearchContext:
    """Checks transformations of one encoded table against one configuration."""

    def __init__(
        self,
        data: EncodedData,
        privacy_models: Sequence[PrivacyModel],
        quality: QualityModel,
        suppression_limit: float,
        cancel: CancelToken | None = None,
        progress: Progress | None = None,
        cache_bytes: int = 256 << 20,
        time_limit: float | None = None,
        step_limit: int | None = None,
        strategy_settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.data = data
        self.models = list(privacy_models)
        self.quality = quality
        self.lattice = Lattice.for_data(data)
        tracked = [m.sensitive_attribute for m in self.models if m.sensitive_attribute]
        tracked += [name for name in data.tracked if name not in tracked]
        # A quasi-identifier's values per class are the class keys already; carrying its
        # distribution too cost a classification search on Adult a quarter of its time.
        tracked = [name for name in tracked if name not in data.qi_names]
        # Population tables (k-map, δ-presence, the journalist's payout) ride along as
        # ARX's pcount; models naming the same table share its classes.
        populations = {name: rows for m in (*self.models, quality)
                       for name, rows in m.population_rows().items()}
        self.grouper = Grouper(data, tracked, quality.record_sums(), populations)
        self.cache = SnapshotCache(len(data.quasi_identifiers), max_bytes=cache_bytes)
        self.max_suppressed = math.floor(suppression_limit * data.n_records + 1e-9)
        quality.suppression_budget = self.max_suppressed
        self.cancel = cancel or CancelToken()
        self.progress = ThrottledProgress(progress)
        self.time_limit = time_limit
        #: Most transformations a best-effort strategy checks (ARX's step limit).
        self.step_limit = step_limit
        #: A strategy's own settings (the genetic strategy's ``genetic_*``).
        self.strategy_settings = dict(strategy_settings or {})
        #: Score transformations that are not anonymous too (a strategy ordering its
        #: expansion by them sets it); otherwise their score is NOT_SCORED.
        self.score_all = False
        self.started = time.perf_counter()
        self.checks: dict[tuple[int, ...], Check] = {}
        #: Called with each new check and its classes (the study scores other models there).
        self.on_check: Callable[[Check, EquivalenceClasses], None] | None = None
        attr = "monotonic_with_suppression" if self.max_suppressed > 0 else \
            "monotonic_without_suppression"
        #: May anonymity be propagated (up if anonymous, down if not)?
        self.monotonic = all(getattr(m, attr) for m in self.models)
        #: Positions of the per-class models that are monotonic under the configured
        #: suppression; failing them alone settles a transformation's down-set.
        self.monotonic_per_class = [i for i, m in enumerate(self.models)
                                    if getattr(m, attr) and _judges_classes_only(m)]
        #: The models that suppress beyond their per-class verdicts (the others' enforce
        #: returns what it is given).
        self.enforcing = [m for m in self.models
                          if type(m).enforce is not PrivacyModel.enforce]

    def detach(self) -> None:
        """Forget the run's progress callback, cancel token and observer, so what is kept
        after the search (a Result) holds no reference to the caller (a GUI worker), and
        the roll-up root's columns kept for the search."""
        self.progress = ThrottledProgress(None)
        self.cancel = CancelToken()
        self.on_check = None
        self.grouper.forget_level_columns()  # the search's working memory

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def out_of_time(self) -> bool:
        return self.time_limit is not None and self.elapsed >= self.time_limit

    def classes(self, levels: Sequence[int]) -> EquivalenceClasses:
        """Classes of ``levels``: from the cache, by roll-up, or from the records."""
        levels = tuple(int(v) for v in levels)
        cached = self.cache.get(levels)
        if cached is not None:
            return cached
        if self.lattice.bottom not in self.cache:
            # The bottom is below every transformation: pin it as the roll-up root.
            bottom, _ = self.grouper.group_records(self.lattice.bottom)
            self.cancel.raise_if_cancelled()
            self.cache.put(bottom, pinned=True)
            if levels == self.lattice.bottom:
                return bottom
        source = self.cache.best_source(levels)
        if source is None:
            classes, _ = self.grouper.group_records(levels)
            self.cancel.raise_if_cancelled()
            self.cache.put(classes, pinned=levels == self.lattice.bottom)
        else:
            classes = self.grouper.roll_up(source, levels)
            self.cache.put(classes)
        return classes

    def kept(self, classes: EquivalenceClasses) -> np.ndarray:
        """Classes meeting every privacy model (the others are to be suppressed).

        Dataset-level models then suppress further classes within what is left of the
        suppression budget (:meth:`PrivacyModel.enforce`).
        """
        return self._judge(classes)[0]

    def _judge(self, classes: EquivalenceClasses) -> tuple[np.ndarray, int, bool]:
        """Kept classes, the records suppressed, and whether the monotonic per-class models
        alone already need more suppression than allowed (then every model together
        does too). Each sum over the classes is taken once (this runs per check)."""
        sizes = classes.sizes
        kept: np.ndarray | None = None
        for i in self.monotonic_per_class:
            verdict = np.asarray(self.models[i].satisfied(classes), dtype=bool)
            kept = verdict if kept is None else kept & verdict  # never the model's array
        suppressed = 0 if kept is None else _records_outside(sizes, kept)
        fails_downward = kept is not None and suppressed > self.max_suppressed
        others = False
        for i, model in enumerate(self.models):
            if i not in self.monotonic_per_class:
                verdict = np.asarray(model.satisfied(classes), dtype=bool)
                kept = verdict if kept is None else kept & verdict
                others = True
        if kept is None:
            kept = np.ones(classes.n_classes, dtype=bool)
        elif others:
            suppressed = _records_outside(sizes, kept)
        for model in self.enforcing:
            if suppressed < self.max_suppressed:
                kept = np.asarray(model.enforce(classes, kept, self.max_suppressed - suppressed,
                                                self.arx_tie_order), dtype=bool)
                suppressed = _records_outside(sizes, kept)
        return kept, suppressed, fails_downward

    def arx_tie_order(self, classes: EquivalenceClasses, tied: np.ndarray,
                      needed: int) -> np.ndarray:
        """The first ``needed`` of ``tied`` (class indices, one size) in the order ARX's
        risk-based models suppress them: by the class's own information loss under the
        quality model, then by its first row (``HashGroupifyDistribution``'s comparator).
        First rows cost a pass over the root's classes, so they are looked up only for
        the classes whose loss ties at the cut."""
        tied = np.asarray(tied, dtype=np.int64)
        losses = self.quality.class_losses(classes, tied)
        if losses is None:
            losses = np.zeros((len(tied), 1))
        columns = [losses[:, j] for j in reversed(range(losses.shape[1]))]
        ranked = np.lexsort(columns)
        cut = losses[ranked[needed - 1]]
        at_cut = (losses == cut).all(axis=1)
        before = int(np.count_nonzero(at_cut[ranked[:needed]]))
        if before == int(np.count_nonzero(at_cut)):  # the cut falls between losses
            return tied[ranked[:needed]]
        candidates = np.flatnonzero(at_cut)
        first = self.grouper.first_rows(classes, tied[candidates])
        taken = candidates[np.argsort(first, kind="stable")[:before]]
        return np.concatenate((tied[ranked[:needed - before]], tied[taken]))

    def check(self, levels: Sequence[int], classes: EquivalenceClasses | None = None) -> Check:
        """Check one transformation and remember the outcome."""
        levels = tuple(int(v) for v in levels)
        if levels in self.checks:
            return self.checks[levels]
        self.cancel.raise_if_cancelled()  # strategies may check many in a row
        classes = classes if classes is not None else self.classes(levels)
        held = (classes.keys_decoded, len(classes.derived))
        result = self.evaluate(levels, classes)
        if (classes.keys_decoded, len(classes.derived)) != held:
            self.cache.remeasure(classes)  # a model decoded keys or kept a derived array
        self.checks[levels] = result
        if self.on_check is not None:
            self.on_check(result, classes)
        return result

    def evaluate(self, levels: tuple[int, ...], classes: EquivalenceClasses) -> Check:
        """The outcome of checking ``levels`` with its ``classes``, not remembered (so
        looking at a transformation after the search leaves the search's record alone)."""
        kept, suppressed, fails_downward = self._judge(classes)
        anonymous = suppressed <= self.max_suppressed and all(
            m.dataset_satisfied(classes, kept) for m in self.models)
        if not (anonymous or self.score_all):
            # As ARX (NodeChecker.check): a transformation that is not anonymous gets no
            # score. No strategy but the heuristic compares such scores, and computing
            # them cost 10-25 % of the search for t-closeness, entropy or classification.
            return Check(levels, False, NOT_SCORED, (NOT_SCORED,), suppressed,
                         int(kept.sum()), fails_downward)
        score, key = self.quality.evaluate(classes, ~kept)
        return Check(levels, anonymous, float(score), tuple(float(k) for k in key),
                     suppressed, int(kept.sum()), fails_downward)

    def outcome(self, optimum: Check | None, optimal: bool,
                states: np.ndarray | None = None, **notes: float) -> SearchOutcome:
        self.progress(1.0, "Search finished")
        return SearchOutcome(
            lattice=self.lattice,
            checks=self.checks,
            optimum=optimum,
            optimal=optimal,
            transformations_checked=len(self.checks),
            rollups=self.grouper.rollups,
            states=states,
            notes=dict(notes),
        )
