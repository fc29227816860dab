"""Integer encoding of a table for the engine (step 1 of the core loop).

Each quasi-identifier is encoded to codes of its level-0 values; per level an array
maps level-0 codes to that level's codes. Tracked attributes (sensitive attributes
and a classification model's class attribute) are encoded to codes of their values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from arxpy.data.definition import DataType
from arxpy.hierarchy.model import Hierarchy


@dataclass(frozen=True)
class TrackedAttribute:
    """A non-generalized attribute whose per-class distribution models need."""

    name: str
    codes: np.ndarray  # (n_records,) int64 codes into ``values``
    values: list[str]  # code -> original value
    data_type: DataType = field(default_factory=DataType)
    hierarchy: Hierarchy | None = None  # for hierarchical-distance t-closeness

    @property
    def global_counts(self) -> np.ndarray:
        return np.bincount(self.codes, minlength=len(self.values))


@dataclass(frozen=True)
class QuasiIdentifier:
    """One encoded quasi-identifier."""

    name: str
    codes: np.ndarray  # (n_records,) int64 level-0 codes
    level_maps: list[np.ndarray]  # [level] level-0 code -> code at that level
    labels: list[list[str]]  # [level][code] -> label
    hierarchy: Hierarchy
    min_level: int
    max_level: int
    weight: float = 1.0
    data_type: DataType = field(default_factory=DataType)

    @property
    def height(self) -> int:
        """Number of levels including level 0."""
        return len(self.level_maps)

    def domain_size(self, level: int) -> int:
        return len(self.labels[level])


@dataclass(frozen=True)
class EncodedData:
    """Everything the search and the models need, as integer arrays."""

    n_records: int
    quasi_identifiers: list[QuasiIdentifier]
    tracked: dict[str, TrackedAttribute]

    @property
    def qi_names(self) -> list[str]:
        return [q.name for q in self.quasi_identifiers]
