"""Synthetic tables for engine benchmarks: the shape of issue 20's "other data".

A table has 5-8 quasi-identifiers with hierarchies of height 3-5 (levels including the
original values and the top ``*``), skewed (Zipf-like) value frequencies, a numeric
sensitive attribute ``cost`` (integer, with an interval hierarchy for hierarchical
t-closeness) that depends on two quasi-identifiers, and a categorical ``outcome`` for
the classification model. Everything is drawn from one seed, so a (seed, records,
quasi-identifiers) triple always gives the same table.

Lattices have a few thousand transformations (the product of the heights), the size
of the configurations in issue 20 where arxpy lagged ARX most.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.data.definition import (
    AttributeDefinition,
    AttributeType,
    DataDefinition,
    DataKind,
    DataType,
)
from arxpy.hierarchy.model import Hierarchy

#: Zipf exponent of the value frequencies (1 = classic Zipf; larger = more skewed).
SKEW = 1.1
#: Branching factor of each hierarchy level.
FANOUT = 4
COST_BUCKETS = 60


@dataclass(frozen=True)
class SyntheticTable:
    frame: pd.DataFrame
    definition: DataDefinition
    hierarchies: dict[str, Hierarchy]

    @property
    def lattice_size(self) -> int:
        qis = self.definition.quasi_identifiers
        return int(np.prod([len(self.hierarchies[q].rows[0]) for q in qis]))


def _heights(rng: np.random.Generator, n_qi: int) -> list[int]:
    """Heights 3-5 with a lattice of a few thousand transformations."""
    while True:
        heights = rng.integers(3, 6, n_qi).tolist()
        if 1_000 <= np.prod(heights) <= 20_000:
            return heights


def code_hierarchy(name: str, height: int) -> tuple[Hierarchy, int]:
    """Codes ``name-v`` generalized by integer division, the top ``*``; (hierarchy, domain)."""
    domain = FANOUT ** (height - 1)
    rows = []
    for v in range(domain):
        row = [f"{name}-{v}"]
        row += [f"{name}-{v // FANOUT ** level}*{level}" for level in range(1, height - 1)]
        rows.append(row + ["*"])
    return Hierarchy(rows), domain


def _skewed(rng: np.random.Generator, domain: int, n: int) -> np.ndarray:
    """``n`` value codes in ``[0, domain)`` with Zipf-like frequencies in random order."""
    weights = 1.0 / np.arange(1, domain + 1) ** SKEW
    return rng.permutation(domain)[rng.choice(domain, n, p=weights / weights.sum())]


def _cost_hierarchy() -> Hierarchy:
    """Integer costs 0..COST_BUCKETS-1 (in hundreds) by tens, by halves, then ``*``."""
    half = COST_BUCKETS // 2
    return Hierarchy([[str(v), f"{v // 10 * 10}-{v // 10 * 10 + 9}",
                       "low" if v < half else "high", "*"] for v in range(COST_BUCKETS)])


def generate(seed: int, records: int = 20_000, n_qi: int = 6) -> SyntheticTable:
    """A table of ``records`` rows with ``n_qi`` (5-8) quasi-identifiers."""
    if not 5 <= n_qi <= 8:
        raise ValueError("n_qi must be between 5 and 8")
    rng = np.random.default_rng(seed)
    columns: dict[str, np.ndarray] = {}
    hierarchies: dict[str, Hierarchy] = {}
    codes = []
    for i, height in enumerate(_heights(rng, n_qi)):
        name = f"q{i}"
        hierarchy, domain = code_hierarchy(name, height)
        drawn = _skewed(rng, domain, records)
        codes.append(drawn / domain)
        columns[name] = np.array([row[0] for row in hierarchy.rows], dtype=object)[drawn]
        hierarchies[name] = hierarchy
    # Cost rises with the first two attributes' codes: classes differ in distribution.
    mean = 12 + 12 * (codes[0] + codes[1]) / 2
    cost = np.clip(rng.gamma(2.0, mean / 2.0), 0, COST_BUCKETS - 1).astype(int)
    columns["cost"] = cost.astype(str).astype(object)
    outcome_p = 1 / (1 + np.exp(-(4 * codes[2] - 2 + rng.normal(0, 1, records))))
    columns["outcome"] = np.where(rng.random(records) < outcome_p, "yes", "no").astype(object)
    hierarchies["cost"] = _cost_hierarchy()
    definition = DataDefinition(
        [AttributeDefinition(f"q{i}", AttributeType.QUASI_IDENTIFYING) for i in range(n_qi)]
        + [AttributeDefinition("cost", AttributeType.SENSITIVE, DataType(DataKind.INTEGER)),
           AttributeDefinition("outcome", AttributeType.INSENSITIVE)]
    )
    return SyntheticTable(pd.DataFrame(columns), definition, hierarchies)
