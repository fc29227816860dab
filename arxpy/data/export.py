"""Writing tables to CSV or Excel, atomically.

CSV output is what :func:`arxpy.data.csv_io.sniff_csv` reads back unambiguously:
a header row, ``\\n`` line ends, and ``"``-quoting (quotes doubled) for every cell
that contains any candidate delimiter (``, ; | tab``), either quote character, a
line break, or leading/trailing spaces or tabs; in a one-column table also empty
cells (a blank line would be skipped on reading). Excel output writes a cell as a
number only if reading it back gives the same text (``"39"``, ``"1.5"``, but not
``"007"``); empty strings become empty cells; everything else, including text
starting with ``=``, is written as text.
"""

from __future__ import annotations

import codecs
import os
import queue
import re
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.arrays import first_appearances
from arxpy.data.atomic import atomic_write
from arxpy.data.codes import combine_codes
from arxpy.data.csv_codes import encoded_cells, format_rows
from arxpy.data.csv_io import CANDIDATE_DELIMITERS, CANDIDATE_QUOTES
from arxpy.data.excel_io import EXCEL_DIGITS
from arxpy.data.formulas import (
    FormulaWarning,
    describe_formula_values,
    formula_like_examples,
    neutralize,
)
from arxpy.data.types import canonical_number, format_value
from arxpy.errors import DataExportError

FORMATS_BY_SUFFIX = {".csv": "csv", ".txt": "csv", ".tsv": "csv", ".xlsx": "xlsx"}
EXCEL_MAX_ROWS = 1_048_576
EXCEL_MAX_COLUMNS = 16_384
EXCEL_MAX_TEXT = 32_767
# Characters openpyxl (and the xlsx format) refuse in cell text.
_EXCEL_ILLEGAL = re.compile(r"[\000-\010\013\014\016-\037]")
_EXCEL_ERROR_CODES = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"})


def export_table(
    frame: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    delimiter: str | None = None,
    encoding: str = "utf-8",
    sheet_name: str = "Data",
    neutralize_formulas: bool = False,
    digest: Any = None,
    row_order: np.ndarray | None = None,
) -> Path:
    """Write ``frame`` (header plus one row per record) to ``path`` and return the path.

    ``format`` is ``"csv"`` or ``"xlsx"``; None chooses by extension (.csv, .txt, .tsv,
    .xlsx). CSV uses ``delimiter`` (default ``,``; tab for .tsv) and ``encoding``.
    Non-string cells are formatted like imported values; None/NaN become ``""``.
    The file is replaced only when completely written (:func:`atomic_write`); any
    failure raises DataExportError naming the path and leaves an old file untouched.

    CSV cells and headers a spreadsheet would run as formulas (see
    :mod:`arxpy.data.formulas`) get a leading ``'`` with ``neutralize_formulas``;
    without it they are written as they are and a :class:`FormulaWarning` says where.
    Excel output always stores them as text cells, which Excel never evaluates.
    A ``digest`` (a :mod:`hashlib` object) is updated with every CSV byte written.
    ``row_order`` (positions) writes the rows as ``frame.iloc[row_order]`` would, the
    file's blocks gathered as they are written (no reordered copy of the table first).
    """
    target = Path(path)
    kind = _choose_format(target, format)
    if frame.shape[1] == 0:
        raise DataExportError(f"Cannot write '{target}': the table has no columns.")
    if row_order is not None and (kind != "csv" or not _all_categorical(frame)):
        # the formula check's examples follow the row order outside categoricals
        frame, row_order = frame.iloc[row_order].reset_index(drop=True), None
    columns = [frame.iloc[:, j] for j in range(frame.shape[1])]
    names = [format_value(name) for name in frame.columns]
    if kind == "csv":
        if delimiter is None:
            delimiter = "\t" if target.suffix.lower() == ".tsv" else ","
        if neutralize_formulas:
            names = [neutralize(name) for name in names]
        _write_csv(target, names, columns, delimiter, encoding, neutralize_formulas, digest,
                   row_order)
        if not neutralize_formulas:
            _warn_about_formulas(target, names, columns)
    else:
        _write_xlsx(target, names, columns, sheet_name)
    return target


#: Records per piece of CSV text: the text of a table is built and written in pieces.
CSV_CHUNK_ROWS = 1 << 19

#: Records per block of bytes from the compiled formatter: small enough (a few MB) for
#: the allocator to reuse a block's memory for the next instead of mapping fresh pages.
FORMAT_CHUNK_ROWS = 1 << 14


def csv_text(names: Sequence[str], columns: Sequence[pd.Series], delimiter: str = ",",
             neutralize_formulas: bool = False) -> str:
    """The CSV text of a header and columns, formatted and quoted as described above
    (cells neutralised against formula injection with ``neutralize_formulas``)."""
    return "".join(csv_pieces(names, columns, delimiter, neutralize_formulas))


def csv_pieces(names: Sequence[str], columns: Sequence[pd.Series], delimiter: str = ",",
               neutralize_formulas: bool = False) -> Iterator[str]:
    """:func:`csv_text` in pieces of at most :data:`CSV_CHUNK_ROWS` records (the header
    first), so that a large table is never whole in memory as text."""
    pattern = _checked_pattern(delimiter, names)
    yield _header(names, pattern, delimiter)
    yield from _text_blocks(_coded_cells(columns, pattern, neutralize_formulas), delimiter)


def _checked_pattern(delimiter: str, names: Sequence[str]) -> str:
    if len(delimiter) != 1 or delimiter in "\r\n" + "".join(CANDIDATE_QUOTES):
        raise DataExportError(
            f"Delimiter {delimiter!r} cannot be used; choose one character such as , ; | or tab."
        )
    return quoting_pattern(delimiter, single_column=len(names) == 1)


def _header(names: Sequence[str], pattern: str, delimiter: str) -> str:
    return delimiter.join(quote_cells(np.array(names, dtype=object), pattern)) + "\n"


def _coded_cells(columns: Sequence[pd.Series], pattern: str, neutralize_formulas: bool
                 ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per column: codes, and the distinct cells as written (formatted, quoted)."""
    coded = []
    for column in columns:
        codes, texts = _distinct_texts(column)
        if neutralize_formulas:
            texts = np.array([neutralize(t) for t in texts], dtype=object)
        coded.append((codes, quote_cells(texts, pattern)))
    return coded


def _text_blocks(coded: Sequence[tuple[np.ndarray, np.ndarray]], delimiter: str,
                 row_order: np.ndarray | None = None) -> Iterator[str]:
    for rows in _blocks(coded, CSV_CHUNK_ROWS, row_order):
        lines = _distinct_lines([(codes[rows], cells) for codes, cells in coded], delimiter)
        yield "\n".join(lines.tolist()) + "\n"


def _blocks(coded: Sequence[tuple[np.ndarray, np.ndarray]], size: int,
            row_order: np.ndarray | None) -> Iterator[slice | np.ndarray]:
    """The rows of each block of ``size`` records: a slice, or positions in ``row_order``."""
    rows = len(coded[0][0]) if coded else 0
    for start in range(0, rows, size):
        block = slice(start, start + size)
        yield block if row_order is None else row_order[block]


def _all_categorical(frame: pd.DataFrame) -> bool:
    return all(isinstance(dtype, pd.CategoricalDtype) for dtype in frame.dtypes)


def _csv_bytes(target: Path, names: Sequence[str], columns: Sequence[pd.Series],
               delimiter: str, encoding: str, neutralize_formulas: bool,
               row_order: np.ndarray | None = None) -> Iterator[bytes]:
    """The bytes :func:`csv_pieces` gives encoded, in pieces: each block's lines copied
    from the encoded cells by the compiled formatter where it was built and every cell
    encodes (else the text pieces encoded, which also names a character that does not)."""
    pattern = _checked_pattern(delimiter, names)
    yield _encoded(target, _header(names, pattern, delimiter), encoding)
    coded = _coded_cells(columns, pattern, neutralize_formulas)
    cells = encoded_cells([texts for _, texts in coded], encoding)
    if cells is None or not delimiter.isascii():
        for text in _text_blocks(coded, delimiter, row_order):
            yield _encoded(target, text, encoding)
        return
    for rows in _blocks(coded, FORMAT_CHUNK_ROWS, row_order):
        yield format_rows([codes[rows] for codes, _ in coded], cells, delimiter)


def _distinct_lines(coded: Sequence[tuple[np.ndarray, np.ndarray]], delimiter: str
                    ) -> np.ndarray:
    """The line of each record: records equal in every cell share one joined string
    (health tables repeat rows: 10^7 records are often 10^5 distinct lines)."""
    key, _ = combine_codes([codes for codes, _ in coded],
                           radices=[len(cells) for _, cells in coded])
    inverse, uniques = pd.factorize(key, sort=False)
    first = first_appearances(inverse)
    # join in C: one tuple per distinct line, no Python-level loop body
    lines = map(delimiter.join, zip(*(cells[codes[first]] for codes, cells in coded),
                                    strict=True))
    return np.fromiter(lines, dtype=object, count=len(uniques))[inverse]


def quoting_characters(delimiter: str) -> str:
    """The characters that put a CSV cell in double quotes (so that any reader, whatever
    delimiter it guesses, reads the cell back); a leading or trailing space or tab does
    too, and so does an empty cell in a one-column file."""
    specials = set(CANDIDATE_DELIMITERS) | set(CANDIDATE_QUOTES) | {delimiter, "\r", "\n"}
    return "".join(sorted(specials))


def quoting_pattern(delimiter: str, single_column: bool = False) -> str:
    """A regular expression matching the cells to quote (see :func:`quoting_characters`)."""
    pattern = "[" + re.escape(quoting_characters(delimiter)) + r"]|^[ \t]|[ \t]$"
    return pattern + "|^$" if single_column else pattern


def _choose_format(target: Path, format: str | None) -> str:
    if format is None:
        kind = FORMATS_BY_SUFFIX.get(target.suffix.lower())
        if kind is None:
            raise DataExportError(
                f"Cannot tell the format of '{target}' from its extension; "
                "use .csv, .tsv, .txt or .xlsx, or choose the format."
            )
        return kind
    kind = {"csv": "csv", "xlsx": "xlsx", "excel": "xlsx"}.get(format.lower())
    if kind is None:
        raise DataExportError(f"Unknown export format '{format}'; choose 'csv' or 'xlsx'.")
    return kind


def _distinct_texts(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes into the texts of the distinct values; None/NaN get the last text, ""."""
    if isinstance(column.dtype, pd.CategoricalDtype):  # its own codes: no pass over cells
        codes, uniques = column.cat.codes.to_numpy(), column.cat.categories
    else:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
    texts = np.array([format_value(u) for u in uniques] + [""], dtype=object)
    missing = codes < 0
    if missing.any():
        codes = np.where(missing, len(uniques), codes.astype(np.int64))
    return codes, texts


def quote_cells(texts: np.ndarray, pattern: str) -> np.ndarray:
    """Texts matching ``pattern`` in double quotes, embedded quotes doubled."""
    series = pd.Series(texts, dtype=object)
    needs = series.str.contains(pattern, regex=True).to_numpy(dtype=bool)
    quoted = texts.copy()
    quoted[needs] = ['"' + t.replace('"', '""') + '"' for t in texts[needs]]
    return quoted


def _warn_about_formulas(target: Path, names: list[str], columns: list[pd.Series]) -> None:
    examples = formula_like_examples(dict(zip(names, columns, strict=True)), names)
    if examples:
        warnings.warn(f"'{target}': {describe_formula_values(examples)}; neutralise them "
                      "(--neutralize-formulas) if the file will be opened in a spreadsheet.",
                      FormulaWarning, stacklevel=3)


def _write_csv(
    target: Path, names: list[str], columns: list[pd.Series], delimiter: str, encoding: str,
    neutralize_formulas: bool = False, digest: Any = None, row_order: np.ndarray | None = None,
) -> None:
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise DataExportError(
            f"Cannot write '{target}': unknown encoding '{encoding}'; use for example utf-8."
        ) from None
    with atomic_write(target, "wb") as handle, _BackgroundWrites(handle, digest) as sink:
        for data in _csv_bytes(target, names, columns, delimiter, encoding,
                               neutralize_formulas, row_order):
            sink.write(data)


class _BackgroundWrites:
    """Writes (and hashes) byte pieces on a thread while the caller builds the next:
    file writes and SHA-256 updates release the GIL, so they overlap the text building
    of a large export. At most four pieces wait; the writer's error is raised in the
    caller, and the caller's error stops the writer before the file is discarded."""

    _DONE = None

    def __init__(self, handle: Any, digest: Any) -> None:
        self._handle, self._digest = handle, digest
        self._pieces: queue.Queue[bytes | None] = queue.Queue(maxsize=4)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="arxpy-csv-writer", daemon=True)

    def __enter__(self) -> _BackgroundWrites:
        self._thread.start()
        return self

    def write(self, data: bytes) -> None:
        self._raise_error()
        self._pieces.put(data)

    def __exit__(self, *exc_info: object) -> None:
        self._pieces.put(self._DONE)
        self._thread.join()
        if exc_info[0] is None:
            self._raise_error()

    def _run(self) -> None:
        while (data := self._pieces.get()) is not self._DONE:
            if self._error is not None:
                continue  # drain: the caller stops at its next write
            try:
                self._handle.write(data)
                if self._digest is not None:
                    self._digest.update(data)
            except BaseException as exc:  # raised again in the caller's thread
                self._error = exc

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error


def _encoded(target: Path, text: str, encoding: str) -> bytes:
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        snippet = text[max(exc.start - 15, 0) : exc.end + 15].replace("\n", " ")
        raise DataExportError(
            f"Cannot write '{target}' as {encoding}: the character {text[exc.start]!r} "
            f"(in '{snippet}') has no {encoding} code. Choose the UTF-8 encoding."
        ) from None


def _write_xlsx(target: Path, names: list[str], columns: list[pd.Series], sheet: str) -> None:
    from openpyxl import Workbook  # imported here: only Excel users pay for it

    if len(columns[0]) + 1 > EXCEL_MAX_ROWS or len(columns) > EXCEL_MAX_COLUMNS:
        raise DataExportError(
            f"Cannot write '{target}': {len(columns[0])} rows x {len(columns)} columns exceed "
            f"Excel's limit of {EXCEL_MAX_ROWS - 1} rows x {EXCEL_MAX_COLUMNS} columns; "
            "export to CSV instead."
        )
    if not 1 <= len(sheet) <= 31 or any(c in sheet for c in "[]:*?/\\"):
        raise DataExportError(
            f"Sheet name '{sheet}' is not allowed in Excel; use 1 to 31 characters "
            "without [ ] : * ? / \\."
        )
    # Convert (and check) everything first, so a bad value stops before any writing.
    header = [_excel_cells(target, name, [name])[0] for name in names]
    values = [_excel_cells(target, n, c) for n, c in zip(names, columns, strict=True)]
    workbook = Workbook(write_only=True)
    worksheet = workbook.create_sheet(sheet)
    worksheet.append([_bind(worksheet, cell) for cell in header])
    if any(any(isinstance(v, _Text) for v in column) for column in values):
        rows = ([_bind(worksheet, v) for v in row] for row in zip(*values, strict=True))
    else:  # the common case: no per-cell work beyond openpyxl's own
        rows = (list(row) for row in zip(*values, strict=True))
    for row in rows:
        worksheet.append(row)
    try:
        with atomic_write(target, "wb") as handle:
            workbook.save(handle)
    except BaseException:
        with suppress(Exception):
            worksheet.close()  # finish openpyxl's pending writer instead of at garbage collection
        raise


class _Text(str):
    """Text openpyxl would misread (a formula or error code); written as a text cell."""


def _bind(worksheet: object, value: object) -> object:
    if not isinstance(value, _Text):
        return value
    from openpyxl.cell import WriteOnlyCell

    # A fresh cell each time: openpyxl reuses the cell object for the next value.
    cell = WriteOnlyCell(worksheet, value=str(value))
    cell.data_type = "s"
    return cell


def _excel_cells(target: Path, name: str, column: pd.Series | list[str]) -> np.ndarray:
    """Per cell: a number when it reads back as the same text, else the text."""
    codes, texts = _distinct_texts(pd.Series(column, dtype=object))
    converted = np.empty(len(texts), dtype=object)
    for i, text in enumerate(texts):
        bad = _EXCEL_ILLEGAL.search(text)
        if bad or len(text) > EXCEL_MAX_TEXT:
            problem = (
                f"contains the control character {bad.group()!r}"
                if bad
                else f"is longer than {EXCEL_MAX_TEXT} characters"
            )
            raise DataExportError(
                f"Cannot write '{target}': a value of column '{name}' {problem}, which Excel "
                "does not allow. Fix the value or export to CSV."
            )
        number = canonical_number(text, EXCEL_DIGITS)
        if text == "":
            converted[i] = None  # an empty cell; Excel has no empty text
        elif number is not None:
            converted[i] = number
        elif text.startswith("=") or text in _EXCEL_ERROR_CODES:
            converted[i] = _Text(text)
        else:
            converted[i] = text
    return converted[codes]
