"""Brute-force references for ARX's game-theoretic models, written from Wan et al.
(PLOS ONE 2015) and ARX 3.9.2's definitions without arxpy: records are generalized
value by value through hierarchy rows (lists of labels, level 0 first)."""

from __future__ import annotations

import math
from collections import Counter


def generalize(records: list[tuple[str, ...]], hierarchies: list[list[list[str]]],
               levels: tuple[int, ...]) -> list[tuple[str, ...]]:
    lookup = [{row[0]: row[level] for row in rows}
              for rows, level in zip(hierarchies, levels, strict=True)]
    return [tuple(m[v] for m, v in zip(lookup, record, strict=True)) for record in records]


def information_loss(label: tuple[str, ...], hierarchies: list[list[list[str]]],
                     levels: tuple[int, ...]) -> float:
    """log10(product of each value's share of its hierarchy's rows) / log10(product of
    the row counts) + 1 (ARX MetricSDNMEntropyBasedInformationLoss)."""
    top = math.log10(math.prod(len(rows) for rows in hierarchies))
    if top == 0:
        return 0.0
    share = 1.0
    for value, rows, level in zip(label, hierarchies, levels, strict=True):
        share *= sum(row[level] == value for row in rows) / len(rows)
    return min(1.0, max(0.0, math.log10(share) / top + 1))


def payout(loss: float, success: float, cost: float, gain: float, benefit: float,
           publisher_loss: float) -> float:
    attacked = gain * success - cost > 0
    return benefit * (1 - loss) - (publisher_loss * success if attacked else 0.0)


def verdicts(records, hierarchies, levels, prices: dict[str, float],
             population=None, no_attack: bool = False) -> dict[tuple[str, ...], bool]:
    """Per class of the sample at ``levels``: does it meet the model?"""
    sample = Counter(generalize(records, hierarchies, levels))
    people = Counter(generalize(population, hierarchies, levels)) if population else None
    out = {}
    for label, size in sample.items():
        matched = people[label] if people is not None and people[label] else size
        if no_attack:
            gain, cost = prices["adversary_gain"], prices["adversary_cost"]
            out[label] = gain == 0 or gain / matched < cost
            continue
        value = payout(information_loss(label, hierarchies, levels), 1 / matched,
                       prices["adversary_cost"], prices["adversary_gain"],
                       prices["publisher_benefit"], prices["publisher_loss"])
        out[label] = value > 0
    return out


def forgone_payout(records, hierarchies, levels, prices, suppressed: set,
                   population=None) -> float:
    """ARX's publisher payout score at gs-factor 0.5: benefit per suppressed record,
    benefit less the expected payout per kept record (prosecutor, or journalist when a
    population is given)."""
    total = 0.0
    people = Counter(generalize(population, hierarchies, levels)) if population else None
    for label, size in Counter(generalize(records, hierarchies, levels)).items():
        if label in suppressed:
            total += size * prices["publisher_benefit"]
            continue
        matched = people[label] if people is not None and people[label] else size
        value = payout(information_loss(label, hierarchies, levels), 1 / matched,
                       prices["adversary_cost"], prices["adversary_gain"],
                       prices["publisher_benefit"], prices["publisher_loss"])
        total += size * (prices["publisher_benefit"] - value)
    return total
