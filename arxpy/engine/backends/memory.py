"""The in-memory record engine: pandas over a table that fits in memory.

It is the reference the scalable engines are tested against; ``arxpy anonymize``
without ``--engine`` keeps searching the records themselves (the default path).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from arxpy.arrays import first_appearances
from arxpy.data.codes import combine_codes
from arxpy.engine.backends.base import (
    Histogram,
    OutputPlan,
    RecordSample,
    RecordSource,
    WriteSummary,
    is_parquet_path,
    shuffle_order,
)
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress
from arxpy.lattice.kernels import group_keys


def coded(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A column as codes into its distinct values as strings (a categorical's own codes;
    the CSV reader's categories are strings already)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        values = column.cat.categories.to_numpy(dtype=object).astype(str).astype(object)
        return column.cat.codes.to_numpy(), values
    codes, uniques = pd.factorize(column.astype(str), sort=False)
    return codes, np.asarray(uniques, dtype=object)


def histogram_of_frame(frame: pd.DataFrame, attributes: Sequence[str],
                       sample: RecordSample | None = None) -> Histogram:
    """Distinct combinations of ``attributes`` in ``frame`` with their record counts
    (and, with ``sample``, the records of each the sample kept), sorted by their values.

    Grouped on integer codes (a categorical column's own), never on the strings."""
    started = time.perf_counter()
    attributes = list(dict.fromkeys(attributes))
    codes, values = zip(*(coded(frame[name]) for name in attributes), strict=True) \
        if attributes else ((), ())
    inverse, distinct, counts = _grouped(codes, [max(len(v), 1) for v in values])
    table = pd.DataFrame({name: value[group] for name, value, group
                          in zip(attributes, values, distinct, strict=True)}, columns=attributes)
    # distinct combinations sort without ties: the order does not depend on the grouping's
    order = table.sort_values(attributes, kind="stable").index.to_numpy() \
        if len(table) else np.zeros(0, dtype=np.intp)
    sampled = None
    if sample is not None:
        kept = sample.kept(np.arange(len(frame)))
        sampled = np.bincount(inverse, weights=kept, minlength=len(counts)).astype(np.int64)[order]
    return Histogram(frame=table.iloc[order].reset_index(drop=True), counts=counts[order],
                     columns=tuple(frame.columns), seconds=time.perf_counter() - started,
                     sampled=sampled)


def _grouped(codes: Sequence[np.ndarray], radices: Sequence[int]
             ) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Each row's group, each group's codes per column, and the rows per group, for
    rows equal in every column (the compiled grouping on the mixed-radix key where it
    fits: one pass, where factorizing 10^7 keys takes several)."""
    key, exact = combine_codes(codes, radices=radices)
    if exact and len(key):
        inverse, distinct, counts = group_keys(key, int(np.prod(radices, dtype=object)))
        digits = []
        for radix in reversed(radices):  # the key's digits, the last column's lowest
            distinct, digit = np.divmod(distinct, radix)
            digits.append(digit)
        return inverse, digits[::-1], counts
    inverse, _ = pd.factorize(key, sort=False)
    first = first_appearances(inverse)
    counts = np.bincount(inverse, minlength=len(first)).astype(np.int64)
    return inverse, [c[first] for c in codes], counts


class MemoryEngine:
    """Reads the whole table into memory (CSV through arxpy's reader), once per source:
    the histogram and the write of the same unchanged file share one read."""

    name = "memory"

    def __init__(self) -> None:
        self._loaded: tuple[tuple, pd.DataFrame] | None = None

    def _frame(self, source: RecordSource) -> pd.DataFrame:
        if source.frame is not None:
            return source.frame
        stat = Path(source.path).stat()
        key = (source, stat.st_mtime_ns, stat.st_size)
        if self._loaded is None or self._loaded[0] != key:
            self._loaded = None  # the old table goes before the new one is read
            self._loaded = (key, self._read(source))
        return self._loaded[1]

    def table(self, source: RecordSource) -> pd.DataFrame:
        """The whole table as the engine reads it (cells as strings)."""
        return self._frame(source)

    @staticmethod
    def _read(source: RecordSource, nrows: int | None = None) -> pd.DataFrame:
        if source.format == "parquet":
            # missing values as the CSV reader gives empty cells
            return pd.read_parquet(source.path).astype(object).fillna("").astype(str)
        from arxpy.data.csv_io import read_csv

        return read_csv(source.path, source.csv_format(), nrows=nrows,
                        guess_encoding=source.encoding is None, categories=True)

    def columns(self, source: RecordSource) -> tuple[str, ...]:
        if source.frame is not None:
            return tuple(source.frame.columns)
        if source.format == "parquet":
            import pyarrow.parquet as pq

            return tuple(pq.read_schema(source.path).names)
        from arxpy.data.csv_io import column_names

        return tuple(column_names(source.path, source.csv_format()))  # the first record only

    def histogram(self, source: RecordSource, attributes: Sequence[str], *,
                  progress: Progress | None = None, cancel: CancelToken | None = None,
                  sample: RecordSample | None = None) -> Histogram:
        started = time.perf_counter()  # reading the file is part of this step
        histogram = histogram_of_frame(self._frame(source), attributes, sample)
        return replace(histogram, seconds=time.perf_counter() - started)

    def write(self, source: RecordSource, plan: OutputPlan, path: Path, *,
              delimiter: str = ";", progress: Progress | None = None,
              cancel: CancelToken | None = None) -> WriteSummary:
        return timed_write(self._frame(source), plan, Path(path), delimiter)


def apply_plan(frame: pd.DataFrame, plan: OutputPlan) -> tuple[pd.DataFrame, int]:
    """``plan`` applied to a table in memory: (released table, suppressed records),
    rows in the order the plan's ``shuffle_seed`` gives.

    The in-memory engine's write, and the reference the other engines are tested
    against. Works on codes: a generalized column is a categorical of its labels."""
    out = frame[list(plan.columns)].copy()
    released = {name: _released_codes(name, frame[name], table)
                for name, table in plan.labels.items()}
    mask = _suppressed_rows(released, plan)
    if plan.sample is not None:
        mask = mask | ~plan.sample.kept(np.arange(len(frame)))
    for name, (codes, labels) in released.items():
        if name not in out.columns:
            continue
        star = _index_of(labels, plan.suppressed_value)
        if star == len(labels):
            labels = np.append(labels, plan.suppressed_value)
        if mask.any():
            codes = np.where(mask, codes.dtype.type(star), codes)
        out[name] = pd.Categorical.from_codes(codes, labels, validate=False)
    if plan.remove_suppressed:
        out = out[~mask].reset_index(drop=True)
    if plan.shuffle_seed is not None:
        out = rows_in_order(out, shuffle_order(len(out), plan.shuffle_seed))
    return out, int(mask.sum())


def rows_in_order(frame: pd.DataFrame, order: np.ndarray) -> pd.DataFrame:
    """``frame.iloc[order]`` with a fresh RangeIndex, gathered column by column in numpy
    (a categorical by its codes): pandas' row take of a table of categoricals costs
    several times more at 10^7 records (it also materializes and compares the index)."""
    columns = {}
    for j in range(frame.shape[1]):
        column = frame.iloc[:, j]
        if isinstance(column.dtype, pd.CategoricalDtype):
            columns[j] = pd.Categorical.from_codes(column.cat.codes.to_numpy()[order],
                                                   dtype=column.dtype, validate=False)
        else:  # pandas' take keeps any other dtype as it is
            columns[j] = column.take(order).reset_index(drop=True)
    taken = pd.DataFrame(columns, copy=False)
    taken.columns = frame.columns
    return taken


def _released_codes(name: str, column: pd.Series, table: pd.DataFrame
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Per record, the code of its released label, and the distinct labels."""
    codes, values = coded(column)
    label_of, labels = pd.factorize(table["label"].to_numpy(dtype=object).astype(str))
    lookup = pd.Series(label_of, index=table["value"].to_numpy(dtype=object).astype(str))
    of_value = lookup.reindex(values).to_numpy()
    if np.isnan(of_value.astype(float)).any():
        raise ConfigurationError(
            f"'{name}' has a value its hierarchy does not cover; the data changed since "
            "the histogram was built.")
    # + 1: room for the suppressed value's code
    small = np.min_scalar_type(-(len(labels) + 1))  # 10^7 records: 10 MB, not 80
    return of_value.astype(small)[codes], np.asarray(labels, dtype=object)


def _index_of(labels: np.ndarray, label: str) -> int:
    """Position of ``label`` among ``labels`` (``len(labels)`` when absent)."""
    found = np.flatnonzero(labels == label)
    return int(found[0]) if len(found) else len(labels)


def _suppressed_rows(released: dict[str, tuple[np.ndarray, np.ndarray]], plan: OutputPlan
                     ) -> np.ndarray:
    """Records whose released labels are one of the plan's suppressed classes."""
    records = len(next(iter(released.values()))[0]) if released else 0
    if not len(plan.suppressed) or not released:
        return np.zeros(records, dtype=bool)
    names = list(plan.labels)
    radices = [len(released[n][1]) + 1 for n in names]  # + 1: a label the data lacks
    rows, _ = combine_codes([released[n][0] for n in names], radices)
    classes, _ = combine_codes(
        [_label_codes(plan.suppressed[n], released[n][1]) for n in names], radices)
    return np.isin(rows, classes)


def _label_codes(labels: pd.Series, known: np.ndarray) -> np.ndarray:
    """Codes of ``labels`` among ``known`` (``len(known)`` for a label not among them)."""
    position = pd.Series(np.arange(len(known)), index=known)
    return position.reindex(labels.to_numpy(dtype=object).astype(str)).fillna(
        len(known)).to_numpy().astype(np.int64)


def timed_write(frame: pd.DataFrame, plan: OutputPlan, path: Path, delimiter: str
                ) -> WriteSummary:
    """Write ``plan`` over an in-memory table with arxpy's exporter (atomic)."""
    from arxpy.data.export import export_table

    started = time.perf_counter()
    if is_parquet_path(path):
        table, suppressed = apply_plan(frame, plan)
        from arxpy.data.atomic import atomic_path

        with atomic_path(path) as temporary:
            # plain strings, as the other engines write them (not Parquet dictionaries)
            table.astype(object).to_parquet(temporary, index=False)
        return WriteSummary(path, len(table), suppressed, time.perf_counter() - started, None)
    # the rows are gathered in the seed's order block by block as the exporter writes
    table, suppressed = apply_plan(frame, replace(plan, shuffle_seed=None))
    order = None if plan.shuffle_seed is None else shuffle_order(len(table), plan.shuffle_seed)
    digest = hashlib.sha256()  # of the bytes as written: no second read of the file
    export_table(table, path, delimiter=delimiter, digest=digest, row_order=order)
    return WriteSummary(path, len(table), suppressed, time.perf_counter() - started,
                        digest.hexdigest())
