"""Sample uniqueness at most x: few released records are alone in their class (ARX
``SampleUniqueness``).

ARX 3.9.2 (``criteria/SampleUniqueness.java``): the share of released records in classes
of size 1, ``HashGroupifyDistribution.getFractionOfRecordsInClassesOfSize(1)``, must be
at most the threshold. As in ARX suppressed records count neither as records nor as
classes, and an output without records has share 0. ARX declares it monotonic with and
without suppression (``RiskBasedCriterion(true, true, threshold)``) and enforces it by a
binary search over how many of the smallest classes to suppress.
"""

from __future__ import annotations

import numpy as np

from arxpy.formatting import plain
from arxpy.params import Param
from arxpy.privacy.base import OutputRiskModel
from arxpy.privacy.registry import register_privacy_model


def unique_share(kept_sizes: np.ndarray) -> float:
    """Share of the records of these (kept) classes that are alone in theirs; 0 if none."""
    records = int(kept_sizes.sum())
    if records == 0:
        return 0.0
    return float(np.count_nonzero(kept_sizes == 1)) / records


@register_privacy_model
class SampleUniqueness(OutputRiskModel):
    """At most ``threshold`` of the released records are unique in the output."""

    kind = "sample-uniqueness"
    label = "Sample uniqueness"
    description = ("The share of released records that are alone in their class stays "
                   "below the threshold.")
    params = (Param("threshold", "float", suggested=0.01, low=0, high=1,
                    help="Largest share of released records unique in the output "
                         "(e.g. 0.01 for 1%)"),)
    monotonic_with_suppression = True
    monotonic_without_suppression = True
    threshold: float

    def fulfilled_by(self, kept_sizes: np.ndarray) -> bool:
        """Does a release with these (kept) class sizes meet the model?"""
        return unique_share(kept_sizes) <= self.threshold

    def describe(self) -> str:
        return f"sample uniqueness at most {plain(self.threshold)}"
