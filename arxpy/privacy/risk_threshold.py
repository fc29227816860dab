"""A threshold on the average re-identification risk of the output, as in ARX.

ARX's AverageReidentificationRisk (prosecutor model): the risk of a record is 1 / size of
its equivalence class, so the average over the released records is
(number of classes) / (number of records), i.e. 1 / average class size. As in ARX's
HashGroupifyDistribution, suppressed records count neither as records nor as a class.
"""

from __future__ import annotations

import numpy as np

from arxpy.formatting import plain
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.params import Param
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.registry import register_privacy_model


def average_risk(sizes: np.ndarray, kept: np.ndarray) -> float:
    """Average re-identification risk of the kept classes, in (0, 1]; NaN if none is kept."""
    n_records = int(sizes[kept].sum())
    if n_records == 0:
        return float("nan")
    return int(np.count_nonzero(kept)) / n_records


@register_privacy_model
class AverageRisk(PrivacyModel):
    """The average re-identification risk of the released records is at most ``threshold``.

    The model judges the output as a whole: every class passes ``satisfied`` and
    ``dataset_satisfied`` decides. ``enforce`` reproduces ARX's enforcement, which
    suppresses the smallest classes until the threshold is met.
    """

    kind = "average-risk"
    label = "Average re-identification risk"
    description = ("The average prosecutor re-identification risk (1 / class size) stays below "
                   "the threshold.")
    # ARX accepts [0, 1); 0 can never be met (every risk is positive), so we refuse it.
    params = (Param("threshold", "float", suggested=0.05, low=0, high=1, low_open=True,
                    high_open=True, help="Largest average prosecutor risk (e.g. 0.05 for 5%)"),)
    # ARX AverageReidentificationRisk: RiskBasedCriterion(true, true, threshold)
    monotonic_with_suppression = True
    monotonic_without_suppression = True
    threshold: float

    @property
    def marketer_risk_limit(self) -> float:
        return self.threshold

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        return np.ones(classes.n_classes, dtype=bool)

    def dataset_satisfied(self, classes: EquivalenceClasses, kept: np.ndarray) -> bool:
        # An output without records has no defined risk; ARX does not accept it either.
        return bool(average_risk(classes.sizes, kept) <= self.threshold)

    def enforce(self, classes: EquivalenceClasses, kept: np.ndarray, budget: int) -> np.ndarray:
        """Which classes stay kept after suppressing the smallest until the threshold is met.

        At most ``budget`` more records may be suppressed; if that is not enough, ``kept``
        is returned unchanged (and ``dataset_satisfied`` stays False). Suppressing a
        smallest class never lowers the average class size, so the first sufficient
        prefix of the classes sorted by size is the least suppression (ties by index).
        """
        kept = np.asarray(kept, dtype=bool)
        if self.dataset_satisfied(classes, kept):
            return kept
        candidates = np.flatnonzero(kept)
        candidates = candidates[np.argsort(classes.sizes[candidates], kind="stable")]
        removed = np.cumsum(classes.sizes[candidates])
        remaining_records = int(classes.sizes[kept].sum()) - removed
        remaining_classes = candidates.size - np.arange(1, candidates.size + 1)
        enough = (remaining_records > 0) & (remaining_classes <= self.threshold * remaining_records)
        enough &= removed <= budget
        if not enough.any():
            return kept
        out = kept.copy()
        out[candidates[: int(np.argmax(enough)) + 1]] = False
        return out

    def describe(self) -> str:
        return f"average re-identification risk at most {plain(self.threshold)}"
