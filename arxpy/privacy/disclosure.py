"""delta-disclosure privacy of a sensitive attribute, as in ARX.

Brickell, Shmatikov: The cost of privacy: destruction of data-mining utility in anonymized
data publishing (KDD 2008), Definition 4: every class and every sensitive value v in it
satisfy |log(p_class(v) / p_global(v))| < delta. As ARX's DDisclosurePrivacy does, the
logarithm is base 2, the comparison strict, and only values present in the class count
(an absent value would give log 0).
"""

from __future__ import annotations

import numpy as np

from arxpy.formatting import plain
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.params import Param
from arxpy.privacy.registry import register_privacy_model
from arxpy.privacy.sensitive import (
    ATTRIBUTE,
    SensitiveAttributeModel,
    class_max,
)


@register_privacy_model
class DeltaDisclosure(SensitiveAttributeModel):
    """No class moves the frequency of a sensitive value by a factor of 2**delta or more."""

    kind = "delta-disclosure"
    label = "δ-Disclosure privacy"
    description = ("No class changes the frequency of a sensitive value by a factor of 2^δ "
                   "or more.")
    params = (ATTRIBUTE,
              Param("delta", "float", suggested=1.0, low=0, low_open=True, label="δ",
                    help="Largest log2 of the ratio of a value's frequency in a class to "
                         "its overall frequency"))
    # ARX DDisclosurePrivacy: super(attribute, false, false)
    monotonic_with_suppression = False
    monotonic_without_suppression = False
    delta: float

    def value_disclosure(self, classes: EquivalenceClasses) -> np.ndarray:
        """|log2(p_class / p_global)| of each (class, value) triple of the distribution."""
        counts = self.prepared_counts()
        dist = self.distribution(classes)
        # (n / size) / (G / N), as a ratio of exact integers.
        numerator = (dist.count * self.n_records).astype(np.float64)
        denominator = (counts[dist.value] * classes.sizes[dist.class_index]).astype(np.float64)
        with np.errstate(divide="ignore"):
            return np.abs(np.log2(numerator / denominator))

    def class_disclosure(self, classes: EquivalenceClasses) -> np.ndarray:
        """Per class, the largest |log2(p_class / p_global)| over its values (>= 0)."""
        dist = self.distribution(classes)
        return class_max(dist.class_index, self.value_disclosure(classes), classes.n_classes)

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        dist = self.distribution(classes)
        ok = np.ones(classes.n_classes, dtype=bool)
        ok[dist.class_index[self.value_disclosure(classes) >= self.delta]] = False
        return ok

    def describe(self) -> str:
        return f"{plain(self.delta)}-disclosure privacy for '{self.attribute}'"
