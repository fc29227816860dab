"""Where a command reads a table: a CSV file, or ``FILE.sqlite:TABLE``, a table of a
SQLite database (also ``.db``, ``.sqlite3``, the endings the import wizard reads; the last
``:`` separates the table). One parser for ``--data`` and ``--link NAME=...``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arxpy.errors import ConfigurationError

SOURCE_HELP = "a CSV file, or FILE.sqlite:TABLE (also .db, .sqlite3)"
#: Why the set-valued commands refuse a SQLite table (their layouts are CSV layouts).
SET_VALUED_CSV = "set-valued layouts (codes in a cell, long, wide) are read from CSV; " \
    "export the table to CSV first"


@dataclass(frozen=True)
class TableSource:
    """A CSV file (``table`` None), or ``table`` of the SQLite database ``path``."""

    path: Path
    table: str | None = None

    @classmethod
    def parse(cls, text: str | Path, option: str = "--data",
              form: str | None = None) -> TableSource:
        """``FILE`` (CSV) or ``FILE.sqlite:TABLE``; a database without its table is
        refused, naming ``option`` and the ``form`` to write (default ``OPTION
        FILE.sqlite:TABLE``)."""
        from arxpy.data.sql_io import SQLITE_SUFFIXES

        text = str(text)
        database, sep, table = text.rpartition(":")
        if sep and Path(database).suffix.lower() in SQLITE_SUFFIXES and table:
            return cls(Path(database), table)
        if Path(text).suffix.lower() in SQLITE_SUFFIXES:
            raise ConfigurationError(
                f"{option} names the SQLite database '{Path(text).name}' without a table; "
                f"write {form or option + ' FILE.sqlite:TABLE'}.")
        return cls(Path(text))

    @property
    def stem(self) -> str:
        """The table's name: the SQLite table, or the CSV file's name without its ending."""
        return self.path.stem if self.table is None else self.table

    def file_name(self, name: str | None = None) -> str:
        """The file an export of this table gets: a CSV input's file name, else
        ``NAME.csv`` (``name`` defaults to :attr:`stem`)."""
        return self.path.name if self.table is None else f"{name or self.table}.csv"

    def columns(self, delimiter: str | None, encoding: str | None = None) -> list[str]:
        """The column names :meth:`read` gives, without reading the records."""
        if self.table is not None:
            from arxpy.data.sql_io import table_columns

            return table_columns(self.path, self.table)
        from arxpy.data.csv_io import column_names, sniff_csv

        return column_names(self.path, sniff_csv(self.path, delimiter=delimiter,
                                                 encoding=encoding))

    def read(self, delimiter: str | None, encoding: str | None = None) -> Any:
        """The table as strings; a CSV file with the given delimiter and encoding kept
        and the rest detected (a detected encoding falls back to cp1252/latin-1 if a
        later byte is not UTF-8)."""
        if self.table is not None:
            from arxpy.data.sql_io import read_sqlite

            return read_sqlite(self.path, self.table)
        from arxpy.data.csv_io import read_csv, sniff_csv

        fmt = sniff_csv(self.path, delimiter=delimiter, encoding=encoding)
        return read_csv(self.path, fmt, guess_encoding=encoding is None)


def source_paths(value: Any, args: argparse.Namespace) -> list[Path]:
    """The file a ``--data`` value reads, a database without its table (for the
    overwrite guard; an unreadable value is refused later, by its reader)."""
    if value in (None, ""):
        return []
    try:
        return [TableSource.parse(value).path]
    except ConfigurationError:
        return [Path(value)]


def refuse_sqlite(value: Any, option: str, reason: str) -> None:
    """One line if ``value`` names a SQLite table where a command reads CSV files only;
    ``reason`` says why and what to give instead."""
    if value is not None and TableSource.parse(value, option).table is not None:
        raise ConfigurationError(f"{option} cannot name a SQLite table here: {reason}.")
