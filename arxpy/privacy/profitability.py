"""ARX's four game-theoretic (profitability) privacy models.

Wan et al., A Game Theoretic Framework for Analyzing Re-Identification Risk (PLOS ONE
2015), as ARX 3.9.2 implements it (``criteria/ProfitabilityProsecutor``,
``ProfitabilityJournalist``, ``ProfitabilityProsecutorNoAttack``,
``ProfitabilityJournalistNoAttack``; prices in ``ARXCostBenefitConfiguration``):

* profitability: a class is kept when the publisher's expected payout per record is
  positive: benefit x (1 - information loss), less publisher loss x success where the
  adversary's gain x success exceeds its cost. Success is 1 / class size (prosecutor) or
  1 / the class's population records (journalist). Not monotonic (ARX:
  ``ImplicitPrivacyCriterion(false, false)``): generalizing lowers the adversary's
  success a little and the benefit a lot.
* no-attack profitability: no record is worth attacking, gain x success < cost, which is
  k-anonymity (prosecutor) or k-map (journalist) with k the smallest size above
  gain / cost. Monotonic.

Journalist variants read the population as k-map does (``population``: a CSV of
everyone, the data's records included).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.lattice.population_table import PopulationTable, read_population_table
from arxpy.params import Param
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.registry import register_privacy_model
from arxpy.risk.cost_benefit import (
    COST_BENEFIT_PARAMS,
    CostBenefit,
    EntropyInformationLoss,
)

_POPULATION = Param("population", "text", label="population table",
                    help="CSV with the quasi-identifiers of the whole population, the data's "
                         "records included (journalist attacker)",
                    reads_files=lambda value: [value] if value else [])


class _Profitability(PrivacyModel):
    """The prices and, for journalist variants, the population table."""

    adversary_cost: float
    adversary_gain: float
    publisher_benefit: float
    publisher_loss: float
    population: str | None = None
    attacker = "prosecutor"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._population: PopulationTable | None = None

    def check_together(self) -> None:
        if self.attacker == "journalist" and not self.population:
            raise ConfigurationError(
                f"{self.kind}: the journalist attacker needs the population table "
                "(population: a CSV of everyone, the data's records included).")

    @property
    def prices(self) -> CostBenefit:
        return CostBenefit(self.adversary_cost, self.adversary_gain,
                           self.publisher_benefit, self.publisher_loss)

    def prepare(self, data: EncodedData) -> None:
        if self.population is None:
            return
        frame = read_population_table(str(self.population), data.qi_names, self.kind)
        self._population = PopulationTable(frame, data, self.kind, str(self.population))
        if self._population.shortfall(data):
            raise ConfigurationError(
                f"{self.kind}: the population table lacks records of the data; it must "
                "hold the whole population, the data's records included.")

    def population_rows(self) -> dict[str, tuple[list[np.ndarray], np.ndarray]]:
        return {} if self._population is None else self._population.carried()

    def population_matches(self, classes: EquivalenceClasses) -> np.ndarray:
        assert self._population is not None
        return self._population.matches(classes)

    def _prices_text(self) -> str:
        return (f"adversary cost {self.adversary_cost:g}, gain {self.adversary_gain:g}; "
                f"publisher benefit {self.publisher_benefit:g}, loss {self.publisher_loss:g}")


class _PayoutProfitability(_Profitability):
    """Keep a class when the publisher's expected payout per record is positive."""

    description = ("Every released record earns the publisher a positive expected payout: "
                   "its benefit, less the information lost, less the expected loss when an "
                   "attack on it would pay the adversary.")
    monotonic_with_suppression = False
    monotonic_without_suppression = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loss: EntropyInformationLoss | None = None

    def prepare(self, data: EncodedData) -> None:
        super().prepare(data)
        self._loss = EntropyInformationLoss([qi.level_maps for qi in data.quasi_identifiers])

    def success(self, classes: EquivalenceClasses) -> np.ndarray:
        """The adversary's chance to re-identify a record of each class."""
        if self._population is None:
            return 1.0 / classes.sizes
        people = self.population_matches(classes)
        return 1.0 / np.where(people > 0, people, classes.sizes)

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        assert self._loss is not None, "prepare() first"
        loss = self._loss.of(classes)
        return self.prices.publisher_payout(loss, self.success(classes)) > 0

    def describe(self) -> str:
        return f"profitability ({self.attacker}; {self._prices_text()})"


class _NoAttackProfitability(_Profitability):
    """No record is worth attacking: classes of at least ARX's derived k."""

    description = ("No released record is worth attacking: the adversary's gain times the "
                   "chance of re-identifying it stays below the cost of the attack.")
    monotonic_with_suppression = True
    monotonic_without_suppression = True

    @property
    def k(self) -> int:
        return self.prices.no_attack_k()

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        if self._population is None:
            return classes.sizes >= self.k
        return self.population_matches(classes) >= self.k

    def describe(self) -> str:
        return (f"no-attack profitability ({self.attacker}, classes of {self.k}; "
                f"{self._prices_text()})")

    def claim_parameters(self) -> dict[str, Any]:
        return {**super().claim_parameters(), "k": self.k}


@register_privacy_model
class ProfitabilityProsecutor(_PayoutProfitability):
    """ARX ``ProfitabilityProsecutor``: success is 1 / class size."""

    kind = "profitability"
    label = "Profitability (prosecutor)"
    params = COST_BENEFIT_PARAMS


@register_privacy_model
class ProfitabilityJournalist(_PayoutProfitability):
    """ARX ``ProfitabilityJournalist``: success is 1 / the class's population records."""

    kind = "profitability-journalist"
    label = "Profitability (journalist)"
    attacker = "journalist"
    params = (*COST_BENEFIT_PARAMS, _POPULATION)


@register_privacy_model
class ProfitabilityProsecutorNoAttack(_NoAttackProfitability):
    """ARX ``ProfitabilityProsecutorNoAttack``: k-anonymity with k above gain / cost."""

    kind = "no-attack-profitability"
    label = "No-attack profitability (prosecutor)"
    params = COST_BENEFIT_PARAMS

    @property
    def guaranteed_class_size(self) -> int | None:
        return self.k


@register_privacy_model
class ProfitabilityJournalistNoAttack(_NoAttackProfitability):
    """ARX ``ProfitabilityJournalistNoAttack``: k-map with k above gain / cost."""

    kind = "no-attack-profitability-journalist"
    label = "No-attack profitability (journalist)"
    attacker = "journalist"
    params = (*COST_BENEFIT_PARAMS, _POPULATION)
