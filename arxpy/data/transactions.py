"""Set-valued attributes (a set of diagnosis codes per record) as integer codes.

A :class:`CodeSets` holds one set of codes per record in compressed sparse row form:
the codes of record ``i`` are ``indices[indptr[i]:indptr[i + 1]]``, positions in the
sorted ``vocabulary``, sorted and without duplicates. Supports, itemset counts and
record lengths are then numpy operations over integers instead of loops over Python
sets, which is what disassociation, the k^m checker and the set-valued utility
measures need on 58,000 records.

In a table, a set-valued attribute is a column of ``frozenset[str]`` (or of strings
joined by a delimiter, which :meth:`CodeSets.from_column` splits).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

#: The delimiter of codes in one cell when none is chosen (never "." which ICD-9 uses).
DEFAULT_CODE_DELIMITER = ";"


@dataclass(frozen=True, eq=False)
class CodeSets:
    """One set of codes per record over a sorted vocabulary (CSR arrays)."""

    vocabulary: tuple[str, ...]
    indptr: np.ndarray  # int64, length records + 1
    indices: np.ndarray  # int32 positions in vocabulary, sorted and unique per record

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def from_sets(cls, records: Iterable[Iterable[str]],
                  vocabulary: Sequence[str] | None = None) -> CodeSets:
        """Sets of code strings; duplicates within a record are dropped.

        ``vocabulary`` fixes the code domain (it must contain every code); by default it
        is the sorted codes that occur.
        """
        sets = [frozenset(str(c) for c in record) for record in records]
        if vocabulary is None:
            vocabulary = sorted(set().union(*sets)) if sets else []
        vocab = tuple(vocabulary)
        position = {code: i for i, code in enumerate(vocab)}
        missing = set().union(*sets) - position.keys() if sets else set()
        if missing:
            raise ValueError(f"codes not in the vocabulary: {', '.join(sorted(missing)[:5])}")
        lengths = np.fromiter((len(s) for s in sets), dtype=np.int64, count=len(sets))
        indptr = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        flat = np.fromiter((position[c] for s in sets for c in s), dtype=np.int32,
                           count=int(indptr[-1]))
        # Sort within each record: by (record, code) in one lexsort.
        owner = np.repeat(np.arange(len(sets)), lengths)
        flat = flat[np.lexsort((flat, owner))]
        return cls(vocab, indptr, flat)

    @classmethod
    def from_column(cls, column: pd.Series, delimiter: str = DEFAULT_CODE_DELIMITER,
                    vocabulary: Sequence[str] | None = None) -> CodeSets:
        """A table column of sets (frozenset/list/tuple) or delimited strings; missing or
        empty cells are empty sets."""
        return cls.from_sets((_cell_codes(v, delimiter) for v in column), vocabulary)

    # --- reading --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_codes(self) -> int:
        return len(self.vocabulary)

    @cached_property
    def lengths(self) -> np.ndarray:
        """Codes per record."""
        return np.diff(self.indptr)

    @cached_property
    def owners(self) -> np.ndarray:
        """The record of every entry of ``indices``."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.lengths)

    @cached_property
    def supports(self) -> np.ndarray:
        """Records containing each vocabulary code."""
        return np.bincount(self.indices, minlength=self.n_codes).astype(np.int64)

    def record(self, i: int) -> frozenset[str]:
        codes = self.indices[self.indptr[i]:self.indptr[i + 1]]
        return frozenset(self.vocabulary[c] for c in codes)

    def to_sets(self) -> list[frozenset[str]]:
        return [self.record(i) for i in range(len(self))]

    def subset(self, rows: np.ndarray) -> CodeSets:
        """The records at ``rows`` (in that order), same vocabulary."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = self.lengths[rows]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        starts = np.repeat(self.indptr[rows] - indptr[:-1], lengths)
        take = starts + np.arange(int(indptr[-1]), dtype=np.int64)
        return CodeSets(self.vocabulary, indptr, self.indices[take])

    def to_column(self, delimiter: str = DEFAULT_CODE_DELIMITER) -> pd.Series:
        """Delimited strings (codes in vocabulary order), one per record."""
        vocab, ptr = self.vocabulary, self.indptr
        return pd.Series([delimiter.join(vocab[c] for c in self.indices[ptr[i]:ptr[i + 1]])
                          for i in range(len(self))], dtype=object)


def _cell_codes(value: object, delimiter: str) -> list[str]:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    if isinstance(value, str):
        return [c.strip() for c in value.split(delimiter) if c.strip()]
    return [str(c) for c in value]  # type: ignore[attr-defined]
