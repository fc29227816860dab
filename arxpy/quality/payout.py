"""ARX's publisher payout quality model (``metric/v2/MetricSDNMPublisherPayout``).

Each kept record costs what the publisher forgoes: the benefit per record less its
expected payout (``RiskModelCostBenefit.getExpectedPublisherPayout`` with success
1 / class size for the prosecutor attacker, 1 / the class's population records for the
journalist, read from a population table as k-map does); each suppressed record the
whole benefit.
Weighted by the gs-factor as ARX's metrics are; lower is better. The lower bound
prices every record as if nobody attacked (success 0), as ARX's does, and
weighs it by the smaller gs weight so it also bounds suppressed records.
"""

from __future__ import annotations

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.lattice.population_table import PopulationTable, read_population_table
from arxpy.params import Param
from arxpy.quality.base import QualityModel
from arxpy.quality.precision import GS_FACTOR, gs_factors, require_prepared
from arxpy.quality.registry import register_quality_model
from arxpy.risk.cost_benefit import (
    COST_BENEFIT_PARAMS,
    CostBenefit,
    EntropyInformationLoss,
)


@register_quality_model
class PublisherPayout(QualityModel):
    """The payout the publisher forgoes, in the prices' unit (>= 0, lower is better)."""

    name = "payout"
    label = "Publisher payout"
    description = ("What the publisher forgoes against publishing every record unchanged: "
                   "information lost and expected losses from attacks that would pay "
                   "(ARX's publisher payout; lower is better).")
    params = (
        GS_FACTOR, *COST_BENEFIT_PARAMS,
        Param("attacker", "choice", "prosecutor", choices=("prosecutor", "journalist"),
              label="attacker model",
              help="Whose chance of re-identifying prices the records: the prosecutor's "
                   "(1 / class size) or the journalist's (1 / people in the population)"),
        Param("population", "text", None, optional=True, label="population table",
              help="CSV with the quasi-identifiers of the whole population, the data's "
                   "records included (journalist attacker)",
              reads_files=lambda value: [value] if value else []),
    )
    gs_factor: float
    attacker: str
    population: str | None
    adversary_cost: float
    adversary_gain: float
    publisher_benefit: float
    publisher_loss: float
    _loss: EntropyInformationLoss | None = None
    #: Per quasi-identifier and level, the records' log10 domain shares summed.
    _record_logs: list[np.ndarray] | None = None
    _records = 0
    _population: PopulationTable | None = None

    def check_together(self) -> None:
        if (self.attacker == "journalist") != bool(self.population):
            raise ConfigurationError(
                "payout: the journalist attacker needs the population table (population), "
                "and only the journalist reads one.")

    @property
    def prices(self) -> CostBenefit:
        return CostBenefit(self.adversary_cost, self.adversary_gain,
                           self.publisher_benefit, self.publisher_loss)

    def prepare(self, data: EncodedData) -> None:
        self._loss = EntropyInformationLoss([qi.level_maps for qi in data.quasi_identifiers])
        self._record_logs = [
            np.array([float(np.dot(qi.value_counts, logs[np.asarray(level_map)]))
                      for logs, level_map in zip(shares, qi.level_maps, strict=True)])
            for qi, shares in zip(data.quasi_identifiers, self._loss.log_shares, strict=True)]
        self._records = data.n_records
        if self.population:
            frame = read_population_table(str(self.population), data.qi_names, "payout")
            self._population = PopulationTable(frame, data, "payout", str(self.population))

    def population_rows(self) -> dict[str, tuple[list[np.ndarray], np.ndarray]]:
        return {} if self._population is None else self._population.carried()

    def _success(self, classes: EquivalenceClasses) -> np.ndarray:
        """The adversary's chance per class (ARX ``getSuccessProbability``)."""
        if self._population is None:
            return 1.0 / classes.sizes
        people = self._population.matches(classes)
        return 1.0 / np.where(people > 0, people, classes.sizes)

    def _information_loss(self, classes: EquivalenceClasses) -> np.ndarray:
        require_prepared(self, self._loss)
        assert self._loss is not None
        return self._loss.of(classes)

    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        g, s = gs_factors(self.gs_factor)
        sizes = classes.sizes.astype(float)
        payout = self.prices.publisher_payout(self._information_loss(classes),
                                              self._success(classes))
        forgone = np.where(suppressed, s * self.publisher_benefit,
                           g * (self.publisher_benefit - payout))
        # Not np.dot: on floats it calls BLAS, whose threads cost several times the sum
        # on a loaded machine (as in discernibility.py).
        return float(np.multiply(sizes, forgone).sum())

    def payout(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        """The publisher's expected payout from the kept records (ARX's "Publisher payout")."""
        sizes = classes.sizes.astype(float)
        payout = self.prices.publisher_payout(self._information_loss(classes),
                                              self._success(classes))
        return float(np.multiply(sizes, payout)[~suppressed].sum())

    def lower_bound(self, classes: EquivalenceClasses) -> float:
        bounds = self.lower_bounds_for_levels(np.asarray([classes.levels]))
        assert bounds is not None
        return float(bounds[0])

    def lower_bounds_for_levels(self, levels: np.ndarray) -> np.ndarray | None:
        """benefit x the records' information loss summed, from levels alone: a record's
        loss is a sum over attributes of log10 shares, so the total is one per attribute
        and level (slightly lowered so sums in another order never exceed a score)."""
        require_prepared(self, self._record_logs)
        assert self._record_logs is not None and self._loss is not None
        g, s = gs_factors(self.gs_factor)
        levels = np.asarray(levels, dtype=np.int64)
        most = self._loss.maximal
        if most == 0:
            return np.zeros(len(levels))
        logs = sum(totals[levels[:, j]] for j, totals in enumerate(self._record_logs))
        loss = np.maximum(self._records + np.asarray(logs) / most, 0.0) * (1 - 1e-9)
        # A suppressed record costs s x benefit, a kept one at least g x benefit x loss.
        return min(g, s) * self.publisher_benefit * loss
