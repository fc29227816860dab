"""Values in a given order, grouped a fanout at a time: ``a, b, c, d -> a-b, c-d -> *``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from arxpy.errors import HierarchyError
from arxpy.hierarchy.builders.base import (
    TOP,
    HierarchyBuilder,
    check_fanouts,
    counted,
    freeze,
    group_levels,
    natural_key,
    require_values,
    split_missing,
    unique_labels,
    value_list,
)
from arxpy.hierarchy.model import Hierarchy

#: Set labels of larger groups show the first members, ``...`` and the last one.
SET_LABEL_MEMBERS = 10


@dataclass(frozen=True)
class OrderingBuilder(HierarchyBuilder):
    """Values in order, grouped ``fanouts[i]`` groups at a time at level ``i + 1``.

    ``order`` lists the values from lowest to highest and every one of them gets a
    row, so the hierarchy also fits other data of the same domain; without it the
    values are sorted naturally (numbers by value, ``a2`` before ``a10``). Groups are
    labelled ``first-last`` (``labels="range"``; a group of one value by the value)
    or ``{a, b, c}`` (``labels="set"``; past 10 members ``{a, b, ..., z}``, with the
    first nine and the last); a label that would repeat within a level
    gets a `` (2)`` suffix. Grouping stops when one more level would hold a single
    group and nothing else; then comes ``*``. Missing values that the order does not
    list keep their own label up to the top.
    """

    order: Sequence[str] | None = None
    fanouts: Sequence[int] = (2,)
    labels: str = "range"

    kind: ClassVar[str] = "ordering"

    def __post_init__(self) -> None:
        freeze(self, "order", "fanouts")
        if self.order is not None:  # values are text; an order of numbers means their text
            object.__setattr__(self, "order", tuple(str(v) for v in self.order))
        check_fanouts(self.fanouts, "ordering")
        if self.labels not in ("range", "set"):
            raise HierarchyError(
                f"Ordering hierarchy: labels {self.labels!r} is unknown; use 'range' or 'set'."
            )
        if self.order is not None:
            repeated = sorted(v for v, n in Counter(self.order).items() if n > 1)
            if repeated:
                raise HierarchyError(
                    f"Ordering hierarchy: the order lists {value_list(repeated)} more than "
                    "once; list each value once."
                )

    def build(self, values: Iterable[str]) -> Hierarchy:
        ordered, separate = self._ordered(require_values(values, "ordering"))
        units = np.arange(len(ordered), dtype=np.int64)
        levels = group_levels(units, self.fanouts, keep_single=bool(separate))
        columns = []
        for span, groups in levels:
            count = int(groups[-1]) + 1 if len(groups) else 0
            names = [self._label(ordered[g * span:(g + 1) * span]) for g in range(count)]
            names = unique_labels(names, reserved=set(separate))
            columns.append([names[g] for g in groups])
        rows = [(v, *(column[i] for column in columns), TOP) for i, v in enumerate(ordered)]
        rows += [(v, *[v] * len(levels), TOP) for v in separate]
        return Hierarchy(rows)

    def _ordered(self, distinct: list[str]) -> tuple[list[str], list[str]]:
        """The values to group, in order, and the missing values kept apart."""
        if self.order is None:
            present, missing = split_missing(distinct)
            return sorted(present, key=natural_key), missing
        known = set(self.order)
        unordered, missing = split_missing([v for v in distinct if v not in known])
        if unordered:
            raise HierarchyError(
                f"Ordering hierarchy: {counted(len(unordered), 'value is', 'values are')} not in "
                f"the order: {value_list(sorted(unordered))}; add them to the order."
            )
        return list(self.order), missing

    def _label(self, members: list[str]) -> str:
        if self.labels == "set":
            if len(members) > SET_LABEL_MEMBERS:  # keep labels (and files) a sane size
                members = [*members[: SET_LABEL_MEMBERS - 1], "...", members[-1]]
            return "{" + ", ".join(members) + "}"
        return members[0] if len(members) == 1 else f"{members[0]}-{members[-1]}"
