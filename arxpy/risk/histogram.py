"""Equivalence classes of records over a set of quasi-identifiers, and their size histogram.

Every risk figure arxpy computes (as in ARX's ``RiskModelHistogram``) depends on the data
only through the class-size frequencies ``f_i`` = number of classes holding exactly ``i``
records, taken over the records that are not suppressed. :func:`group_records` finds the
classes of a table with vectorized numpy over integer codes; :class:`ClassSizeHistogram`
holds the ``(i, f_i)`` pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.arrays import distinct
from arxpy.data.codes import column_codes, group_codes
from arxpy.errors import DefinitionError
from arxpy.jobs import CancelToken


@dataclass(frozen=True)
class ClassSizeHistogram:
    """Class sizes ``sizes`` (ascending, distinct, >= 1) and ``counts[j]`` classes of each.

    An empty histogram (no records, e.g. everything suppressed) has empty arrays.
    """

    sizes: np.ndarray  # int64
    counts: np.ndarray  # int64

    @classmethod
    def from_class_sizes(cls, class_sizes: np.ndarray) -> ClassSizeHistogram:
        """The histogram of a list of class sizes (each > 0)."""
        class_sizes = np.asarray(class_sizes, dtype=np.int64)
        if class_sizes.size and class_sizes.min() < 1:
            raise ValueError("class sizes must be positive")
        sizes, counts = distinct(np.asarray(class_sizes).ravel(), return_counts=True)
        return cls(sizes.astype(np.int64), counts.astype(np.int64))

    @property
    def is_empty(self) -> bool:
        return self.sizes.size == 0

    @property
    def n_records(self) -> int:
        return int(np.dot(self.sizes, self.counts))

    @property
    def n_classes(self) -> int:
        return int(self.counts.sum())

    def classes_of_size(self, size: int) -> int:
        """Number of classes holding exactly ``size`` records (``f_size``)."""
        hit = np.flatnonzero(self.sizes == size)
        return int(self.counts[hit[0]]) if hit.size else 0

    def to_dict(self) -> dict[str, list[int]]:
        return {"sizes": self.sizes.tolist(), "counts": self.counts.tolist()}


@dataclass(frozen=True)
class RecordClasses:
    """Which class each record falls in, over a set of quasi-identifiers.

    ``class_of[r]`` indexes ``class_sizes`` for kept records and is -1 for suppressed ones.
    """

    class_of: np.ndarray  # (n_records,) int64
    class_sizes: np.ndarray  # (n_classes,) int64, each > 0

    @property
    def histogram(self) -> ClassSizeHistogram:
        return ClassSizeHistogram.from_class_sizes(self.class_sizes)

    def record_sizes(self) -> np.ndarray:
        """Size of each record's class; 0 for suppressed records."""
        out = np.zeros(self.class_of.shape[0], dtype=np.int64)
        kept = self.class_of >= 0
        out[kept] = self.class_sizes[self.class_of[kept]]
        return out


def encode_columns(frame: pd.DataFrame, columns: Sequence[str]) -> list[np.ndarray]:
    """Integer codes (0..distinct-1) of each named column; raises for unknown columns."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DefinitionError(
            f"Unknown attribute(s) {', '.join(repr(c) for c in missing)}; the data has "
            f"{', '.join(map(str, frame.columns))}."
        )
    return column_codes(frame, columns)


def group_records(frame: pd.DataFrame, columns: Sequence[str],
                  suppressed: np.ndarray | None = None,
                  cancel: CancelToken | None = None) -> RecordClasses:
    """Equivalence classes of ``frame``'s records over ``columns``, suppressed rows left out.

    ``suppressed`` is a boolean mask over the rows (ARX ignores suppressed records in every
    risk analysis). With no columns every kept record falls in one class.
    """
    n = len(frame)
    kept = np.ones(n, dtype=bool) if suppressed is None else ~np.asarray(suppressed, dtype=bool)
    if kept.shape[0] != n:
        raise ValueError("suppressed mask must have one entry per record")
    codes = [c[kept] for c in encode_columns(frame, columns)]
    if codes:
        inverse, _ = group_codes(codes, cancel)
    else:
        inverse = np.zeros(int(kept.sum()), dtype=np.int64)
    sizes = np.bincount(inverse).astype(np.int64) if inverse.size else np.zeros(0, np.int64)
    class_of = np.full(n, -1, dtype=np.int64)
    class_of[kept] = inverse
    return RecordClasses(class_of, sizes)
