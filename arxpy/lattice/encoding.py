"""Integer encoding of a table for the engine (step 1 of the core loop).

Each quasi-identifier is encoded to codes of its level-0 values; per level an array
maps level-0 codes to that level's codes. Tracked attributes (sensitive attributes
and a classification model's class attribute) are encoded to codes of their values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition, DataType
from arxpy.errors import DefinitionError, HierarchyError
from arxpy.hierarchy.model import Hierarchy


@dataclass(frozen=True)
class TrackedAttribute:
    """A non-generalized attribute whose per-class distribution models need."""

    name: str
    codes: np.ndarray  # (n_records,) int64 codes into ``values``
    values: list[str]  # code -> original value
    data_type: DataType = field(default_factory=DataType)
    hierarchy: Hierarchy | None = None  # for hierarchical-distance t-closeness

    @property
    def global_counts(self) -> np.ndarray:
        return np.bincount(self.codes, minlength=len(self.values))


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
    weight: float = 1.0
    data_type: DataType = field(default_factory=DataType)

    @property
    def height(self) -> int:
        """Number of levels including level 0."""
        return len(self.level_maps)

    def domain_size(self, level: int) -> int:
        return len(self.labels[level])


@dataclass(frozen=True)
class EncodedData:
    """Everything the search and the models need, as integer arrays."""

    n_records: int
    quasi_identifiers: list[QuasiIdentifier]
    tracked: dict[str, TrackedAttribute]

    @property
    def qi_names(self) -> list[str]:
        return [q.name for q in self.quasi_identifiers]


# --- Building the encoding ---------------------------------------------------------------

#: How many offending values an error message lists before summarising.
_SHOW = 10


def _listing(values: Sequence[str]) -> str:
    shown = ", ".join(repr(v) for v in values[:_SHOW])
    more = len(values) - _SHOW
    return shown + (f" and {more} more" if more > 0 else "")


def check_hierarchy(name: str, hierarchy: Hierarchy) -> None:
    """Raise :class:`HierarchyError` unless ``hierarchy`` is usable for generalization.

    Usable means: at least one row, rectangular, original values (column 0) unique,
    and functional (a label at level ``i`` always generalizes to the same label at
    level ``i + 1``, so that generalizing step by step is well defined).
    """
    rows = hierarchy.rows
    if not rows or hierarchy.height == 0:
        raise HierarchyError(f"The hierarchy of '{name}' is empty; give one row per value.")
    if not hierarchy.is_rectangular:
        height = max(len(r) for r in rows)
        bad = [f"row {i + 1} ({r[0] if r else ''!r}) has {len(r)} levels"
               for i, r in enumerate(rows) if len(r) != height]
        raise HierarchyError(
            f"The hierarchy of '{name}' is not rectangular: most rows have {height} levels "
            f"but {_listing(bad)}. Give every row the same number of levels.",
            problems=bad,
        )
    originals = [r[0] for r in rows]
    dupes = sorted(v for v, n in Counter(originals).items() if n > 1)
    if dupes:
        raise HierarchyError(
            f"The hierarchy of '{name}' lists these values more than once: {_listing(dupes)}. "
            "Keep one row per value.",
            problems=[f"value {v!r} is listed more than once" for v in dupes],
        )
    problems = []
    for level in range(1, hierarchy.height - 1):
        parent: dict[str, str] = {}
        for r in rows:
            seen = parent.setdefault(r[level], r[level + 1])
            if seen != r[level + 1]:
                problems.append(
                    f"label {r[level]!r} at level {level} generalizes to both {seen!r} and "
                    f"{r[level + 1]!r} at level {level + 1}"
                )
    if problems:
        raise HierarchyError(
            f"The hierarchy of '{name}' is not functional: {problems[0]}"
            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
            + ". Give each label one generalization.",
            problems=problems,
        )


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


def _encode_qi(column: pd.Series, attribute: AttributeDefinition,
               hierarchy: Hierarchy) -> QuasiIdentifier:
    check_hierarchy(attribute.name, hierarchy)
    rows = hierarchy.rows
    row_of = {r[0]: i for i, r in enumerate(rows)}
    codes, uniques = pd.factorize(column.to_numpy(dtype=object), sort=False)
    lookup = np.array([row_of.get(v, -1) for v in uniques], dtype=np.int64)
    missing = [str(v) for v, code in zip(uniques, lookup, strict=True) if code < 0]
    if missing:
        raise HierarchyError(
            f"The hierarchy of '{attribute.name}' does not cover these values found in the "
            f"data: {_listing(missing)}. Add a row for each of them.",
            problems=[f"value {v!r} of '{attribute.name}' is not in its hierarchy"
                      for v in missing],
        )
    level_maps: list[np.ndarray] = []
    labels: list[list[str]] = []
    for level in range(hierarchy.height):
        level_codes, level_labels = pd.factorize(
            np.array([r[level] for r in rows], dtype=object), sort=False)
        level_maps.append(level_codes.astype(np.int64))
        labels.append([str(v) for v in level_labels])
    low, high = _level_bounds(attribute, hierarchy.height)
    return QuasiIdentifier(
        name=attribute.name,
        codes=lookup[codes],
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
    )


def encode(
    frame: pd.DataFrame,
    definition: DataDefinition,
    hierarchies: Mapping[str, Hierarchy],
    tracked: Sequence[str] = (),
) -> EncodedData:
    """Encode ``frame`` for the engine: quasi-identifiers in data column order.

    Raises :class:`DefinitionError` when the definition does not match the columns or
    names an unknown attribute, and :class:`HierarchyError` when a quasi-identifier has
    no usable hierarchy or its hierarchy misses values of the data. Level bounds from
    the definition (``None`` = hierarchy bottom/top) are resolved to numbers.
    """
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
        if attribute.name not in hierarchies:
            raise HierarchyError(
                f"Quasi-identifier '{attribute.name}' has no generalization hierarchy. "
                "Give it one, or make it insensitive."
            )
        qis.append(_encode_qi(frame[attribute.name], attribute, hierarchies[attribute.name]))
    encoded_tracked = {
        name: _encode_tracked(frame[name], definition[name], hierarchies.get(name))
        for name in dict.fromkeys(tracked)
    }
    return EncodedData(n_records=len(frame), quasi_identifiers=qis, tracked=encoded_tracked)
