"""kPB-MS's anonymisation step (Aristodimou et al. 2016, Algorithm 2; spec 003 §2.3).

For each pattern of the selected features: the class counts before (``init``) and
after k-anonymity (classes with fewer than k instances set to 0); a Fisher exact test
on the 2 x |c| table [init; anon]; a significant change removes the whole pattern,
otherwise only the violating (pattern, class) instances go. While the share of lost
instances exceeds t, the least important (last) feature is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken
from arxpy.quality.fisher_exact import fisher_2xc
from arxpy.quality.pbca import class_counts, pattern_ids

#: Actions on a pattern, as reported per pattern.
KEPT, TRIMMED, REMOVED = "kept", "trimmed", "removed"


@dataclass
class PatternDecisions:
    """The anonymisation of one feature prefix.

    ``ids``: pattern of each record; ``labels``: its class code; ``before``/``after``:
    class counts per pattern; ``pvalues``: Fisher p per pattern (NaN where no class
    violated k); ``exact``: False where p was estimated; ``actions``: KEPT / TRIMMED /
    REMOVED; ``dropped``: per record; ``whole``: per record, dropped because its whole
    pattern went.
    """

    features: list[int]
    ids: np.ndarray
    labels: np.ndarray
    before: np.ndarray
    after: np.ndarray
    pvalues: np.ndarray
    exact: np.ndarray
    actions: np.ndarray
    dropped: np.ndarray
    whole: np.ndarray

    @property
    def loss(self) -> float:
        return float(self.dropped.mean()) if len(self.dropped) else 0.0

    def count(self, action: str) -> int:
        return int(np.count_nonzero(self.actions == action))


def anonymize_prefix(codes: np.ndarray, labels: np.ndarray, n_classes: int,
                     features: list[int], k: int, alpha: float,
                     cache: dict[tuple[int, ...], Any], cancel: CancelToken | None = None
                     ) -> PatternDecisions:
    """One pass of the anonymisation step over the patterns of ``features``."""
    ids, n_patterns = pattern_ids(codes, features)
    before = class_counts(ids, n_patterns, labels, n_classes)
    after = np.where(before >= k, before, 0)
    violated = np.flatnonzero(((before > 0) & (before < k)).any(axis=1))
    pvalues = np.full(n_patterns, np.nan)
    exact = np.ones(n_patterns, dtype=bool)
    for pattern in violated:  # a large 2 x c test may take a tenth of a second
        if cancel is not None:
            cancel.raise_if_cancelled()
        pvalues[pattern], exact[pattern] = _fisher(before[pattern], after[pattern], cache)
    actions = np.full(n_patterns, KEPT, dtype=object)
    significant = np.zeros(n_patterns, dtype=bool)
    significant[violated] = pvalues[violated] < alpha
    actions[violated] = np.where(significant[violated], REMOVED, TRIMMED)
    # An all-zero anonymised row has p = 1 but loses every instance anyway: "removed".
    actions[violated[after[violated].sum(axis=1) == 0]] = REMOVED
    whole = significant[ids]
    dropped = whole | (before[ids, labels] < k)
    return PatternDecisions(features, ids, labels, before, after, pvalues, exact, actions,
                            dropped, whole)


def _fisher(before: np.ndarray, after: np.ndarray, cache: dict) -> tuple[float, bool]:
    """Fisher p of [before; after] (all-zero after: p = 1), cached by the counts."""
    if not after.any():
        return 1.0, True
    key = tuple(int(v) for v in before) + tuple(int(v) for v in after)
    if key not in cache:
        result = fisher_2xc(np.vstack([before, after]))
        cache[key] = (result.pvalue, result.exact)
    return cache[key]


@dataclass(frozen=True)
class Iteration:
    """One row of the kPB-MS iteration table."""

    features: tuple[str, ...]
    loss: float
    patterns: int
    patterns_removed: int
    patterns_trimmed: int
    records_dropped: int
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(self.features), "n_features": len(self.features),
                "loss": self.loss, "patterns": self.patterns,
                "patterns_removed": self.patterns_removed,
                "patterns_trimmed": self.patterns_trimmed,
                "records_dropped": self.records_dropped, "passed": self.passed}


class LossLimitError(ConfigurationError):
    """No non-empty feature prefix keeps the loss within t (spec decision G12).

    ``iterations`` holds the trace of every prefix tried, for the report and the GUI.
    """

    def __init__(self, message: str, iterations: list[Iteration]) -> None:
        super().__init__(message)
        self.iterations = iterations


def kpbms_loop(codes: np.ndarray, labels: np.ndarray, n_classes: int, ranking: list[int],
               names: list[str], k: int, max_loss: float, alpha: float,
               progress, cancel: CancelToken | None
               ) -> tuple[PatternDecisions, list[Iteration]]:
    """Shrink the ranked features from the end until the loss is at most ``max_loss``.

    LossLimitError when even the single most important feature loses more.
    """
    cache: dict = {}
    iterations: list[Iteration] = []
    features = list(ranking)
    while features:
        decisions = anonymize_prefix(codes, labels, n_classes, features, k, alpha, cache,
                                     cancel)
        passed = decisions.loss <= max_loss
        iterations.append(Iteration(
            tuple(names[j] for j in features), decisions.loss, len(decisions.before),
            decisions.count(REMOVED), decisions.count(TRIMMED),
            int(decisions.dropped.sum()), passed))
        progress(0.65 + 0.3 * len(iterations) / max(len(ranking), 1),
                 f"{len(features)} features: loss {decisions.loss:.3f}")
        if passed:
            return decisions, iterations
        features = features[:-1]
    smallest = min(iterations, key=lambda it: it.loss)
    raise LossLimitError(
        f"kPB-MS: no feature prefix reaches loss <= {max_loss:g} at k = {k} (smallest loss "
        f"{smallest.loss:.3f} with {', '.join(smallest.features)}); raise the maximum loss "
        "or lower k.", iterations)
