"""The game between a data publisher and an adversary, as ARX 3.9.2 prices it.

Wan et al., A Game Theoretic Framework for Analyzing Re-Identification Risk (PLOS ONE
2015). ARX: ``ARXCostBenefitConfiguration`` (the four prices and their defaults),
``risk/RiskModelCostBenefit`` (the payouts) and ``MetricSDNMEntropyBasedInformationLoss``
(a class's information loss in [0, 1] from the domain shares of its generalized values).
Shared by the profitability privacy models and the publisher payout quality model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from arxpy.params import Param

#: ARX's four prices, named as ``ARXCostBenefitConfiguration`` names them (its defaults).
COST_BENEFIT_PARAMS = (
    Param("adversary_cost", "float", 4.0, low=0, unit="per record",
          help="What an attack on one record costs the adversary"),
    Param("adversary_gain", "float", 300.0, low=0, unit="per record",
          help="What the adversary gains by re-identifying one record"),
    Param("publisher_benefit", "float", 1200.0, low=0, unit="per record",
          help="What the publisher gains by publishing one record unchanged"),
    Param("publisher_loss", "float", 300.0, low=0, unit="per record",
          help="What the publisher loses when one record is re-identified"),
)


@dataclass(frozen=True)
class CostBenefit:
    """ARX's ``ARXCostBenefitConfiguration``: prices per record, all >= 0."""

    adversary_cost: float = 4.0
    adversary_gain: float = 300.0
    publisher_benefit: float = 1200.0
    publisher_loss: float = 300.0

    def publisher_payout(self, information_loss: np.ndarray,
                         success: np.ndarray) -> np.ndarray:
        """Expected payout per record (``getExpectedPublisherPayout``): the benefit less
        the information lost, less the expected loss where attacking pays the adversary."""
        benefit = self.publisher_benefit * (1.0 - information_loss)
        attacked = self.adversary_gain * success - self.adversary_cost > 0
        return benefit - np.where(attacked, self.publisher_loss * success, 0.0)

    def no_attack_k(self) -> int:
        """The class size at which attacking stops paying (ARX
        ``ProfitabilityProsecutorNoAttack.initialize``): gain/size < cost, so the
        smallest size above gain/cost; 1 when nothing is gained."""
        if self.adversary_gain == 0:
            return 1
        if self.adversary_cost == 0:
            return np.iinfo(np.int32).max
        threshold = self.adversary_gain / self.adversary_cost
        return int(threshold) + 1 if threshold == np.floor(threshold) else int(np.ceil(threshold))


def domain_log_shares(level_maps: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per level, log10 of each generalized value's share of the hierarchy's values (ARX
    ``DomainShareMaterialized``: values of the hierarchy mapped to it / its rows)."""
    rows = len(level_maps[0])
    return [np.log10(np.bincount(np.asarray(m), minlength=int(np.max(m)) + 1) / rows)
            for m in level_maps]


class _Classes(Protocol):
    """What the loss reads of :class:`~arxpy.lattice.classes.EquivalenceClasses` (risk
    sits beside lattice, so it does not import it)."""

    levels: tuple[int, ...]

    def table_sums(self, tables: Sequence[np.ndarray]) -> np.ndarray: ...

    @property
    def n_classes(self) -> int: ...

    def derive(self, name: str, compute: Callable[[_Classes], np.ndarray]) -> np.ndarray: ...


class EntropyInformationLoss:
    """ARX's entropy-based information loss of each class in [0, 1]: log10 of the product
    of its values' domain shares over log10 of the product of the domain sizes, plus 1.

    Prepared once per data from each quasi-identifier's level maps; :meth:`of` keeps its
    answer on the classes, so the profitability model and the payout, which both read it,
    decode and sum each transformation's keys once."""

    def __init__(self, level_maps: Sequence[Sequence[np.ndarray]]) -> None:
        #: ``log_shares[j]`` is :func:`domain_log_shares` of quasi-identifier j.
        self.log_shares = [domain_log_shares(maps) for maps in level_maps]
        self.maximal = maximal_information_loss(self.log_shares)
        # The tables fix the answer: equal tables (two models on one data) share it.
        digest = hashlib.blake2b(digest_size=16)
        for attribute in self.log_shares:
            for level in attribute:
                digest.update(level.tobytes() + b"|")
        self._name = "entropy-information-loss:" + digest.hexdigest()

    def of(self, classes: _Classes) -> np.ndarray:
        """The loss of each class of ``classes`` (float64, in [0, 1])."""
        return classes.derive(self._name, self._compute)

    def _compute(self, classes: _Classes) -> np.ndarray:
        if self.maximal == 0:
            return np.zeros(classes.n_classes)
        logs = classes.table_sums([attribute[level] for attribute, level
                                   in zip(self.log_shares, classes.levels, strict=True)])
        return np.clip(logs / self.maximal + 1.0, 0.0, 1.0)


def maximal_information_loss(log_shares: Sequence[Sequence[np.ndarray]]) -> float:
    """log10 of the product of the hierarchies' row counts (ARX's maxIL)."""
    return float(sum(np.log10(len(attribute[0])) for attribute in log_shares))
