"""l-diversity of a sensitive attribute: distinct, entropy and recursive-(c,l), as in ARX.

Machanavajjhala, Kifer, Gehrke: l-diversity: Privacy beyond k-anonymity (TKDD 1(1), 2007),
Definitions 3.1 (distinct, via ARX), 4.1 (entropy) and 4.2 (recursive (c,l)). The entropy
variant offers ARX's Grassberger estimator (Stammler, Katzenbeisser, Hamacher: Correcting
finite sampling issues in entropy l-diversity, PSD 2016).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.formatting import plain, plural
from arxpy.lattice.classes import Distribution, EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param
from arxpy.privacy.registry import register_privacy_model
from arxpy.privacy.sensitive import (
    ATTRIBUTE,
    LOG_SLACK,
    SensitiveAttributeModel,
)

#: ARX takes l as an int for distinct and recursive l-diversity, a double for entropy.
WHOLE_L = Param("l", "int", suggested=2, low=1, help="Distinct sensitive values per class")


class _LDiversity(SensitiveAttributeModel):
    """Shared parameter l: every class needs at least ceil(l) distinct values (ARX LDiversity)."""

    l: float  # noqa: E741 (the paper's name)

    @property
    def min_distinct(self) -> int:
        return math.ceil(self.l)

    @property
    def guaranteed_class_size(self) -> int:
        # A class with ceil(l) distinct values holds at least that many records.
        return self.min_distinct

    def validate(self, data: EncodedData) -> None:
        tracked = self.tracked(data)
        distinct = int(np.count_nonzero(tracked.global_counts))
        if self.min_distinct > distinct:
            raise ConfigurationError(
                f"{self.describe()} is impossible: '{self.attribute}' has only "
                f"{plural(distinct, 'distinct value')} in the data, so no class can hold "
                f"{self.min_distinct}; lower l to at most {distinct}."
            )

    def distinct_ok(self, dist: Distribution, n_classes: int) -> np.ndarray:
        return dist.distinct_per_class(n_classes) >= self.min_distinct


@register_privacy_model
class DistinctLDiversity(_LDiversity):
    """Every class holds at least l distinct values of the sensitive attribute."""

    kind = "distinct-l-diversity"
    label = "Distinct l-diversity"
    description = ("Every equivalence class holds at least l distinct values of the sensitive "
                   "attribute.")
    params = (ATTRIBUTE, WHOLE_L)
    # ARX DistinctLDiversity: super(attribute, l, true, true)
    monotonic_with_suppression = True
    monotonic_without_suppression = True

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        return self.distinct_ok(self.distribution(classes), classes.n_classes)

    def describe(self) -> str:
        return f"distinct-{plain(self.l)}-diversity for '{self.attribute}'"


ENTROPY_ESTIMATORS = ("shannon", "grassberger")
_EULER_GAMMA = 0.5772156649015329


def grassberger_g(n: np.ndarray) -> np.ndarray:
    """Grassberger's G_n for counts n >= 1 (float64), the psi of ARX's GRASSBERGER estimator.

    G_{2h+1} = G_{2h} = -gamma - ln 2 + sum_{k=1..h} 2/(2k-1). ARX tabulates n <= 100 and
    uses the digamma expansion above; this sums exactly (they agree to ~1e-15).
    """
    n = np.asarray(n, dtype=np.int64)
    if n.size == 0:
        return np.zeros(0)
    half = n // 2
    terms = 2.0 / (2.0 * np.arange(1, int(half.max()) + 1) - 1.0)
    partial = np.concatenate(([0.0], np.cumsum(terms)))
    return -_EULER_GAMMA - math.log(2.0) + partial[half]


@register_privacy_model
class EntropyLDiversity(_LDiversity):
    """The entropy of the sensitive values in every class is at least ln(l).

    ``estimator`` is ``"shannon"`` (the paper's plug-in entropy, ARX's default) or
    ``"grassberger"`` (ARX's finite-sample correction). Both use the form
    ``H = psi(N) - (1/N) sum n psi(n)`` with psi = ln or G.
    """

    kind = "entropy-l-diversity"
    label = "Entropy l-diversity"
    description = "The entropy of the sensitive values in every class is at least ln(l)."
    params = (ATTRIBUTE,
              Param("l", "float", suggested=2.0, low=1, help="Entropy of each class >= ln(l)"),
              Param("estimator", "choice", "shannon", choices=ENTROPY_ESTIMATORS,
                    label="entropy estimator",
                    help="Shannon's plug-in entropy or Grassberger's finite-sample correction"))
    # ARX EntropyLDiversity: super(attribute, l, false, true)
    monotonic_with_suppression = False
    monotonic_without_suppression = True
    estimator: str

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.estimator == "grassberger":
            # Deliberately unlike ARX, which flags both estimators monotonic: two classes
            # with counts 1:1:1:1 pass grassberger-entropy-4-diversity, merged (2:2:2:2) they
            # fail, so pruning on this flag could release data that is not l-diverse.
            self.monotonic_without_suppression = False  # type: ignore[misc]

    def _psi(self, n: np.ndarray) -> np.ndarray:
        if self.estimator == "grassberger":
            return grassberger_g(n)
        return np.log(np.asarray(n, dtype=np.float64))

    def _sum_n_psi_n(self, dist: Distribution, n_classes: int) -> np.ndarray:
        weights = dist.count * self._psi(dist.count)
        return np.bincount(dist.class_index, weights=weights, minlength=n_classes)

    def class_entropy(self, classes: EquivalenceClasses) -> np.ndarray:
        """Estimated entropy (nats, >= 0 for Shannon) of the sensitive values per class."""
        weighted = self._sum_n_psi_n(self.distribution(classes), classes.n_classes)
        return self._psi(classes.sizes) - weighted / classes.sizes

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        dist = self.distribution(classes)
        # ARX's form: sum n psi(n) <= N (psi(N) - ln l), i.e. entropy >= ln l.
        weighted = self._sum_n_psi_n(dist, classes.n_classes)
        psi_size = self._psi(classes.sizes)
        bound = classes.sizes * (psi_size - math.log(self.l))
        slack = LOG_SLACK * classes.sizes * (1.0 + np.abs(psi_size))
        return self.distinct_ok(dist, classes.n_classes) & (weighted <= bound + slack)

    def describe(self) -> str:
        prefix = "" if self.estimator == "shannon" else f"{self.estimator}-"
        return f"{prefix}entropy-{plain(self.l)}-diversity for '{self.attribute}'"


@register_privacy_model
class RecursiveCLDiversity(_LDiversity):
    """In every class, r_1 < c (r_l + ... + r_m) for the value counts sorted descending."""

    kind = "recursive-cl-diversity"
    label = "Recursive (c,l)-diversity"
    description = ("In every class the most frequent sensitive value is rarer than c times the "
                   "l-th and less frequent ones together.")
    params = (ATTRIBUTE,
              Param("c", "float", suggested=4.0, low=0, low_open=True,
                    help="r1 < c (rl + ... + rm)"),
              WHOLE_L)
    # ARX RecursiveCLDiversity: super(attribute, l, false, true)
    monotonic_with_suppression = False
    monotonic_without_suppression = True
    c: float

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        dist = self.distribution(classes)
        n_classes = classes.n_classes
        distinct = dist.distinct_per_class(n_classes)
        # Sort each class's counts descending; classes stay grouped (class index leads the key).
        span = int(dist.count.max(initial=0)) + 1
        order = np.argsort(dist.class_index * span + (span - 1 - dist.count), kind="stable")
        counts = dist.count[order]
        cls = dist.class_index[order]
        first = np.cumsum(distinct) - distinct  # offset of each class's first triple
        rank = np.arange(counts.size) - first[cls]
        top = np.bincount(cls, weights=counts * (rank < self.min_distinct - 1), minlength=n_classes)
        tail = classes.sizes - top  # r_l + ... + r_m
        r1 = np.zeros(n_classes, dtype=np.int64)
        present = distinct > 0
        r1[present] = counts[first[present]]
        return (distinct >= self.min_distinct) & (r1 < self.c * tail)

    def describe(self) -> str:
        return (
            f"recursive-({plain(self.c)},{plain(self.l)})-diversity "
            f"for '{self.attribute}'"
        )
