"""Numeric values into half-open intervals, ARX style: ``[20, 30[`` then ``[20, 40[``.

Arithmetic is done in decimal so that bounds print as the user typed them
(``0.3`` rather than ``0.30000000000000004``) and a value on a bound lands in the
interval that starts there.
"""

from __future__ import annotations

import bisect
import decimal
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

import numpy as np

from arxpy.errors import HierarchyError
from arxpy.formatting import plain
from arxpy.hierarchy.builders.base import (
    TOP,
    HierarchyBuilder,
    check_fanouts,
    counted,
    freeze,
    group_levels,
    require_values,
    split_missing,
    value_list,
)
from arxpy.hierarchy.model import Hierarchy

# Enough digits for start + k * width to stay exact for any sensible float input.
_PRECISION = 80
#: More intervals than this means the width is far too small for the values.
MAX_INTERVALS = 10**12


def to_decimal(value: Any) -> Decimal | None:
    """``value`` (a number or numeric text) as a finite Decimal, or None if it is not one."""
    if isinstance(value, bool):
        return None
    try:
        number = Decimal(value.strip() if isinstance(value, str) else str(value))
    except (decimal.InvalidOperation, ValueError, TypeError):
        return None
    return number if number.is_finite() else None


@dataclass(frozen=True)
class IntervalBuilder(HierarchyBuilder):
    """Numbers into half-open intervals ``[a, b[``, merged into wider ones above.

    Level 1 holds intervals of ``width`` starting at ``start`` (default:
    ``bottom_coding`` if given, else the smallest value rounded down to a multiple of
    ``width``) or the intervals between consecutive ``cuts``. Values below
    ``bottom_coding``, ``start`` or the first cut are labelled ``<b``; values at or
    above ``top_coding`` or the last cut ``>=t``; interval labels are clipped to these
    bounds. Level ``i + 1`` merges ``fanouts[i - 1]`` adjacent intervals of level ``i``
    (the last fanout repeats; groups are aligned to the first interval of the grid)
    until one more merge would leave a single interval and nothing else; then comes
    ``top_label``. Coded and missing values keep their label up to the top.
    """

    width: float | None = None
    cuts: Sequence[float] | None = None
    start: float | None = None
    bottom_coding: float | None = None
    top_coding: float | None = None
    fanouts: Sequence[int] = (2,)
    top_label: str = TOP

    kind: ClassVar[str] = "interval"

    def __post_init__(self) -> None:
        freeze(self, "cuts", "fanouts")
        check_fanouts(self.fanouts, "interval")
        self._grid(None)  # checks width, cuts and bounds before any value is seen

    def build(self, values: Iterable[str]) -> Hierarchy:
        distinct = require_values(values, "interval")
        present, missing = split_missing(distinct)
        numbers = _parse_numbers(present)
        grid = self._grid(min(numbers.values(), default=None))
        ordered = sorted(numbers, key=lambda v: (numbers[v], v))
        places = [grid.locate(numbers[v]) for v in ordered]
        units = np.array([p for p in places if isinstance(p, int)], dtype=np.int64)
        keep_single = len(units) < len(ordered) or bool(missing)
        spans = [1] + [span for span, _ in group_levels(units, self.fanouts, keep_single)]
        columns = [self._labels(grid, places, span) for span in spans]
        rows = [(v, *(c[i] for c in columns), self.top_label) for i, v in enumerate(ordered)]
        rows += [(v, *[v] * len(spans), self.top_label) for v in missing]
        return Hierarchy(rows)

    @staticmethod
    def _labels(grid: _Grid, places: list[int | str], span: int) -> list[str]:
        """Each value's label at the level of ``span`` intervals; each label is made
        once (intervals of neighbouring values share it)."""
        made: dict[int, str] = {}
        out = []
        for place in places:
            if isinstance(place, str):  # a bottom- or top-coded label
                out.append(place)
                continue
            group = place // span
            if group not in made:
                made[group] = grid.label(group, span)
            out.append(made[group])
        return out

    def _grid(self, smallest: Decimal | None) -> _Grid:
        return _Grid.make(self, smallest)


@dataclass(frozen=True)
class _Grid:
    """Interval bounds: ``start + k * width`` or ``cuts[k]``; below ``low`` and from
    ``high`` on, values are coded instead."""

    start: Decimal | None
    width: Decimal | None
    cuts: tuple[Decimal, ...] | None
    low: Decimal | None
    high: Decimal | None

    @classmethod
    def make(cls, spec: IntervalBuilder, smallest: Decimal | None) -> _Grid:
        width = _parameter(spec.width, "width")
        start = _parameter(spec.start, "start")
        bottom = _parameter(spec.bottom_coding, "bottom coding")
        top = _parameter(spec.top_coding, "top coding")
        if bottom is not None and top is not None and bottom >= top:
            raise HierarchyError(
                f"Interval hierarchy: bottom coding {plain(bottom)} must be below "
                f"top coding {plain(top)}."
            )
        if (width is None) == (spec.cuts is None):
            raise HierarchyError(
                "Interval hierarchy: give either an interval width or a list of cut points."
            )
        if spec.cuts is not None:
            if start is not None:
                raise HierarchyError(
                    "Interval hierarchy: a start applies to a width, not to cut points; "
                    "make the start the first cut."
                )
            cuts = _cuts(spec.cuts, bottom, top)
            return cls(None, None, cuts, cuts[0], cuts[-1])
        if width <= 0:
            raise HierarchyError(
                f"Interval hierarchy: width {plain(width)} must be above 0."
            )
        if start is not None and top is not None and start >= top:
            raise HierarchyError(
                f"Interval hierarchy: start {plain(start)} must be below "
                f"top coding {plain(top)}."
            )
        if start is None:
            start = bottom if bottom is not None else _floor_to(smallest, width)
        low = start if bottom is None or (start is not None and start > bottom) else bottom
        return cls(start, width, None, low, top)

    def locate(self, value: Decimal) -> int | str:
        """The index of the interval holding ``value``, or its coded label."""
        if self.low is not None and value < self.low:
            return f"<{plain(self.low)}"
        if self.high is not None and value >= self.high:
            return f">={plain(self.high)}"
        if self.cuts is not None:
            return bisect.bisect_right(self.cuts, value) - 1
        with decimal.localcontext(prec=_PRECISION):
            offset = value - self.start
            # Check the size first: // fails when the quotient has more digits than
            # the precision.
            too_far = offset / self.width > MAX_INTERVALS
            index = 0 if too_far else int(offset // self.width)
        if too_far:
            raise HierarchyError(
                f"Interval hierarchy: width {plain(self.width)} is too small for "
                f"value {plain(value)} (over {MAX_INTERVALS:,} intervals); "
                "choose a larger width."
            )
        return index

    def label(self, group: int, span: int) -> str:
        """``[a, b[`` for intervals ``group * span`` to ``(group + 1) * span - 1``,
        clipped to the coding bounds."""
        lower = self._bound(group * span)
        upper = self._bound((group + 1) * span)
        if self.low is not None:
            lower = max(lower, self.low)
        if self.high is not None:
            upper = min(upper, self.high)
        return f"[{plain(lower)}, {plain(upper)}["

    def _bound(self, index: int) -> Decimal:
        if self.cuts is not None:
            return self.cuts[min(index, len(self.cuts) - 1)]
        with decimal.localcontext(prec=_PRECISION):
            return self.start + index * self.width


def _parameter(value: Any, name: str) -> Decimal | None:
    if value is None:
        return None
    number = to_decimal(value)
    if number is None:
        raise HierarchyError(f"Interval hierarchy: {name} {value!r} is not a finite number.")
    return number


def _cuts(cuts: Sequence[Any], bottom: Decimal | None, top: Decimal | None) -> tuple[Decimal, ...]:
    """The cut points with the coding bounds added as first and last cuts."""
    points = [_parameter(c, "cut point") for c in cuts]
    if not points or any(b <= a for a, b in zip(points, points[1:], strict=False)):
        raise HierarchyError(
            f"Interval hierarchy: cut points {list(cuts)} must be one or more numbers in "
            "increasing order."
        )
    if bottom is not None:
        points = [bottom] + [p for p in points if p > bottom]
    if top is not None:
        points = [p for p in points if p < top] + [top]
    return tuple(points)


def _floor_to(value: Decimal | None, width: Decimal) -> Decimal | None:
    if value is None:
        return None
    with decimal.localcontext(prec=_PRECISION):
        return (value // width - (1 if value < 0 and value % width else 0)) * width


def _parse_numbers(texts: list[str]) -> dict[str, Decimal]:
    numbers, bad = {}, []
    for text in texts:
        number = to_decimal(text)
        if number is None:
            bad.append(text)
        else:
            numbers[text] = number
    if bad:
        raise HierarchyError(
            f"Interval hierarchy: {counted(len(bad), 'value is', 'values are')} not numbers: "
            f"{value_list(sorted(bad))}; "
            "correct them, mark them as missing (NA) or use another kind of hierarchy."
        )
    return numbers
