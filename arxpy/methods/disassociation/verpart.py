"""VERPART: vertical partitioning of a cluster into k^m-anonymous record chunks and an
item chunk (Loukides et al. 2014, Fig. 9, rebuilt in spec §2.2).

Codes with support below k (and sensitive codes) go to the item chunk (lines 2-4). The
others, ordered by constraint groups and support (line 5), are packed greedily into
chunk domains: a code joins the current domain if the projection stays k^m-anonymous
(line 13), and codes of a constraint only partly in the domain are evicted (lines
15-17, as the paper's example does: gap G2).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from arxpy.arrays import distinct

#: Above this many candidate itemsets at once, the k^m test counts them in batches.
_BATCH = 4096


@dataclass(frozen=True)
class Incidence:
    """Records by codes as entries ``(row, column)``, with each column's code id; pair
    counts and the dense 0/1 matrix are built on first use."""

    records: int
    rows: np.ndarray
    columns: np.ndarray
    codes: np.ndarray  # global code id of every column, sorted

    @classmethod
    def of(cls, n_records: int, owner: np.ndarray, codes: np.ndarray,
           columns: np.ndarray) -> Incidence:
        """Records 0..n_records-1 over ``columns`` (sorted code ids); entries ``(owner,
        codes)`` of other codes are left out."""
        position = np.searchsorted(columns, codes)
        position[position == len(columns)] = 0
        inside = columns[position] == codes if len(columns) else np.zeros(len(codes), bool)
        return cls(n_records, owner[inside], position[inside], columns)

    @cached_property
    def supports(self) -> np.ndarray:
        return np.bincount(self.columns, minlength=len(self.codes)).astype(np.int64)

    @cached_property
    def pairs(self) -> np.ndarray:
        """Records holding both codes, for every pair of columns (sparse product: the cost
        grows with the squared record lengths, not with the records times the codes)."""
        from scipy.sparse import csr_matrix  # here: the CLI's start need not import scipy

        ones = np.ones(len(self.rows), dtype=np.int64)
        sparse = csr_matrix((ones, (self.rows, self.columns)),
                            shape=(self.records, len(self.codes)))
        return (sparse.T @ sparse).toarray()

    @cached_property
    def matrix(self) -> np.ndarray:
        """The dense 0/1 matrix (float32, so co-occurrence counts are BLAS products)."""
        dense = np.zeros((self.records, len(self.codes)), dtype=np.float32)
        dense[self.rows, self.columns] = 1.0
        return dense


def verpart(n_records: int, owner: np.ndarray, codes: np.ndarray, *, k: int, m: int,
            constraint_of: np.ndarray, sensitive: np.ndarray
            ) -> tuple[list[np.ndarray], np.ndarray]:
    """(record-chunk domains, item-chunk domain) of one cluster, as global code ids.

    ``owner``/``codes`` are the cluster's entries (record position, code id);
    ``sensitive`` marks codes that always go to the item chunk (l-diversity variant).
    """
    present, support = distinct(np.asarray(codes).ravel(), return_counts=True)
    to_items = (support < k) | sensitive[present]
    incidence = Incidence.of(n_records, owner, codes, present[~to_items])
    return chunk_domains(incidence, k=k, m=m, constraint_of=constraint_of), present[to_items]


def chunk_domains(incidence: Incidence, *, k: int, m: int, constraint_of: np.ndarray
                  ) -> list[np.ndarray]:
    """VERPART lines 5-20 on codes of support >= k: k^m-anonymous domains (sorted ids).

    Every code lands in exactly one domain: the first code of a round is always kept
    (its support is at least k), so every round places one code at least.
    """
    supports = incidence.supports
    remain = order_codes(incidence.codes, supports, constraint_of)
    cons = constraint_of[incidence.codes]
    domains = []
    while remain:
        current: list[int] = []
        for column in remain:
            if not current or km_anonymous_with(incidence, column, current, k, m):
                current.append(column)
        current = _evict_partial_constraints(current, remain, cons)
        placed = set(current)
        remain = [c for c in remain if c not in placed]
        domains.append(np.sort(incidence.codes[current]))
    return domains


def order_codes(codes: np.ndarray, supports: np.ndarray, constraint_of: np.ndarray
                ) -> list[int]:
    """Column positions in line-5 order: codes of one constraint form a group sorted by
    support (desc); groups go by their first code's support (desc); a code in no
    constraint is its own group [I]; ties by code (ids follow code order)."""
    groups: dict[tuple[int, int], list[int]] = {}
    for column, code in enumerate(codes):
        constraint = int(constraint_of[code])
        key = (0, constraint) if constraint >= 0 else (1, int(code))
        groups.setdefault(key, []).append(column)
    ordered = [sorted(g, key=lambda c: (-supports[c], codes[c])) for g in groups.values()]
    ordered.sort(key=lambda g: (-supports[g[0]], codes[g[0]]))
    return [c for group in ordered for c in group]


def _evict_partial_constraints(current: list[int], remain: list[int], cons: np.ndarray
                               ) -> list[int]:
    """Lines 15-17 as the paper's example reads them (G2): drop the codes of a
    constraint, other than the first code's, whose unplaced codes are not all in."""
    first = cons[current[0]]
    inside = set(current)
    partial = {int(cons[c]) for c in remain if c not in inside and cons[c] >= 0}
    return [c for c in current if cons[c] < 0 or cons[c] == first or cons[c] not in partial]


def km_anonymous_with(incidence: Incidence, column: int, current: list[int], k: int,
                      m: int) -> bool:
    """Line 13: is the projection on ``current`` + ``column`` still k^m-anonymous?

    ``current`` is k^m-anonymous already, so only itemsets holding the new code are
    counted (the new code's own support is >= k). Pairs come from the pair counts;
    larger itemsets level by level: each occurring (j-1)-itemset's records (rows of 0/1
    weights) times the chunk's columns gives every j-itemset's count at once. Itemsets
    that occur must occur at least k times.
    """
    if m < 2:
        return True
    together = incidence.pairs[column, current]
    if ((together > 0) & (together < k)).any():
        return False
    if m == 2:
        return True
    matrix = incidence.matrix
    sub = matrix[np.ix_(np.flatnonzero(matrix[:, column]), current)]
    frontier = np.ones((1, sub.shape[0]), dtype=np.float32)
    last = np.array([-1])
    position = np.arange(sub.shape[1])
    for size in range(2, m + 1):
        next_frontier, next_last = [], []
        for start in range(0, len(frontier), _BATCH):
            block, block_last = frontier[start:start + _BATCH], last[start:start + _BATCH]
            counts = block @ sub
            counts[position[None, :] <= block_last[:, None]] = 0  # each itemset once
            if ((counts > 0) & (counts < k)).any():
                return False
            if size < m:
                which, extend = np.nonzero(counts)
                next_frontier.append(block[which] * sub[:, extend].T)
                next_last.append(extend)
        if size == m or not next_frontier:
            return True
        frontier, last = np.concatenate(next_frontier), np.concatenate(next_last)
        if len(frontier) == 0:
            return True
    return True
