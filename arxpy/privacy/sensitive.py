"""Shared pieces of the models that judge one sensitive attribute per class.

:class:`SensitiveAttributeModel` is the base of l-diversity, t-closeness,
delta-disclosure and beta-likeness; the helpers format and check parameters and
take per-class maxima over sparse distributions.
"""

from __future__ import annotations

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import Distribution, EquivalenceClasses
from arxpy.lattice.encoding import EncodedData, TrackedAttribute
from arxpy.params import Param
from arxpy.privacy.base import PrivacyModel

#: Relative slack for comparisons of sums of logarithms, so that a class exactly at
#: the threshold (entropy exactly log l) is not rejected by rounding.
LOG_SLACK = 1e-12


def class_max(class_index: np.ndarray, values: np.ndarray, n_classes: int) -> np.ndarray:
    """Per-class maximum of ``values`` (float64, -inf for a class without entries).

    ``class_index`` must be non-decreasing, as in a :class:`Distribution`.
    """
    out = np.full(n_classes, -np.inf)
    if values.size:
        starts = np.flatnonzero(np.concatenate(([True], class_index[1:] != class_index[:-1])))
        out[class_index[starts]] = np.maximum.reduceat(values.astype(np.float64), starts)
    return out


#: The first parameter of every model of one sensitive attribute.
ATTRIBUTE = Param("attribute", "attribute", help="a sensitive attribute to protect",
                  label="Sensitive attribute")


class SensitiveAttributeModel(PrivacyModel):
    """A model judging the distribution of one sensitive attribute in each class.

    Parameters are checked when the model is made (a ConfigurationError says which one
    and why, as ARX's constructors do); ``validate`` adds the checks that need the data.
    Subclasses get the attribute's global value counts (``self.global_counts``, int64,
    indexed by value code) and the record count (``self.n_records``) after ``prepare``.
    """

    attribute: str
    # Per-run state, set by prepare() on the run's clone.
    global_counts: np.ndarray | None = None
    n_records: int = 0

    @property
    def sensitive_attribute(self) -> str | None:
        return self.attribute

    def tracked(self, data: EncodedData) -> TrackedAttribute:
        """The encoded sensitive attribute, or a ConfigurationError saying what to mark."""
        if self.attribute not in data.tracked:
            known = ", ".join(sorted(data.tracked)) or "none"
            raise ConfigurationError(
                f"{self.describe()} needs '{self.attribute}' to be a sensitive attribute; "
                f"mark it sensitive in the attribute definitions "
                f"(sensitive attributes now: {known})."
            )
        return data.tracked[self.attribute]

    def validate(self, data: EncodedData) -> None:
        self.tracked(data)

    def prepare(self, data: EncodedData) -> None:
        self.global_counts = self.tracked(data).global_counts.astype(np.int64)
        self.n_records = int(self.global_counts.sum())

    def distribution(self, classes: EquivalenceClasses) -> Distribution:
        """The attribute's per-class distribution; the engine must have tracked it."""
        try:
            return classes.distributions[self.attribute]
        except KeyError:
            raise ConfigurationError(
                f"{self.describe()}: the equivalence classes carry no distribution of "
                f"'{self.attribute}'; it must be tracked as a sensitive attribute."
            ) from None

    def prepared_counts(self) -> np.ndarray:
        """Global counts from ``prepare``; calling a check before it is a programming error."""
        if self.global_counts is None:
            raise RuntimeError(f"{type(self).__name__}.prepare() must run before checks.")
        return self.global_counts
