"""Spreadsheet formula injection: values a spreadsheet program would run as a formula.

A CSV cell such as ``=cmd|' /C calc'!A0`` or ``@SUM(A1)`` is executed by Excel or
LibreOffice when the file is opened. Neutralising prefixes such a value with ``'``,
which spreadsheets read as "text follows" (OWASP's recommendation). Plain numbers such
as ``-5`` or ``+1.5e3`` are left alone, as are a lone ``-``, ``+`` or ``@`` (common
spellings of "missing"), which no spreadsheet evaluates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

#: First characters that make a spreadsheet evaluate a cell.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class FormulaWarning(UserWarning):
    """Values that spreadsheets run as formulas were written without neutralising."""


def is_formula_like(text: str) -> bool:
    """Would a spreadsheet program treat ``text`` as a formula?"""
    if not text or text[0] not in FORMULA_PREFIXES:
        return False
    if text[0] in "\t\r":
        return True
    return len(text) > 1 and _NUMBER.fullmatch(text) is None


def neutralize(text: str) -> str:
    """``text`` with a leading ``'`` if a spreadsheet would run it as a formula."""
    return "'" + text if is_formula_like(text) else text


def formula_like_examples(columns: Mapping[str, Iterable[str]], header: Iterable[str] = ()
                          ) -> dict[str, str]:
    """Per column (or ``"header"``), the first formula-like value, for messages."""
    found = {}
    for name in header:
        if is_formula_like(str(name)):
            found.setdefault("header", str(name))
    for name, values in columns.items():
        for value in map(str, _distinct(values)):
            if is_formula_like(value):
                found[str(name)] = value
                break
    return found


def _distinct(values: Iterable[str]) -> Iterable[object]:
    """The distinct values in order of appearance; of a categorical, the categories it uses
    (in their order: checked without a pass over its cells)."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        categories = values.cat.categories
        if not any(is_formula_like(str(c)) for c in categories):
            return ()  # the common case: nothing to look for among the cells
        used = np.bincount(codes[codes >= 0], minlength=len(categories)) > 0
        return categories[used]
    series = values if isinstance(values, pd.Series) else pd.Series(list(values),
                                                                    dtype=object)
    return series.unique()


def formula_locations(examples: Mapping[str, str]) -> str:
    """Where formula-like values are, with an example each (at most five columns)."""
    return ", ".join(f"{column} ({value!r:.40})" for column, value in
                     list(examples.items())[:5])


def describe_formula_values(examples: Mapping[str, str]) -> str:
    """One sentence naming where formula-like values are, with examples."""
    return ("values that spreadsheet programs run as formulas (starting with =, +, -, @, tab "
            f"or carriage return) were written as they are, in: {formula_locations(examples)}")
