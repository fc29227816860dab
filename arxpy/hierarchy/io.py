"""Reading and writing hierarchies in ARX's CSV format.

ARX stores a hierarchy as a CSV file without header: one row per original value,
column 0 the value, column ``i`` its generalization at level ``i``. Fields are
separated by ``;`` and quoted with ``"`` only when needed (a quote inside a quoted
field is doubled), lines end with ``\\n``; this is what ARX's CSV writer produces.

Rows are loaded exactly as written, ragged ones included, so that
:func:`arxpy.hierarchy.validation.validate_hierarchy` can say what is wrong with
them. Blank lines are skipped, as ARX does; row numbers in validation messages count
the records of the file from 1.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from arxpy.data.atomic import atomic_write
from arxpy.data.formulas import neutralize
from arxpy.errors import HierarchyError
from arxpy.hierarchy.model import Hierarchy

QUOTE = '"'
LINE_END = "\n"

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def read_hierarchy(
    path: str | os.PathLike[str], delimiter: str = ";", encoding: str | None = None
) -> Hierarchy:
    """Read an ARX hierarchy CSV file.

    ``encoding=None`` detects it as for data files: a byte-order mark (UTF-8 or
    UTF-16) wins, then UTF-8 if the bytes decode as UTF-8, then cp1252 (Windows),
    otherwise Latin-1. Every field is kept as the exact string in the file (no
    trimming, no missing-value conversion).

    Raises HierarchyError naming the file when it is missing, unreadable, not
    decodable with the given encoding or not valid CSV.
    """
    path = Path(path)
    _check_delimiter(delimiter)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise HierarchyError(f"Hierarchy file {path} does not exist; check the path.") from None
    except IsADirectoryError:
        raise HierarchyError(
            f"{path} is a folder, not a hierarchy file; choose a CSV file."
        ) from None
    except OSError as exc:
        raise HierarchyError(
            f"Cannot read hierarchy file {path}: {exc.strerror or exc}; "
            "check that it exists and that you may read it."
        ) from None
    text = _decode(raw, encoding, path)
    return parse_hierarchy_csv(text, delimiter=delimiter, source=str(path))


def parse_hierarchy_csv(text: str, delimiter: str = ";", source: str = "text") -> Hierarchy:
    """Parse hierarchy CSV text (the content of an ARX hierarchy file).

    ``source`` names where the text came from in error messages. Blank lines are
    skipped; ragged rows are kept as they are.
    """
    _check_delimiter(delimiter)
    reader = csv.reader(
        io.StringIO(text, newline=""),
        delimiter=delimiter,
        quotechar=QUOTE,
        doublequote=True,
        skipinitialspace=False,
        strict=False,
    )
    rows: list[list[str]] = []
    try:
        for row in reader:
            if row:  # csv yields [] for a blank line
                rows.append(row)
    except csv.Error as exc:
        raise HierarchyError(
            f"{source}, line {reader.line_num}: not valid CSV ({exc}); "
            "check the quotes on that line."
        ) from None
    return Hierarchy(rows)


def write_hierarchy(
    hierarchy: Hierarchy, path: str | os.PathLike[str], delimiter: str = ";",
    neutralize_formulas: bool = False,
) -> None:
    """Write ``hierarchy`` as an ARX hierarchy CSV file (UTF-8, ``\\n`` line ends).

    The file is written to a temporary file beside ``path`` and renamed over it, so
    an existing file is either fully replaced or left untouched; HierarchyError names
    the file when it cannot be written. Reading the file back with
    :func:`read_hierarchy` gives an equal hierarchy (unless ``neutralize_formulas``
    prefixed labels a spreadsheet would run as formulas with ``'``).
    """
    if neutralize_formulas:
        hierarchy = Hierarchy([neutralize(v) for v in row] for row in hierarchy.rows)
    text = format_hierarchy_csv(hierarchy, delimiter=delimiter)
    with atomic_write(path, "w", encoding="utf-8", newline="", error_type=HierarchyError) as out:
        out.write(text)


def format_hierarchy_csv(hierarchy: Hierarchy, delimiter: str = ";") -> str:
    """The ARX CSV text of ``hierarchy`` (one line per row, each ending in ``\\n``)."""
    _check_delimiter(delimiter)
    return "".join(_format_row(row, delimiter) + LINE_END for row in hierarchy.rows)


def _format_row(row: tuple[str, ...], delimiter: str) -> str:
    if row == ("",):
        # A lone empty field would be a blank line, which readers skip.
        return QUOTE * 2
    return delimiter.join(_quote(field, delimiter) for field in row)


def _quote(field: str, delimiter: str) -> str:
    # Quote what a CSV reader would otherwise split or trim (ARX's reader trims
    # unquoted leading and trailing blanks).
    needs_quotes = (
        delimiter in field
        or QUOTE in field
        or "\n" in field
        or "\r" in field
        or field != field.strip()
    )
    if not needs_quotes:
        return field
    return QUOTE + field.replace(QUOTE, QUOTE * 2) + QUOTE


def _decode(raw: bytes, encoding: str | None, path: Path) -> str:
    if encoding is not None:
        try:
            return raw.decode(encoding)
        except LookupError:
            raise HierarchyError(
                f"Unknown encoding {encoding!r} for hierarchy file {path}; "
                "use for example UTF-8 or Latin-1."
            ) from None
        except UnicodeDecodeError as exc:
            raise HierarchyError(
                f"Hierarchy file {path} is not valid {encoding} (byte {exc.start}); "
                "choose another encoding or let arxpy detect it."
            ) from None
    for bom, name in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(name)
            except UnicodeDecodeError as exc:
                raise HierarchyError(
                    f"Hierarchy file {path} starts with a {name} byte-order mark but is "
                    f"not valid {name} (byte {exc.start}); re-save it as UTF-8."
                ) from None
    for name in ("utf-8", "cp1252"):
        try:
            return raw.decode(name)
        except UnicodeDecodeError:
            pass
    return raw.decode("latin-1")  # never fails: every byte is a character


def _check_delimiter(delimiter: str) -> None:
    if len(delimiter) != 1 or delimiter in (QUOTE, "\n", "\r"):
        raise HierarchyError(
            f"Delimiter {delimiter!r} cannot separate hierarchy fields; "
            "use one character other than a quote or line break, such as ';'."
        )
