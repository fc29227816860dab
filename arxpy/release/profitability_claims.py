"""Checkers of the game-theoretic claims (ARX's profitability models).

Written apart from :mod:`arxpy.privacy.profitability` and :mod:`arxpy.risk.cost_benefit`:
from the claim's prices, the released table, its transformation and hierarchies (and
for the journalist, the population table) each released class's game is recomputed.

* profitability (Wan et al. 2015, ARX ``ProfitabilityProsecutor`` / ``Journalist``):
  every released class pays the publisher: benefit x (1 - loss) - [gain x p > cost] x
  publisher loss x p > 0, with p = 1 / the class's released (prosecutor) or population
  (journalist) records, and loss ARX's entropy-based information loss: log10 of the
  product of the class's values' shares of their hierarchy's rows, over log10 of the
  product of the hierarchies' row counts, plus 1.
* no-attack profitability: no class is worth attacking, gain / size < cost, so every
  released class holds (or matches in the population) more than gain / cost records.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from arxpy.release.claims import Claim, ClaimCheck, register_claim_checker
from arxpy.release.population_claims import _population_classes

if TYPE_CHECKING:
    from arxpy.release.model import Release


def _released_classes(release: Release, claim: Claim) -> tuple[pd.Series, pd.Series | None] | str:
    """Released records per released class and, for the journalist, population records
    per released class (in the same order); or why they cannot be had."""
    if release.transformation is None:
        return "the release's transformation is not at hand"
    if claim.parameters.get("population") is None:
        attributes = [a for a in claim.attributes if a in release.transformation]
        return release.released()[attributes].astype(str).value_counts(), None
    found = _population_classes(release, claim)
    if isinstance(found, str):
        return found
    counts, released = found
    people = pd.Series([int(counts.get(key, 0)) for key in released.index],
                       index=released.index)
    return released, people


def _information_loss(release: Release, attributes: list[str], labels: tuple) -> float:
    """ARX's entropy-based information loss of the class with these ``labels``."""
    logs, most = 0.0, 0.0
    for name, label in zip(attributes, labels, strict=True):
        rows = release.hierarchies[name].rows
        level = int(release.transformation[name])  # type: ignore[index]
        matching = sum(1 for row in rows if str(row[level]) == label)
        logs += math.log10(matching / len(rows))
        most += math.log10(len(rows))
    return 0.0 if most == 0 else min(1.0, max(0.0, logs / most + 1.0))


@register_claim_checker("profitability")
@register_claim_checker("profitability-journalist")
def _profitability(release: Release, claim: Claim) -> ClaimCheck:
    found = _released_classes(release, claim)
    if isinstance(found, str):
        return ClaimCheck(claim, None, found)
    released, people = found
    if not len(released):
        return ClaimCheck(claim, True, "no record released")
    price = {k: float(claim.parameters[k]) for k in
             ("adversary_cost", "adversary_gain", "publisher_benefit", "publisher_loss")}
    attributes = list(released.index.names)
    worst = math.inf
    for position, (key, size) in enumerate(released.items()):
        labels = key if isinstance(key, tuple) else (key,)
        matched = size if people is None or not people.iloc[position] else people.iloc[position]
        success = 1.0 / matched
        payout = price["publisher_benefit"] * (1 - _information_loss(release, attributes, labels))
        if price["adversary_gain"] * success > price["adversary_cost"]:
            payout -= price["publisher_loss"] * success
        worst = min(worst, float(payout))
    return ClaimCheck(claim, bool(worst > 0),
                      f"a released record pays the publisher {worst:.4g} at least, more "
                      "than 0 claimed")


@register_claim_checker("no-attack-profitability")
@register_claim_checker("no-attack-profitability-journalist")
def _no_attack(release: Release, claim: Claim) -> ClaimCheck:
    found = _released_classes(release, claim)
    if isinstance(found, str):
        return ClaimCheck(claim, None, found)
    released, people = found
    if not len(released):
        return ClaimCheck(claim, True, "no record released")
    gain = float(claim.parameters["adversary_gain"])
    cost = float(claim.parameters["adversary_cost"])
    fewest = int((released if people is None else people).min())
    holds = bool(gain == 0 or gain / fewest < cost)
    return ClaimCheck(claim, holds, f"an attack on the smallest released class ({fewest:,} "
                                    f"records) gains {gain / fewest:.4g}, below the cost "
                                    f"{cost:g} claimed")
