"""The contract every privacy model keeps, so the search can prune without special cases.

A model judges equivalence classes. ``satisfied`` says, per class, whether the class
meets the model; classes that fail are suppressed when the suppression limit allows.
Models that judge the dataset as a whole (an average risk threshold, say) override
``dataset_satisfied``. The monotonicity flags promise that if a transformation is
anonymous, every generalization of it is too (and, for the search's other direction,
that if it is not, no specialization is): the search prunes only on models that promise.

Parameters are declared once (:class:`~arxpy.params.Param`): the declaration checks
values, builds the GUI form, and gives ``to_dict`` and the project-file checks. A run
prepares a :meth:`~arxpy.params.Parameterized.clone`, never the user's instance.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param, Parameterized
from arxpy.privacy.enforcement import TieOrder, suppress_smallest


class PrivacyModel(Parameterized, ABC):
    """Base class of privacy models (k-anonymity, l-diversity, t-closeness, ...).

    A subclass declares ``kind``, ``label``, ``description`` and ``params``; its constructor
    is the declaration's (positional arguments in declaration order).
    """

    #: Short key used in project files and reports, e.g. ``"k-anonymity"``.
    kind: ClassVar[str]
    #: Display name, e.g. ``"t-Closeness"``.
    label: ClassVar[str] = ""
    #: What the model promises, in one sentence for people.
    description: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    #: Anonymity is preserved by generalization when records may be suppressed.
    monotonic_with_suppression: ClassVar[bool] = False
    #: Anonymity is preserved by generalization when no record may be suppressed.
    monotonic_without_suppression: ClassVar[bool] = False

    @classmethod
    def owner_name(cls) -> str:
        return cls.kind

    @property
    def sensitive_attribute(self) -> str | None:
        """The sensitive attribute this model protects, if any."""
        return None

    @property
    def guaranteed_class_size(self) -> int | None:
        """Every released class holds at least this many records (bounds the prosecutor,
        journalist and marketer risks by its inverse, as ARX's ``getRiskThreshold*``)."""
        return None

    @property
    def marketer_risk_limit(self) -> float | None:
        """The marketer risk of a released output is at most this, if the model bounds it."""
        return None

    def validate(self, data: EncodedData) -> None:  # noqa: B027 - optional hook
        """Raise :class:`~arxpy.errors.ConfigurationError` if impossible for ``data``."""

    def prepare(self, data: EncodedData) -> None:  # noqa: B027 - optional hook
        """Precompute what checks need (global distributions, ...); called once per run."""

    def population_rows(self) -> Mapping[str, tuple[Sequence[np.ndarray], np.ndarray]]:
        """Population tables whose classes the search should carry with the classes
        (:attr:`~arxpy.lattice.classes.EquivalenceClasses.populations`), by name: each
        its distinct rows (per quasi-identifier, level-0 codes) and their people.
        Available after :meth:`prepare`; none by default."""
        return {}

    @abstractmethod
    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        """Boolean array: does each class meet the model?"""

    def dataset_satisfied(self, classes: EquivalenceClasses, kept: np.ndarray) -> bool:
        """Does the output meet the model, given which classes are kept (not suppressed)?"""
        return True

    def enforce(self, classes: EquivalenceClasses, kept: np.ndarray, budget: int,
                order: TieOrder | None = None) -> np.ndarray:
        """Classes to keep after suppressing more (at most ``budget`` records) to meet the model.

        Dataset-level models suppress further classes until ``dataset_satisfied`` holds,
        as ARX does for risk-based models, taking classes of equal size in ``order``
        (the search passes ARX's: own information loss, then first row; None: by index);
        per-class models need nothing more.
        """
        return kept

    @abstractmethod
    def describe(self) -> str:
        """One line for people, e.g. ``"5-anonymity"``."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able parameters including ``"kind"``; inverse of ``privacy_model_from_dict``.

        Optional parameters left out (None) are not written.
        """
        values = {k: v for k, v in self.get_params().items() if v is not None}
        return {"kind": self.kind, **values}

    def claim_parameters(self) -> dict[str, Any]:
        """The parameters a release's claim carries for its checker (``to_dict`` without
        ``"kind"``; a model that derives figures in a run adds them)."""
        values = self.to_dict()
        values.pop("kind")
        return values

    def clone(self) -> PrivacyModel:
        """A fresh, unprepared model with the same parameters (what a run prepares)."""
        return type(self)(**self.get_params())

    # Models are values: equal, hashed and shown by their parameters.
    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items() if k != "kind")
        return f"{type(self).__name__}({params})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_dict() == self.to_dict()

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, repr(v)) for k, v in self.to_dict().items())))


class OutputRiskModel(PrivacyModel):
    """A threshold on a figure of the whole output (ARX's ``RiskBasedCriterion``): every
    class passes :meth:`satisfied`, :meth:`fulfilled_by` judges the kept class sizes,
    and :meth:`enforce` suppresses the smallest classes, as ARX does, until it holds.
    The threshold also bounds the marketer risk (ARX's ``getRiskThresholdMarketer``)."""

    threshold: float

    @property
    def marketer_risk_limit(self) -> float:
        return self.threshold

    @abstractmethod
    def fulfilled_by(self, kept_sizes: np.ndarray) -> bool:
        """Does a release with these (kept) class sizes meet the model?"""

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        return np.ones(classes.n_classes, dtype=bool)

    def dataset_satisfied(self, classes: EquivalenceClasses, kept: np.ndarray) -> bool:
        return self.fulfilled_by(classes.sizes[np.asarray(kept, dtype=bool)])

    def enforce(self, classes: EquivalenceClasses, kept: np.ndarray, budget: int,
                order: TieOrder | None = None) -> np.ndarray:
        """Kept classes after ARX's binary search over how many of the smallest classes
        to suppress (:func:`~arxpy.privacy.enforcement.suppress_smallest`; at most
        ``budget`` more records, equal sizes in ``order``)."""
        return suppress_smallest(classes, kept, budget, self.fulfilled_by, order)
