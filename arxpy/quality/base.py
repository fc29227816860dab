"""The contract every quality model keeps.

A quality model scores a transformation from its equivalence classes and which of
them are suppressed. Lower raw scores are better (less information lost), as in ARX.
An optional lower bound lets the optimal search skip transformations that cannot
beat the best found: it must not exceed the score of the transformation nor of any
transformation that generalizes it, whatever gets suppressed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData


class QualityModel(ABC):
    """Base class of quality models (Loss, Discernibility, KL divergence, ...)."""

    #: CLI and project key, e.g. ``"loss"``, ``"dm"``, ``"kl"``.
    name: ClassVar[str]
    #: Human-readable name, e.g. ``"Loss"``.
    label: ClassVar[str]

    def prepare(self, data: EncodedData) -> None:
        """Precompute what scoring needs; called once per run."""

    @abstractmethod
    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        """Raw score (lower is better); ``suppressed`` is a boolean array per class."""

    def lower_bound(self, classes: EquivalenceClasses) -> float | None:
        """A bound on the score of this transformation and all above it, or None."""
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able parameters including ``"name"``."""
        return {"name": self.name}
