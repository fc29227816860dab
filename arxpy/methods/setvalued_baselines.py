"""Baselines for set-valued data: what generalising or suppressing codes costs.

The paper compares disassociation with CBA (its ref. [35]), which P2 does not describe
well enough to rebuild (spec 002, decision G8). These are *proxies*, named as such:

* **B-gen**, global full-subtree generalisation over ICD-9-CM until k^m-anonymous
  (Terrovitis et al. 2008, Apriori-style): for sizes i = 1..m, while some i-itemset of
  generalised items occurs in 1..k-1 records, pick the least-supported item of every
  violating itemset not yet covered this round and move it (with its whole subtree) up
  one level; a code that climbs past its chapter is suppressed. Queries on original
  codes are estimated uniformly over the leaves: C(generalised itemset) × Π (1/n_g)^j_g.
* **B-sup**, global suppression: suppress the least-supported code of every violating
  itemset until k^m-anonymous; report the share of codes suppressed.

Plain functions over :class:`~arxpy.data.transactions.CodeSets` (no Release: they serve
the utility comparison of ``arxpy setvalued-utility``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from arxpy.arrays import distinct
from arxpy.data import icd9
from arxpy.data.disassociated import MAX_M, MAX_M_TEXT
from arxpy.data.itemsets import RecordIndex, count_itemsets
from arxpy.data.transactions import CodeSets
from arxpy.errors import ConfigurationError

#: Largest number of rounds before giving up (each round moves at least one item).
MAX_ROUNDS = 10_000


@dataclass
class GeneralizationBaseline:
    """B-gen's result: the node each code was generalised to (None: suppressed)."""

    k: int
    m: int
    mapping: dict[str, str | None]
    generalized: CodeSets  # records over generalised nodes
    leaves_under: dict[str, int]  # n_g: domain codes mapped to node g
    rounds: int
    elapsed_seconds: float

    @property
    def suppressed(self) -> list[str]:
        return sorted(c for c, g in self.mapping.items() if g is None)

    @property
    def suppressed_share(self) -> float:
        return len(self.suppressed) / max(len(self.mapping), 1)

    def estimate(self, queries: Sequence[Sequence[str]], reading: str = "uniform") -> np.ndarray:
        """Estimated COUNT of each query on original codes. ``uniform``: each of a node's
        n_g leaves equally likely, factor (1/n_g)^j; ``nonempty``: a generalised item
        stands for a random non-empty subset of its leaves, factor 2^(n-j)/(2^n - 1)."""
        index = RecordIndex(self.generalized)
        out = np.zeros(len(queries), dtype=float)
        for q, query in enumerate(queries):
            nodes: dict[str, int] = {}
            for code in query:
                node = self.mapping.get(code)
                if node is None:
                    break
                nodes[node] = nodes.get(node, 0) + 1
            else:
                factor = math.prod(_share(self.leaves_under[g], j, reading)
                                   for g, j in nodes.items())
                out[q] = index.count_all(list(nodes)) * factor
        return out

    def to_dict(self) -> dict[str, object]:
        """The baseline's figures, as the set-valued utility report holds them."""
        return {"baseline": "gen (proxy: global full-subtree generalisation)",
                "k": self.k, "m": self.m, "codes": len(self.mapping),
                "codes_generalized": sum(g != c for c, g in self.mapping.items()),
                "codes_suppressed": len(self.suppressed),
                "suppressed_percent": 100.0 * self.suppressed_share,
                "rounds": self.rounds, "elapsed_seconds": self.elapsed_seconds}


@dataclass
class SuppressionBaseline:
    """B-sup's result: the codes suppressed and the data without them."""

    k: int
    m: int
    codes: int
    suppressed: list[str]
    released: CodeSets
    rounds: int
    elapsed_seconds: float

    @property
    def suppressed_share(self) -> float:
        return len(self.suppressed) / max(self.codes, 1)

    def estimate(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """Exact counts on the released data (0 for a query with a suppressed code)."""
        index = RecordIndex(self.released)
        gone = set(self.suppressed)
        return np.array([0 if gone.intersection(q) else index.count_all(q) for q in queries],
                        dtype=float)

    def to_dict(self) -> dict[str, object]:
        """The baseline's figures, as the set-valued utility report holds them."""
        return {"baseline": "sup (proxy: global suppression)", "k": self.k, "m": self.m,
                "codes": self.codes, "codes_suppressed": len(self.suppressed),
                "suppressed_percent": 100.0 * self.suppressed_share, "rounds": self.rounds,
                "elapsed_seconds": self.elapsed_seconds}


def global_generalization(sets: CodeSets, k: int, m: int, *,
                          check: Callable[[], None] | None = None) -> GeneralizationBaseline:
    """B-gen: generalise whole ICD-9-CM subtrees until the data is k^m-anonymous."""
    _check_parameters(sets, k, m)
    started = time.perf_counter()
    mapping: dict[str, str | None] = {c: icd9.base_code(c) for c in sets.vocabulary}
    chains = {c: _chain(c) for c in sets.vocabulary}
    rounds = 0
    for size in range(1, m + 1):
        while True:
            generalized, nodes = _apply_mapping(sets, mapping)
            picks = _picks(generalized, nodes, k, size, check)
            if not picks:
                break
            rounds += 1
            if rounds > MAX_ROUNDS:  # pragma: no cover - each round moves an item up
                raise ConfigurationError("The generalisation baseline did not converge.")
            for node in picks:
                _generalize(mapping, node, chains)
    generalized, nodes = _apply_mapping(sets, mapping)
    under: dict[str, int] = {}
    for node in mapping.values():
        if node is not None:
            under[node] = under.get(node, 0) + 1
    return GeneralizationBaseline(k, m, mapping, generalized, under, rounds,
                                  time.perf_counter() - started)


def global_suppression(sets: CodeSets, k: int, m: int, *,
                       check: Callable[[], None] | None = None) -> SuppressionBaseline:
    """B-sup: suppress codes globally until the data is k^m-anonymous."""
    _check_parameters(sets, k, m)
    started = time.perf_counter()
    mapping: dict[str, str | None] = {c: c for c in sets.vocabulary}
    rounds = 0
    while True:
        released, nodes = _apply_mapping(sets, mapping)
        picks = _picks(released, nodes, k, m, check)
        if not picks:
            break
        rounds += 1
        for code in picks:
            mapping[code] = None
    suppressed = sorted(c for c, g in mapping.items() if g is None)
    return SuppressionBaseline(k, m, sets.n_codes, suppressed, released, rounds,
                               time.perf_counter() - started)


def _check_parameters(sets: CodeSets, k: int, m: int) -> None:
    if k < 2 or m < 1:
        raise ConfigurationError(f"The baselines need k >= 2 and m >= 1 (got k={k}, m={m}).")
    if m > MAX_M:  # m may come from a published document, which anyone can write
        raise ConfigurationError(f"The baselines cannot run at m = {m}: {MAX_M_TEXT}.")
    if len(sets) < k:
        raise ConfigurationError(f"{len(sets)} records cannot be {k}^{m}-anonymous; "
                                 f"at least k = {k} records are needed.")


def _share(leaves: int, taken: int, reading: str) -> float:
    if reading == "uniform":
        return (1.0 / leaves) ** taken
    if leaves > 60:  # 2^(n-j) / (2^n - 1) -> 2^-j
        return 2.0 ** -taken
    return 2.0 ** (leaves - taken) / (2.0 ** leaves - 1)


def _apply_mapping(sets: CodeSets, mapping: dict[str, str | None]
                   ) -> tuple[CodeSets, tuple[str, ...]]:
    """The records over generalised nodes (suppressed codes removed), and the nodes."""
    nodes = tuple(sorted({g for g in mapping.values() if g is not None}))
    position = {g: i for i, g in enumerate(nodes)}
    node_of = np.array([position.get(mapping[c], -1) if mapping[c] is not None else -1
                        for c in sets.vocabulary], dtype=np.int64)
    mapped = node_of[sets.indices]
    keep = mapped >= 0
    width = max(len(nodes), 1)
    keys = distinct(sets.owners[keep] * width + mapped[keep])
    owner, node = keys // width, keys % width
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=len(sets)), out=indptr[1:])
    return CodeSets(nodes, indptr, node.astype(np.int32)), nodes


def _picks(data: CodeSets, nodes: tuple[str, ...], k: int, size: int,
           check: Callable[[], None] | None) -> list[str]:
    """The least-supported item of every violating itemset of 1..size items not yet
    covered by an item picked in this round."""
    supports = data.supports
    violations = []
    for level in count_itemsets(data, size, k, check=check):
        for row in level.itemsets[level.counts < k]:
            violations.append(tuple(int(i) for i in row))
    violations.sort(key=lambda v: (len(v), v))
    picked: set[int] = set()
    for itemset in violations:
        if picked.intersection(itemset):
            continue
        picked.add(min(itemset, key=lambda i: (supports[i], nodes[i])))
    return [nodes[i] for i in sorted(picked)]


def _generalize(mapping: dict[str, str | None], node: str,
                chains: dict[str, tuple[str, ...]]) -> None:
    """Move ``node``'s whole subtree up to its parent (suppress above a chapter).
    ``chains`` holds each code's path up to its chapter (the code first)."""
    parent = icd9.parent(node)
    for code, current in mapping.items():
        if current is None:
            continue
        chain = chains[code]
        if parent is None:
            if current == node:
                mapping[code] = None
        elif parent in chain and chain.index(current) < chain.index(parent):
            mapping[code] = parent


def _chain(code: str) -> tuple[str, ...]:
    chain = [icd9.base_code(code)]
    while (step := icd9.parent(chain[-1])) is not None:
        chain.append(step)
    return tuple(chain)
