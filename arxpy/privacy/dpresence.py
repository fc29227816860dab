"""δ-presence: whoever is in the population, the release puts them in the research subset
with a probability between δmin and δmax (ARX ``DPresence``).

Nergiz, Atzori and Clifton, Hiding the presence of individuals from shared databases
(SIGMOD 2007), Definition 3: for a public population table P and a research subset
T ⊆ P, a generalization is (δmin, δmax)-present when every person of P is in T with a
probability P(t ∈ T | T*) in [δmin, δmax]; for a class that is |T ∩ class| / |P ∩ class|.
ARX 3.9.2 (``criteria/DPresence.java``; ``framework/check/groupify/HashGroupify``):

* the loaded data are the population and a ``DataSubset`` marks the research subset;
  each class has ``count`` (subset records) and ``pcount`` (population records), and
  passes when ``dMin <= count / pcount <= dMax`` (``count == 0`` gives 0);
* a failing class with subset records is suppressed (only subset records count against
  the limit, which is a fraction of the subset); a population class without subset
  records that fails (δmin > 0) cannot be suppressed, so the transformation fails;
* ``ImplicitPrivacyCriterion(false, true)``: monotonic with generalization (a merged
  class's δ lies between its parts'), not with suppression;
* only the research subset is released.

arxpy keeps the research subset as the data (what is released, as for k-map) and reads
the population from a CSV beside it. ``subset`` (a CSV of the subset's records) or
``subset_filter`` (conditions over the population's columns, ARX's query dialog) say
which population records the research subset is; the data must then be those records.
One deviation, on the safe side: ARX tests the minimal class size of k-anonymity before
δ-presence, so with k-anonymity a population class without subset records never fails
the transformation; arxpy applies δmin to those classes whatever else is configured.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.codes import combine_codes
from arxpy.errors import ConfigurationError
from arxpy.formatting import plain
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.lattice.population_table import (
    PopulationTable,
    hierarchy_rows,
    read_population_table,
)
from arxpy.params import Param
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.registry import register_privacy_model

#: Operators of a research-subset condition (the value is a list for "in"/"not in",
#: absent for "is true"; comparisons are numeric when the value is a number).
OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "in", "not in", "is true")
#: Cells that a flag column's "is true" accepts (case does not matter).
TRUE_FLAGS = ("1", "true", "yes", "y", "x")
OWNER = "δ-presence"


def flag_condition(attribute: str) -> dict[str, Any]:
    """The condition of a flag column (``--subset-column``): its value is true."""
    return {"attribute": attribute, "operator": "is true"}


def check_conditions(conditions: Any) -> list[dict[str, Any]]:
    """Conditions as ``[{"attribute", "operator", "value"}]``; ConfigurationError saying
    what to change otherwise."""
    if not isinstance(conditions, Sequence) or isinstance(conditions, str) or not conditions:
        raise ConfigurationError(f"{OWNER}: subset_filter must be a non-empty list of "
                                 "conditions {attribute, operator, value}.")
    out = []
    for condition in conditions:
        if not isinstance(condition, Mapping) or not condition.get("attribute"):
            raise ConfigurationError(f"{OWNER}: each subset condition needs an attribute, "
                                     f"got {condition!r}.")
        operator = condition.get("operator", "=")
        if operator not in OPERATORS:
            raise ConfigurationError(f"{OWNER}: unknown subset operator {operator!r}; use "
                                     f"one of {', '.join(OPERATORS)}.")
        value = condition.get("value")
        if operator in ("in", "not in"):
            if isinstance(value, str) or not isinstance(value, Sequence) or not value:
                raise ConfigurationError(f"{OWNER}: the operator '{operator}' needs a list "
                                         f"of values for '{condition['attribute']}'.")
            value = [str(v) for v in value]
        elif operator != "is true":
            if value is None or str(value) == "":
                raise ConfigurationError(f"{OWNER}: the condition on "
                                         f"'{condition['attribute']}' needs a value.")
            value = str(value)
        entry = {"attribute": str(condition["attribute"]), "operator": operator}
        if operator != "is true":
            entry["value"] = value
        out.append(entry)
    return out


def subset_mask(frame: pd.DataFrame, conditions: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Rows of ``frame`` meeting every condition (ARX's ``DataSelector`` with ``and``)."""
    mask = np.ones(len(frame), dtype=bool)
    for condition in check_conditions(conditions):
        name = condition["attribute"]
        if name not in frame.columns:
            raise ConfigurationError(f"{OWNER}: the subset condition names '{name}', which "
                                     "is not a column of the population table.")
        mask &= _meets(frame[name].astype(str), condition["operator"], condition.get("value"))
    return mask


def _meets(cells: pd.Series, operator: str, value: Any) -> np.ndarray:
    if operator == "is true":
        return cells.str.strip().str.lower().isin(TRUE_FLAGS).to_numpy()
    if operator in ("in", "not in"):
        inside = cells.isin(value).to_numpy()
        return inside if operator == "in" else ~inside
    if operator in ("=", "!="):
        equal = (cells == value).to_numpy()
        return equal if operator == "=" else ~equal
    number = _number(value)
    if number is None:  # text compares as text (ARX's DataSelector on strings)
        left: Any = cells.to_numpy(dtype=object)
        right: Any = value
    else:  # cells that are not numbers never match a numeric comparison
        left, right = pd.to_numeric(cells, errors="coerce").to_numpy(), number
    with np.errstate(invalid="ignore"):
        result = {"<": left < right, "<=": left <= right, ">": left > right,
                  ">=": left >= right}[operator]
    return np.asarray(result, dtype=bool)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def describe_conditions(conditions: Sequence[Mapping[str, Any]]) -> str:
    """The conditions in words, e.g. ``sex = Female and age >= 50``."""
    parts = []
    for c in conditions:
        value = c.get("value")
        shown = "" if value is None else \
            " " + (", ".join(value) if isinstance(value, list) else str(value))
        parts.append(f"{c['attribute']} {c['operator']}{shown}")
    return " and ".join(parts)


@register_privacy_model
class DeltaPresence(PrivacyModel):
    """Every person of the population is in the released research subset with a
    probability between ``delta_min`` and ``delta_max``."""

    kind = "delta-presence"
    label = "δ-Presence"
    description = ("Whoever is in the population, the release shows them to be in the "
                   "research subset with a probability between δmin and δmax.")
    params = (
        Param("delta_min", "float", suggested=0.0, low=0, high=1, label="lowest presence (δmin)",
              help="Lowest probability, per released class, that a person of the "
                   "population is in the research subset"),
        Param("delta_max", "float", suggested=0.5, low=0, high=1, label="highest presence (δmax)",
              help="Highest probability, per released class, that a person of the "
                   "population is in the research subset"),
        Param("population", "text", label="population table",
              help="CSV with the quasi-identifiers of the whole population, the research "
                   "subset's records (the data) among them",
              reads_files=lambda value: [value] if value else []),
        Param("subset", "text", None, optional=True, label="research subset file",
              help="CSV of the research subset's records, each a population record "
                   "(the data must be these records)",
              reads_files=lambda value: [value] if value else []),
        Param("subset_filter", "objects", None, optional=True, label="research subset filter",
              help="Conditions over the population table's columns; the rows meeting all "
                   "of them are the research subset (the data must be these records)"),
    )
    monotonic_with_suppression = False
    monotonic_without_suppression = True
    delta_min: float
    delta_max: float
    population: str
    subset: str | None
    subset_filter: list[dict[str, Any]] | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._population: PopulationTable | None = None
        self._last: tuple[EquivalenceClasses, np.ndarray, int] | None = None

    def check_together(self) -> None:
        if self.delta_min > self.delta_max:
            raise ConfigurationError(
                f"{OWNER}: δmin ({plain(self.delta_min)}) is above δmax "
                f"({plain(self.delta_max)}); give δmin at most δmax.")
        if not str(self.population).strip():
            raise ConfigurationError(f"{OWNER}: give the population table (a CSV path).")
        if self.subset is not None and self.subset_filter is not None:
            raise ConfigurationError(f"{OWNER}: give the research subset either as a file "
                                     "(subset) or by conditions (subset_filter), not both.")
        if self.subset_filter is not None:
            self.subset_filter = check_conditions(self.subset_filter)

    def prepare(self, data: EncodedData) -> None:
        columns = list(data.qi_names)
        for condition in self.subset_filter or ():
            if condition["attribute"] not in columns:
                columns.append(condition["attribute"])
        frame = read_population_table(str(self.population), columns, OWNER)
        self._population = PopulationTable(frame, data, OWNER, str(self.population))
        selected = self._selected_rows(frame, data)
        if selected is None:
            if self._population.shortfall(data):
                raise ConfigurationError(
                    f"{OWNER}: the population table lacks records of the data (some "
                    "combination of quasi-identifiers is more frequent in the data); the "
                    "research subset must be drawn from the population.")
        elif not _same_records(data, selected):
            raise ConfigurationError(
                f"{OWNER}: the data are not the research subset the "
                f"{'subset file' if self.subset else 'subset filter'} selects "
                f"({len(selected.index):,} population records, {data.n_records:,} in the "
                "data); give the research subset as the data.")

    def _selected_rows(self, frame: pd.DataFrame, data: EncodedData) -> pd.DataFrame | None:
        """Hierarchy rows (per QI) of the research subset the settings select, or None."""
        if self.subset_filter is not None:
            chosen = frame[subset_mask(frame, self.subset_filter)]
        elif self.subset is not None:
            chosen = read_population_table(str(self.subset), list(data.qi_names), OWNER,
                                           "research subset file")
        else:
            return None
        rows = pd.DataFrame({q.name: hierarchy_rows(chosen[q.name], q, OWNER)
                             for q in data.quasi_identifiers}, index=chosen.index)
        assert self._population is not None
        missing = self._population.shortfall(data, rows) if self.subset is not None else 0
        if missing:
            raise ConfigurationError(
                f"{OWNER}: {missing:,} records of the research subset file are not in the "
                "population table; the subset must be drawn from the population.")
        return rows

    def population_rows(self) -> dict[str, tuple[list[np.ndarray], np.ndarray]]:
        return {} if self._population is None else self._population.carried()

    def _people(self, classes: EquivalenceClasses) -> tuple[np.ndarray, int]:
        """Population records per class and population classes without data records
        (computed once per classes: the search asks both questions of each)."""
        if self._last is None or self._last[0] is not classes:
            assert self._population is not None, "prepare() first"
            pcount, uncovered = self._population.classes_and_uncovered(classes)
            self._last = (classes, pcount, uncovered)
        return self._last[1], self._last[2]

    def presence(self, classes: EquivalenceClasses) -> np.ndarray:
        """δ of each class: its records over its population records (ARX's
        ``count / pcount``)."""
        return classes.sizes / self._people(classes)[0]

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        delta = self.presence(classes)
        return (delta >= self.delta_min) & (delta <= self.delta_max)

    def dataset_satisfied(self, classes: EquivalenceClasses, kept: np.ndarray) -> bool:
        # A population class without subset records has δ = 0 and cannot be suppressed.
        return self.delta_min <= 0 or self._people(classes)[1] == 0

    def describe(self) -> str:
        text = f"({plain(self.delta_min)}, {plain(self.delta_max)})-presence"
        if self.subset_filter:
            text += f", research subset {describe_conditions(self.subset_filter)}"
        return text


def _same_records(data: EncodedData, rows: pd.DataFrame) -> bool:
    """Do the data hold the same records as ``rows`` per combination of quasi-identifiers?"""
    if len(rows.index) != data.n_records:
        return False
    columns = [np.concatenate([q.codes, rows[q.name].to_numpy()])
               for q in data.quasi_identifiers]
    key, _ = combine_codes(columns)
    inverse, uniques = pd.factorize(key, sort=False)
    n = len(data.quasi_identifiers[0].codes)
    in_data = data.row_counts(inverse[:n], len(uniques))
    in_subset = np.bincount(inverse[n:], minlength=len(uniques))
    return bool(np.array_equal(in_data, in_subset))
