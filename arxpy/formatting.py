"""Numbers as people read them: one set of rules for tables, reports and messages.

``plain`` writes a parameter or bound the way a person types it (``3``, ``0.2``,
``20.5``); ``figure`` a measured value for display (thousands separators, a fixed
number of significant digits, ``—`` where there is none); ``percent`` and
``fixed_percent`` a share in [0, 1].
"""

from __future__ import annotations

import math
from decimal import Decimal
from numbers import Real
from typing import Any

import numpy as np

#: What a table shows where a figure is missing (None or NaN).
MISSING = "—"


def plain(value: Any) -> str:
    """The shortest plain text of a number (``3`` not ``3.0``); non-numbers as ``repr``."""
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return str(int(value))
        return format(value.normalize(), "f")
    if isinstance(value, bool) or not isinstance(value, Real):
        return repr(value)
    number = float(value)
    if math.isfinite(number) and number.is_integer() and abs(number) < 1e16:
        return str(int(number))
    return np.format_float_positional(number, trim="-") if math.isfinite(number) else \
        repr(number)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))


def figure(value: Any, digits: int = 4) -> str:
    """A value for display: whole numbers with thousands separators, others with
    ``digits`` significant digits (fixed decimals from 1 up); ``—`` for None/NaN; text
    as it is; booleans as yes/no."""
    if _missing(value):
        return MISSING
    if isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    number = float(value)
    if math.isinf(number):
        return "∞" if number > 0 else "−∞"
    if number.is_integer() and abs(number) < 1e15:
        return f"{int(number):,}"
    if abs(number) >= 10 ** digits:
        return f"{number:,.0f}"
    return f"{number:,.{digits}g}" if abs(number) < 1 else \
        f"{number:,.{max(digits - 2, 1)}f}"


def percent(value: Any, digits: int = 4) -> str:
    """A share in [0, 1] as a percentage with ``digits`` significant digits (small risks
    stay visible); ``—`` for None/NaN."""
    if _missing(value):
        return MISSING
    if float(value) == 0:
        return "0 %"
    return f"{100.0 * float(value):.{digits}g} %"


def fixed_percent(value: Any, decimals: int = 2) -> str:
    """A share in [0, 1] as a percentage with fixed decimals (columns line up)."""
    if _missing(value):
        return MISSING
    return f"{100.0 * float(value):.{decimals}f} %"


def plural(number: int, noun: str) -> str:
    """``"1 run"``, ``"4 runs"``, ``"1,200 records"``: a count with its noun (regular
    English plurals only)."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
