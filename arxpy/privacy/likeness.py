"""beta-likeness of a sensitive attribute, basic and enhanced, as in ARX.

Cao, Karras: Publishing microdata with a robust privacy guarantee (VLDB 2012),
Definitions 2 and 3: for every class and every sensitive value v, the relative gain
(p_class(v) - p_global(v)) / p_global(v) is at most beta (basic) or at most
min(beta, -ln p_global(v)) (enhanced). Only values more frequent in the class than
globally can break the bound; the others have a negative gain.
"""

from __future__ import annotations

from typing import ClassVar

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


class _BetaLikeness(SensitiveAttributeModel):
    """Shared parameter beta (> 0) and the relative gain of each class's values."""

    # ARX BasicBLikeness and EnhancedBLikeness: super(attribute, false, true)
    monotonic_with_suppression = False
    monotonic_without_suppression = True
    params = (ATTRIBUTE,
              Param("beta", "float", suggested=1.0, low=0, low_open=True, label="β",
                    help="Largest relative gain in a sensitive value's frequency in a class"))
    #: "basic" or "enhanced", as in the model's name.
    variant: ClassVar[str] = ""
    beta: float

    def value_gain(self, classes: EquivalenceClasses) -> np.ndarray:
        """(p_class - p_global) / p_global of each (class, value) triple (>= -1)."""
        counts = self.prepared_counts()
        dist = self.distribution(classes)
        scaled_global = (counts[dist.value] * classes.sizes[dist.class_index]).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (dist.count * self.n_records - scaled_global) / scaled_global

    def class_gain(self, classes: EquivalenceClasses) -> np.ndarray:
        """Per class, the largest relative gain of any of its values."""
        dist = self.distribution(classes)
        return class_max(dist.class_index, self.value_gain(classes), classes.n_classes)

    def value_bound(self, classes: EquivalenceClasses) -> np.ndarray | float:
        """The bound each triple's gain must not exceed."""
        return self.beta

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        dist = self.distribution(classes)
        ok = np.ones(classes.n_classes, dtype=bool)
        ok[dist.class_index[self.value_gain(classes) > self.value_bound(classes)]] = False
        return ok

    def describe(self) -> str:
        return f"{self.variant}-{plain(self.beta)}-likeness for '{self.attribute}'"


@register_privacy_model
class BasicBetaLikeness(_BetaLikeness):
    """No class raises a sensitive value's frequency by more than a factor 1 + beta."""

    kind = "basic-beta-likeness"
    label = "Basic β-likeness"
    description = ("No sensitive value is more than (1 + β) times as frequent in a class as in "
                   "the dataset.")
    variant = "basic"


@register_privacy_model
class EnhancedBetaLikeness(_BetaLikeness):
    """As basic beta-likeness, but rare values get the tighter bound -ln p_global(v)."""

    kind = "enhanced-beta-likeness"
    label = "Enhanced β-likeness"
    description = "Like basic β-likeness, with a logarithmic bound for rare values."
    variant = "enhanced"

    def value_bound(self, classes: EquivalenceClasses) -> np.ndarray | float:
        counts = self.prepared_counts()
        dist = self.distribution(classes)
        with np.errstate(divide="ignore"):
            return np.minimum(self.beta, -np.log(counts[dist.value] / self.n_records))
