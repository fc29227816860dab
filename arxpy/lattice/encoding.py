"""Integer encoding of a table for the engine (step 1 of the core loop).

Each quasi-identifier is encoded to codes of its level-0 values; per level an array
maps level-0 codes to that level's codes. Tracked attributes (sensitive attributes
and a classification model's class attribute) are encoded to codes of their values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from arxpy.data.definition import (
    DEFAULT_WEIGHT,
    AttributeDefinition,
    AttributeType,
    DataDefinition,
    DataType,
)
from arxpy.errors import DefinitionError, HierarchyError
from arxpy.hierarchy.model import Hierarchy
from arxpy.hierarchy.validation import check_hierarchy


@dataclass(frozen=True)
class TrackedAttribute:
    """A non-generalized attribute whose per-class distribution models need."""

    name: str
    codes: np.ndarray  # (n_records,) int64 codes into ``values``
    values: list[str]  # code -> original value
    data_type: DataType = field(default_factory=DataType)
    hierarchy: Hierarchy | None = None  # for hierarchical-distance t-closeness
    weight: float = DEFAULT_WEIGHT  # a microaggregated quasi-identifier's weight in Loss
    #: Records each row stands for (see :attr:`EncodedData.weights`); None: one each.
    weights: np.ndarray | None = field(default=None, repr=False)

    @property
    def global_counts(self) -> np.ndarray:
        return weighted_counts(self.codes, self.weights, len(self.values))


@dataclass(frozen=True)
class QuasiIdentifier:
    """One encoded quasi-identifier."""

    name: str
    codes: np.ndarray  # (n_records,) int64 level-0 codes
    level_maps: list[np.ndarray]  # [level] level-0 code -> code at that level
    labels: list[list[str]]  # [level][code] -> label
    hierarchy: Hierarchy
    min_level: int
    max_level: int
    weight: float = DEFAULT_WEIGHT
    data_type: DataType = field(default_factory=DataType)
    #: Records each row stands for (see :attr:`EncodedData.weights`); None: one each.
    weights: np.ndarray | None = field(default=None, repr=False)

    @property
    def value_counts(self) -> np.ndarray:
        """Records per level-0 code (int64)."""
        return weighted_counts(self.codes, self.weights, len(self.level_maps[0]))

    @property
    def height(self) -> int:
        """Number of levels including level 0."""
        return len(self.level_maps)

    def domain_size(self, level: int) -> int:
        return len(self.labels[level])


@dataclass(frozen=True)
class EncodedData:
    """Everything the search and the models need, as integer arrays.

    A row is a record, or, when ``weights`` is given, a distinct combination of
    quasi-identifier and tracked values standing for ``weights[row]`` records (the
    histogram a scalable engine builds in one pass over records it never loads). The
    search and the models work on equivalence classes, so both give the same answers.
    """

    n_records: int
    quasi_identifiers: list[QuasiIdentifier]
    tracked: dict[str, TrackedAttribute]
    weights: np.ndarray | None = field(default=None, repr=False)
    #: Tracked quasi-identifiers microaggregated outside the lattice (ARX's "hot"
    #: aggregated attributes: quality models that can count them read their distributions).
    aggregated: tuple[str, ...] = ()

    def row_counts(self, index: np.ndarray, minlength: int) -> np.ndarray:
        """Records per value of ``index`` (one entry per row), as int64."""
        return weighted_counts(index, self.weights, minlength)

    @property
    def qi_names(self) -> list[str]:
        return [q.name for q in self.quasi_identifiers]


def weighted_counts(index: np.ndarray, weights: np.ndarray | None, minlength: int
                    ) -> np.ndarray:
    """``bincount`` of ``index`` where row i counts ``weights[i]`` times (int64)."""
    if weights is None:
        return np.bincount(index, minlength=minlength).astype(np.int64)
    # Float sums of integer counts are exact below 2**53 records.
    return np.rint(np.bincount(index, weights=weights, minlength=minlength)).astype(np.int64)


# --- Building the encoding ---------------------------------------------------------------

def _level_bounds(attribute: AttributeDefinition, height: int) -> tuple[int, int]:
    top = height - 1
    low = 0 if attribute.min_level is None else attribute.min_level
    high = top if attribute.max_level is None else attribute.max_level
    for what, value in (("minimum", low), ("maximum", high)):
        if not 0 <= value <= top:
            raise DefinitionError(
                f"The {what} generalization level of '{attribute.name}' is {value}, but its "
                f"hierarchy has levels 0 to {top}. Choose a level in that range."
            )
    return low, high


def lattice_size_of(definition: DataDefinition, hierarchies: Mapping[str, Hierarchy]
                    ) -> int | None:
    """Transformations the quasi-identifiers' level ranges span, from the hierarchies'
    heights alone (no encoding); None when a hierarchy is missing or empty (encoding
    then says what is wrong). Raises DefinitionError for a level outside a hierarchy."""
    size = 1
    for name in definition.quasi_identifiers:
        hierarchy = hierarchies.get(name)
        if hierarchy is None or hierarchy.height == 0:
            return None
        low, high = _level_bounds(definition[name], hierarchy.height)
        size *= max(high - low + 1, 1)
    return size


def encode_generalizable(column: pd.Series, hierarchy: Hierarchy, name: str,
                         check_cancelled: Callable[[], None] | None = None,
                         ) -> tuple[np.ndarray, list[np.ndarray], list[list[str]]]:
    """A column's codes (hierarchy row per record), per-level code maps and labels.

    Raises :class:`HierarchyError` unless the hierarchy is non-empty, rectangular,
    unique, functional and covers every value of the column. ``check_cancelled`` is
    called between steps (large hierarchies take a while).
    """
    check_cancelled = check_cancelled or (lambda: None)
    codes, uniques = pd.factorize(column.to_numpy(dtype=object), sort=False)
    check_cancelled()
    check_hierarchy(hierarchy, (str(v) for v in uniques), name, check_cancelled)
    check_cancelled()
    rows = hierarchy.rows
    row_of = {r[0]: i for i, r in enumerate(rows)}
    check_cancelled()
    lookup = np.array([row_of[v] for v in uniques], dtype=np.int64)
    level_maps: list[np.ndarray] = []
    labels: list[list[str]] = []
    for level in range(hierarchy.height):
        check_cancelled()
        level_codes, level_labels = pd.factorize(
            np.array([r[level] for r in rows], dtype=object), sort=False)
        level_maps.append(level_codes.astype(np.int64))
        labels.append([str(v) for v in level_labels])
    return lookup[codes], level_maps, labels


def _encode_qi(column: pd.Series, attribute: AttributeDefinition, hierarchy: Hierarchy,
               check_cancelled: Callable[[], None] | None = None) -> QuasiIdentifier:
    codes, level_maps, labels = encode_generalizable(column, hierarchy, attribute.name,
                                                     check_cancelled)
    low, high = _level_bounds(attribute, hierarchy.height)
    return QuasiIdentifier(
        name=attribute.name,
        codes=codes,
        level_maps=level_maps,
        labels=labels,
        hierarchy=hierarchy,
        min_level=low,
        max_level=high,
        weight=attribute.weight,
        data_type=attribute.data_type,
    )


def _encode_tracked(column: pd.Series, attribute: AttributeDefinition,
                    hierarchy: Hierarchy | None) -> TrackedAttribute:
    # Sorted values give every run the same codes for the same data.
    codes, uniques = pd.factorize(column.to_numpy(dtype=object), sort=True)
    return TrackedAttribute(
        name=attribute.name,
        codes=codes.astype(np.int64),
        values=[str(v) for v in uniques],
        data_type=attribute.data_type,
        hierarchy=hierarchy,
        weight=attribute.weight,
    )


def encode(
    frame: pd.DataFrame,
    definition: DataDefinition,
    hierarchies: Mapping[str, Hierarchy],
    tracked: Sequence[str] = (),
    check_cancelled: Callable[[], None] | None = None,
    weights: np.ndarray | None = None,
) -> EncodedData:
    """Encode ``frame`` for the engine: quasi-identifiers in data column order.

    Raises :class:`DefinitionError` when the definition does not match the columns or
    names an unknown attribute, and :class:`HierarchyError` when a quasi-identifier has
    no usable hierarchy or its hierarchy misses values of the data. Level bounds from
    the definition (``None`` = hierarchy bottom/top) are resolved to numbers.
    ``check_cancelled`` (a cancel token's ``raise_if_cancelled``) is called between
    attributes, so a cancelled job stops after the attribute being encoded.
    ``weights`` (non-negative integers, one per row) makes ``frame`` a histogram whose
    rows stand for that many records each.
    """
    check_cancelled = check_cancelled or (lambda: None)
    definition.check_columns(frame.columns)
    for name in list(hierarchies) + list(tracked):
        if name not in definition:
            raise DefinitionError(
                f"Unknown attribute '{name}'. Known attributes: {', '.join(definition.names)}."
            )
    qis = []
    for attribute in definition:
        if attribute.type is not AttributeType.QUASI_IDENTIFYING:
            continue
        check_cancelled()
        if attribute.name not in hierarchies:
            raise HierarchyError(
                f"Quasi-identifier '{attribute.name}' has no generalization hierarchy. "
                "Give it one, or make it insensitive."
            )
        qis.append(_encode_qi(frame[attribute.name], attribute, hierarchies[attribute.name],
                              check_cancelled))
    encoded_tracked = {}
    for name in dict.fromkeys(tracked):
        check_cancelled()
        encoded_tracked[name] = _encode_tracked(frame[name], definition[name],
                                                hierarchies.get(name))
    check_cancelled()
    if weights is None:
        return EncodedData(n_records=len(frame), quasi_identifiers=qis, tracked=encoded_tracked)
    weights = _check_weights(weights, len(frame))
    qis = [dataclasses.replace(q, weights=weights) for q in qis]
    encoded_tracked = {n: dataclasses.replace(t, weights=weights)
                       for n, t in encoded_tracked.items()}
    return EncodedData(n_records=int(weights.sum()), quasi_identifiers=qis,
                       tracked=encoded_tracked, weights=weights)


def _check_weights(weights: np.ndarray, rows: int) -> np.ndarray:
    weights = np.asarray(weights)
    if weights.shape != (rows,) or (len(weights) and (weights.min() < 0
                                                      or weights.sum() >= 2**53)):
        raise ValueError("weights must be one non-negative count per row, summing below 2**53")
    out = weights.astype(np.int64)
    if not np.array_equal(out, weights):
        raise ValueError("weights must be whole numbers of records")
    return out
