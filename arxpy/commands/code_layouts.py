"""Reading a set-valued attribute from the command line's layout options, the same way
for every sub-command (``disassociate``, ``setvalued-utility``): ``--codes-column`` with
``--delimiter`` (codes in one cell, ``--id-column`` optional), ``--long-format ID,CODE``
(one row per record and code) or ``--wide-prefix dx`` (columns dx1..dxN); codes are
normalised (:func:`arxpy.data.icd9.normalize_code`), so the sub-commands see the same
codes in the same data.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arxpy.errors import ConfigurationError


def read_layout(path: Path, args: argparse.Namespace, field_delimiter: str | None = None):
    """The codes of ``path`` as a CodeSetImport, in the layout the options name; the
    import's warnings (duplicates dropped, unknown codes) go to stderr."""
    result = _read(path, args, field_delimiter)
    for warning in result.report.warnings():
        print(f"arxpy: note: {warning}", file=sys.stderr)
    return result


def long_format_columns(text: str) -> tuple[str, str]:
    """``ID,CODE`` of ``--long-format``."""
    id_column, _, codes_column = text.partition(",")
    if not id_column.strip() or not codes_column.strip():
        raise ConfigurationError("Write --long-format ID,CODE (the two column names).")
    return id_column.strip(), codes_column.strip()


def _read(path: Path, args: argparse.Namespace, field_delimiter: str | None):
    from arxpy.data.transactions import read_code_sets

    common = {"multiset": args.multiset, "field_delimiter": field_delimiter}
    if args.long_format:
        id_column, codes_column = long_format_columns(args.long_format)
        return read_code_sets(path, "long", codes_column=codes_column, id_column=id_column,
                              **common)
    if args.wide_prefix:
        return read_code_sets(path, "wide", wide_prefix=args.wide_prefix, **common)
    if not args.codes_column:
        raise ConfigurationError("Name the column of codes with --codes-column C.")
    return read_code_sets(path, "cell", codes_column=args.codes_column,
                          id_column=args.id_column, delimiter=args.delimiter, **common)
