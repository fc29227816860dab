"""l-diversity of a sensitive attribute: distinct, entropy and recursive-(c,l), as in ARX.

Machanavajjhala, Kifer, Gehrke: l-diversity: Privacy beyond k-anonymity (TKDD 1(1), 2007),
Definitions 3.1 (distinct, via ARX), 4.1 (entropy) and 4.2 (recursive (c,l)). The entropy
variant offers ARX's Grassberger estimator (Stammler, Katzenbeisser, Hamacher: Correcting
finite sampling issues in entropy l-diversity, PSD 2016).

This module also holds :class:`SensitiveAttributeModel`, the base of every model that
judges the per-class distribution of one sensitive attribute (t-closeness,
delta-disclosure, beta-likeness).
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, ClassVar

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import Distribution, EquivalenceClasses
from arxpy.lattice.encoding import EncodedData, TrackedAttribute
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.registry import register_privacy_model

#: Relative slack for comparisons of sums of logarithms, so that a class exactly at
#: the threshold (entropy exactly log l) is not rejected by rounding.
LOG_SLACK = 1e-12


def format_number(value: float) -> str:
    """Parameters as people write them: ``3`` not ``3.0``, ``0.2``; non-numbers as given."""
    if isinstance(value, Real) and not isinstance(value, bool):
        number = float(value)
        return str(int(number)) if number.is_integer() else repr(number)
    return repr(value)


def require_number(value: Any, name: str, model: str) -> float:
    """``value`` as a float, or a ConfigurationError naming the parameter and model."""
    if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value):
        raise ConfigurationError(f"Parameter {name} of {model} must be a number, got {value!r}.")
    return float(value)


def class_max(class_index: np.ndarray, values: np.ndarray, n_classes: int) -> np.ndarray:
    """Per-class maximum of ``values`` (float64, -inf for a class without entries).

    ``class_index`` must be non-decreasing, as in a :class:`Distribution`.
    """
    out = np.full(n_classes, -np.inf)
    if values.size:
        starts = np.flatnonzero(np.concatenate(([True], class_index[1:] != class_index[:-1])))
        out[class_index[starts]] = np.maximum.reduceat(values.astype(np.float64), starts)
    return out


class SensitiveAttributeModel(PrivacyModel):
    """A model judging the distribution of one sensitive attribute in each class.

    Parameters are checked when the model is made (a ConfigurationError says which one
    and why, as ARX's constructors do); ``validate`` adds the checks that need the data.
    Subclasses get the attribute's global value counts (``self.global_counts``, int64,
    indexed by value code) and the record count (``self.n_records``) after ``prepare``.
    """

    def __init__(self, attribute: str) -> None:
        if not isinstance(attribute, str) or not attribute:
            raise ConfigurationError(
                f"{type(self).__name__} needs the name of a sensitive attribute, got {attribute!r}."
            )
        self.attribute = attribute
        self.global_counts: np.ndarray | None = None
        self.n_records = 0

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

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items() if k != "kind")
        return f"{type(self).__name__}({params})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_dict() == self.to_dict()

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, repr(v)) for k, v in self.to_dict().items())))


class _LDiversity(SensitiveAttributeModel):
    """Shared parameter l: every class needs at least ceil(l) distinct values (ARX LDiversity)."""

    #: ARX takes l as an int for distinct and recursive l-diversity, a double for entropy.
    whole_l: ClassVar[bool] = True

    def __init__(self, attribute: str, l: float) -> None:  # noqa: E741 (the paper's name)
        super().__init__(attribute)
        self.l = l
        l_value = require_number(l, "l", self.describe())
        if l_value < 1:
            raise ConfigurationError(f"{self.describe()}: l must be at least 1, got {l}.")
        if self.whole_l and l_value != int(l_value):
            raise ConfigurationError(f"{self.describe()}: l must be a whole number, got {l}.")
        self.l = int(l_value) if self.whole_l else l_value

    @property
    def min_distinct(self) -> int:
        return math.ceil(self.l)

    def validate(self, data: EncodedData) -> None:
        tracked = self.tracked(data)
        distinct = int(np.count_nonzero(tracked.global_counts))
        if self.min_distinct > distinct:
            raise ConfigurationError(
                f"{self.describe()} is impossible: '{self.attribute}' has only {distinct} "
                f"distinct value(s) in the data, so no class can hold {self.min_distinct}; "
                f"lower l to at most {distinct}."
            )

    def distinct_ok(self, dist: Distribution, n_classes: int) -> np.ndarray:
        return dist.distinct_per_class(n_classes) >= self.min_distinct


@register_privacy_model
class DistinctLDiversity(_LDiversity):
    """Every class holds at least l distinct values of the sensitive attribute."""

    kind = "distinct-l-diversity"
    # ARX DistinctLDiversity: super(attribute, l, true, true)
    monotonic_with_suppression = True
    monotonic_without_suppression = True

    def __init__(self, attribute: str, l: int) -> None:  # noqa: E741
        super().__init__(attribute, l)

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        return self.distinct_ok(self.distribution(classes), classes.n_classes)

    def describe(self) -> str:
        return f"distinct-{format_number(self.l)}-diversity for '{self.attribute}'"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "attribute": self.attribute, "l": self.l}


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
    whole_l = False
    # ARX EntropyLDiversity: super(attribute, l, false, true)
    monotonic_with_suppression = False
    monotonic_without_suppression = True

    def __init__(self, attribute: str, l: float, estimator: str = "shannon") -> None:  # noqa: E741
        self.estimator = estimator
        super().__init__(attribute, l)
        if estimator not in ENTROPY_ESTIMATORS:
            raise ConfigurationError(
                f"Unknown entropy estimator {estimator!r} for entropy-l-diversity of "
                f"'{attribute}'; use one of {', '.join(ENTROPY_ESTIMATORS)}."
            )
        if estimator == "grassberger":
            # Deliberately unlike ARX, which flags both estimators monotonic: two classes
            # with counts 1:1:1:1 pass grassberger-entropy-4-diversity, merged (2:2:2:2) they
            # fail, so pruning on this flag could release data that is not l-diverse.
            self.monotonic_without_suppression = False

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
        return f"{prefix}entropy-{format_number(self.l)}-diversity for '{self.attribute}'"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "attribute": self.attribute,
            "l": self.l,
            "estimator": self.estimator,
        }


@register_privacy_model
class RecursiveCLDiversity(_LDiversity):
    """In every class, r_1 < c (r_l + ... + r_m) for the value counts sorted descending."""

    kind = "recursive-cl-diversity"
    # ARX RecursiveCLDiversity: super(attribute, l, false, true)
    monotonic_with_suppression = False
    monotonic_without_suppression = True

    def __init__(self, attribute: str, c: float, l: int) -> None:  # noqa: E741
        self.c = c
        super().__init__(attribute, l)
        c_value = require_number(c, "c", self.describe())
        if c_value <= 0:
            raise ConfigurationError(f"{self.describe()}: c must be positive, got {c}.")
        self.c = c_value

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
            f"recursive-({format_number(self.c)},{format_number(self.l)})-diversity "
            f"for '{self.attribute}'"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "attribute": self.attribute, "c": self.c, "l": self.l}
