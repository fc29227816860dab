"""SafePub's search: the exponential mechanism walks down the lattice from the top.

Bild, Kuhn and Prasser, PoPETs 2018(1), Algorithm 2, as ARX 3.9.2 runs it
(``algorithm/DataDependentEDDPAlgorithm.java``): the top is the first pivot; each step
adds the pivot's predecessors to the candidates, removes the pivot, and draws the next
pivot with probability ∝ exp(ε_step · score / 2) (``dp/ExponentialMechanism.java``), where
ε_step = ε_search / steps and the score is the quality model's score function divided by
its sensitivity (higher is better). The release is the best pivot seen. Scores are ARX's
``getScore`` of each quality model, computed on the sample's classes: records left out by
the sampling count as suppressed (ARX's ``pcount - count``), and the table's size is the
input's. The data-independent variant checks its one fixed transformation.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.privacy.differential_privacy import EDDifferentialPrivacy
from arxpy.search.base import Check, SearchContext, SearchOutcome

ScoreFunction = Callable[["ScoreInput"], float]


class ScoreInput:
    """One transformation's classes of the sample as a score function reads them."""

    def __init__(self, data: EncodedData, classes: EquivalenceClasses, kept: np.ndarray,
                 records: int, k: int) -> None:
        self.data = data
        self.classes = classes
        self.kept = kept
        self.records = records  # the input's records, sampled or not (ARX's numRows)
        self.k = k
        sizes = classes.sizes
        # Suppressed sample records and the records the sampling left out (pcount - count).
        self.outliers = int(sizes[~kept].sum()) + records - data.n_records

    @property
    def dimensions(self) -> int:
        return len(self.data.quasi_identifiers)

    def sensitivity_divisor(self) -> float:
        """k²/(k−1) + 1, or 5 for k = 1 (ARX's divisor of DM and entropy)."""
        k = self.k
        return 5.0 if k == 1 else k * k / (k - 1) + 1.0


def _loss(s: ScoreInput) -> float:
    # MetricMDNMLoss.getScore: each outlier costs 1 per attribute, a kept record its
    # value's domain share; divided by the attributes and by k - 1.
    total = float(s.outliers) * s.dimensions
    kept = np.flatnonzero(s.kept)
    keys = s.classes.keys_of(kept)
    sizes = s.classes.sizes[kept]
    for j, qi in enumerate(s.data.quasi_identifiers):
        level = s.classes.levels[j]
        rows = np.bincount(qi.level_maps[level], minlength=qi.domain_size(level))
        total += float(np.dot(sizes, rows[keys[:, j]])) / len(qi.level_maps[0])
    score = -total / s.dimensions
    return score / (s.k - 1) if s.k > 1 else score


def _precision(s: ScoreInput) -> float:
    # MetricMDNMPrecision.getScore: level/height per attribute for kept records.
    kept = int(s.classes.sizes[s.kept].sum())
    total = 0.0
    for j, qi in enumerate(s.data.quasi_identifiers):
        height = len(qi.level_maps) - 1
        share = s.classes.levels[j] / height if height else 0.0
        total += kept * share + s.outliers
    score = -total / s.dimensions
    return score / (s.k - 1) if s.k > 1 else score


def _discernibility(s: ScoreInput) -> float:
    # MetricSDNMDiscernability.getScore: n per outlier, the class size per kept record.
    sizes = s.classes.sizes[s.kept].astype(np.int64)
    penalty = float(s.records) * s.outliers + float(sizes.dot(sizes))
    return -penalty / (s.records * s.sensitivity_divisor())


def _aecs(s: ScoreInput) -> float:
    # MetricSDAECS.getScore: kept classes, plus one for all outliers together.
    return float(np.count_nonzero(s.kept)) + (1.0 if s.outliers else 0.0)


def _entropy(s: ScoreInput) -> float:
    # MetricMDNUEntropyPrecomputed.getScore: n per suppressed value (suppressed record,
    # or generalized to a hierarchy's single root), the count of each kept value squared.
    n = float(s.records)
    kept = np.flatnonzero(s.kept)
    keys = s.classes.keys_of(kept)
    sizes = s.classes.sizes[kept].astype(np.int64)
    total = n * float(s.outliers) * s.dimensions
    for j, qi in enumerate(s.data.quasi_identifiers):
        level = s.classes.levels[j]
        if qi.domain_size(len(qi.level_maps) - 1) == 1 and qi.domain_size(level) == 1:
            total += n * float(sizes.sum())
            continue
        counts = np.bincount(keys[:, j], weights=sizes, minlength=qi.domain_size(level))
        total += float(np.dot(counts, counts))
    return -total / (n * s.dimensions) / s.sensitivity_divisor()


#: Quality models with a score function (ARX's ``isScoreFunctionSupported``); ARX also
#: has one for the classification metric, which arxpy does not offer with SafePub yet.
SCORE_FUNCTIONS: dict[str, ScoreFunction] = {
    "loss": _loss, "precision": _precision, "dm": _discernibility, "aecs": _aecs,
    "entropy": _entropy,
}


def score_function(quality_name: str) -> ScoreFunction:
    """The score function of a quality model, or a ConfigurationError naming the ones
    SafePub's search supports."""
    try:
        return SCORE_FUNCTIONS[quality_name]
    except KeyError:
        raise ConfigurationError(
            f"Data-dependent differential privacy has no score function for the quality "
            f"model '{quality_name}'; choose one of {', '.join(SCORE_FUNCTIONS)}, or fix "
            "the generalization.") from None


def exponential_choice(scores: np.ndarray, epsilon: float, rng: np.random.Generator) -> int:
    """Index drawn with probability ∝ exp(ε · score / 2), shifted by the largest exponent
    so nothing overflows (ARX ``ExponentialMechanism.setDistribution``)."""
    exponents = 0.5 * epsilon * scores
    weights = np.exp(exponents - exponents.max())
    return int(rng.choice(len(scores), p=weights / weights.sum()))


class SafePubSearch:
    """The walk of Algorithm 2 over one context; ``scores`` and ``pivots`` stay readable
    (the parity benchmark compares them with ARX's)."""

    def __init__(self, ctx: SearchContext, records: int, k: int, quality_name: str,
                 epsilon_step: float, rng: np.random.Generator) -> None:
        self.ctx = ctx
        self.records = records
        self.k = k
        self.function = score_function(quality_name)
        self.epsilon_step = epsilon_step
        self.rng = rng
        #: The DP score of every transformation checked.
        self.scores: dict[tuple[int, ...], float] = {}
        #: The pivots in the order drawn, the top first.
        self.pivots: list[tuple[int, ...]] = []

    def score(self, levels: tuple[int, ...]) -> float:
        if levels not in self.scores:
            classes = self.ctx.classes(levels)
            kept = self.ctx.kept(classes)
            self.ctx.check(levels, classes)
            self.scores[levels] = self.function(
                ScoreInput(self.ctx.data, classes, kept, self.records, self.k))
        return self.scores[levels]

    def run(self, steps: int) -> tuple[int, ...] | None:
        """The best anonymous pivot after ``steps`` draws (fewer when the candidates run
        out); None when no pivot met the other privacy models."""
        lattice = self.ctx.lattice
        pivot = lattice.top
        candidates: dict[tuple[int, ...], float] = {pivot: self.score(pivot)}
        chosen: tuple[int, ...] | None = None
        chosen = self._track(pivot, chosen)
        for step in range(1, steps + 1):
            self.ctx.cancel.raise_if_cancelled()
            for predecessor in lattice.predecessors(pivot):
                if predecessor not in candidates:
                    candidates[predecessor] = self.score(predecessor)
            del candidates[pivot]
            if not candidates:
                break
            levels = list(candidates)
            pivot = levels[exponential_choice(np.array([candidates[x] for x in levels]),
                                              self.epsilon_step, self.rng)]
            chosen = self._track(pivot, chosen)
            self.ctx.progress(step / steps, f"Step {step} of {steps}")
        return chosen

    def _track(self, pivot: tuple[int, ...], chosen: tuple[int, ...] | None
               ) -> tuple[int, ...] | None:
        """ARX's trackOptimum: an anonymous pivot with a higher score, or an equal score
        and a lower generalization, replaces the best so far."""
        self.pivots.append(pivot)
        if not self.ctx.checks[pivot].anonymous:
            return chosen
        if chosen is None or (self.scores[pivot], -sum(pivot)) > \
                (self.scores[chosen], -sum(chosen)):
            return pivot
        return chosen


def search_safepub(ctx: SearchContext, model: EDDifferentialPrivacy, records: int,
                   quality_name: str,
                   rng: np.random.Generator) -> tuple[SearchOutcome, SafePubSearch | None]:
    """SafePub's generalization step on the sample ``ctx`` encodes (``records`` in the
    input): the fixed transformation, or the exponential mechanism's walk."""
    if not model.data_dependent:
        levels = model.levels_for(ctx.data)
        check: Check = ctx.check(levels)
        return ctx.outcome(check if check.anonymous else None, optimal=False), None
    walk = SafePubSearch(ctx, records, model.k, quality_name,
                         model.epsilon_search / model.steps, rng)
    chosen = walk.run(model.steps)
    return ctx.outcome(None if chosen is None else ctx.checks[chosen], optimal=False), walk
