"""Plain CSV files read as codes on every core, and lines written from codes (issue 31:
a large file's read and write).

The compiled reader (``arxpy.data._csv_codes``) splits a file into byte ranges at line
ends and reads them on threads, the GIL released: each range gives per column a code per
cell and its distinct values in order of first appearance; the ranges' dictionaries are
merged here, so the table is the one pyarrow's reader gives (each column a categorical,
categories in order of first appearance). A file that is not plain (quotes, a blank
line, a record of another length, a NUL byte, a lone carriage return, bytes that are not
UTF-8) gives None, and the general reader reads it with its rules and messages.

Writing, the exporter hands over each column's codes and its distinct cells as written;
the compiled formatter copies each record's cells into the block's bytes (no Python
string per line), which the exporter's own text path gives byte for byte.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

try:
    from arxpy.data import _csv_codes
except ImportError:  # no compiler when arxpy was installed: the general reader serves
    _csv_codes = None

#: A file with less data than this is read as one range (threads would not pay).
SPLIT_BYTES = 1 << 25

#: At most this many ranges (threads) per file.
MAX_PARTS = 4

_CODE_TYPES = {1: np.int8, 2: np.int16, 4: np.int32}

#: Encodings in which a text's bytes are its pieces' bytes, ASCII one byte a character.
_PIECEWISE_ENCODINGS = frozenset({"utf-8", "ascii", "latin-1", "iso8859-1", "cp1252"})


def read_plain_codes(file: Path, delimiter: str, quotechar: str, encoding: str,
                     first: Sequence[str], names: Sequence[str], has_header: bool,
                     parts: int | None = None) -> pd.DataFrame | None:
    """``file``'s records as categoricals named ``names`` (``first``: its first record
    as the csv module reads it), or None when the file is not plain or the compiled
    reader was not built. ``parts``: ranges read in parallel (default: by size and
    cores)."""
    if (_csv_codes is None or len(names) < 2 or not (delimiter + quotechar).isascii()
            or codecs.lookup(encoding).name not in ("utf-8", "utf-8-sig")):
        return None
    start = _data_start(file, delimiter, quotechar, first, has_header)
    if start is None:
        return None
    size = file.stat().st_size
    if parts is None:
        parts = min(os.cpu_count() or 1, MAX_PARTS) if size - start >= SPLIT_BYTES else 1
    ranges = _ranges(file, start, size, parts)

    def read(bounds: tuple[int, int]) -> tuple[int, list] | None:
        return _csv_codes.read_codes(os.fspath(file), *bounds, delimiter, quotechar,
                                     len(names))

    if len(ranges) == 1:
        pieces = [read(ranges[0])]
    else:
        with ThreadPoolExecutor(len(ranges)) as pool:
            pieces = list(pool.map(read, ranges))
    if any(piece is None for piece in pieces) or not sum(piece[0] for piece in pieces):
        return None
    return pd.DataFrame({name: _merged([piece[1][j] for piece in pieces])
                         for j, name in enumerate(names)})


def _data_start(file: Path, delimiter: str, quotechar: str, first: Sequence[str],
                has_header: bool) -> int | None:
    """Offset of the first data record, or None when the start is not plain (a byte
    order mark without a header, a header that is not ``first`` split at delimiters)."""
    with open(file, "rb") as handle:
        line = handle.readline()
    bom = line.startswith(codecs.BOM_UTF8)
    if not has_header:
        return None if bom else 0
    text = line.removeprefix(codecs.BOM_UTF8)
    if quotechar.encode() in text or not line.endswith(b"\n"):
        return None
    try:
        cells = text.decode("utf-8").removesuffix("\n").removesuffix("\r").split(delimiter)
    except UnicodeDecodeError:
        return None
    return len(line) if cells == list(first) else None


def _ranges(file: Path, start: int, size: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` byte ranges of about equal size covering [start, size), each beginning
    at a line's first byte."""
    cuts = [start]
    with open(file, "rb") as handle:
        for i in range(1, parts):
            # from the byte before the cut: a cut at a line's start stays there
            at = max(start + (size - start) * i // parts - 1, cuts[-1] - 1, 0)
            handle.seek(at)
            while (chunk := handle.read(1 << 16)) and (found := chunk.find(b"\n")) == -1:
                at += len(chunk)
            at = at + found + 1 if chunk else size
            if at > cuts[-1]:
                cuts.append(min(at, size))
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a] or [(start, size)]


def _merged(pieces: Sequence[tuple[bytearray, int, list[str]]]) -> pd.Categorical:
    """One column from its ranges' (codes, code width, values): the values in order of
    first appearance over the whole file, each range's codes renumbered into them."""
    index: dict[str, int] = {}
    renumbered = []
    for raw, width, values in pieces:
        codes = np.frombuffer(raw, dtype=_CODE_TYPES[width])
        mapping = np.fromiter((index.setdefault(v, len(index)) for v in values),
                              dtype=np.int64, count=len(values))
        same = bool((mapping == np.arange(len(values))).all())
        renumbered.append(codes if same else mapping[codes])
    categories = pd.Index(list(index), dtype=object)
    codes = np.empty(sum(len(c) for c in renumbered), dtype=_code_type(len(categories)))
    at = 0
    for part in renumbered:
        codes[at:at + len(part)] = part
        at += len(part)
    return pd.Categorical.from_codes(codes, categories, validate=False)


def _code_type(n: int) -> type[np.signedinteger]:
    """The code type pandas gives a categorical of ``n`` categories."""
    for kind in (np.int8, np.int16, np.int32):
        if n < np.iinfo(kind).max:
            return kind
    return np.int64


def encoded_cells(cells: Sequence[np.ndarray], encoding: str
                  ) -> list[tuple[bytes, np.ndarray]] | None:
    """Per column, its cells (str) encoded one after another and their int64 offsets,
    for :func:`format_rows`; None when the formatter was not built, the encoding is not
    one where text encodes piece by piece with ASCII as one byte each (UTF-16 and
    UTF-8 with a byte order mark are not), or a cell does not encode (the caller's text
    path then says which)."""
    if _csv_codes is None or codecs.lookup(encoding).name not in _PIECEWISE_ENCODINGS:
        return None
    encoded = []
    for texts in cells:
        try:
            pieces = [text.encode(encoding) for text in texts]
        except UnicodeEncodeError:
            return None
        offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in pieces], out=offsets[1:])
        encoded.append((b"".join(pieces), offsets))
    return encoded


def format_rows(codes: Sequence[np.ndarray], cells: Sequence[tuple[bytes, np.ndarray]],
                delimiter: str) -> bytes:
    """The lines of the records whose cells in column j are ``cells[j]``'s by
    ``codes[j]``, joined by ``delimiter`` (ASCII), each ending in a line feed."""
    assert _csv_codes is not None
    return _csv_codes.format_rows(
        tuple(np.ascontiguousarray(c, dtype=np.int32) for c in codes), tuple(cells), delimiter)
