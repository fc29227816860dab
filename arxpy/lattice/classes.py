"""Equivalence classes of a transformation: the currency between search and models.

Checking a transformation groups the records by their generalized quasi-identifier
codes. Privacy and quality models never see records, only these classes: their
sizes, their generalized keys and, for tracked attributes (sensitive attributes,
a classification model's class attribute), the frequency of each value per class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Distribution:
    """Frequencies of one tracked attribute's values per equivalence class.

    Sparse triples sorted by ``class_index``: class ``class_index[i]`` holds
    ``count[i]`` records whose value has code ``value[i]`` (codes index the
    attribute's value list in :class:`~arxpy.lattice.encoding.TrackedAttribute`).
    Every (class, value) pair appears at most once and every count is positive.
    """

    class_index: np.ndarray  # int64, non-decreasing
    value: np.ndarray  # int64 codes in [0, n_values)
    count: np.ndarray  # int64 > 0
    n_values: int

    def dense(self, n_classes: int) -> np.ndarray:
        """(n_classes, n_values) count matrix; only for small domains."""
        out = np.zeros((n_classes, self.n_values), dtype=np.int64)
        out[self.class_index, self.value] = self.count
        return out

    def distinct_per_class(self, n_classes: int) -> np.ndarray:
        """Number of distinct values in each class."""
        return np.bincount(self.class_index, minlength=n_classes)


@dataclass(frozen=True)
class EquivalenceClasses:
    """The equivalence classes of the records under one transformation."""

    levels: tuple[int, ...]  # generalization level per quasi-identifier
    keys: np.ndarray  # (n_classes, n_qi) generalized codes at ``levels``
    sizes: np.ndarray  # (n_classes,) int64 record counts, all > 0
    distributions: Mapping[str, Distribution] = field(default_factory=dict)
    #: Per-class sums of per-record values a quality model asked for
    #: (:meth:`~arxpy.quality.base.QualityModel.record_sums`); float64, added on roll-up.
    sums: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def n_classes(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def n_records(self) -> int:
        return int(self.sizes.sum())
