"""Excel ``.xlsx`` import into string tables (openpyxl, read-only streaming).

Cells become the strings a user sees in Excel: integral numbers without ``.0``,
other numbers with up to 15 significant digits, dates as ISO ``YYYY-MM-DD`` (with
`` HH:MM:SS`` if the time is not midnight), booleans ``TRUE``/``FALSE``, formulas as
their last computed value (empty if no program ever calculated the workbook).
Empty cells become ``""``. Empty rows before the first and after the last non-empty
row are dropped (empty rows in between are records of empty cells), and the table is
as wide as its rightmost non-empty cell. Carriage returns in cell text do not survive
the xlsx format (XML reads them as ``\n``).
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from arxpy.data.csv_io import make_unique_names
from arxpy.data.types import format_value
from arxpy.errors import DataImportError

#: Significant digits Excel keeps and shows for non-integral numbers.
EXCEL_DIGITS = 15


def list_sheets(path: str | os.PathLike[str]) -> list[str]:
    """Names of the worksheets of a workbook, in workbook order (chart sheets omitted)."""
    with _open_workbook(path) as (_, workbook):
        return [sheet.title for sheet in workbook.worksheets]


def read_excel(
    path: str | os.PathLike[str], sheet: str | None = None, has_header: bool = True
) -> pd.DataFrame:
    """Read one worksheet (the first when ``sheet`` is None) as a DataFrame of strings.

    With ``has_header`` the first non-empty row names the columns (made unique by
    :func:`make_unique_names`), otherwise columns are ``Column 1``, ``Column 2``, ...
    """
    with _open_workbook(path) as (file, workbook):
        titles = [s.title for s in workbook.worksheets]
        if not titles:
            raise DataImportError(f"'{file}' has no worksheet; choose a workbook with data.")
        if sheet is None:
            sheet = titles[0]
        elif sheet not in titles:
            raise DataImportError(
                f"'{file}' has no sheet '{sheet}'; its sheets are: {', '.join(titles)}."
            )
        rows = _text_rows(workbook[sheet].iter_rows(values_only=True))
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    if has_header:
        if not rows:
            raise DataImportError(
                f"Sheet '{sheet}' of '{file}' is empty; choose a sheet with data."
            )
        names, rows = make_unique_names(rows[0]), rows[1:]
    else:
        names = [f"Column {i}" for i in range(1, width + 1)]
    return pd.DataFrame(rows, columns=names, dtype=object)


def _text_rows(rows: Iterator[tuple[Any, ...]]) -> list[list[str]]:
    """Rows as strings with trailing empty cells cut off, outer empty rows dropped.

    Excel cells are Python objects from openpyxl anyway, so a per-cell loop is the
    floor; a cache keyed by (type, value) avoids formatting repeated values again
    (keyed by type because True == 1 in Python but they read differently).
    """
    cache: dict[tuple[type, Any], str] = {}
    result = []
    for row in rows:
        last = max((j for j, v in enumerate(row) if v is not None and v != ""), default=-1)
        texts = []
        for value in row[: last + 1]:
            key = (value.__class__, value)
            text = cache.get(key)
            if text is None:
                text = "" if value is None else format_value(value, EXCEL_DIGITS)
                cache[key] = text
            texts.append(text)
        result.append(texts)
    filled = [i for i, texts in enumerate(result) if texts]
    return result[filled[0] : filled[-1] + 1] if filled else []


@contextmanager
def _open_workbook(path: str | os.PathLike[str]) -> Iterator[tuple[Path, Any]]:
    from openpyxl import load_workbook  # imported here: only Excel users pay for it
    from openpyxl.utils.exceptions import InvalidFileException

    file = Path(path)
    if not file.is_file():
        raise DataImportError(f"'{file}' does not exist; check the file name and folder.")
    if file.suffix.lower() == ".xls":
        raise DataImportError(
            f"'{file}' is an old Excel .xls file; open it in Excel and save it as .xlsx."
        )
    try:
        workbook = load_workbook(file, read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, ValueError, OSError) as exc:
        raise DataImportError(
            f"'{file}' is not a readable Excel .xlsx workbook ({exc}); choose an .xlsx file."
        ) from None
    try:
        yield file, workbook
    finally:
        workbook.close()
