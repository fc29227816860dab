"""Dates coarsened level by level: ``2020-03-15 -> 2020-03 -> 2020-Q1 -> 2020 -> 2020-2029``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from arxpy.errors import HierarchyError
from arxpy.hierarchy.builders.base import (
    TOP,
    HierarchyBuilder,
    counted,
    freeze,
    require_values,
    split_missing,
    value_list,
)
from arxpy.hierarchy.model import Hierarchy


def _decade(year: int) -> str:
    return f"{year // 10 * 10:04d}-{year // 10 * 10 + 9:04d}"


def _century(year: int) -> str:
    return f"{year // 100 * 100:04d}-{year // 100 * 100 + 99:04d}"


#: Date granularities from fine to coarse, each with the label it gives a date.
GRANULARITIES: dict[str, Callable[[datetime], str]] = {
    "week": lambda d: f"{d.year:04d}-W{d.strftime('%W')}",
    "month": lambda d: f"{d.year:04d}-{d.month:02d}",
    "quarter": lambda d: f"{d.year:04d}-Q{(d.month - 1) // 3 + 1}",
    "year": lambda d: f"{d.year:04d}",
    "decade": lambda d: _decade(d.year),
    "century": lambda d: _century(d.year),
}


@dataclass(frozen=True)
class DateBuilder(HierarchyBuilder):
    """Dates, parsed with the ``strptime`` pattern ``format``, coarsened per level.

    Labels: week ``2020-W09`` (the Monday-based week of the calendar year, ``%W``,
    00 to 53, so that weeks nest in years), month ``2020-03``, quarter ``2020-Q1``,
    year ``2020``, decade ``2020-2029``, century ``2000-2099``. ``granularities``
    go from fine to coarse, each at most once; a week lies in no single month or
    quarter, so ``week`` excludes those two. Values that do not match ``format``
    raise HierarchyError listing them; missing values keep their own label up to
    ``*``. Rows are sorted by date.
    """

    format: str = "%Y-%m-%d"
    granularities: Sequence[str] = ("month", "quarter", "year", "decade")

    kind: ClassVar[str] = "date"

    def __post_init__(self) -> None:
        freeze(self, "granularities")
        names = list(GRANULARITIES)
        unknown = [g for g in self.granularities if g not in GRANULARITIES]
        if unknown:
            raise HierarchyError(
                f"Date hierarchy: granularity {value_list(unknown)} is unknown; "
                f"choose from {', '.join(names)}."
            )
        ranks = [names.index(g) for g in self.granularities]
        if ranks != sorted(set(ranks)):
            raise HierarchyError(
                f"Date hierarchy: granularities {', '.join(self.granularities)} do not go "
                f"from fine to coarse; order them as in {', '.join(names)}, each once."
            )
        if "week" in self.granularities and {"month", "quarter"} & set(self.granularities):
            raise HierarchyError(
                "Date hierarchy: weeks do not nest in months or quarters; "
                "drop 'week' or drop 'month' and 'quarter'."
            )

    def build(self, values: Iterable[str]) -> Hierarchy:
        distinct = require_values(values, "date")
        present, missing = split_missing(distinct)
        dates = self._parse(present)
        labellers = [GRANULARITIES[g] for g in self.granularities]
        rows = [
            (v, *(label(dates[v]) for label in labellers), TOP)
            for v in sorted(dates, key=lambda v: (dates[v], v))
        ]
        rows += [(v, *[v] * len(labellers), TOP) for v in missing]
        return Hierarchy(rows)

    def _parse(self, texts: list[str]) -> dict[str, datetime]:
        dates, bad = {}, []
        for text in texts:
            try:
                dates[text] = datetime.strptime(text, self.format)
            except ValueError:
                bad.append(text)
        if bad:
            raise HierarchyError(
                f"Date hierarchy: {counted(len(bad), 'value does', 'values do')} not match "
                f"the format {self.format!r}: {value_list(sorted(bad))}; correct them, "
                "mark them as missing (NA) or change the format."
            )
        return dates
