"""Brute-force k-map and sample uniqueness for the tests, from the definitions alone.

Imports only numpy, pandas and math, never ``arxpy``, so a bug in the models cannot
hide itself (as tests/audit.py does for the other models).

- k-map against a population table (Sweeney; ARX ``KMap`` with a research subset): a
  sample class, its generalized quasi-identifier values, matches the population
  records whose values generalize to the same labels; it meets k-map when they are at
  least k.
- estimated k-map (ARX ``KMap.calculateKPoisson``/``calculateKZeroPoisson``): with
  lam = n / N * k and X ~ Poisson(lam), ARX's k' is c + 2 for the smallest c >= 0 with
  P(X <= c) >= 1 - alpha (Poisson), or c + 1 for the smallest c >= 1 with
  P(1 <= X <= c) / P(X >= 1) >= 1 - alpha (zero-truncated); either stops at k, k' is 1
  when alpha = 1 (the loop does not start), and k' is at most k and n.
- sample uniqueness (ARX ``SampleUniqueness``): records alone in their class divided
  by the records (released ones only), 0 without records.
- δ-presence (Nergiz, Atzori and Clifton 2007; ARX ``DPresence``): a class of the
  generalized population holds some research-subset records; its δ is those records
  over its population records, and it passes when δmin <= δ <= δmax. A population class
  with no subset record has δ = 0 and nothing in it can be suppressed.
"""

from __future__ import annotations

import math

import pandas as pd


def generalize(frame: pd.DataFrame, hierarchies: dict[str, list[list[str]]],
               levels: dict[str, int]) -> pd.DataFrame:
    """Each quasi-identifier's value replaced by its hierarchy's label at its level."""
    out = {}
    for name, level in levels.items():
        label = {row[0]: row[level] for row in hierarchies[name]}
        out[name] = [label[v] for v in frame[name]]
    return pd.DataFrame(out)


def population_matches(sample: pd.DataFrame, population: pd.DataFrame,
                       hierarchies: dict[str, list[list[str]]],
                       levels: dict[str, int]) -> dict[tuple, int]:
    """For each sample class (tuple of labels), the population records in it."""
    classes = generalize(sample, hierarchies, levels)
    people = generalize(population, hierarchies, levels)
    people_rows = [tuple(r) for r in people.itertuples(index=False)]
    return {key: sum(1 for p in people_rows if p == key)
            for key in {tuple(r) for r in classes.itertuples(index=False)}}


def presence(subset: pd.DataFrame, population: pd.DataFrame,
             hierarchies: dict[str, list[list[str]]], levels: dict[str, int]
             ) -> dict[tuple, float]:
    """δ of every class of the generalized population (0 where no subset record is)."""
    inside = [tuple(r) for r in generalize(subset, hierarchies, levels).itertuples(index=False)]
    people = [tuple(r) for r in
              generalize(population, hierarchies, levels).itertuples(index=False)]
    return {key: inside.count(key) / people.count(key) for key in set(people)}


def poisson_pmf(j: int, lam: float) -> float:
    return math.exp(-lam + j * math.log(lam) - math.lgamma(j + 1))


def arx_k_prime(k: int, n: int, population: int, alpha: float, estimator: str) -> int:
    lam = n / population * k
    goal = 1 - alpha
    if goal <= 0:  # ARX's loop does not start
        found = 1
    elif estimator == "poisson":
        c = 0
        while sum(poisson_pmf(j, lam) for j in range(c + 1)) < goal and c + 1 < k:
            c += 1
        found = c + 2
    else:
        c, positive = 1, 1 - poisson_pmf(0, lam)
        while sum(poisson_pmf(j, lam) for j in range(1, c + 1)) / positive < goal \
                and c + 1 < k:
            c += 1
        found = c + 1
    return min(k, found, n)


def sample_uniqueness(frame: pd.DataFrame, quasi_identifiers: list[str]) -> float:
    if not len(frame):
        return 0.0
    sizes = frame.groupby(list(quasi_identifiers), sort=False).size()
    return float((sizes == 1).sum()) / len(frame)
