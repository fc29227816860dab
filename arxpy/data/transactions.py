"""Set-valued attributes (a set of diagnosis codes per record) as integer codes.

A :class:`CodeSets` holds one set of codes per record in compressed sparse row form:
the codes of record ``i`` are ``indices[indptr[i]:indptr[i + 1]]``, positions in the
sorted ``vocabulary``, sorted and without duplicates. Supports, itemset counts and
record lengths are then numpy operations over integers instead of loops over Python
sets, which is what disassociation, the k^m checker and the set-valued utility
measures need on 58,000 records.

In a table, a set-valued attribute is a column of ``frozenset[str]`` (or of strings
joined by a delimiter, which :meth:`CodeSets.from_column` splits).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
import pandas as pd

from arxpy.errors import DataImportError
from arxpy.jobs import CancelToken

#: Records between two looks at a cancel token while code sets are read or written.
STEP = 10_000

#: The delimiter of codes in one cell when none is chosen (never "." which ICD-9 uses).
DEFAULT_CODE_DELIMITER = ";"


@dataclass(frozen=True, eq=False)
class CodeSets:
    """One set of codes per record over a sorted vocabulary (CSR arrays)."""

    vocabulary: tuple[str, ...]
    indptr: np.ndarray  # int64, length records + 1
    indices: np.ndarray  # int32 positions in vocabulary, sorted and unique per record

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def from_sets(cls, records: Iterable[Iterable[str]],
                  vocabulary: Sequence[str] | None = None,
                  cancel: CancelToken | None = None) -> CodeSets:
        """Sets of code strings; duplicates within a record are dropped.

        ``vocabulary`` fixes the code domain (it must contain every code); by default it
        is the sorted codes that occur. ``cancel`` is looked at every :data:`STEP`
        records (reading 150,000 records takes over a second).
        """
        sets = []
        for record in records:
            if cancel is not None and len(sets) % STEP == 0:
                cancel.raise_if_cancelled()
            sets.append(frozenset(str(c) for c in record))
        if vocabulary is None:
            vocabulary = sorted(set().union(*sets)) if sets else []
        vocab = tuple(vocabulary)
        position = {code: i for i, code in enumerate(vocab)}
        missing = set().union(*sets) - position.keys() if sets else set()
        if missing:
            raise ValueError(f"codes not in the vocabulary: {', '.join(sorted(missing)[:5])}")
        lengths = np.fromiter((len(s) for s in sets), dtype=np.int64, count=len(sets))
        indptr = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        flat = np.empty(int(indptr[-1]), dtype=np.int32)
        for start in range(0, len(sets), STEP):
            if cancel is not None:
                cancel.raise_if_cancelled()
            part = sets[start:start + STEP]
            flat[indptr[start]:indptr[start + len(part)]] = np.fromiter(
                (position[c] for s in part for c in s), dtype=np.int32,
                count=int(indptr[start + len(part)] - indptr[start]))
        # Sort within each record: by (record, code) in one lexsort.
        owner = np.repeat(np.arange(len(sets)), lengths)
        flat = flat[np.lexsort((flat, owner))]
        return cls(vocab, indptr, flat)

    @classmethod
    def from_column(cls, column: pd.Series, delimiter: str = DEFAULT_CODE_DELIMITER,
                    vocabulary: Sequence[str] | None = None,
                    cancel: CancelToken | None = None) -> CodeSets:
        """A table column of sets (frozenset/list/tuple) or delimited strings; missing or
        empty cells are empty sets."""
        return cls.from_sets((split_cell(v, delimiter) for v in column), vocabulary, cancel)

    # --- reading --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_codes(self) -> int:
        return len(self.vocabulary)

    @cached_property
    def lengths(self) -> np.ndarray:
        """Codes per record."""
        return np.diff(self.indptr)

    @cached_property
    def owners(self) -> np.ndarray:
        """The record of every entry of ``indices``."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.lengths)

    @cached_property
    def supports(self) -> np.ndarray:
        """Records containing each vocabulary code."""
        return np.bincount(self.indices, minlength=self.n_codes).astype(np.int64)

    def record(self, i: int) -> frozenset[str]:
        codes = self.indices[self.indptr[i]:self.indptr[i + 1]]
        return frozenset(self.vocabulary[c] for c in codes)

    def to_sets(self) -> list[frozenset[str]]:
        return [self.record(i) for i in range(len(self))]

    def subset(self, rows: np.ndarray) -> CodeSets:
        """The records at ``rows`` (in that order), same vocabulary."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = self.lengths[rows]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        starts = np.repeat(self.indptr[rows] - indptr[:-1], lengths)
        take = starts + np.arange(int(indptr[-1]), dtype=np.int64)
        return CodeSets(self.vocabulary, indptr, self.indices[take])

    def to_column(self, delimiter: str = DEFAULT_CODE_DELIMITER,
                  cancel: CancelToken | None = None) -> pd.Series:
        """Delimited strings (codes in vocabulary order), one per record."""
        vocab, ptr = self.vocabulary, self.indptr
        cells: list[str] = []
        for start in range(0, len(self), STEP):
            if cancel is not None:
                cancel.raise_if_cancelled()
            cells += [delimiter.join(vocab[c] for c in self.indices[ptr[i]:ptr[i + 1]])
                      for i in range(start, min(start + STEP, len(self)))]
        return pd.Series(cells, dtype=object)


def split_cell(value: object, delimiter: str = DEFAULT_CODE_DELIMITER) -> list[str]:
    """A cell's codes in order, repeats kept: a delimited string (a whitespace delimiter
    splits on any run of white space) or a collection; missing cells have none."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    if not isinstance(value, str):
        return [str(c) for c in value]  # type: ignore[attr-defined]
    parts = value.split() if delimiter.isspace() else value.split(delimiter)
    return [p.strip() for p in parts if p.strip()]


def number_occurrences(codes: Iterable[str]) -> list[str]:
    """The j-th occurrence of a code as ``CODE#j``, the first included (spec 002 §2.6)."""
    from arxpy.data.icd9 import OCCURRENCE_SEPARATOR

    seen: dict[str, int] = {}
    numbered = []
    for code in codes:
        seen[code] = seen.get(code, 0) + 1
        numbered.append(f"{code}{OCCURRENCE_SEPARATOR}{seen[code]}")
    return numbered


# --- import ---------------------------------------------------------------------------------

#: How set-valued data may be laid out in a table.
LAYOUTS = ("cell", "long", "wide")


@dataclass(frozen=True)
class ImportReport:
    """What importing a set-valued attribute found and changed."""

    layout: str
    records: int
    occurrences: int  # codes kept over all records
    distinct_codes: int
    duplicates_dropped: int  # repeated codes within a record (set semantics)
    occurrences_renamed: int  # repeated codes renamed CODE#j (multiset mode)
    empty_records: int
    unknown_codes: tuple[str, ...]  # not in ICD-9-CM (kept, flagged)
    mean_length: float
    max_length: int

    def summary(self) -> str:
        """The column header line, e.g. ``set, 631 distinct codes, 5.11 avg, 43 max``."""
        return (f"set, {self.distinct_codes} distinct codes, {self.mean_length:.2f} avg, "
                f"{self.max_length} max")

    def warnings(self) -> list[str]:
        notes = []
        if self.duplicates_dropped:
            notes.append(f"{self.duplicates_dropped} repeated codes within a record were "
                         "dropped (set semantics; use multiset mode to keep them).")
        if self.empty_records:
            notes.append(f"{self.empty_records} records have no code.")
        if self.unknown_codes:
            shown = ", ".join(self.unknown_codes[:10])
            hidden = len(self.unknown_codes) - 10
            more = f" and {hidden} more" if hidden > 0 else ""
            notes.append(f"{len(self.unknown_codes)} codes are not ICD-9-CM codes and have no "
                         f"hierarchy (kept, each its own group): {shown}{more}.")
        return notes

    def to_dict(self) -> dict[str, object]:
        out = dict(self.__dict__)
        out["unknown_codes"] = list(self.unknown_codes)
        return out


class CodeSetImport(NamedTuple):
    """A set-valued attribute read from a table: codes, one row per record, report."""

    code_sets: CodeSets
    #: One row per record: the other (relational) columns for the cell and wide
    #: layouts, the id column for the long layout.
    records: pd.DataFrame
    report: ImportReport


def read_code_sets(source: str | os.PathLike[str] | pd.DataFrame, layout: str = "cell", *,
                   codes_column: str | None = None, id_column: str | None = None,
                   delimiter: str = DEFAULT_CODE_DELIMITER, wide_prefix: str = "dx",
                   multiset: bool = False, icd9: bool = True,
                   field_delimiter: str | None = None) -> CodeSetImport:
    """Read a set of codes per record from a CSV file or a table.

    Layouts: ``cell`` (the codes of a record in one cell of ``codes_column``, split on
    ``delimiter``), ``long`` (one row per record and code: ``id_column``,
    ``codes_column``; records in order of first appearance) and ``wide`` (columns
    ``<wide_prefix>1 .. <wide_prefix>N``, empty entries ignored). With ``icd9`` codes are
    normalised (:func:`arxpy.data.icd9.normalize_code`: undotted, upper-case) and codes
    ICD-9-CM does not know are listed in the report (kept). Repeated codes within a
    record are dropped (counted in the report), or with ``multiset`` the j-th occurrence
    of a code becomes ``CODE#j`` (spec 002 §2.6). Raises DataImportError for a missing
    column, no records, or ``.`` as delimiter.
    """
    if layout not in LAYOUTS:
        raise DataImportError(f"Unknown layout '{layout}'; choose cell, long or wide.")
    _check_code_delimiter(delimiter)
    frame = _source_frame(source, layout, delimiter, field_delimiter)
    if layout == "cell":
        raw, records = _cell_layout(frame, codes_column, id_column, delimiter)
    elif layout == "long":
        raw, records = _long_layout(frame, codes_column, id_column)
    else:
        raw, records = _wide_layout(frame, wide_prefix, id_column)
    return _build_import(layout, raw, records, multiset, icd9)


def _check_code_delimiter(delimiter: str) -> None:
    if not delimiter:
        raise DataImportError("The code delimiter is empty; use ';', '|' or a space.")
    if "." in delimiter:
        raise DataImportError(
            f"The code delimiter {delimiter!r} contains '.', which ICD-9 codes use "
            "(295.01); use ';', '|' or a space.")


def _source_frame(source: str | os.PathLike[str] | pd.DataFrame, layout: str, delimiter: str,
                  field_delimiter: str | None) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        frame = source.reset_index(drop=True)
    else:
        from arxpy.data.csv_io import read_csv, sniff_csv

        fmt = sniff_csv(source, delimiter=field_delimiter)
        if field_delimiter is None and layout == "cell" and fmt.delimiter == delimiter:
            # The codes' own delimiter is the most frequent character: the fields are
            # then separated by commas (codes in quoted or single-code cells).
            fmt = sniff_csv(source, delimiter=",")
        frame = read_csv(source, fmt, guess_encoding=True)
    if frame.empty:
        raise DataImportError("The table has no records; choose a file with data rows.")
    return frame


def _require_column(frame: pd.DataFrame, name: str | None, option: str) -> str:
    if not name:
        raise DataImportError(f"Name the {option} (one of: {_column_list(frame)}).")
    if name not in frame.columns:
        raise DataImportError(
            f"There is no column '{name}' for the {option}; the columns are "
            f"{_column_list(frame)}.")
    return name


def _column_list(frame: pd.DataFrame) -> str:
    names = [str(c) for c in frame.columns]
    return ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")


def _check_unique_ids(frame: pd.DataFrame, id_column: str) -> None:
    repeated = frame[id_column][frame[id_column].duplicated()]
    if len(repeated):
        raise DataImportError(
            f"Id '{repeated.iloc[0]}' occurs in several rows of '{id_column}'; one row per "
            "record is expected in this layout (for one row per code, use the long layout).")


def _cell_layout(frame: pd.DataFrame, codes_column: str | None, id_column: str | None,
                 delimiter: str) -> tuple[list[list[str]], pd.DataFrame]:
    column = _require_column(frame, codes_column, "codes column")
    if id_column is not None:
        _require_column(frame, id_column, "id column")
        _check_unique_ids(frame, id_column)
    raw = [split_cell(value, delimiter) for value in frame[column]]
    return raw, frame.drop(columns=[column])


def _long_layout(frame: pd.DataFrame, codes_column: str | None, id_column: str | None
                 ) -> tuple[list[list[str]], pd.DataFrame]:
    codes = _require_column(frame, codes_column, "codes column")
    ids = _require_column(frame, id_column, "id column")
    keys, first_seen = pd.factorize(frame[ids], sort=False)
    order = np.argsort(keys, kind="stable")
    bounds = np.searchsorted(keys[order], np.arange(len(first_seen) + 1))
    values = frame[codes].to_numpy(dtype=object)[order]
    raw = [[str(v).strip() for v in values[bounds[i]:bounds[i + 1]]
            if not _blank(v)] for i in range(len(first_seen))]
    return raw, pd.DataFrame({ids: list(first_seen)})


def _wide_layout(frame: pd.DataFrame, prefix: str, id_column: str | None
                 ) -> tuple[list[list[str]], pd.DataFrame]:
    pattern = re.compile(rf"^{re.escape(prefix)}(\d+)$")
    matched = sorted((int(m.group(1)), str(c)) for c in frame.columns
                      if (m := pattern.match(str(c))))
    if not matched:
        raise DataImportError(
            f"No columns named {prefix}1, {prefix}2, ...; the columns are "
            f"{_column_list(frame)}. Set the prefix of the code columns.")
    if id_column is not None:
        _require_column(frame, id_column, "id column")
        _check_unique_ids(frame, id_column)
    columns = [name for _, name in matched]
    values = frame[columns].to_numpy(dtype=object)
    raw = [[str(v).strip() for v in row if not _blank(v)] for row in values]
    return raw, frame.drop(columns=columns)


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) \
        or not str(value).strip()


def _build_import(layout: str, raw: list[list[str]], records: pd.DataFrame, multiset: bool,
                  icd9: bool) -> CodeSetImport:
    from arxpy.data import icd9 as icd

    normalize = icd.normalize_code if icd9 else str.strip
    duplicates = renamed = 0
    sets: list[list[str]] = []
    for codes in raw:
        kept = [code for code in (normalize(c) for c in codes) if code]
        distinct = list(dict.fromkeys(kept))
        if multiset:
            renamed += len(kept) - len(distinct)
            sets.append(number_occurrences(kept))
        else:
            duplicates += len(kept) - len(distinct)
            sets.append(distinct)
    code_sets = CodeSets.from_sets(sets)
    lengths = code_sets.lengths
    unknown = icd.unknown_codes(code_sets.vocabulary) if icd9 else []
    report = ImportReport(
        layout=layout, records=len(code_sets), occurrences=int(lengths.sum()),
        distinct_codes=code_sets.n_codes, duplicates_dropped=duplicates,
        occurrences_renamed=renamed, empty_records=int((lengths == 0).sum()),
        unknown_codes=tuple(sorted({icd.base_code(c) for c in unknown})),
        mean_length=float(lengths.mean()) if len(lengths) else 0.0,
        max_length=int(lengths.max()) if len(lengths) else 0)
    return CodeSetImport(code_sets, records.reset_index(drop=True), report)
