"""k-anonymity: every equivalence class holds at least k records.

Sweeney, "k-anonymity: a model for protecting privacy" (2002). Monotonic with and
without suppression: merging classes never creates a class smaller than both parts,
so every generalization of a k-anonymous transformation is k-anonymous too.
"""

from __future__ import annotations

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.registry import register_privacy_model


@register_privacy_model
class KAnonymity(PrivacyModel):
    """Each class must hold at least ``k`` records (``k >= 1``)."""

    kind = "k-anonymity"
    label = "k-Anonymity"
    description = ("Every record is indistinguishable from at least k - 1 others in its "
                   "quasi-identifiers.")
    params = (Param("k", "int", suggested=5, low=1, unit="records",
                    help="Every class holds at least k records"),)
    monotonic_with_suppression = True
    monotonic_without_suppression = True
    k: int

    @property
    def guaranteed_class_size(self) -> int:
        return self.k

    def validate(self, data: EncodedData) -> None:
        if self.k > data.n_records:
            raise ConfigurationError(
                f"k = {self.k} is larger than the number of records ({data.n_records}); "
                f"choose k of at most {data.n_records}."
            )

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        return classes.sizes >= self.k

    def describe(self) -> str:
        return f"{self.k}-anonymity"

