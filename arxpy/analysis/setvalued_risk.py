"""Re-identification risk of set-valued data before anonymising it (spec 002 §6 "Risk view").

The analogue of the paper's Fig. 12 (Loukides et al. 2014, experiment E1): for
combinations of 1..5 codes, the share of the *distinct* combinations occurring in
exactly 1, 2, ..., 10 and more than 10 records ("> 17 % of all sets of 2 diagnosis
codes appear in one record"); and the % of records holding a combination of at most m
codes shared by fewer than k records (the records k^m-anonymity must protect).

Work cap: a record of L codes has C(L, s) combinations of s codes (C(43, 5) = 962,598),
so for s >= 4 a record longer than ``cap`` codes (default 12) contributes the
combinations of a random ``cap`` of its codes (seeded). Sizes 1-3 and the records at
risk are exact. The cap is reported with the result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from arxpy.data.itemsets import count_itemsets, records_with_rare_itemsets
from arxpy.data.transactions import CodeSets

#: Occurrence bins of the histogram: exactly 1..10 records, then more.
OCCURRENCE_BINS = tuple(str(i) for i in range(1, 11)) + (">10",)
#: Combination sizes from which long records are capped.
CAPPED_FROM_SIZE = 4


@dataclass
class CombinationCounts:
    """Shares (%) of distinct code combinations by the number of records holding them,
    with the record lengths and the most frequent pairs (independent of k and m)."""

    histogram: dict[int, dict[str, float]]  # size -> bin -> % of distinct combinations
    distinct: dict[int, int]  # size -> distinct combinations counted
    cap: int
    capped_records: int  # records whose combinations of >= 4 codes were capped
    length_counts: list[int]  # records with 0, 1, 2, ... codes
    top_pairs: list[tuple[tuple[str, str], int]]  # most frequent co-occurring pairs

    def unique_share(self, size: int) -> float:
        """% of distinct combinations of ``size`` codes found in exactly one record."""
        return self.histogram[size]["1"]


@dataclass(kw_only=True)
class CombinationRisk(CombinationCounts):
    """The counts with the records at risk for one k and m."""

    k: int
    m: int
    records_at_risk_percent: float

    @classmethod
    def of(cls, counts: CombinationCounts, k: int, m: int, percent: float
           ) -> CombinationRisk:
        shared = {f.name: getattr(counts, f.name) for f in fields(CombinationCounts)}
        return cls(**shared, k=k, m=m, records_at_risk_percent=percent)

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "m": self.m,
                "histogram_percent": {str(s): h for s, h in self.histogram.items()},
                "distinct_combinations": {str(s): n for s, n in self.distinct.items()},
                "records_at_risk_percent": self.records_at_risk_percent,
                "cap": self.cap, "capped_records": self.capped_records,
                "length_counts": self.length_counts,
                "top_pairs": [{"codes": list(p), "records": n} for p, n in self.top_pairs]}


def combination_risk(sets: CodeSets, k: int = 5, m: int = 2, max_size: int = 5,
                     cap: int = 12, seed: int = 0, top: int = 20, *,
                     check: Callable[[], None] | None = None) -> CombinationRisk:
    """The risk view of ``sets`` for k^m-anonymity (see the module docstring), with the
    record-length distribution and the ``top`` most frequent pairs of codes. ``check``
    is called between batches (a cancel token's ``raise_if_cancelled``)."""
    counts = combination_counts(sets, max_size, cap, seed, top, check=check)
    return CombinationRisk.of(counts, k, m, records_at_risk_percent(sets, k, m, check=check))


def combination_counts(sets: CodeSets, max_size: int = 5, cap: int = 12, seed: int = 0,
                       top: int = 20, *, check: Callable[[], None] | None = None
                       ) -> CombinationCounts:
    """The histogram of combinations of 1..``max_size`` codes by the records holding
    them (sizes >= 4 over records capped at ``cap`` codes), record lengths, top pairs."""
    histogram: dict[int, dict[str, float]] = {}
    distinct: dict[int, int] = {}
    pairs: list[tuple[tuple[str, str], int]] = []
    exact_sizes = min(max_size, CAPPED_FROM_SIZE - 1)
    for level in count_itemsets(sets, max(exact_sizes, 2), 1, check=check):
        if level.size == 2:
            pairs = _top_pairs(sets, level.itemsets, level.counts, top)
        if level.size <= exact_sizes:
            histogram[level.size] = _bins(level.counts)
            distinct[level.size] = len(level.counts)
    capped, capped_records = _capped(sets, cap, np.random.default_rng(seed))
    if max_size >= CAPPED_FROM_SIZE:
        for level in count_itemsets(capped, max_size, 1, check=check)[CAPPED_FROM_SIZE - 1:]:
            histogram[level.size] = _bins(level.counts)
            distinct[level.size] = len(level.counts)
    return CombinationCounts(histogram, distinct, cap,
                             capped_records if max_size >= CAPPED_FROM_SIZE else 0,
                             np.bincount(sets.lengths).tolist(), pairs)


def records_at_risk_percent(sets: CodeSets, k: int, m: int, *,
                            check: Callable[[], None] | None = None) -> float:
    """% of records holding a combination of at most ``m`` codes that fewer than ``k``
    records hold (exact; 0 for no records)."""
    if not len(sets):
        return 0.0
    return float(records_with_rare_itemsets(sets, m, k, check=check).mean() * 100.0)


def _top_pairs(sets: CodeSets, itemsets: np.ndarray, counts: np.ndarray, top: int
               ) -> list[tuple[tuple[str, str], int]]:
    order = np.lexsort((itemsets[:, 1], itemsets[:, 0], -counts))[:top]
    vocab = sets.vocabulary
    return [((vocab[itemsets[i, 0]], vocab[itemsets[i, 1]]), int(counts[i])) for i in order]


def _bins(counts: np.ndarray) -> dict[str, float]:
    if len(counts) == 0:
        return {b: 0.0 for b in OCCURRENCE_BINS}
    exact = np.bincount(np.minimum(counts, 11), minlength=12)[1:]
    return {b: float(n) / len(counts) * 100.0 for b, n in zip(OCCURRENCE_BINS, exact,
                                                               strict=True)}


def _capped(sets: CodeSets, cap: int, rng: np.random.Generator) -> tuple[CodeSets, int]:
    """``sets`` with every record longer than ``cap`` cut to a random ``cap`` codes."""
    long_rows = np.flatnonzero(sets.lengths > cap)
    if len(long_rows) == 0:
        return sets, 0
    keep = np.ones(len(sets.indices), dtype=bool)
    for row in long_rows:
        start, end = sets.indptr[row], sets.indptr[row + 1]
        drop = rng.choice(end - start, size=end - start - cap, replace=False)
        keep[start + drop] = False
    lengths = np.bincount(sets.owners[keep], minlength=len(sets))
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return CodeSets(sets.vocabulary, indptr, sets.indices[keep]), len(long_rows)
