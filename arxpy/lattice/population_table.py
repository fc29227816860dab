"""A population table beside the data, counted per class (k-map, δ-presence, the
journalist profitability models and payout).

ARX loads the population and marks the research subset in it (``DataSubset``); each
class then has ``count`` (subset records) and ``pcount`` (population records). arxpy
keeps the subset as the data and reads the population from a CSV beside it: each value
is mapped to its hierarchy row once and the distinct rows are counted once. The search
carries their classes through grouping and roll-up beside the data's
(:class:`~arxpy.lattice.classes.PopulationClasses`, ARX's ``pcount``), so a check reads
its classes' people from those; classes built elsewhere look them up from the rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from arxpy.arrays import first_appearances
from arxpy.data.codes import combine_codes
from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData, QuasiIdentifier


def read_population_table(path: str, columns: list[str], owner: str,
                          what: str = "population table") -> pd.DataFrame:
    """The named columns of a population CSV (or of another table ``what`` names), as
    text (delimiter and encoding detected)."""
    from arxpy.data.csv_io import read_csv, sniff_csv

    if not Path(path).is_file():
        raise ConfigurationError(f"{owner}: the {what} '{path}' does not exist; "
                                 "give an existing CSV file.")
    frame = read_csv(path, sniff_csv(Path(path)))
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ConfigurationError(
            f"{owner}: the {what} has no column '{missing[0]}'; it needs every "
            "quasi-identifier of the data.")
    return frame[columns].astype(str)


class PopulationTable:
    """The population's distinct hierarchy rows and their people, for one encoding.

    ``name`` (the table's path) names its classes among the classes' ``populations``.
    """

    def __init__(self, frame: pd.DataFrame, data: EncodedData, owner: str,
                 name: str = "") -> None:
        self.owner = owner
        self.name = name
        rows = [hierarchy_rows(frame[q.name], q, owner) for q in data.quasi_identifiers]
        # Distinct rows with their counts: each transformation then reads far fewer.
        key, _ = combine_codes(rows)
        inverse, uniques = pd.factorize(key, sort=False)
        first = first_appearances(inverse)
        self.rows = [r[first] for r in rows]  # per QI: hierarchy row of each distinct row
        self.people = np.bincount(inverse, minlength=len(uniques))  # per distinct row
        self.level_maps = [q.level_maps for q in data.quasi_identifiers]

    def shortfall(self, data: EncodedData, needed: pd.DataFrame | None = None) -> int:
        """Records of the data (or of ``needed``, hierarchy rows per QI) beyond what the
        population holds per combination of quasi-identifiers: 0 when it contains them."""
        sample = [q.codes for q in data.quasi_identifiers] if needed is None else \
            [needed[q.name].to_numpy() for q in data.quasi_identifiers]
        key, _ = combine_codes(sample)
        inverse, uniques = pd.factorize(key, sort=False)
        first = first_appearances(inverse)
        counts = data.row_counts(inverse, len(uniques)) if needed is None else \
            np.bincount(inverse, minlength=len(uniques))
        held = _matches([rows[first] for rows in sample], self.rows, self.people)
        return int(np.rint(np.clip(counts - held, 0, None).sum()))

    def matches(self, classes: EquivalenceClasses) -> np.ndarray:
        """Population records in each class (ARX's ``pcount``)."""
        return self.classes_and_uncovered(classes)[0]

    def carried(self) -> dict[str, tuple[list[np.ndarray], np.ndarray]]:
        """The rows and their people for the grouper to carry the population's classes
        (:meth:`~arxpy.privacy.base.PrivacyModel.population_rows`)."""
        return {self.name: (self.rows, self.people)}

    def classes_and_uncovered(self, classes: EquivalenceClasses) -> tuple[np.ndarray, int]:
        """Population records per class, and the population's classes at the same
        levels that hold no record of the data (ARX's entries with ``count == 0``)."""
        carried = classes.populations.get(self.name)
        if carried is not None:
            return carried.people, len(carried.uncovered)
        population = [maps[level][rows] for maps, level, rows in
                      zip(self.level_maps, classes.levels, self.rows, strict=True)]
        if classes.packed is None:
            return self._joined(classes, population)
        # The classes' own mixed-radix keys: no key matrix to decode (this runs per check
        # of the search). Classes are distinct, so every number past theirs is a
        # population class without records of the data.
        people, exact = combine_codes(population, classes.packed.radices)
        if not exact:
            return self._joined(classes, population)
        n = classes.n_classes
        inverse, uniques = pd.factorize(np.concatenate([classes.packed.values, people]),
                                        sort=False)
        totals = np.bincount(inverse[n:], weights=self.people, minlength=len(uniques))
        return np.rint(totals[:n]).astype(np.int64), len(uniques) - n

    def _joined(self, classes: EquivalenceClasses, population: list[np.ndarray]
                ) -> tuple[np.ndarray, int]:
        """:meth:`classes_and_uncovered` from the key matrix, classes and population
        numbered together."""
        keys = classes.keys
        columns = [keys[:, j] for j in range(keys.shape[1])]
        n = len(columns[0])
        joined = [np.concatenate([c, p]) for c, p in zip(columns, population, strict=True)]
        key, _ = combine_codes(joined)
        inverse, uniques = pd.factorize(key, sort=False)
        totals = np.bincount(inverse[n:], weights=self.people, minlength=len(uniques))
        covered = np.zeros(len(uniques), dtype=bool)
        covered[inverse[:n]] = True
        uncovered = int(np.count_nonzero(~covered))
        return np.rint(totals[inverse[:n]]).astype(np.int64), uncovered

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


def hierarchy_rows(values: pd.Series, qi: QuasiIdentifier, owner: str) -> np.ndarray:
    """The hierarchy row (the encoding's level-0 code) of each value of a population
    table; ConfigurationError naming the attribute for a value outside the hierarchy."""
    row_of = {str(row[0]): i for i, row in enumerate(qi.hierarchy.rows)}
    codes, uniques = pd.factorize(values.to_numpy(dtype=object), sort=False)
    unknown = [v for v in uniques if v not in row_of]
    if unknown:
        raise ConfigurationError(
            f"{owner}: {len(unknown):,} values of '{qi.name}' in the population table are "
            "not in its hierarchy; extend the hierarchy to the population's values.")
    lookup = np.array([row_of[v] for v in uniques], dtype=np.int64)
    return lookup[codes]
