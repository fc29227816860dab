"""SQLite import into string tables (standard-library ``sqlite3``, read-only).

Values become strings: integers as digits, integral reals without ``.0``, other reals
in their shortest exact form, text as stored, blobs as hexadecimal digits, and SQL
``NULL`` as the string ``"NULL"`` (one of arxpy's missing-value spellings, so it is
recognized as missing while staying visible in the table).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from arxpy.data.csv_io import make_unique_names
from arxpy.data.types import format_value
from arxpy.errors import DataImportError

#: The text a SQL NULL becomes.
NULL_TEXT = "NULL"
#: File name endings read as SQLite databases (the import wizard and ``--link``).
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def list_tables(path: str | os.PathLike[str]) -> list[str]:
    """Names of the tables and views of a SQLite database, sorted by name."""
    with _connect(path) as (_, connection):
        return _tables(connection)


def read_sqlite(path: str | os.PathLike[str], table: str) -> pd.DataFrame:
    """All rows of one table or view as a DataFrame of strings (see the module rules)."""
    with _connect(path) as (file, connection):
        names, rows = _select(file, connection, table, "")
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return pd.DataFrame(
        {name: _as_text(values) for name, values in zip(names, columns, strict=True)},
        columns=names,
    )


def table_columns(path: str | os.PathLike[str], table: str) -> list[str]:
    """The column names :func:`read_sqlite` gives, without reading a row (to check a
    configuration before reading the table)."""
    with _connect(path) as (file, connection):
        return _select(file, connection, table, " LIMIT 0")[0]


def _select(file: Path, connection: sqlite3.Connection, table: str, limit: str
            ) -> tuple[list[str], list[tuple[object, ...]]]:
    """(column names, rows) of ``table``; one line naming the tables if it has none."""
    tables = _tables(connection)
    if table not in tables:
        raise DataImportError(
            f"'{file}' has no table '{table}'; its tables are: {', '.join(tables) or 'none'}."
        )
    try:
        cursor = connection.execute(f"SELECT * FROM {quote_identifier(table)}{limit}")
        return make_unique_names(d[0] for d in cursor.description), cursor.fetchall()
    except sqlite3.Error as exc:
        raise DataImportError(f"Table '{table}' of '{file}' cannot be read: {exc}.") from None


def quote_identifier(name: str) -> str:
    """``name`` as an SQL identifier in double quotes (embedded quotes doubled)."""
    return '"' + name.replace('"', '""') + '"'


def _as_text(values: tuple[object, ...]) -> np.ndarray:
    """Strings for one column, formatting each distinct value once.

    factorize merges equal int and float values (1 == 1.0); both format as "1", and
    SQLite has no booleans, so merging loses nothing.
    """
    column = np.empty(len(values), dtype=object)
    column[:] = values
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    texts = np.array([format_value(u) for u in uniques] + [NULL_TEXT], dtype=object)
    return texts[codes]  # code -1 (NULL) picks the last entry


def _tables(connection: sqlite3.Connection) -> list[str]:
    rows = connection.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ).fetchall()
    return [r[0] for r in rows]


@contextmanager
def _connect(path: str | os.PathLike[str]) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """A read-only connection (mode=ro never creates or changes the file)."""
    file = Path(path)
    if not file.is_file():
        raise DataImportError(f"'{file}' does not exist; check the file name and folder.")
    try:
        connection = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise DataImportError(f"'{file}' cannot be opened as a SQLite database: {exc}.") from None
    with closing(connection):
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            raise DataImportError(
                f"'{file}' is not a SQLite database ({exc}); choose a .sqlite or .db file."
            ) from None
        yield file, connection
