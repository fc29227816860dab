"""Microaggregation inside the generalization, as ARX's ``MicroAggregationFunction``.

A microaggregated quasi-identifier releases one aggregate of its values per equivalence
class instead of a hierarchy level (ARX: ``DataDefinition.setMicroAggregationFunction(
attribute, function, performClustering)``; ``framework/data/DataManager``). Without
clustering the attribute leaves the lattice: the classes are those of the other
quasi-identifiers, and the privacy models are judged on them. With clustering it keeps
its hierarchy and is generalized to form the classes; the release then shows the
aggregate of each class instead of the generalized value.

The aggregates follow ARX's ``DistributionAggregateFunction`` (missing values ignored,
as ARX's default ``ignoreMissingData``): means rounded to whole numbers for integers
(``Math.round``), the median of an even count the mean of the two middle values (for an
ordinal attribute the value if both agree, else ``NULL``), the interval ``[min, max]``,
the set ``{a, b}`` in order of first appearance in the input (ARX's dictionary order).
Ties of the mode go to the value that appears first in the input; ARX breaks them by its
hash table's layout, which can differ (docs/engine.md). ``mode_fallback`` draws among the
tied values in proportion to their frequency in the whole input (seeded).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.data.types import parse_values
from arxpy.errors import ConfigurationError

#: The functions, by the names of ``--microaggregate`` and project files, with ARX's label.
FUNCTIONS = {
    "mean": "Arithmetic mean",
    "geometric_mean": "Geometric mean",
    "median": "Median",
    "mode": "Mode",
    "mode_fallback": "Mode with distribution fallback",
    "interval": "Interval",
    "set": "Set",
}
#: ARX's required scale: interval (numbers) for the means, ordinal for median and interval.
_NUMERIC = ("mean", "geometric_mean")
_ORDERED = ("median", "interval")
_NUMBER_KINDS = (DataKind.INTEGER, DataKind.DECIMAL)
_ORDERED_KINDS = (DataKind.INTEGER, DataKind.DECIMAL, DataKind.ORDINAL)
#: What ARX writes for a class without a value to aggregate (``DataType.NULL_VALUE``).
NULL_VALUE = "NULL"


@dataclass(frozen=True)
class MicroAggregation:
    """How one quasi-identifier is aggregated: a function of :data:`FUNCTIONS`, with or
    without clustering (then the attribute's hierarchy forms the classes), and the seed of
    ``mode_fallback``'s draws."""

    function: str
    clustering: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        if self.function not in FUNCTIONS:
            raise ConfigurationError(
                f"Unknown microaggregation function '{self.function}'; use "
                f"{', '.join(FUNCTIONS)}.")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"function": self.function, "clustering": self.clustering}
        if self.function == "mode_fallback":
            out["seed"] = self.seed
        return out

    @classmethod
    def from_spec(cls, spec: Any) -> MicroAggregation:
        """From a project file's dict or the text ``FUNCTION[:cluster]``."""
        if isinstance(spec, MicroAggregation):
            return spec
        if isinstance(spec, str):
            function, _, rest = spec.partition(":")
            if rest not in ("", "cluster"):
                raise ConfigurationError(
                    f"Cannot read microaggregation '{spec}'; write FUNCTION or "
                    "FUNCTION:cluster.")
            return cls(function, clustering=rest == "cluster")
        if isinstance(spec, Mapping) and isinstance(spec.get("function"), str):
            return cls(spec["function"], bool(spec.get("clustering", False)),
                       int(spec.get("seed", 0)))
        raise ConfigurationError(
            f"A microaggregation needs a function, e.g. {{'function': 'mean'}}; got {spec!r:.60}.")

    def describe(self) -> str:
        return FUNCTIONS[self.function] + (" (clustering)" if self.clustering else "")


def parse_microaggregate_option(text: str) -> tuple[str, MicroAggregation]:
    """``ATTR=FUNCTION[:cluster]`` of ``--microaggregate``."""
    name, sep, spec = text.rpartition("=")
    if not sep or not name or not spec:
        raise ConfigurationError(
            f"Cannot read --microaggregate '{text}'; write ATTR=FUNCTION (one of "
            f"{', '.join(FUNCTIONS)}), optionally ATTR=FUNCTION:cluster.")
    return name, MicroAggregation.from_spec(spec)


def microaggregation_from_dict(d: Any) -> dict[str, MicroAggregation]:
    """The settings' ``microaggregation`` mapping (attribute -> spec), checked."""
    if not isinstance(d, Mapping):
        raise ConfigurationError(
            f"microaggregation must map attributes to functions, got {type(d).__name__}.")
    return {str(name): MicroAggregation.from_spec(spec) for name, spec in d.items()}


def aggregated_only(microaggregation: Mapping[str, MicroAggregation]) -> list[str]:
    """Attributes aggregated without clustering: they leave the lattice."""
    return [name for name, m in microaggregation.items() if not m.clustering]


def lattice_definition(definition: DataDefinition,
                       microaggregation: Mapping[str, MicroAggregation]) -> DataDefinition:
    """``definition`` as the lattice sees it: quasi-identifiers aggregated without
    clustering become insensitive (the search never generalizes them)."""
    for name in aggregated_only(microaggregation):
        definition = definition.with_attribute(name, type=AttributeType.INSENSITIVE)
    return definition


def check_microaggregation(definition: DataDefinition,
                           microaggregation: Mapping[str, MicroAggregation]) -> None:
    """Refuse an attribute that is not a quasi-identifier or whose data type the function
    cannot aggregate (ARX's required scale), and a lattice left without dimensions."""
    for name, m in microaggregation.items():
        attribute = definition[name]  # DefinitionError naming an unknown attribute
        if attribute.type is not AttributeType.QUASI_IDENTIFYING:
            raise ConfigurationError(
                f"'{name}' is {attribute.type.value}; only a quasi-identifier can be "
                "microaggregated. Make it quasi-identifying or remove its microaggregation.")
        kind = attribute.data_type.kind
        if m.function in _NUMERIC and kind not in _NUMBER_KINDS:
            raise ConfigurationError(
                f"The {FUNCTIONS[m.function].lower()} of '{name}' needs numbers, but it is "
                f"{attribute.data_type.describe()}; make it integer or decimal, or choose "
                "median, mode, interval or set.")
        if m.function in _ORDERED and kind not in _ORDERED_KINDS:
            raise ConfigurationError(
                f"The {FUNCTIONS[m.function].lower()} of '{name}' needs ordered values, but it "
                f"is {attribute.data_type.describe()}; make it integer, decimal or ordinal, or "
                "choose mode or set.")
    if not lattice_definition(definition, microaggregation).quasi_identifiers:
        raise ConfigurationError(
            "Every quasi-identifier is microaggregated without clustering, so nothing forms "
            "the classes; give one a hierarchy to generalize, or aggregate it with clustering.")


# --- The aggregates --------------------------------------------------------------------

def aggregate_column(values: pd.Series, data_type: DataType, classes: np.ndarray,
                     m: MicroAggregation) -> np.ndarray:
    """The released column: for each record, the aggregate of the values of its class
    (``classes``: class index per record, -1 for records released without a value).
    Returns an object array; records of class -1 get None."""
    classes = np.asarray(classes, dtype=np.int64)
    n_classes = int(classes.max()) + 1 if len(classes) else 0
    if m.function in _NUMERIC:
        per_class = _means(values, data_type, classes, n_classes, m.function)
    elif m.function in _ORDERED:
        per_class = _ordered(values, data_type, classes, n_classes, m.function)
    else:
        per_class = _nominal(values, classes, n_classes, m)
    out = np.full(len(classes), None, dtype=object)
    inside = classes >= 0
    out[inside] = np.asarray(per_class, dtype=object)[classes[inside]]
    return out


def _numbers(values: pd.Series, data_type: DataType, classes: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Parsed values and the mask of records inside a class with a value."""
    x = parse_values(pd.Series(values, dtype=object), data_type).astype(float)
    return x, (classes >= 0) & ~np.isnan(x)


def _means(values: pd.Series, data_type: DataType, classes: np.ndarray, n_classes: int,
           function: str) -> list[str]:
    x, keep = _numbers(values, data_type, classes)
    counts = np.bincount(classes[keep], minlength=n_classes)
    if function == "mean":
        sums = np.bincount(classes[keep], weights=x[keep], minlength=n_classes)
        with np.errstate(invalid="ignore", divide="ignore"):
            result = sums / counts
    else:  # ARX adds 1 before the geometric mean and subtracts it after
        with np.errstate(invalid="ignore", divide="ignore"):
            logs = np.bincount(classes[keep], weights=np.log(x[keep] + 1.0),
                               minlength=n_classes)
            result = np.exp(logs / counts) - 1.0
    return [format_number(v, data_type) if c else NULL_VALUE
            for v, c in zip(result, counts, strict=True)]


def _ordered(values: pd.Series, data_type: DataType, classes: np.ndarray, n_classes: int,
             function: str) -> list[str]:
    x, keep = _numbers(values, data_type, classes)
    order = np.flatnonzero(keep)
    order = order[np.lexsort((x[order], classes[order]))]
    counts = np.bincount(classes[order], minlength=n_classes)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])) if n_classes else counts
    text = values.to_numpy(dtype=object)
    out = []
    for c in range(n_classes):
        if not counts[c]:
            out.append(NULL_VALUE)
            continue
        first, last = order[starts[c]], order[starts[c] + counts[c] - 1]
        if function == "interval":
            out.append(f"[{_typed(text[first], x[first], data_type)}, "
                       f"{_typed(text[last], x[last], data_type)}]")
            continue
        low = order[starts[c] + (counts[c] - 1) // 2]
        high = order[starts[c] + counts[c] // 2]
        if data_type.kind is DataKind.ORDINAL:  # no ratio scale: no mean of two values
            out.append(str(text[low]) if x[low] == x[high] else NULL_VALUE)
        else:
            out.append(format_number((x[low] + x[high]) / 2.0, data_type))
    return out


def _nominal(values: pd.Series, classes: np.ndarray, n_classes: int,
             m: MicroAggregation) -> list[str]:
    # Codes in order of first appearance: ARX's dictionary order.
    codes, uniques = pd.factorize(values.to_numpy(dtype=object), sort=False)
    inside = classes >= 0
    pairs = classes[inside] * len(uniques) + codes[inside]
    keys, counts = np.unique(pairs, return_counts=True)
    owner, code = keys // len(uniques), keys % len(uniques)
    if m.function == "set":
        members: list[list[str]] = [[] for _ in range(n_classes)]
        for c, v in zip(owner.tolist(), code.tolist(), strict=True):
            members[c].append(str(uniques[v]))
        return ["{" + ", ".join(names) + "}" if names else NULL_VALUE for names in members]
    global_counts = np.bincount(codes, minlength=len(uniques))
    rng = np.random.default_rng(m.seed)
    out = [NULL_VALUE] * n_classes
    bounds = np.flatnonzero(np.diff(owner, prepend=-1, append=-1))
    for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
        tied = code[start:stop][counts[start:stop] == counts[start:stop].max()]
        pick = tied[0]
        if m.function == "mode_fallback" and len(tied) > 1:
            weights = global_counts[tied] / global_counts[tied].sum()
            pick = tied[int(np.searchsorted(np.cumsum(weights), rng.random()))]
        out[int(owner[start])] = str(uniques[pick])
    return out


def _typed(text: Any, number: float, data_type: DataType) -> str:
    """A value as ARX's data type formats it: numbers re-formatted, ordinals as written."""
    return str(text) if data_type.kind is DataKind.ORDINAL else format_number(number, data_type)


def format_number(value: float, data_type: DataType) -> str:
    """A number as ARX formats it: integers after Java's ``Math.round``, decimals as
    Java's ``Double.toString`` (``38.0``, ``1.0E7``)."""
    if data_type.kind is DataKind.INTEGER:
        return str(math.floor(value + 0.5))
    return java_double(value)


def java_double(value: float) -> str:
    """Java's ``Double.toString`` for the shortest repr: plain in [1e-3, 1e7), else
    scientific with ``E`` (``1.0E7``)."""
    if not math.isfinite(value) or value == 0 or 1e-3 <= abs(value) < 1e7:
        return repr(float(value))
    mantissa, _, exponent = np.format_float_scientific(
        value, unique=True, trim="0").partition("e")
    return f"{mantissa}E{int(exponent)}"
