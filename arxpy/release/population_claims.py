"""Checkers of the claims that look beyond the sample: k-map, δ-presence and sample
uniqueness.

Written apart from :mod:`arxpy.privacy.kmap`, :mod:`arxpy.privacy.dpresence` and
:mod:`arxpy.privacy.sample_uniqueness`: they read the released table, the release's
transformation and hierarchies, and, for k-map against a population table and for
δ-presence, that table itself, generalized here value by value.

* k-map with a population table (ARX ``KMap`` with a research subset): every released
  class, the records equal in the claimed attributes, matches at least k population
  records generalized the same way.
* k-map estimated from a population size (a region's claim declares its size, ARX's
  figure): ARX's k' (a Poisson or zero-truncated Poisson
  model of a class's population size, mean n/N x k, at the significance level; at most
  k and n) is recomputed from the Poisson probabilities written out, and every released
  class holds at least k' records.
* δ-presence (ARX ``DPresence``; Nergiz et al. 2007): every released class's released
  records divided by the population records generalized into it lies in [δmin, δmax].
* sample uniqueness (ARX ``SampleUniqueness``): released records alone in their class,
  divided by the released records, is at most the threshold (0 with none released).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from arxpy.release.claims import (
    ROUNDING,
    Claim,
    ClaimCheck,
    _at_least,
    _at_most,
    _size_check,
    register_claim_checker,
    released_class_codes,
)

if TYPE_CHECKING:
    from arxpy.release.model import Release


@register_claim_checker("k-map")
def _k_map(release: Release, claim: Claim) -> ClaimCheck:
    if claim.parameters.get("population") is not None:
        return _k_map_table(release, claim)
    size = claim.parameters.get("population_size")
    if size is None:  # claims written before a region's size was declared in them
        return ClaimCheck(claim, None, "the population is a region preset; the checker "
                                       "needs its size")
    k = int(claim.parameters["k"])
    k_prime = poisson_k(k, release.records, int(size),
                        float(claim.parameters.get("significance", 0.01)),
                        str(claim.parameters.get("estimator", "poisson")))
    codes, n = released_class_codes(release, claim.attributes)
    sized = Claim(claim.kind, claim.parameters, claim.attributes, min_class_size=k_prime)
    check = _size_check(sized, np.bincount(codes, minlength=n), "class")
    region = claim.parameters.get("region")
    people = f"{int(size):,} people" + (f" of region {region}" if region else "")
    return ClaimCheck(claim, check.holds,
                      f"{check.finding} (k' = {k_prime} for {k}-map, {people})")


def poisson_k(k: int, records: int, population: int, significance: float,
              estimator: str) -> int:
    """ARX's k' (``KMap.calculateKPoisson`` / ``calculateKZeroPoisson``), from
    P(X = j) = e^-lam lam^j / j! with lam = records / population x k."""
    lam = records / population * k
    probability = [math.exp(-lam)]  # P(X = 0), then P(X = j) by P(j) = P(j-1) lam / j

    def p(j: int) -> float:
        while len(probability) <= j:
            probability.append(probability[-1] * lam / len(probability))
        return probability[j]

    # Sums of probabilities may stop an ulp short of ARX's cdf: the claim gets the slack.
    goal = 1.0 - significance - ROUNDING
    if goal <= 0:
        found = 1  # ARX's loop does not start
    elif estimator == "poisson":
        # The smallest c with P(X <= c) >= goal gives c + 2, or k + 1 once c + 1 reaches k.
        c, cumulative = 0, p(0)
        while cumulative < goal and c + 1 < k:
            c += 1
            cumulative += p(c)
        found = c + 2
    else:
        # Zero-truncated: the smallest c >= 1 with P(1 <= X <= c | X >= 1) >= goal gives
        # c + 1, or k once c + 1 reaches k.
        c, cumulative = 1, p(1) / (1 - p(0))
        while cumulative < goal and c + 1 < k:
            c += 1
            cumulative += p(c) / (1 - p(0))
        found = c + 1
    return min(k, found, records)


def _k_map_table(release: Release, claim: Claim) -> ClaimCheck:
    found = _population_classes(release, claim)
    if isinstance(found, str):
        return ClaimCheck(claim, None, found)
    counts, released = found
    if not len(released):
        return ClaimCheck(claim, True, "no record released")
    matches = [int(counts.get(key, 0)) for key in released.index]
    k, fewest = int(claim.parameters["k"]), min(matches)
    return ClaimCheck(claim, fewest >= k, f"a released class matches {fewest:,} population "
                                          f"records at fewest, at least {k:,} claimed")


def _population_classes(release: Release, claim: Claim) -> tuple[pd.Series, pd.Series] | str:
    """Population records and released records per released class (the labels of the
    claimed attributes), the population generalized here with the release's
    hierarchies at its transformation; or why that cannot be done."""
    path = Path(str(claim.parameters["population"]))
    if release.transformation is None or not path.is_file():
        return "the population table or the release's transformation is not at hand"
    from arxpy.data.csv_io import read_csv, sniff_csv

    attributes = [a for a in claim.attributes if a in release.transformation]
    population = read_csv(path, sniff_csv(path))
    generalized = {}
    for name in attributes:
        level = int(release.transformation[name])
        label = {str(row[0]): str(row[level]) for row in release.hierarchies[name].rows}
        values = population[name].astype(str).map(label)
        if values.isna().any():
            return f"a population value of '{name}' is not in its hierarchy"
        generalized[name] = values
    counts = pd.DataFrame(generalized).value_counts()
    released = release.released()[attributes].astype(str).value_counts()
    return counts, released


@register_claim_checker("delta-presence")
def _delta_presence(release: Release, claim: Claim) -> ClaimCheck:
    """Nergiz et al.'s δ per released class: its released records over the population
    records generalized into it, between δmin and δmax."""
    found = _population_classes(release, claim)
    if isinstance(found, str):
        return ClaimCheck(claim, None, found)
    counts, released = found
    if not len(released):
        return ClaimCheck(claim, True, "no record released")
    people = np.array([counts.get(key, 0) for key in released.index], dtype=float)
    with np.errstate(divide="ignore"):
        delta = released.to_numpy(dtype=float) / people  # a class no one matches: inf
    low, high = float(claim.parameters["delta_min"]), float(claim.parameters["delta_max"])
    lowest, highest = float(delta.min()), float(delta.max())
    holds = _at_least(lowest, low) and _at_most(highest, high)
    return ClaimCheck(claim, holds, f"released classes have δ from {lowest:.4g} to "
                                    f"{highest:.4g}, within [{low:g}, {high:g}] claimed")


@register_claim_checker("sample-uniqueness")
def _sample_uniqueness(release: Release, claim: Claim) -> ClaimCheck:
    codes, n = released_class_codes(release, claim.attributes)
    threshold = float(claim.parameters["threshold"])
    if not codes.size:
        return ClaimCheck(claim, True, "no record released")
    sizes = np.bincount(codes, minlength=n)
    share = int((sizes == 1).sum()) / codes.size
    return ClaimCheck(claim, _at_most(share, threshold),
                      f"{share:.4g} of released records unique, at most {threshold:g} claimed")
