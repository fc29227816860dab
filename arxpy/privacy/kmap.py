"""k-map: every released class matches at least k people of the population (ARX ``KMap``).

Sweeney's k-map (Computational disclosure control, 2001, ch. 4) asks k-anonymity of
the population, not of the sample. ARX 3.9.2 (``criteria/KMap.java``) offers two forms:

* an explicit population table (ARX's research subset): a class meets the model when at
  least ``k`` population records fall into it (``entry.pcount >= k``). Here the data
  are the sample and ``population`` names a CSV with the quasi-identifiers of every
  person of the population (the sample's records among them, as in ARX).
* an estimate from the sample and the population's size: ARX derives a k' from a
  Poisson (Pannekoek) or zero-truncated Poisson (El Emam) model of a class's population
  size with mean ``sampling fraction x k`` at a significance level, and then asks
  k'-anonymity of the sample (``entry.count >= derivedK``; ``calculateKPoisson``,
  ``calculateKZeroPoisson``; k' is at most k and at most the number of records).

Both are monotonic with and without suppression (ARX: ``ImplicitPrivacyCriterion(true,
true)``): a generalization merges classes, which only adds population records.
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
from arxpy.risk.population import REGIONS, PopulationSetting

#: ARX's ``CellSizeEstimator`` values.
CELL_SIZE_ESTIMATORS = ("poisson", "zero-truncated-poisson")


def derived_k(k: int, records: int, population_size: int, significance: float,
              estimator: str) -> int:
    """ARX's k' for estimated k-map: the sample class size at which a class's population
    size is at least k with probability 1 - ``significance``, at most k and ``records``."""
    from scipy.stats import poisson  # scipy.stats takes a second to import

    lam = records / population_size * k
    threshold = 1.0 - significance
    if estimator == "poisson":
        counter, value = 0, 0.0
        while value < threshold:  # KMap.calculateKPoisson
            value = float(poisson.cdf(counter, lam))
            counter += 1
            if counter >= k:
                break
        found = counter + 1
    else:
        positive = 1.0 - float(poisson.pmf(0, lam))
        counter, value = 1, 0.0
        while value < threshold:  # KMap.calculateKZeroPoisson
            value += float(poisson.pmf(counter, lam)) / positive
            counter += 1
            if counter >= k:
                break
        found = counter
    return min(k, found, records)


@register_privacy_model
class KMap(PrivacyModel):
    """Every released class matches at least ``k`` people of the population.

    Give the population as a table (``population``: a CSV path; exact) or by its size
    (``population_size`` or ``region``; then k is estimated with ``estimator`` at
    ``significance``).
    """

    kind = "k-map"
    label = "k-Map"
    description = ("Every released record matches at least k people of the population in "
                   "its quasi-identifiers.")
    params = (
        Param("k", "int", suggested=5, low=1, unit="people",
              help="Every released class matches at least k people of the population"),
        Param("population", "text", None, optional=True, label="population table",
              help="CSV with the quasi-identifiers of the whole population (exact k-map)",
              reads_files=lambda value: [value] if value else []),
        Param("population_size", "int", None, low=1, optional=True, unit="people",
              label="population size", help="People in the population (estimated k-map)"),
        Param("region", "choice", None, choices=tuple(sorted(REGIONS)), optional=True,
              help="The population the data were sampled from (estimated k-map)"),
        Param("estimator", "choice", "poisson", choices=CELL_SIZE_ESTIMATORS,
              label="cell size estimator",
              help="Model of a class's population size (estimated k-map)"),
        Param("significance", "float", 0.01, low=0, high=1, label="significance level",
              help="Accepted chance that a class matches fewer than k people (estimated)"),
    )
    monotonic_with_suppression = True
    monotonic_without_suppression = True
    k: int
    population: str | None
    population_size: int | None
    region: str | None
    estimator: str
    significance: float

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._derived_k: int | None = None
        self._population: PopulationTable | None = None

    def check_together(self) -> None:
        given = [self.population is not None, self.population_size is not None,
                 self.region is not None]
        if sum(given) != 1:
            raise ConfigurationError(
                "k-map: give the population either as a table (population), a size "
                "(population_size) or a region preset (region), exactly one of them.")

    @property
    def estimated(self) -> bool:
        return self.population is None

    @property
    def population_people(self) -> int | None:
        """The population's size when it is given by a size or a region."""
        if self.region is not None:
            return PopulationSetting("region", self.region).model(1).size
        return self.population_size

    @property
    def derived_k(self) -> int | None:
        """ARX's k' once the model knows the sample's size (estimated k-map only)."""
        return self._derived_k

    @property
    def guaranteed_class_size(self) -> int | None:
        return self._derived_k

    def validate(self, data: EncodedData) -> None:
        if not self.estimated:
            return
        people = self.population_people
        assert people is not None
        if people < data.n_records:
            raise ConfigurationError(
                f"k-map: the population ({people:,}) is smaller than the data "
                f"({data.n_records:,} records); give the size of the whole population.")

    def prepare(self, data: EncodedData) -> None:
        if self.estimated:
            self._derived_k = derived_k(self.k, data.n_records, self.population_people or 1,
                                        self.significance, self.estimator)
            return
        frame = read_population_table(str(self.population), data.qi_names, "k-map")
        self._population = PopulationTable(frame, data, "k-map", str(self.population))
        # ARX draws the sample from the population table: a table that lacks some of
        # the sample's records is another population.
        if self._population.shortfall(data):
            raise ConfigurationError(
                "k-map: the population table lacks records of the data (some combination of "
                "quasi-identifiers is more frequent in the data); it must hold the whole "
                "population, the data's records included.")

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        if self.estimated:
            return classes.sizes >= (self._derived_k or self.k)
        return self.population_matches(classes) >= self.k

    def population_rows(self) -> dict[str, tuple[list[np.ndarray], np.ndarray]]:
        return {} if self._population is None else self._population.carried()

    def population_matches(self, classes: EquivalenceClasses) -> np.ndarray:
        """Population records in each class (exact k-map, after ``prepare``)."""
        assert self._population is not None
        return self._population.matches(classes)

    def describe(self) -> str:
        if not self.estimated:
            return f"{self.k}-map against a population table"
        text = (f"{self.k}-map, population {self.population_people:,} ({self.estimator}, "
                f"significance {self.significance:g})")
        if self._derived_k is not None:
            text += f", estimated as {self._derived_k}-anonymity"
        return text

