"""Equivalence classes of a transformation: the currency between search and models.

Checking a transformation groups the records by their generalized quasi-identifier
codes. Privacy and quality models never see records, only these classes: their
sizes, their generalized keys and, for tracked attributes (sensitive attributes,
a classification model's class attribute), the frequency of each value per class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from arxpy.data.codes import decode_codes


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
class PackedKeys:
    """Class keys packed into one int64 per class: the exact mixed-radix number of the
    codes at the classes' levels (the first quasi-identifier most significant), as
    :func:`~arxpy.data.codes.combine_codes` computes it.

    Roll-up rewrites only the digits of the attributes whose level changes
    (:meth:`~arxpy.lattice.grouping.Grouper.roll_up`), and the key matrix is decoded
    only when a model reads it.
    """

    values: np.ndarray  # (n_classes,) int64
    radices: tuple[int, ...]  # domain size of each quasi-identifier at the levels

    def decode(self) -> np.ndarray:
        """(n_classes, n_qi) codes, Fortran order (columns are read one at a time)."""
        return decode_codes(self.values, self.radices)


@dataclass(frozen=True)
class PopulationClasses:
    """A population table beside the data, counted at the data classes' levels: ARX's
    ``pcount``, carried through grouping and roll-up as ARX's ``HashGroupify`` carries
    it, so a check reads each class's people without a lookup.

    Every data class is a population class (the data are drawn from the population);
    the population's other classes, without records of the data, travel apart.
    """

    people: np.ndarray  # (n_classes,) int64 population records of each data class
    uncovered: np.ndarray  # packed keys (the classes' radices) of the other classes
    uncovered_people: np.ndarray  # their population records (int64, > 0)
    #: The classes' packed keys followed by ``uncovered``, and ``people`` followed by
    #: ``uncovered_people``, each one array (of which a roll-up's four are views): what
    #: the next roll-up groups, without concatenating. None when not kept.
    joint: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False,
                                                        compare=False)


class EquivalenceClasses:
    """The equivalence classes of the records under one transformation.

    The key matrix is given, or decoded from ``packed`` on first use and kept: models
    that only read sizes (discernibility, AECS, k-anonymity) never pay for it.
    Read-only by convention, like the frozen dataclass it replaces.
    """

    __slots__ = ("levels", "sizes", "distributions", "sums", "packed", "populations", "_keys",
                 "derived")

    def __init__(self, levels: tuple[int, ...], keys: np.ndarray | None, sizes: np.ndarray,
                 distributions: Mapping[str, Distribution] | None = None,
                 sums: Mapping[str, np.ndarray] | None = None,
                 packed: PackedKeys | None = None,
                 populations: Mapping[str, PopulationClasses] | None = None) -> None:
        if keys is None and packed is None:
            raise ValueError("equivalence classes need their keys or packed keys")
        self.levels = levels  # generalization level per quasi-identifier
        self.sizes = sizes  # (n_classes,) int64 record counts, all > 0
        self.distributions: Mapping[str, Distribution] = distributions or {}
        #: Per-class sums of per-record values a quality model asked for
        #: (:meth:`~arxpy.quality.base.QualityModel.record_sums`); float64, added on roll-up.
        self.sums: Mapping[str, np.ndarray] = sums or {}
        self.packed = packed
        #: Per population table a model carries (:meth:`~arxpy.privacy.base.PrivacyModel.
        #: population_rows`), its classes at ``levels``; rolled up with the classes.
        self.populations: Mapping[str, PopulationClasses] = populations or {}
        self._keys = keys
        #: Per-class arrays that models derive from the keys, by a name that fixes how
        #: (:meth:`derive`): a privacy and a quality model reading the same compute it once.
        self.derived: dict[str, np.ndarray] = {}

    def derive(self, name: str, compute: Callable[[EquivalenceClasses], np.ndarray]
               ) -> np.ndarray:
        """``compute(self)``, computed on the first call with ``name`` and kept; ``name``
        must determine the computation (for example include a fingerprint of its tables)."""
        if name not in self.derived:
            self.derived[name] = compute(self)
        return self.derived[name]

    @property
    def keys(self) -> np.ndarray:
        """(n_classes, n_qi) generalized codes at ``levels``."""
        if self._keys is None:
            assert self.packed is not None
            self._keys = self.packed.decode()
        return self._keys

    def keys_of(self, rows: np.ndarray) -> np.ndarray:
        """The keys of the classes ``rows`` (indices or a mask) only: a model reading a
        few classes' keys decodes those, not the whole matrix (and keeps nothing)."""
        if self._keys is not None:
            return self._keys[rows]
        assert self.packed is not None
        return decode_codes(self.packed.values[rows], self.packed.radices)

    def table_sums(self, tables: Sequence[np.ndarray]) -> np.ndarray:
        """Per class, ``tables[0][code0] + tables[1][code1] + ...`` (its codes at
        ``levels``, float64 tables), added in that order: from the packed keys in one pass
        when they are not decoded (no key matrix kept), else column by column."""
        from arxpy.lattice.kernels import digit_sums  # kernels import encoding, after us

        if self._keys is None:
            assert self.packed is not None
            sums = digit_sums(self.packed.values, self.packed.radices, tables)
            if sums is not None:
                return sums
        keys, sums = self.keys, np.zeros(self.n_classes)
        for j, table in enumerate(tables):
            sums += table[keys[:, j]]
        return sums

    @property
    def keys_decoded(self) -> bool:
        """Is the key matrix in memory (given, or decoded by a reader)?"""
        return self._keys is not None

    @property
    def n_classes(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def n_records(self) -> int:
        return int(self.sizes.sum())

    def __repr__(self) -> str:
        return f"EquivalenceClasses(levels={self.levels}, n_classes={self.n_classes})"
