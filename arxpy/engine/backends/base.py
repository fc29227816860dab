"""Record engines: the two steps of a run that touch every record.

The lattice search works on equivalence classes, so it can run on the histogram of
distinct (quasi-identifier, tracked) value combinations with their record counts; the
histogram is small even when the records are many. Only two steps read or write
records, and a :class:`RecordEngine` does them:

1. :meth:`RecordEngine.histogram`: one pass over the records, grouped by the given
   columns, with a count per distinct combination;
2. :meth:`RecordEngine.write`: one pass writing a chosen transformation's output
   (generalized labels from per-attribute lookup tables, suppressed classes replaced
   by ``*`` or removed) as described by an :class:`OutputPlan`.

The in-memory engine does both with pandas/numpy; DuckDB (out of core) and Spark
(distributed) are optional extras. Every engine gives the same histogram, so the
search gives the same optimum, score and suppressed count.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
import pandas as pd

from arxpy.data.csv_io import CsvFormat, sniff_csv
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress
from arxpy.lattice.kernels import stable_argsort

SourceFormat = Literal["csv", "parquet"]

# XXH64's primes: the shuffle key is Spark's xxhash64, so every engine can compute it.
_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P4, _P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
_MASK = 2**64 - 1


def _rotl(value: np.ndarray, bits: int) -> np.ndarray:
    return (value << np.uint64(bits)) | (value >> np.uint64(64 - bits))


def _xxhash64_long(values: np.ndarray, seed: np.ndarray | int) -> np.ndarray:
    """XXH64 of each 8-byte value with ``seed``, as Spark's ``XXH64.hashLong``."""
    with np.errstate(over="ignore"):
        k = _rotl(values * np.uint64(_P2), 31) * np.uint64(_P1)
        h = np.asarray(seed, dtype=np.uint64) + np.uint64((_P5 + 8) & _MASK)
        h = _rotl(h ^ k, 27) * np.uint64(_P1) + np.uint64(_P4)
        h = (h ^ (h >> np.uint64(33))) * np.uint64(_P2)
        h = (h ^ (h >> np.uint64(29))) * np.uint64(_P3)
        return h ^ (h >> np.uint64(32))


def shuffle_keys(positions: np.ndarray, seed: int) -> np.ndarray:
    """The sort key (int64) of each written row at ``positions`` (0, 1, ... in input order)
    for row-order ``seed``: Spark's ``xxhash64(seed, position)``.

    Rows written in increasing key order are the keep-order rows permuted by ``seed``; a
    key is a bijection of the position, so no two rows tie and every engine (numpy here,
    DuckDB through this function, Spark natively) writes the same order.
    """
    salt = _xxhash64_long(np.array([int(seed) & _MASK], dtype=np.uint64), 42)[0]
    values = np.asarray(positions, dtype=np.int64).view(np.uint64)
    keys = np.empty(len(values), dtype=np.uint64)
    for start in range(0, len(values), _KEY_BLOCK):  # temporaries stay small (in cache)
        keys[start:start + _KEY_BLOCK] = _xxhash64_long(values[start:start + _KEY_BLOCK], salt)
    return keys.view(np.int64)


#: Positions hashed at a time by :func:`shuffle_keys`.
_KEY_BLOCK = 1 << 16


def shuffle_order(rows: int, seed: int) -> np.ndarray:
    """Positions of ``rows`` keep-order rows in the order ``seed`` writes them."""
    # the keys are distinct (a bijection of the position): any sort gives this order
    return stable_argsort(shuffle_keys(np.arange(rows), seed))


@dataclass(frozen=True)
class RecordSample:
    """SafePub's random sample as every engine draws it: the record at input position p
    is kept when its :func:`shuffle_keys` under ``seed``, read as a fraction of 2^64, is
    below ``beta`` (each record independently with probability β; the same records in
    every engine and in memory)."""

    seed: int
    beta: float

    def kept(self, positions: np.ndarray) -> np.ndarray:
        keys = shuffle_keys(positions, self.seed).view(np.uint64)
        return (keys >> np.uint64(11)).astype(np.float64) * 2.0**-53 < self.beta


def is_parquet_path(path: str | os.PathLike[str]) -> bool:
    """Is ``path`` named as a Parquet file (``.parquet`` or ``.pq``)?"""
    return Path(path).suffix.lower() in (".parquet", ".pq")


@dataclass(frozen=True)
class RecordSource:
    """Where the records are: a CSV or Parquet file (never loaded whole by the scalable
    engines), or a table already in memory (the in-memory engine, tests)."""

    path: Path | None = None
    format: SourceFormat = "csv"
    delimiter: str | None = None  # None: detected (CSV)
    encoding: str | None = None  # None: detected (CSV)
    has_header: bool | None = None  # None: detected (CSV)
    frame: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    #: Identifier treatments the engine applies as it reads (the DuckDB engine's
    #: :class:`~arxpy.engine.backends.duckdb_identifiers.DuckDBTreatment`); None: none.
    treatment: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def of_file(cls, path: str | os.PathLike[str], delimiter: str | None = None,
                encoding: str | None = None) -> RecordSource:
        """A file source; ``.parquet``/``.pq`` files are Parquet, anything else CSV."""
        path = Path(path)
        fmt: SourceFormat = "parquet" if is_parquet_path(path) else "csv"
        return cls(path=path, format=fmt, delimiter=delimiter, encoding=encoding)

    def csv_format(self) -> CsvFormat:
        """The CSV format as arxpy's reader sees it: the given delimiter and encoding, the
        rest detected from the start of the file (:func:`~arxpy.data.csv_io.sniff_csv`)."""
        if self.path is None or self.format != "csv":
            raise ConfigurationError(f"{self.describe()} is not a CSV file.")
        return sniff_csv(self.path, delimiter=self.delimiter, encoding=self.encoding,
                         has_header=self.has_header)

    @classmethod
    def of_frame(cls, frame: pd.DataFrame) -> RecordSource:
        return cls(frame=frame)

    def describe(self) -> str:
        return str(self.path) if self.path is not None else "the table in memory"


@dataclass(frozen=True)
class Histogram:
    """Distinct combinations of the requested columns with their record counts.

    ``frame`` holds the values as strings, exactly as the CSV reader gives them (an empty
    cell is ``""``, never missing), one row per distinct combination; ``counts[i]``
    records have row i's values. ``columns`` lists every column of the source, in order,
    so the attribute definition can be checked against it.
    """

    frame: pd.DataFrame
    counts: np.ndarray
    columns: tuple[str, ...]
    seconds: float = 0.0
    #: With a :class:`RecordSample`: per row, how many of its records the sample kept.
    sampled: np.ndarray | None = None

    @property
    def n_records(self) -> int:
        return int(self.counts.sum())


@dataclass(frozen=True)
class OutputPlan:
    """Everything an engine needs to write a transformation's output, and nothing of the
    search: per quasi-identifier a lookup from original value to released label, the
    released label combinations whose records are suppressed, and the columns to write.

    ``labels[attr]`` has columns ``value`` and ``label`` (strings; every value of the
    data appears once). ``suppressed`` has one column per quasi-identifier holding the
    released labels of the suppressed classes. Records of those classes get
    ``suppressed_value`` in every quasi-identifier, or are left out when
    ``remove_suppressed``. ``columns`` are written in order (identifying attributes are
    not among them). ``records`` and ``suppressed_records`` are the counts of the
    histogram the plan was made from (None: unknown); an engine that cannot count the
    suppressed records while writing reports these, after checking that it wrote as
    many rows as they imply. With ``shuffle_seed`` the rows are written in the order of
    :func:`shuffle_keys` of their keep-order positions (None: input order).
    """

    columns: tuple[str, ...]
    labels: dict[str, pd.DataFrame]
    suppressed: pd.DataFrame
    remove_suppressed: bool = False
    suppressed_value: str = "*"
    records: int | None = None
    suppressed_records: int | None = None
    shuffle_seed: int | None = None
    #: SafePub's sample: records it did not keep are suppressed too.
    sample: RecordSample | None = None

    def expected_rows(self) -> int | None:
        """Rows the output should have, if the counts are known."""
        if self.records is None or self.suppressed_records is None:
            return None
        return self.records - (self.suppressed_records if self.remove_suppressed else 0)


@dataclass(frozen=True)
class WriteSummary:
    """What a write produced."""

    path: Path
    records: int  # rows written
    suppressed: int  # records suppressed (written as '*' or left out)
    seconds: float
    #: SHA-256 of the written bytes, when the engine hashed them as it wrote (None: read
    #: the file to know).
    sha256: str | None = None


class RecordEngine(Protocol):
    """The record-level steps of a run (see the module docstring)."""

    #: Name used by ``--engine`` and the GUI setting.
    name: str

    def columns(self, source: RecordSource) -> tuple[str, ...]:
        """Column names of the source, in order."""

    def histogram(self, source: RecordSource, attributes: Sequence[str], *,
                  progress: Progress | None = None,
                  cancel: CancelToken | None = None) -> Histogram:
        """Group the records by ``attributes`` and count each distinct combination."""

    def write(self, source: RecordSource, plan: OutputPlan, path: Path, *,
              delimiter: str = ";", progress: Progress | None = None,
              cancel: CancelToken | None = None) -> WriteSummary:
        """Write the output ``plan`` describes to ``path`` (CSV, or Parquet for a
        ``.parquet`` path), atomically: a temporary file renamed on success."""


#: Engine name -> (module, class, pip extra or None, what else it needs).
ENGINES: dict[str, tuple[str, str, str | None, str]] = {
    "memory": ("arxpy.engine.backends.memory", "MemoryEngine", None, ""),
    "duckdb": ("arxpy.engine.backends.duckdb_engine", "DuckDBEngine", "duckdb", ""),
    "spark": ("arxpy.engine.backends.spark_engine", "SparkEngine", "spark",
              " and a Java runtime (Java 17; e.g. 'apt-get install openjdk-17-jre-headless')"),
}


#: The module each optional engine imports (to tell whether it is installed).
_REQUIRES = {"duckdb": "duckdb", "spark": "pyspark"}


def engine_missing(name: str) -> str | None:
    """None if engine ``name`` can run here, else what to install (for a greyed choice)."""
    import importlib.util

    module = _REQUIRES.get(check_engine_name(name))
    if module is None or importlib.util.find_spec(module) is not None:
        return None
    _, _, extra, more = ENGINES[name]
    return f"pip install 'arxpy[{extra}]'{more}"


def create_engine(name: str, **options: object) -> RecordEngine:
    """The record engine ``name`` with ``options`` (e.g. DuckDB's ``memory_limit``);
    the install hint as a ConfigurationError when its extra is missing."""
    import importlib

    module, cls, _, _ = ENGINES[check_engine_name(name)]
    try:
        engine_class = getattr(importlib.import_module(module), cls)
    except ImportError as exc:
        raise missing_extra(name, exc) from None
    return engine_class(**options)


def check_engine_name(name: str) -> str:
    if name not in ENGINES:
        raise ConfigurationError(
            f"Unknown engine '{name}'; choose one of {', '.join(ENGINES)}.")
    return name


def missing_extra(name: str, error: ImportError) -> ConfigurationError:
    """The error for an engine whose optional dependency is not installed."""
    _, _, extra, more = ENGINES[name]
    return ConfigurationError(
        f"The {name} engine needs the '{extra}' extra{more}: install it with "
        f"python3 -m pip install 'arxpy[{extra}]' ({error}).")
