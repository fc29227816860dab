"""Hierarchies a policy preset builds from an attribute's values alone (no other input).

Each has a fixed height and puts at level 1 exactly what the rule allows, so the preset
sets the attribute's lowest level to 1 and the lattice search may only generalize
further. Missing values (``NA``, empty, ...) stay themselves below the top level; a
value the rule cannot read goes to ``*`` from level 1 (released as nothing rather
than as an identifier). Built from the values, so replay on a new extract builds them
again (the recipe records the rule, not the values).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

from arxpy.data.definition import DataKind, DataType
from arxpy.data.types import is_missing
from arxpy.hierarchy.model import Hierarchy
from arxpy.risk.hipaa_lists import RESTRICTED_ZIP3

ZIP3, YEAR, AGE90, BIRTH_YEAR = "zip3", "year", "age-90", "birth-year-90"
TOP = "*"
#: The one category of ages over 89 (45 CFR 164.514(b)(2)(i)(C)).
OLDEST = "90 or older"
_ZIP = re.compile(r"(\d{3})[\d-]*")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")


def _distinct(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values))


def _missing(values: list[str]) -> np.ndarray:
    return is_missing(pd.Series(values, dtype=object)) if values else np.zeros(0, bool)


def zip3_hierarchy(values: Iterable[str]) -> Hierarchy:
    """ZIP code, its first three digits (``000`` for the restricted areas), two, one, ``*``.

    Digits given away are masked with ``*`` at the value's length (``75001`` ->
    ``750**`` -> ``75***`` -> ``7****``); the restricted areas share ``000`` and its
    prefixes, so every level only merges groups of the one below.
    """
    distinct = _distinct(values)
    rows = []
    for value, missing in zip(distinct, _missing(distinct), strict=True):
        match = _ZIP.fullmatch(value.strip())
        if missing:
            rows.append((value, value, value, value, TOP))
            continue
        if match is None:
            rows.append((value, TOP, TOP, TOP, TOP))
            continue
        area = "000" if match.group(1) in RESTRICTED_ZIP3 else match.group(1)
        width = len(value.strip())
        rows.append((value, *(area[:keep].ljust(width, "*") for keep in (3, 2, 1)), TOP))
    return Hierarchy(rows)


def _years(values: list[str], data_type: DataType | None) -> list[str | None]:
    """The year of each value: parsed with a declared date format, else the one
    four-digit number it holds (``2013-Q1``, ``03/15/2014``); None if neither."""
    if data_type is not None and data_type.kind is DataKind.DATE and data_type.format:
        dates = pd.to_datetime(pd.Series(values, dtype=object), format=data_type.format,
                               errors="coerce")
        return [None if pd.isna(d) else f"{d.year:04d}" for d in dates]
    out: list[str | None] = []
    for value in values:
        found = _YEAR.findall(value)
        out.append(found[0] if len(found) == 1 else None)
    return out


def year_hierarchy(values: Iterable[str], data_type: DataType | None = None) -> Hierarchy:
    """Date (or any value holding one year), its year, ``*``."""
    distinct = _distinct(values)
    rows = []
    missing = _missing(distinct)
    for value, year, absent in zip(distinct, _years(distinct, data_type), missing, strict=True):
        rows.append((value, value, TOP) if absent else (value, year or TOP, TOP))
    return Hierarchy(rows)


def _number(value: str) -> float | None:
    try:
        number = float(value)
    except ValueError:
        return None
    return number if np.isfinite(number) else None


def _interval(age: float, width: int) -> str:
    low = int(age // width * width)
    return f"[{low}, {min(low + width, 90)}["


def age90_hierarchy(values: Iterable[str]) -> Hierarchy:
    """Age, then ages over 89 as one category (others kept), 5-, 10- and 20-year
    intervals below 90 (the oldest category kept), ``*``."""
    distinct = _distinct(values)
    rows = []
    for value, absent in zip(distinct, _missing(distinct), strict=True):
        age = _number(value)
        if absent:
            rows.append((value, value, value, value, value, TOP))
        elif age is None or age < 0:
            rows.append((value, TOP, TOP, TOP, TOP, TOP))
        elif age > 89:
            rows.append((value, OLDEST, OLDEST, OLDEST, OLDEST, TOP))
        else:
            rows.append((value, value, *(_interval(age, w) for w in (5, 10, 20)), TOP))
    return Hierarchy(rows)


def birth_year_hierarchy(values: Iterable[str], cutoff: int) -> Hierarchy:
    """Year, then years up to ``cutoff`` (an age over 89) as one category, ``*``."""
    distinct = _distinct(values)
    oldest = f"{cutoff} or earlier"
    rows = []
    for value, absent in zip(distinct, _missing(distinct), strict=True):
        year = _number(value)
        if absent:
            rows.append((value, value, TOP))
        elif year is None:
            rows.append((value, TOP, TOP))
        else:
            rows.append((value, oldest if year <= cutoff else value, TOP))
    return Hierarchy(rows)


def build_hierarchy(action: str, values: Iterable[str], parameters: dict | None = None,
                    data_type: DataType | None = None) -> Hierarchy:
    """The hierarchy rule ``action`` builds over ``values``."""
    parameters = parameters or {}
    if action == ZIP3:
        return zip3_hierarchy(values)
    if action == YEAR:
        return year_hierarchy(values, data_type)
    if action == AGE90:
        return age90_hierarchy(values)
    if action == BIRTH_YEAR:
        return birth_year_hierarchy(values, int(parameters["cutoff"]))
    raise ValueError(f"no hierarchy for rule {action!r}")


BUILT = (ZIP3, YEAR, AGE90, BIRTH_YEAR)
