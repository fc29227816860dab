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
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.params import Param
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.enforcement import TieOrder, suppress_smallest
from arxpy.privacy.registry import register_privacy_model


def unique_share(kept_sizes: np.ndarray) -> float:
    """Share of the records of these (kept) classes that are alone in theirs; 0 if none."""
    records = int(kept_sizes.sum())
    if records == 0:
        return 0.0
    return float(np.count_nonzero(kept_sizes == 1)) / records


@register_privacy_model
class SampleUniqueness(PrivacyModel):
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

    @property
    def marketer_risk_limit(self) -> float:
        # ARX's getRiskThresholdMarketer (with its own "TODO: estimated differently").
        return self.threshold

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        return np.ones(classes.n_classes, dtype=bool)

    def fulfilled_by(self, kept_sizes: np.ndarray) -> bool:
        """Does a release with these (kept) class sizes meet the model?"""
        return unique_share(kept_sizes) <= self.threshold

    def dataset_satisfied(self, classes: EquivalenceClasses, kept: np.ndarray) -> bool:
        return self.fulfilled_by(classes.sizes[np.asarray(kept, dtype=bool)])

    def enforce(self, classes: EquivalenceClasses, kept: np.ndarray, budget: int,
                order: TieOrder | None = None) -> np.ndarray:
        """Kept classes after ARX's binary search over how many of the smallest classes
        to suppress (at most ``budget`` more records, equal sizes in ``order``)."""
        return suppress_smallest(classes, kept, budget, self.fulfilled_by, order)

    def describe(self) -> str:
        return f"sample uniqueness at most {plain(self.threshold)}"
