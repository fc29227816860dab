"""The contract every quality model keeps.

A quality model scores a transformation from its equivalence classes and which of
them are suppressed. Lower raw scores are better (less information lost), as in ARX.
An optional lower bound lets the optimal search skip transformations that cannot
beat the best found: it must not exceed the score of the transformation nor of any
transformation that generalizes it, whatever gets suppressed.

Parameters are declared once (:class:`~arxpy.params.Param`); a run prepares a
:meth:`~arxpy.params.Parameterized.clone`, never the user's instance.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param, Parameterized


class QualityModel(Parameterized, ABC):
    """Base class of quality models (Loss, Discernibility, KL divergence, ...).

    A subclass declares ``name``, ``label`` and ``params``; its constructor is the
    declaration's (positional arguments in declaration order).
    """

    #: CLI and project key, e.g. ``"loss"``, ``"dm"``, ``"kl"``.
    name: ClassVar[str]
    #: Human-readable name, e.g. ``"Loss"``.
    label: ClassVar[str]
    #: What the model measures, in one sentence (help and ``arxpy glossary``).
    description: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    #: Most records an anonymous transformation may suppress (None: any number). The
    #: search sets it on the run's copy; bounds may count on it, since only anonymous
    #: transformations compete for the optimum.
    suppression_budget: int | None = None

    @classmethod
    def owner_name(cls) -> str:
        return cls.name

    @property
    def tracked_attributes(self) -> tuple[str, ...]:
        """Attributes whose per-class distributions :meth:`score` needs (none by default)."""
        return ()

    def record_sums(self) -> dict[str, np.ndarray]:
        """Per-record values (after :meth:`prepare`) whose per-class sums scoring reads
        from ``classes.sums``; the search's classes carry them through roll-up."""
        return {}

    def population_rows(self) -> Mapping[str, tuple[Sequence[np.ndarray], np.ndarray]]:
        """Population tables whose classes the search should carry, as
        :meth:`~arxpy.privacy.base.PrivacyModel.population_rows` (after :meth:`prepare`;
        none by default)."""
        return {}

    def validate(self, data: EncodedData) -> None:  # noqa: B027 - optional hook
        """Raise :class:`~arxpy.errors.ConfigurationError` if impossible for ``data``."""

    def prepare(self, data: EncodedData) -> None:  # noqa: B027 - optional hook
        """Precompute what scoring needs; called once per run."""

    @abstractmethod
    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        """Raw score (lower is better); ``suppressed`` is a boolean array per class."""

    def class_losses(self, classes: EquivalenceClasses, which: np.ndarray) -> np.ndarray | None:
        """Each of the classes ``which`` (indices) scored alone, as ARX's per-class
        ``getInformationLoss(transformation, entry)``: an (len(which), m) array whose rows
        compare lexicographically, lower first. ARX suppresses equal-size classes in this
        order for risk-based models; None (the default) where ARX orders them by first row
        alone (its entropy, precision, height, AECS and discernibility metrics, and those
        whose per-class loss is the class size)."""
        return None

    def lower_bound(self, classes: EquivalenceClasses) -> float | None:
        """A bound on the score of this transformation and all above it, or None."""
        return None

    def evaluate(
        self, classes: EquivalenceClasses, suppressed: np.ndarray
    ) -> tuple[float, tuple[float, ...]]:
        """The raw score and the key the search orders by (lower is better).

        Keys compare lexicographically; the default key is ``(score,)``. Models whose
        order is not one number (Loss with the rank aggregate) return a longer key.
        """
        value = self.score(classes, suppressed)
        return value, (value,)

    def lower_bound_key(self, classes: EquivalenceClasses) -> tuple[float, ...] | None:
        """:meth:`lower_bound` as a key comparable with :meth:`evaluate`'s key, or None."""
        bound = self.lower_bound(classes)
        return None if bound is None else (float(bound),)

    def lower_bounds_for_levels(self, levels: np.ndarray) -> np.ndarray | None:
        """Lower bounds from levels alone, without grouping, or None if unavailable.

        ``levels`` is an (n, n_qi) matrix of transformations; the result holds one bound
        per row, valid as :meth:`lower_bound` is and comparable with one-element keys.
        Lets the optimal search order and prune the whole lattice before any grouping.
        """
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able parameters including ``"name"`` (optional ones left out when None)."""
        values = {k: v for k, v in self.get_params().items() if v is not None}
        return {"name": self.name, **values}

    def clone(self) -> QualityModel:
        """A fresh, unprepared model with the same parameters (what a run prepares)."""
        return type(self)(**self.get_params())

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"
