"""CSV import: format detection, preview and strict, fast reading into string tables.

:func:`sniff_csv` looks at the start of a file and guesses its :class:`CsvFormat`
(delimiter, quote character, encoding, header), which an import wizard shows and lets
the user change; :func:`preview_csv` and :func:`read_csv` then read with that format.

Reading is strict: every record must have as many fields as the first one, otherwise
a :class:`DataImportError` names the physical line (1-based, counting every line
break, also those inside quoted cells). Completely blank lines (empty or only spaces
and tabs) are skipped, as pandas does. Cells are kept exactly as written: no
whitespace stripping, and missing-value spellings stay strings, never NaN.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import sys
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path

import numpy as np
import pandas as pd

from arxpy.data.types import MISSING_VALUES, looks_typed
from arxpy.data.value_checks import DataWarning
from arxpy.errors import DataImportError
from arxpy.jobs import InterruptWatch

CANDIDATE_DELIMITERS: tuple[str, ...] = (",", ";", "\t", "|")
CANDIDATE_QUOTES: tuple[str, ...] = ('"', "'")
DEFAULT_SAMPLE_BYTES = 64 * 1024
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}

# Tried in this order when the encoding was guessed and a later byte does not decode.
_FALLBACK_ENCODINGS = {"utf-8": "cp1252", "cp1252": "latin-1"}


@dataclass(frozen=True)
class CsvFormat:
    """How a CSV file is written: what :func:`sniff_csv` detects and a user may change.

    ``delimiter`` and ``quotechar`` are single characters; ``encoding`` is a Python
    codec name (``"utf-8-sig"`` for UTF-8 with a byte order mark); ``has_header`` says
    whether the first record holds the column names.
    """

    delimiter: str = ","
    quotechar: str = '"'
    encoding: str = "utf-8"
    has_header: bool = True

    def __post_init__(self) -> None:
        for label, char in (("Delimiter", self.delimiter), ("Quote character", self.quotechar)):
            if len(char) != 1 or char in "\r\n":
                raise DataImportError(
                    f"{label} must be one character other than a line break, got {char!r}."
                )
        if self.delimiter == self.quotechar:
            raise DataImportError(
                f"Delimiter and quote character are both {self.delimiter!r}; choose different ones."
            )
        if not is_text_encoding(self.encoding):
            raise DataImportError(
                f"Unknown encoding '{self.encoding}' (not a text encoding Python knows); use "
                "for example utf-8, cp1252 or latin-1."
            )


def is_text_encoding(name: str) -> bool:
    """Is ``name`` a codec that reads bytes as text? (``rot13`` or ``zlib`` are codecs
    too, but not text encodings: opening a file with them raises LookupError.)"""
    try:
        info = codecs.lookup(name)
    except (LookupError, TypeError, ValueError):
        return False
    # "undefined" raises on any use.
    return getattr(info, "_is_text_encoding", True) and info.name != "undefined"


def sniff_csv(
    path: str | os.PathLike[str],
    sample_bytes: int = DEFAULT_SAMPLE_BYTES,
    *,
    delimiter: str | None = None,
    quotechar: str | None = None,
    encoding: str | None = None,
    has_header: bool | None = None,
) -> CsvFormat:
    """Guess the format of a CSV file from its first ``sample_bytes`` bytes.

    Settings passed explicitly are kept and the others are detected given them:
    encoding (byte order mark, else UTF-8, else cp1252, else latin-1), quote character
    (``'`` only if fields open with it, none with ``"``, and its quotes parse cleanly
    and hold a delimiter or open half the fields: :func:`_detect_quote`), delimiter (the candidate
    under which quotes parse cleanly and most records have the same number of fields,
    at least two; see :func:`_detect_delimiter` for ties) and header
    (no header if a first-row cell is a number or date, or also occurs below it in its
    column). Only the sample is examined; :func:`read_csv` without a format falls back
    to cp1252/latin-1 if a later byte is not UTF-8.
    """
    file = _existing_file(path)
    raw, complete = _read_sample(file, sample_bytes)
    encoding = encoding or _detect_encoding(file, raw, complete)
    text = _decode_sample(file, raw, encoding, complete)
    if not text.strip("\ufeff \t\r\n"):
        raise DataImportError(f"'{file}' is empty; choose a file that contains data.")
    if not complete:
        # The sample ends mid-line: keep whole lines only.
        text = text[: max(text.rfind("\n"), text.rfind("\r")) + 1] or text
    if delimiter is None:
        delimiter = _detect_delimiter(text, quotechar, complete)
    quotechar = quotechar or _detect_quote(text, delimiter)
    if has_header is None:
        has_header = _detect_header(_sample_records(text, delimiter, quotechar, complete)[0])
    return CsvFormat(delimiter, quotechar, encoding, has_header)


def read_csv(
    path: str | os.PathLike[str],
    fmt: CsvFormat | None = None,
    *,
    columns: Sequence[str] | None = None,
    nrows: int | None = None,
    guess_encoding: bool = False,
    categories: bool = False,
) -> pd.DataFrame:
    """Read a CSV file into a DataFrame of strings (RangeIndex, one column per field).

    ``fmt`` None sniffs the format (:func:`sniff_csv`). ``columns`` selects columns by
    name, in the given order; ``nrows`` limits the number of data records read.
    Without a header the columns are named ``Column 1``, ``Column 2``, ...; header
    names are made unique by :func:`make_unique_names`. Raises DataImportError for a
    missing or empty file, undecodable bytes, or a record with the wrong field count.
    With ``guess_encoding`` a given ``fmt``'s encoding is treated as a guess, with the
    same cp1252/latin-1 fallback as a sniffed one. With ``categories`` the columns are
    pandas categoricals of the same strings (codes per cell, each distinct string
    once: a tenth of the memory on repetitive data), for engines that work on codes.
    """
    file = _existing_file(path)
    guessed = fmt is None or guess_encoding
    fmt = fmt or sniff_csv(file)
    while True:
        try:
            return _read(file, fmt, columns, nrows, categories)
        except UnicodeDecodeError:
            fallback = _FALLBACK_ENCODINGS.get(codecs.lookup(fmt.encoding).name)
            if not (guessed and fallback):
                raise DataImportError(_undecodable_message(file, fmt.encoding)) from None
            fmt = replace(fmt, encoding=fallback)


def column_names(path: str | os.PathLike[str], fmt: CsvFormat) -> list[str]:
    """The column names :func:`read_csv` gives, from the first record alone (to check
    a configuration before reading a large file; the read itself warns about duplicates)."""
    file = _existing_file(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DuplicateNamesWarning)
        try:
            first = _check_records(file, fmt, nrows=1 if fmt.has_header else 0)
        except UnicodeDecodeError:
            raise DataImportError(_undecodable_message(file, fmt.encoding)) from None
        if fmt.has_header:
            return make_unique_names(first)
    return [f"Column {i}" for i in range(1, len(first) + 1)]


def preview_csv(
    path: str | os.PathLike[str], fmt: CsvFormat | None = None, rows: int = 20
) -> pd.DataFrame:
    """The first ``rows`` data records, read exactly as :func:`read_csv` would."""
    return read_csv(path, fmt, nrows=rows)


class DuplicateNamesWarning(DataWarning):
    """Two header cells carry the same name; the later one was renamed."""


def make_unique_names(raw: Iterable[object]) -> list[str]:
    """Column names from header cells, unique and non-blank.

    A blank cell at 1-based position ``i`` becomes ``Column i``. The first occurrence
    of a name keeps it; a later duplicate gets the smallest suffix `` (k)``, k >= 2,
    that is neither another header cell nor already given (``a, a`` -> ``a, a (2)``),
    and a :class:`DuplicateNamesWarning` says so: the renamed copy is an attribute of
    its own, released as it is unless it is given a role.
    """
    names = [str(v) if str(v).strip() else f"Column {i}" for i, v in enumerate(raw, 1)]
    originals = set(names)
    used: set[str] = set()
    unique = []
    for name in names:
        candidate, k = name, 2
        while candidate in used:
            candidate = f"{name} ({k})"
            k += 1
            if candidate in originals:
                candidate = name  # keep looking: that name belongs to another column
        used.add(candidate)
        unique.append(candidate)
    renamed = [(name, new) for name, new in zip(names, unique, strict=True) if name != new]
    if renamed:
        shown = ", ".join(f"a second '{name}' is '{new}'" for name, new in renamed[:5])
        warnings.warn(DuplicateNamesWarning(
            f"Columns share a name ({shown}). Each copy is an attribute of its own and is "
            "released as it is unless you give it a role; rename or remove duplicates "
            "in the source if they hold the same data."), stacklevel=2)
    return unique


def _read(
    file: Path, fmt: CsvFormat, columns: Sequence[str] | None, nrows: int | None,
    categories: bool = False,
) -> pd.DataFrame:
    if categories and nrows is None:
        frame = _read_with_arrow(file, fmt, columns)
        if frame is not None:
            return frame
    counted = _count_bytes(file, fmt) if nrows is None else None
    if counted is None:  # a preview, quotes or another encoding: the csv module checks
        _refuse_nul_bytes(file, fmt)
        first = _check_records(file, fmt, nrows)
    else:  # checked after reading, from the delimiter count
        first = _first_record(file, fmt)
    if fmt.has_header:
        names = make_unique_names(first)
    else:
        names = [f"Column {i}" for i in range(1, len(first) + 1)]
    if columns is not None:
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise DataImportError(
                f"'{file}' has no column {', '.join(repr(c) for c in unknown)}; "
                f"its columns are: {', '.join(names)}."
            )
    watch = InterruptWatch()
    try:
        with watch, warnings.catch_warnings():
            # A first record longer than the header would lose cells (pandas warns).
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = _parse(file, fmt, names, columns, nrows, categories, fmt.has_header)
    except (pd.errors.ParserError, pd.errors.ParserWarning) as exc:
        watch.reraise()  # a Ctrl-C, not a damaged file
        if counted is not None:  # not checked before: name the line if it is one
            _raise_ragged(file, fmt, len(first), None)
        # Only where pandas and the csv module disagree (already checked above).
        raise DataImportError(
            f"'{file}' could not be read: {exc}. Check the delimiter and quote character."
        ) from None
    if counted is not None and counted != (len(first) - 1) * (len(frame) + fmt.has_header):
        # pandas raises for a record with too many fields, so a record has too few
        # (or a blank line of spaces, which the exact check lets pass).
        _raise_ragged(file, fmt, len(first), None)
    return frame[list(columns)] if columns is not None else frame


def _parse(source: Path, fmt: CsvFormat, names: list[str],
           columns: Sequence[str] | None, nrows: int | None, categories: bool,
           header: bool) -> pd.DataFrame:
    """pandas' C parser with arxpy's settings: every cell a string, as written."""
    return pd.read_csv(
        source,
        sep=fmt.delimiter,
        quotechar=fmt.quotechar,
        encoding=fmt.encoding,
        header=0 if header else None,
        names=names,
        usecols=list(columns) if columns is not None else None,
        nrows=nrows,
        index_col=False,
        # Categories keep one string per distinct value (codes per cell).
        dtype="category" if categories else str,
        keep_default_na=False,
        na_filter=False,
        skip_blank_lines=True,
        quoting=csv.QUOTE_MINIMAL,
        doublequote=True,
        engine="c",
    )


def _read_with_arrow(file: Path, fmt: CsvFormat, columns: Sequence[str] | None
                     ) -> pd.DataFrame | None:
    """The table as categories, or None when this file needs pandas' reader (which then
    gives the errors and messages): a plain file by the compiled reader
    (:mod:`arxpy.data.csv_codes`), anything else by pyarrow's multi-threaded reader.

    Only a UTF-8 file that starts with its first record: pyarrow checks every record's
    field count itself and refuses what pandas would read differently (a line of only
    spaces, a quoted line break, invalid UTF-8); anything it refuses is read again by
    pandas, so a file reads to the same strings either way
    (tests/test_histogram_route.py)."""
    if codecs.lookup(fmt.encoding).name not in ("utf-8", "utf-8-sig"):
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as pa_csv
    except ImportError:
        return None
    with open(file, "rb") as handle:
        start = handle.read(4).removeprefix(codecs.BOM_UTF8)
    if start[:1] in (b"", b"\n", b"\r"):
        return None  # blank lines first: pandas skips them before the header
    first = _first_record(file, fmt)
    names = make_unique_names(first) if fmt.has_header else \
        [f"Column {i}" for i in range(1, len(first) + 1)]
    from arxpy.data.csv_codes import read_plain_codes

    frame = read_plain_codes(file, fmt.delimiter, fmt.quotechar, fmt.encoding, first, names,
                             fmt.has_header)
    if frame is not None:  # a plain file: read as codes on every core
        return frame[list(columns)] if columns is not None else frame
    text = pa.dictionary(pa.int32(), pa.string())
    try:
        table = pa_csv.read_csv(
            file,
            read_options=pa_csv.ReadOptions(column_names=names, block_size=1 << 24,
                                            skip_rows=1 if fmt.has_header else 0),
            parse_options=pa_csv.ParseOptions(delimiter=fmt.delimiter,
                                              quote_char=fmt.quotechar, double_quote=True),
            convert_options=pa_csv.ConvertOptions(
                column_types=dict.fromkeys(names, text), strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                include_columns=list(columns) if columns is not None else None))
    except (pa.ArrowInvalid, pa.ArrowKeyError, OSError):
        return None
    frame = table.to_pandas()
    if any("\x00" in value for name in frame for value in frame[name].cat.categories):
        return None  # a NUL byte is in a cell: pandas' path refuses it, saying where
    return frame[list(columns)] if columns is not None else frame


#: Encodings in which the delimiter, quote and line-end bytes are those characters only.
_BYTE_COUNTABLE = frozenset({"utf-8", "utf-8-sig", "cp1252", "latin-1", "iso8859-1", "ascii"})
_COUNT_CHUNK = 1 << 23


def _count_bytes(file: Path, fmt: CsvFormat) -> int | None:
    """The number of delimiters in ``file`` when counting them checks the field counts.

    That holds without the quote character (no quoted delimiters or line breaks), without
    a lone carriage return (a line end for the csv module, not for pandas), and in an
    encoding where these characters are single bytes no other character contains. Then
    every record has ``n`` fields exactly when pandas reads it without error (it refuses
    longer records) and the file holds ``(n - 1) * records`` delimiters. One pass in C,
    instead of the csv module's; it also refuses NUL bytes. None: check the slow way.
    """
    if codecs.lookup(fmt.encoding).name not in _BYTE_COUNTABLE or not fmt.delimiter.isascii():
        return None
    delimiter, quote = fmt.delimiter.encode(), fmt.quotechar.encode()
    delimiters, offset, lone_returns, last = 0, 0, 0, b""
    with open(file, "rb") as handle:
        while chunk := handle.read(_COUNT_CHUNK):
            at = chunk.find(b"\x00")
            if at != -1:
                _refuse_nul_at(file, offset + at)
            if quote in chunk:
                return None
            delimiters += chunk.count(delimiter)
            # carriage returns not followed by a line feed (one may end the last chunk)
            returns = chunk.count(b"\r")
            lone_returns += returns and returns - chunk.count(b"\r\n")
            lone_returns -= last == b"\r" and chunk.startswith(b"\n")
            offset, last = offset + len(chunk), chunk[-1:]
    return None if lone_returns else delimiters


def _first_record(file: Path, fmt: CsvFormat) -> list[str]:
    """The first non-blank record (the header, or the first data record)."""
    _allow_large_fields()
    with open(file, encoding=fmt.encoding, newline="") as handle:
        first = next((r for r in _reader(handle, fmt) if r and not _is_blank(r)), None)
    if first is None:
        raise DataImportError(f"'{file}' is empty; choose a file that contains data.")
    if first[0].startswith("\ufeff"):  # a byte order mark read as text
        first[0] = first[0][1:]
    return first


def _refuse_nul_bytes(file: Path, fmt: CsvFormat) -> None:
    """A NUL byte ends a cell early in pandas' parser: refuse instead of truncating.

    The sniffed sample is checked when the encoding is detected; this covers the rest
    of the file (UTF-16 and UTF-32 text has NUL bytes by design).
    """
    if codecs.lookup(fmt.encoding).name.startswith(("utf-16", "utf-32")):
        return
    offset = 0
    with open(file, "rb") as handle:
        while chunk := handle.read(1 << 20):
            at = chunk.find(b"\x00")
            if at != -1:
                _refuse_nul_at(file, offset + at)
            offset += len(chunk)


def _refuse_nul_at(file: Path, offset: int) -> None:
    raise DataImportError(
        f"'{file}' contains a NUL byte at byte {offset:,}; it is not a text file or it is "
        "damaged. Remove the NUL characters or export the data again.")


def _check_records(file: Path, fmt: CsvFormat, nrows: int | None) -> list[str]:
    """The first record, after checking the field count of the records to be read.

    The count check runs in C (``map(len, csv.reader)`` into numpy); only when a
    mismatch shows up is the file read again record by record to name the line.
    """
    _allow_large_fields()
    with open(file, encoding=fmt.encoding, newline="") as handle:
        records = filter(None, _reader(handle, fmt))  # drops empty lines
        first = next((r for r in records if not _is_blank(r)), None)
        if first is None:
            raise DataImportError(f"'{file}' is empty; choose a file that contains data.")
        if nrows is None:
            limit = None
        else:
            limit = max(nrows - (0 if fmt.has_header else 1), 0)
        counts = np.fromiter(map(len, islice(records, limit)), dtype=np.int64)
    if (counts != len(first)).any():  # or lines of only spaces, which are blank
        _raise_ragged(file, fmt, len(first), limit)
    if first[0].startswith("\ufeff"):  # a byte order mark read as text
        first[0] = first[0][1:]
    return first


def _raise_ragged(file: Path, fmt: CsvFormat, expected: int, limit: int | None) -> None:
    """Raise for the first record whose field count differs; blank lines are fine.

    Looks at the first record and at most ``limit`` more (all when None).
    """
    with open(file, encoding=fmt.encoding, newline="") as handle:
        reader = _reader(handle, fmt)
        first_line, line_end, checked = None, 0, 0
        for record in reader:
            line, line_end = line_end + 1, reader.line_num
            if _is_blank(record):
                continue
            if first_line is None:
                first_line = line
                continue
            if limit is not None and checked >= limit:
                return
            checked += 1
            if len(record) != expected:
                what = "header" if fmt.has_header else "first record"
                delimiter = DELIMITER_NAMES.get(fmt.delimiter, repr(fmt.delimiter))
                raise DataImportError(
                    f"'{file}', line {line}: expected {expected} fields like the {what} on "
                    f"line {first_line}, found {len(record)}. Check the delimiter ({delimiter}) "
                    "and quote character, or fix the line."
                )


def _reader(handle: Iterable[str], fmt: CsvFormat) -> Iterator[list[str]]:
    return csv.reader(
        handle, delimiter=fmt.delimiter, quotechar=fmt.quotechar, doublequote=True, strict=False
    )


def _is_blank(record: list[str]) -> bool:
    """Empty lines and lines of only spaces/tabs, which pandas skips."""
    return not record or (len(record) == 1 and not record[0].strip(" \t"))


def _allow_large_fields() -> None:
    # The csv module refuses fields over 128 KiB by default; long free texts exist.
    limit = min(sys.maxsize, 2**31 - 1)
    if csv.field_size_limit() < limit:
        csv.field_size_limit(limit)


def _existing_file(path: str | os.PathLike[str]) -> Path:
    file = Path(path)
    if not file.exists():
        raise DataImportError(f"'{file}' does not exist; check the file name and folder.")
    if not file.is_file():
        raise DataImportError(f"'{file}' is not a file; choose a CSV file.")
    return file


def _read_sample(file: Path, sample_bytes: int) -> tuple[bytes, bool]:
    """The first ``sample_bytes`` bytes and whether they are the whole file."""
    try:
        with open(file, "rb") as handle:
            raw = handle.read(sample_bytes + 1)
    except OSError as exc:
        raise DataImportError(f"'{file}' cannot be read: {exc.strerror or exc}.") from None
    return raw[:sample_bytes], len(raw) <= sample_bytes


def _detect_encoding(file: Path, raw: bytes, complete: bool) -> str:
    if raw.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in raw:
        raise DataImportError(
            f"'{file}' is not a text file (it contains NUL bytes). Choose a CSV file, "
            "or use the Excel or SQLite import for those formats."
        )
    for encoding in ("utf-8", "cp1252"):
        try:
            codecs.getincrementaldecoder(encoding)().decode(raw, final=complete)
        except UnicodeDecodeError:
            continue
        return encoding
    return "latin-1"  # decodes any byte


def _decode_sample(file: Path, raw: bytes, encoding: str, complete: bool) -> str:
    try:
        return codecs.getincrementaldecoder(encoding)().decode(raw, final=complete)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise DataImportError(
            f"'{file}', line {line}: the byte 0x{raw[exc.start]:02X} is not valid {encoding} "
            "text. Choose the file's encoding (for example cp1252 or latin-1)."
        ) from None


def _undecodable_message(file: Path, encoding: str) -> str:
    data = file.read_bytes()
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return (
            f"'{file}', line {line}: the byte 0x{data[exc.start]:02X} is not valid "
            f"{encoding} text. Choose the file's encoding in the import settings (files "
            "saved by Excel on Windows are often cp1252 or latin-1)."
        )
    return f"'{file}' is not valid {encoding} text; choose the file's encoding."


def _sample_records(
    text: str, delimiter: str, quotechar: str, complete: bool
) -> tuple[list[list[str]], bool]:
    """Non-blank records of the sample and whether they parse cleanly.

    Clean means no quoting errors in the csv module's strict mode (text after a
    closing quote, a quote left open); an open quote at the end of a cut-off sample
    does not count. The last record is dropped if the sample may have cut it off.
    """
    def parse(strict: bool) -> Iterator[list[str]]:
        return csv.reader(
            io.StringIO(text, newline=""), delimiter=delimiter, quotechar=quotechar, strict=strict
        )

    clean = True
    try:
        records = list(parse(strict=True))
    except csv.Error:
        clean = not complete and _open_quote_at_end(parse(strict=True))
        records = list(parse(strict=False))
    records = [r for r in records if not _is_blank(r)]
    return (records if complete or len(records) < 2 else records[:-1]), clean


def _open_quote_at_end(reader: Iterator[list[str]]) -> bool:
    """True if the strict reader fails only because the text ends inside quotes."""
    try:
        for _ in reader:
            pass
    except csv.Error as exc:
        return "end of data" in str(exc)
    return True


def _detect_quote(text: str, delimiter: str) -> str:
    """``'`` only if some field opens with it, none opens with ``"``, and the quotes do
    work: they hold a delimiter or a line break (the records split otherwise under
    ``"``), or they open at least half of the fields. A value that merely starts with an
    apostrophe (``'t Hooft``, ``'single'``) keeps it: under ``'`` it would lose it."""
    def openings(quote: str) -> int:
        pattern = f"(?:^|{re.escape(delimiter)}){re.escape(quote)}"
        return len(re.findall(pattern, text, re.MULTILINE))

    single = openings("'")
    if not single or openings('"'):
        return '"'
    by_single, clean = _sample_records(text, delimiter, "'", True)
    if not clean:  # an apostrophe that opens a value but never closes it
        return '"'
    by_double = _sample_records(text, delimiter, '"', True)[0]
    if [len(r) for r in by_single] != [len(r) for r in by_double]:
        return "'"
    return "'" if 2 * single >= sum(len(r) for r in by_double) else '"'


def _detect_delimiter(text: str, quotechar: str | None, complete: bool) -> str:
    """The candidate whose records most often share one field count (at least 2).

    A candidate under which the quoting parses cleanly beats one under which it does
    not; ties go to the candidate found more often next to a quote character, then to
    the larger field count, then to the order of CANDIDATE_DELIMITERS.
    With no candidate splitting the records, the file has one column and ``,``.
    """
    best, best_score = ",", None
    for index, delimiter in enumerate(CANDIDATE_DELIMITERS):
        quote = quotechar or _detect_quote(text, delimiter)
        records, clean = _sample_records(text, delimiter, quote, complete)
        if not records:
            continue
        fields, frequency = Counter(len(r) for r in records).most_common(1)[0]
        if fields < 2:
            continue
        # Quotes next to a delimiter are evidence that fields are quoted around it.
        adjacent = text.count(delimiter + quote) + text.count(quote + delimiter)
        score = (clean, frequency / len(records), adjacent, fields, -index)
        if best_score is None or score > best_score:
            best, best_score = delimiter, score
    return best


def _detect_header(records: list[list[str]]) -> bool:
    """Whether the first record names the columns (see :func:`sniff_csv`)."""
    if not records:
        return True
    first, body = records[0], records[1:]
    present = [(j, v) for j, v in enumerate(first) if v.strip().lower() not in MISSING_VALUES]
    if any(looks_typed(value) for _, value in present):
        return False
    for j, value in present:
        if any(j < len(record) and record[j] == value for record in body):
            return False
    return True
