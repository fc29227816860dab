"""A threshold on the average re-identification risk of the output, as in ARX.

ARX's AverageReidentificationRisk (prosecutor model): the risk of a record is 1 / size of
its equivalence class, so the average over the released records is
(number of classes) / (number of records), i.e. 1 / average class size. As in ARX's
HashGroupifyDistribution, suppressed records count neither as records nor as a class.
"""

from __future__ import annotations

import numpy as np

from arxpy.formatting import plain
from arxpy.params import Param
from arxpy.privacy.base import OutputRiskModel
from arxpy.privacy.registry import register_privacy_model


def average_risk(sizes: np.ndarray, kept: np.ndarray) -> float:
    """Average re-identification risk of the kept classes, in (0, 1]; NaN if none is kept.

    Computed as ARX does, 1 / (records / classes), so a threshold compares to the last bit.
    """
    return _risk_of(sizes[np.asarray(kept, dtype=bool)])


def _risk_of(kept_sizes: np.ndarray) -> float:
    n_records = int(kept_sizes.sum())
    if n_records == 0:
        return float("nan")
    return 1.0 / (n_records / kept_sizes.size)


@register_privacy_model
class AverageRisk(OutputRiskModel):
    """The average re-identification risk of the released records is at most ``threshold``.

    The model judges the output as a whole: every class passes ``satisfied`` and
    ``dataset_satisfied`` decides. ``enforce`` reproduces ARX's enforcement, which
    suppresses the smallest classes until the threshold is met (equal sizes in ARX's
    order: :mod:`arxpy.privacy.enforcement`).
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

    def fulfilled_by(self, kept_sizes: np.ndarray) -> bool:
        """Does a release with these (kept) class sizes meet the model?"""
        # An output without records has no defined risk: refused (ARX accepts it, but
        # only a 100 % suppression limit lets a transformation suppress everything).
        return bool(_risk_of(kept_sizes) <= self.threshold)

    def describe(self) -> str:
        return f"average re-identification risk at most {plain(self.threshold)}"
