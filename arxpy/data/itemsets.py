"""Counting itemsets (sets of codes) over set-valued records, level by level (Apriori).

:func:`count_itemsets` returns, for each size s = 1..max_size, every itemset of size s
that occurs in some record and all of whose proper subsets occur in at least
``min_count`` records, with its count. Itemsets below ``min_count`` at a level are
therefore the *minimal* rare itemsets (every subset is common), which is what a k^m
checker reports; itemsets at or above it are the frequent itemsets a workload mines.

Apriori pruning (Agrawal & Srikant 1994): an itemset can reach ``min_count`` only if all
its subsets do, so size s is enumerated only from records' frequent codes and kept only
if its (s-1)-subsets are frequent. Enumeration is vectorised: records of equal length L
are gathered into an (n, L) matrix and indexed by the C(L, s) column combinations at
once; an itemset of size s is encoded as one int64, ``rank of its (s-1)-prefix among the
frequent (s-1)-itemsets × |vocabulary| + last code``, so counting is ``np.unique``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from arxpy.arrays import count_distinct, distinct
from arxpy.data.transactions import CodeSets

#: Rows of combinations materialised at once (bounds memory to a few hundred MB).
DEFAULT_BATCH = 2_000_000


@dataclass(frozen=True)
class ItemsetLevel:
    """The counted itemsets of one size, in lexicographic order of codes."""

    size: int
    itemsets: np.ndarray  # (n, size) int64 vocabulary positions, ascending per row
    counts: np.ndarray  # (n,) int64 records containing the itemset


def min_support_count(percent: float, records: int) -> int:
    """Records an itemset needs to be held by ``percent`` % of ``records`` (at least 1).
    30 % of 10 is 3.0000000000000004 in floating point: 3 records are enough."""
    return max(1, math.ceil(percent / 100.0 * records - 1e-9))


def count_itemsets(sets: CodeSets, max_size: int, min_count: int = 1, *,
                   check: Callable[[], None] | None = None,
                   batch: int = DEFAULT_BATCH) -> list[ItemsetLevel]:
    """Counts of itemsets of size 1..``max_size`` whose proper subsets all have count
    ``>= min_count`` (see the module docstring). ``check`` is called between batches
    (e.g. a cancel token's ``raise_if_cancelled``)."""
    if max_size < 1:
        raise ValueError("max_size must be at least 1")
    counter = _LevelCounter(sets, max(1, int(min_count)), check or (lambda: None), batch)
    return counter.run(max_size)


class _LevelCounter:
    def __init__(self, sets: CodeSets, min_count: int, check: Callable[[], None],
                 batch: int) -> None:
        self.width = max(sets.n_codes, 1)
        self.min_count = min_count
        self.check = check
        self.batch = batch
        supports = sets.supports
        self.first = np.flatnonzero(supports > 0)
        self.first_counts = supports[self.first]
        frequent = np.flatnonzero(supports >= min_count).astype(np.int64)
        #: Sorted keys and item rows of the frequent itemsets of each size.
        self.keys: dict[int, np.ndarray] = {1: frequent}
        self.items: dict[int, np.ndarray] = {1: frequent[:, None]}
        # Only frequent codes can be part of a frequent or minimal rare larger itemset.
        keep = supports[sets.indices] >= min_count
        codes, owners = sets.indices[keep].astype(np.int64), sets.owners[keep]
        self.lengths = np.bincount(owners, minlength=len(sets))
        self.indptr = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=self.indptr[1:])
        self.codes = codes

    def run(self, max_size: int) -> list[ItemsetLevel]:
        levels = [ItemsetLevel(1, self.first[:, None].astype(np.int64),
                               self.first_counts.astype(np.int64))]
        for size in range(2, max_size + 1):
            if len(self.keys[size - 1]) == 0:
                break
            level = self.level(size)
            levels.append(level)
            if size < max_size and not self.direct(size + 1):
                # Only the next level's pruning looks these up.
                frequent = level.counts >= self.min_count
                self.items[size] = level.itemsets[frequent]
                self.keys[size] = self.encode(level.itemsets[frequent])[0]
            else:
                # Not looked up; its length alone says whether to go on.
                self.keys[size] = np.zeros(min(len(level.counts), 1), dtype=np.int64)
        return levels

    def direct(self, size: int) -> bool:
        """Is level ``size`` counted without pruning (every occurring itemset)?"""
        return self.min_count <= 1 and self.width ** size < 2 ** 62

    def level(self, size: int) -> ItemsetLevel:
        if self.direct(size):
            return self.level_without_pruning(size)
        found_keys, found_counts = [], []
        for matrix in self.combinations(size):
            self.check()
            key, valid = self.encode(matrix)
            for drop in range(size - 1):  # the prefix (drop = size - 1) is checked by encode
                valid &= self.rank(np.delete(matrix, drop, axis=1))[1]
            unique, counts = distinct(key[valid], return_counts=True)
            found_keys.append(unique)
            found_counts.append(counts)
        keys, counts = _merge_counts(found_keys, found_counts)
        prefix, last = keys // self.width, keys % self.width
        itemsets = np.hstack([self.items[size - 1][prefix], last[:, None]]) if len(keys) \
            else np.zeros((0, size), dtype=np.int64)
        return ItemsetLevel(size, itemsets.astype(np.int64), counts)

    def level_without_pruning(self, size: int) -> ItemsetLevel:
        """Every occurring itemset of ``size`` (all its subsets occur too), keyed by its
        codes in base |vocabulary|: no lookups of smaller itemsets needed."""
        found_keys, found_counts = [], []
        powers = self.width ** np.arange(size - 1, -1, -1, dtype=np.int64)
        for gathered, columns in self.gathered(size):
            self.check()
            key = gathered[:, columns[:, 0]] * powers[0]
            for j in range(1, size):
                key += gathered[:, columns[:, j]] * powers[j]
            unique, counts = distinct(key.ravel(), return_counts=True)
            found_keys.append(unique)
            found_counts.append(counts)
        keys, counts = _merge_counts(found_keys, found_counts)
        itemsets = (keys[:, None] // powers) % self.width
        return ItemsetLevel(size, itemsets.astype(np.int64), counts)

    def encode(self, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keys of itemsets (rows) and whether every proper prefix is frequent."""
        if matrix.shape[1] == 1:
            return matrix[:, 0].astype(np.int64), np.ones(len(matrix), dtype=bool)
        position, member = self.rank(matrix[:, :-1])
        return position * self.width + matrix[:, -1], member

    def rank(self, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Position of each row among the frequent itemsets of its size, and membership."""
        key, valid = self.encode(matrix)
        frequent = self.keys[matrix.shape[1]]
        if len(frequent) == 0:
            return np.zeros(len(key), dtype=np.int64), np.zeros(len(key), dtype=bool)
        position = np.minimum(np.searchsorted(frequent, key), len(frequent) - 1)
        return position, valid & (frequent[position] == key)

    def combinations(self, size: int) -> Iterator[np.ndarray]:
        """(n, size) matrices of every size-combination of every record's codes."""
        for _, gathered, columns in self.batches(size):
            yield gathered[:, columns].reshape(-1, size)

    def gathered(self, size: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for _, gathered, columns in self.batches(size):
            yield gathered, columns

    def batches(self, size: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Batches of records of one length L >= size: their ids, an (n, L) matrix of
        their codes, and the C(L, size) column combinations to take from it."""
        for length in np.unique(self.lengths[self.lengths >= size]):
            rows = np.flatnonzero(self.lengths == length)
            columns = _combination_columns(int(length), size)
            per_batch = max(1, self.batch // len(columns))
            for start in range(0, len(rows), per_batch):
                chunk = rows[start:start + per_batch]
                yield chunk, self.codes[self.indptr[chunk][:, None] + np.arange(length)], \
                    columns


@lru_cache(maxsize=256)
def _combination_columns(length: int, size: int) -> np.ndarray:
    return np.array(list(combinations(range(length), size)), dtype=np.int64)


def _merge_counts(keys: list[np.ndarray], counts: list[np.ndarray]
                  ) -> tuple[np.ndarray, np.ndarray]:
    if not keys:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if len(keys) == 1:
        return keys[0].astype(np.int64), counts[0].astype(np.int64)
    unique, inverse = distinct(np.concatenate(keys), return_inverse=True)
    return unique, np.bincount(inverse, weights=np.concatenate(counts),
                               minlength=len(unique)).astype(np.int64)


def records_with_rare_itemsets(sets: CodeSets, max_size: int, min_count: int, *,
                               check: Callable[[], None] | None = None) -> np.ndarray:
    """Whether each record contains an itemset of 1..max_size codes that occurs in fewer
    than ``min_count`` records (it then contains a minimal such itemset)."""
    counter = _LevelCounter(sets, max(1, int(min_count)), check or (lambda: None),
                            DEFAULT_BATCH)
    levels = counter.run(max_size)
    at_risk = np.zeros(len(sets), dtype=bool)
    rare_codes = levels[0].itemsets[levels[0].counts < min_count, 0]
    at_risk[sets.owners[np.isin(sets.indices, rare_codes)]] = True
    for level in levels[1:]:
        rare = level.itemsets[level.counts < min_count]
        if len(rare) == 0:
            continue
        rare_keys = np.sort(counter.encode(rare)[0])
        for rows, gathered, columns in counter.batches(level.size):
            counter.check()
            matrix = gathered[:, columns].reshape(-1, level.size)
            key, valid = counter.encode(matrix)
            hit = valid & np.isin(key, rare_keys)
            at_risk[np.repeat(rows, len(columns))[hit]] = True
    return at_risk


# --- counting queries ------------------------------------------------------------------------

class RecordIndex:
    """The records containing each code (an inverted index over code strings)."""

    def __init__(self, sets: CodeSets) -> None:
        order = np.argsort(sets.indices, kind="stable")
        self._records = sets.owners[order]  # sorted within each code (stable sort)
        self._start = np.searchsorted(sets.indices[order], np.arange(sets.n_codes + 1))
        self._position = {code: i for i, code in enumerate(sets.vocabulary)}
        self.n_records = len(sets)

    def records_with(self, code: str) -> np.ndarray:
        """Sorted ids of the records containing ``code`` (empty if it never occurs)."""
        i = self._position.get(code)
        if i is None:
            return np.zeros(0, dtype=np.int64)
        return self._records[self._start[i]:self._start[i + 1]]

    def count_all(self, itemset: Sequence[str]) -> int:
        """Records containing every code of ``itemset`` (COUNT query of spec 002 §4)."""
        lists = sorted((self.records_with(c) for c in itemset), key=len)
        if not lists:
            return self.n_records
        common = lists[0]
        for other in lists[1:]:
            if len(common) == 0:
                break
            common = np.intersect1d(common, other, assume_unique=True)
        return len(common)

    def count_any(self, codes: Sequence[str]) -> int:
        """Records containing at least one code of ``codes`` (a constraint match)."""
        lists = [self.records_with(c) for c in codes]
        return count_distinct(np.concatenate(lists)) if lists else 0


def count_queries(sets: CodeSets, queries: Sequence[Sequence[str]]) -> np.ndarray:
    """Records containing all codes of each query."""
    index = RecordIndex(sets)
    return np.array([index.count_all(q) for q in queries], dtype=np.int64)


def count_matching(sets: CodeSets, constraints: Sequence[Sequence[str]]) -> np.ndarray:
    """Records containing at least one code of each constraint."""
    index = RecordIndex(sets)
    return np.array([index.count_any(u) for u in constraints], dtype=np.int64)
