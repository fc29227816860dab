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
Means add the values in the order of ARX's per-class hash table and the mode takes its
first most frequent value (:class:`ClassValues`), so decimals and ties come out as ARX's.
``mode_fallback`` draws among the tied values in proportion to their frequency in the
whole input, seeded, but not with ARX's generator (its draws differ).
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
        clustering, seed = (spec.get("clustering", False), spec.get("seed", 0)) \
            if isinstance(spec, Mapping) else (None, None)
        if isinstance(spec, Mapping) and isinstance(spec.get("function"), str) \
                and isinstance(clustering, bool) and type(seed) is int:
            return cls(spec["function"], clustering, seed)
        raise ConfigurationError(
            "A microaggregation needs a function, clustering true or false and a whole-number "
            f"seed, e.g. {{'function': 'mean', 'clustering': false}}; got {spec!r:.60}.")

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


def with_microaggregation(settings: Mapping[str, Any], name: str,
                          m: MicroAggregation | None) -> dict[str, Any]:
    """Project settings with ``name`` aggregated as ``m`` (None: generalized again); the
    key is left out when nothing is aggregated, as older files have it."""
    current = {k: v for k, v in (settings.get("microaggregation") or {}).items() if k != name}
    if m is not None:
        current[name] = m.to_dict()
    out = {k: v for k, v in settings.items() if k != "microaggregation"}
    return {**out, "microaggregation": current} if current else out


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

@dataclass(frozen=True)
class ClassValues:
    """Each class's distinct values as ARX's ``Distribution`` holds them: codes of the
    input's values in order of first appearance (ARX's dictionary), listed per class in
    the order of its hash table's buckets, with their counts. ARX's means add the values
    in this order and its mode takes the first most frequent, so both follow it."""

    uniques: np.ndarray  # code -> the input's value
    starts: np.ndarray  # (n_classes + 1,) where each class's entries start
    codes: np.ndarray  # entries: value codes, class by class, in bucket order
    counts: np.ndarray  # entries: records of that value in the class

    def of(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        return (self.codes[self.starts[c]:self.starts[c + 1]],
                self.counts[self.starts[c]:self.starts[c + 1]])


def class_values(values: pd.Series, classes: np.ndarray, n_classes: int) -> ClassValues:
    """The distinct values of each class (``classes``: class per record, -1 for none)."""
    codes, uniques = pd.factorize(values.to_numpy(dtype=object), sort=False)
    inside = np.flatnonzero(classes >= 0)
    width = max(len(uniques), 1)
    pairs = classes[inside] * width + codes[inside]
    keys, first, counts = np.unique(pairs, return_index=True, return_counts=True)
    owner = keys // width
    # Within a class, values in the order the records bring them (ARX's insertion order).
    arrival = np.lexsort((first, owner))
    owner, value, counts = owner[arrival], (keys % width)[arrival], counts[arrival]
    starts = np.searchsorted(owner, np.arange(n_classes + 1))
    order = np.concatenate([starts[c] + _bucket_order(value[starts[c]:starts[c + 1]])
                            for c in range(n_classes)] or [np.zeros(0, dtype=np.int64)])
    return ClassValues(uniques, starts, value[order], counts[order])


def _bucket_order(arrivals: np.ndarray) -> np.ndarray:
    """Positions of ``arrivals`` (distinct codes in insertion order) in the order of ARX's
    ``Distribution`` buckets: open addressing from ``code & (capacity - 1)`` with linear
    probing, capacity 8 doubling when more than 3/4 full (re-inserted in bucket order)."""
    table = [-1] * 8
    for position, code in enumerate(arrivals.tolist()):
        _insert(table, code, position)
        if position + 1 > int(len(table) * 0.75):
            held = [p for p in table if p != -1]
            table = [-1] * (2 * len(table))
            for p in held:
                _insert(table, int(arrivals[p]), p)
    return np.array([p for p in table if p != -1], dtype=np.int64)


def _insert(table: list[int], code: int, position: int) -> None:
    slot = code & (len(table) - 1)
    while table[slot] != -1:
        slot = (slot + 1) % len(table)
    table[slot] = position


def aggregate_column(values: pd.Series, data_type: DataType, classes: np.ndarray,
                     m: MicroAggregation) -> np.ndarray:
    """The released column: for each record, the aggregate of the values of its class
    (``classes``: class index per record, -1 for records released without a value).
    Returns an object array; records of class -1 get None."""
    classes = np.asarray(classes, dtype=np.int64)
    n_classes = int(classes.max()) + 1 if len(classes) else 0
    held = class_values(values, classes, n_classes)
    if m.function in _NUMERIC:
        per_class = _means(held, data_type, m.function)
    elif m.function in _ORDERED:
        per_class = _ordered(held, data_type, m.function)
    elif m.function == "set":
        per_class = [_set(held, c) for c in range(n_classes)]
    else:
        per_class = _modes(held, m, np.bincount(
            pd.factorize(values.to_numpy(dtype=object), sort=False)[0]))
    out = np.full(len(classes), None, dtype=object)
    inside = classes >= 0
    out[inside] = np.asarray(per_class, dtype=object)[classes[inside]]
    return out


def _parsed(held: ClassValues, data_type: DataType) -> np.ndarray:
    """Each distinct value parsed (NaN: missing, ignored as ARX's ``ignoreMissingData``)."""
    return parse_values(pd.Series(held.uniques, dtype=object), data_type).astype(float)


def _means(held: ClassValues, data_type: DataType, function: str) -> list[str]:
    numbers = _parsed(held, data_type)
    out = []
    for c in range(len(held.starts) - 1):
        codes, counts = held.of(c)
        x = np.repeat(numbers[codes], counts)
        x = x[~np.isnan(x)]
        if not len(x):
            out.append(NULL_VALUE)
            continue
        if function == "geometric_mean":  # ARX adds 1 before and subtracts it after
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = math.exp(_sequential_sum(np.log(x + 1.0)) / len(x)) - 1.0
        else:
            mean = _commons_mean(x)
        out.append(format_number(mean, data_type))
    return out


def _sequential_sum(x: np.ndarray) -> float:
    """Left-to-right sum, as Java's loop adds (numpy's ``sum`` adds pairwise)."""
    return float(np.add.accumulate(x)[-1])


def _commons_mean(x: np.ndarray) -> float:
    """commons-math3's ``Mean.evaluate``: the sum over n, corrected by the mean residual."""
    mean = _sequential_sum(x) / len(x)
    return mean + _sequential_sum(x - mean) / len(x)


def _ordered(held: ClassValues, data_type: DataType, function: str) -> list[str]:
    numbers = _parsed(held, data_type)
    out = []
    for c in range(len(held.starts) - 1):
        codes, counts = held.of(c)
        present = ~np.isnan(numbers[codes])
        codes, counts = codes[present], counts[present]
        if not len(codes):
            out.append(NULL_VALUE)
            continue
        order = np.argsort(numbers[codes], kind="stable")
        codes, counts = codes[order], counts[order]
        if function == "interval":
            out.append(f"[{_typed(held, codes[0], numbers, data_type)}, "
                       f"{_typed(held, codes[-1], numbers, data_type)}]")
            continue
        total = int(counts.sum())
        ends = np.cumsum(counts) - 1
        low = codes[np.searchsorted(ends, (total - 1) // 2)]
        high = codes[np.searchsorted(ends, total // 2)]
        if data_type.kind is not DataKind.ORDINAL:
            out.append(format_number((numbers[low] + numbers[high]) / 2.0, data_type))
        else:  # no ratio scale: no mean of two different values
            out.append(str(held.uniques[low]) if low == high else NULL_VALUE)
    return out


def _set(held: ClassValues, c: int) -> str:
    codes, _ = held.of(c)
    names = [str(held.uniques[v]) for v in np.sort(codes)]
    return "{" + ", ".join(names) + "}" if names else NULL_VALUE


def _modes(held: ClassValues, m: MicroAggregation, frequencies: np.ndarray) -> list[str]:
    """The most frequent value per class: the first in bucket order (ARX's ``getMode``),
    or for ``mode_fallback`` one of the tied drawn by the input's frequencies."""
    rng = np.random.default_rng(m.seed)
    out = []
    for c in range(len(held.starts) - 1):
        codes, counts = held.of(c)
        if not len(codes):
            out.append(NULL_VALUE)
            continue
        tied = codes[counts == counts.max()]
        pick = tied[0]
        if m.function == "mode_fallback" and len(tied) > 1:
            weights = np.cumsum(frequencies[tied]) / frequencies[tied].sum()
            pick = tied[min(int(np.searchsorted(weights, rng.random())), len(tied) - 1)]
        out.append(str(held.uniques[pick]))
    return out


def _typed(held: ClassValues, code: int, numbers: np.ndarray, data_type: DataType) -> str:
    """A value as ARX's data type formats it: numbers re-formatted, ordinals as written."""
    if data_type.kind is DataKind.ORDINAL:
        return str(held.uniques[code])
    return format_number(numbers[code], data_type)


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
