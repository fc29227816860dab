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

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import poisson

from arxpy.arrays import first_appearances
from arxpy.data.codes import combine_codes
from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData, QuasiIdentifier
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


def read_population_table(path: str, columns: list[str]) -> pd.DataFrame:
    """The named columns of a population CSV, as text (delimiter and encoding detected)."""
    from arxpy.data.csv_io import read_csv, sniff_csv

    if not Path(path).is_file():
        raise ConfigurationError(f"k-map: the population table '{path}' does not exist; "
                                 "give an existing CSV file.")
    frame = read_csv(path, sniff_csv(Path(path)))
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ConfigurationError(
            f"k-map: the population table has no column '{missing[0]}'; it needs every "
            "quasi-identifier of the data.")
    return frame[columns].astype(str)


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
        self._population_rows: list[np.ndarray] = []  # per QI: hierarchy row of each row
        self._population_counts = np.zeros(0, dtype=np.int64)  # people per distinct row
        self._level_maps: list[list[np.ndarray]] = []  # per QI: the encoding's level maps

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
        names = data.qi_names
        frame = read_population_table(str(self.population), names)
        rows = [_hierarchy_rows(frame[q.name], q) for q in data.quasi_identifiers]
        # Distinct rows with their counts: each transformation then reads far fewer.
        key, _ = combine_codes(rows)
        inverse, uniques = pd.factorize(key, sort=False)
        first = first_appearances(inverse)
        self._population_rows = [r[first] for r in rows]
        self._population_counts = np.bincount(inverse, minlength=len(uniques))
        self._level_maps = [q.level_maps for q in data.quasi_identifiers]
        self._check_sample_in_population(data)

    def _check_sample_in_population(self, data: EncodedData) -> None:
        """ARX draws the sample from the population table: refuse a table that lacks
        some of the sample's records (it is another population)."""
        sample = [q.codes for q in data.quasi_identifiers]
        key, _ = combine_codes(sample)
        inverse, uniques = pd.factorize(key, sort=False)
        first = first_appearances(inverse)
        in_sample = data.row_counts(inverse, len(uniques))
        in_population = _matches([rows[first] for rows in sample], self._population_rows,
                                 self._population_counts)
        if np.any(in_population < in_sample):
            raise ConfigurationError(
                "k-map: the population table lacks records of the data (some combination of "
                "quasi-identifiers is more frequent in the data); it must hold the whole "
                "population, the data's records included.")

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        if self.estimated:
            return classes.sizes >= (self._derived_k or self.k)
        return self.population_matches(classes) >= self.k

    def population_matches(self, classes: EquivalenceClasses) -> np.ndarray:
        """Population records in each class (exact k-map, after ``prepare``)."""
        population = [level_maps[level][rows] for level_maps, level, rows in
                      zip(self._level_maps, classes.levels, self._population_rows,
                          strict=True)]
        keys = classes.keys
        return _matches([keys[:, j] for j in range(keys.shape[1])], population,
                        self._population_counts)

    def describe(self) -> str:
        if not self.estimated:
            return f"{self.k}-map against a population table"
        text = (f"{self.k}-map, population {self.population_people:,} ({self.estimator}, "
                f"significance {self.significance:g})")
        if self._derived_k is not None:
            text += f", estimated as {self._derived_k}-anonymity"
        return text


def _matches(classes: list[np.ndarray], population: list[np.ndarray],
             people: np.ndarray) -> np.ndarray:
    """Per class (one code column per QI), the people of the population rows (``people``
    each) with the same codes."""
    n = len(classes[0])
    columns = [np.concatenate([c, p]) for c, p in zip(classes, population, strict=True)]
    key, _ = combine_codes(columns)
    inverse, uniques = pd.factorize(key, sort=False)
    totals = np.bincount(inverse[n:], weights=people, minlength=len(uniques))
    return np.rint(totals[inverse[:n]]).astype(np.int64)


def _hierarchy_rows(values: pd.Series, qi: QuasiIdentifier) -> np.ndarray:
    """The hierarchy row (the encoding's level-0 code) of each population value."""
    row_of = {str(row[0]): i for i, row in enumerate(qi.hierarchy.rows)}
    codes, uniques = pd.factorize(values.to_numpy(dtype=object), sort=False)
    unknown = [v for v in uniques if v not in row_of]
    if unknown:
        raise ConfigurationError(
            f"k-map: {len(unknown):,} values of '{qi.name}' in the population table are not "
            "in its hierarchy; extend the hierarchy to the population's values.")
    lookup = np.array([row_of[v] for v in uniques], dtype=np.int64)
    return lookup[codes]
