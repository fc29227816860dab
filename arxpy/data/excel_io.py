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
import zlib
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
        worksheet = workbook[sheet]
        # The <dimension> element may understate the used range: read every stored row.
        worksheet.reset_dimensions()
        cells = _read_cells(worksheet, file, sheet)
    rows = cells.dense(file, sheet)
    width = max((len(r) for r in rows), default=0)
    if has_header:
        if not rows:
            raise DataImportError(
                f"Sheet '{sheet}' of '{file}' is empty; choose a sheet with data."
            )
        names, rows = make_unique_names(rows[0]), rows[1:]
    else:
        names = [f"Column {i}" for i in range(1, width + 1)]
    return pd.DataFrame(rows, columns=names, dtype=object)


#: A sheet's table may have this many cells more than it has non-empty cells; beyond,
#: stray cells far from the data would make a table of mostly empty cells.
EMPTY_CELL_ALLOWANCE = 2_000_000


class _SparseCells:
    """The non-empty cells of a sheet as text, in memory proportional to their number."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, list[tuple[int, str]]]] = []
        self.present = 0
        self.width = 0

    def add(self, row_index: int, cells: list[tuple[int, str]]) -> None:
        if cells:
            self.rows.append((row_index, cells))
            self.present += len(cells)
            self.width = max(self.width, cells[-1][0] + 1)

    def dense(self, file: Path, sheet: str) -> list[list[str]]:
        """Rows from the first to the last non-empty one, every row ``width`` cells wide.

        Raises DataImportError when that table would be mostly empty cells (a stray
        value at XFD1048576 would otherwise ask for billions of cells).
        """
        if not self.rows:
            return []
        first, last = self.rows[0][0], self.rows[-1][0]
        height = last - first + 1
        total = height * self.width
        if total > self.present + EMPTY_CELL_ALLOWANCE:
            raise DataImportError(
                f"Sheet '{sheet}' of '{file}' spans {height:,} rows and {self.width:,} "
                f"columns but has only {self.present:,} non-empty cells; delete the stray "
                "cells far from the data (Ctrl+End in Excel shows the last one) and save again.")
        table = [[""] * self.width for _ in range(height)]
        for index, cells in self.rows:
            row = table[index - first]
            for column, text in cells:
                row[column] = text
        return table


def _read_cells(worksheet: Any, file: Path, sheet: str) -> _SparseCells:
    from xml.etree.ElementTree import ParseError

    try:
        return _text_cells(worksheet.iter_rows(values_only=True))
    except (ParseError, SyntaxError, zipfile.BadZipFile, zlib.error, EOFError, KeyError,
            ValueError, TypeError) as exc:
        raise DataImportError(
            f"Sheet '{sheet}' of '{file}' is damaged and cannot be read ({exc}); open and "
            "save it again in Excel, or export it as CSV.") from None


def _text_cells(rows: Iterator[tuple[Any, ...]]) -> _SparseCells:
    """The non-empty cells of ``rows`` as strings, with their row and column index.

    Excel cells are Python objects from openpyxl anyway, so a per-cell loop is the
    floor; a cache keyed by (type, value) avoids formatting repeated values again
    (keyed by type because True == 1 in Python but they read differently).
    """
    cache: dict[tuple[type, Any], str] = {}
    cells = _SparseCells()
    for index, row in enumerate(rows):
        texts = []
        for column, value in enumerate(row):
            if value is None or value == "":
                continue
            key = (value.__class__, value)
            text = cache.get(key)
            if text is None:
                text = format_value(value, EXCEL_DIGITS)
                cache[key] = text
            texts.append((column, text))
        cells.add(index, texts)
    return cells


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
    except (zipfile.BadZipFile, InvalidFileException, KeyError, ValueError, OSError,
            SyntaxError, TypeError, AttributeError, zlib.error, EOFError) as exc:
        # SyntaxError covers xml.etree's ParseError: malformed or entity-laden XML.
        raise DataImportError(
            f"'{file}' is not a readable Excel .xlsx workbook ({exc}); choose an .xlsx file."
        ) from None
    try:
        yield file, workbook
    finally:
        workbook.close()
