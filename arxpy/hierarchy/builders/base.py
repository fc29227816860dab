"""What every hierarchy builder shares: the contract, missing values, sorting, grouping."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from arxpy.data.types import MISSING_VALUES
from arxpy.errors import HierarchyError
from arxpy.hierarchy.model import Hierarchy
from arxpy.hierarchy.validation import format_items

TOP = "*"


class HierarchyBuilder(ABC):
    """A recipe for a hierarchy; ``kind`` names it in project files.

    Subclasses are frozen dataclasses whose fields are the parameters; they check
    the parameters when made and the values in :meth:`build`, raising HierarchyError.
    """

    kind: ClassVar[str]

    @abstractmethod
    def build(self, values: Iterable[str]) -> Hierarchy:
        """A valid hierarchy, topped by ``*``, with a row for every distinct value."""


def split_missing(distinct: list[str]) -> tuple[list[str], list[str]]:
    """The values that are present, in the given order, and the spellings of a
    missing value (:data:`arxpy.data.types.MISSING_VALUES`: empty, NA, N/A, NaN,
    NULL, ?; any case, blanks around ignored), sorted. Missing values fit no
    interval, date or order."""
    present = [v for v in distinct if v.strip().lower() not in MISSING_VALUES]
    return present, sorted(v for v in distinct if v.strip().lower() in MISSING_VALUES)


def distinct_values(values: Iterable[str]) -> list[str]:
    """The distinct values as strings, in order of first appearance."""
    # A dict, not pandas.unique: pandas takes strings that differ only by NUL
    # characters for equal.
    return list(dict.fromkeys(str(v) for v in values))


_DIGITS = re.compile(r"([0-9]+)")


def natural_key(value: str) -> tuple[Any, ...]:
    """Sort key: numbers first, by value; then text with digit runs compared as
    numbers (``item2`` before ``item10``); ties broken by the string itself."""
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if np.isfinite(number):
        return (0, number, (), value)
    chunks = tuple(
        (0, int(part), "") if i % 2 else (1, 0, part)
        for i, part in enumerate(_DIGITS.split(value))
        if part
    )
    return (1, 0.0, chunks, value)


def require_values(values: Iterable[str], name: str) -> list[str]:
    """The distinct values; HierarchyError when there are none."""
    distinct = distinct_values(values)
    if not distinct:
        raise HierarchyError(f"Cannot build a {name} hierarchy without values; load data first.")
    return distinct


def group_levels(
    units: np.ndarray, fanouts: Sequence[int], keep_single: bool
) -> list[tuple[int, np.ndarray]]:
    """Grouping levels over ``units`` (non-negative unit index of each value): per
    level, its span in units and each value's group index (``unit // span``).

    Level ``i`` multiplies the span by ``fanouts[i]`` (the last fanout repeats).
    Grouping goes on while a level has several groups; the first level with a single
    group is kept only when ``keep_single`` (other labels share that level), since
    otherwise it would say no more than the ``*`` above it.
    """
    levels: list[tuple[int, np.ndarray]] = []
    span = 1
    while len(np.unique(units // span)) > 1:
        span *= fanouts[min(len(levels), len(fanouts) - 1)]
        groups = units // span
        if len(np.unique(groups)) == 1 and not keep_single:
            break
        levels.append((span, groups))
    return levels


def unique_labels(labels: list[str], reserved: set[str]) -> list[str]:
    """``labels`` with repeats (and clashes with ``reserved``) made distinct by a
    ``" (2)"``-style suffix, so that each group of a level has a label of its own."""
    seen = set(reserved)
    out = []
    for label in labels:
        candidate, n = label, 1
        while candidate in seen:
            n += 1
            candidate = f"{label} ({n})"
        seen.add(candidate)
        out.append(candidate)
    return out


def check_fanouts(fanouts: Sequence[int], name: str) -> None:
    """HierarchyError unless ``fanouts`` is a non-empty list of whole numbers >= 2."""
    if not fanouts or any(not _is_count(f) or f < 2 for f in fanouts):
        raise HierarchyError(
            f"{name.capitalize()} hierarchy: fanouts {list(fanouts)} are invalid; "
            "give one or more whole numbers of at least 2."
        )


def _is_count(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def freeze(builder: Any, *names: str) -> None:
    """Store sequence parameters as tuples so that the frozen builder is hashable."""
    for name in names:
        value = getattr(builder, name)
        if value is not None:
            object.__setattr__(builder, name, tuple(value))


def counted(count: int, singular: str, plural: str) -> str:
    """``1 value is`` / ``3 values are``: a count with the matching words."""
    return f"{count} {singular if count == 1 else plural}"


def value_list(values: Iterable[Any]) -> str:
    """Values quoted for a message, shortened past the usual limit."""
    return format_items([repr(v) for v in values])
