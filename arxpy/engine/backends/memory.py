"""The in-memory record engine: pandas over a table that fits in memory.

It is the reference the scalable engines are tested against; ``arxpy anonymize``
without ``--engine`` keeps searching the records themselves (the default path).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

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


def histogram_of_frame(frame: pd.DataFrame, attributes: Sequence[str],
                       sample: RecordSample | None = None) -> Histogram:
    """Distinct combinations of ``attributes`` in ``frame`` with their record counts
    (and, with ``sample``, the records of each the sample kept)."""
    started = time.perf_counter()
    attributes = list(dict.fromkeys(attributes))
    counted = frame[attributes].assign(
        arxpy_sampled=1 if sample is None else sample.kept(np.arange(len(frame))))
    grouped = counted.groupby(attributes, sort=True, dropna=False, observed=True)
    sums = grouped["arxpy_sampled"].agg(["size", "sum"])
    table = sums.index.to_frame(index=False).astype(str)
    return Histogram(frame=table, counts=sums["size"].to_numpy(dtype=np.int64),
                     columns=tuple(frame.columns), seconds=time.perf_counter() - started,
                     sampled=None if sample is None else sums["sum"].to_numpy(dtype=np.int64))


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

    @staticmethod
    def _read(source: RecordSource, nrows: int | None = None) -> pd.DataFrame:
        if source.format == "parquet":
            # missing values as the CSV reader gives empty cells
            return pd.read_parquet(source.path).astype(object).fillna("").astype(str)
        from arxpy.data.csv_io import read_csv

        return read_csv(source.path, source.csv_format(), nrows=nrows,
                        guess_encoding=source.encoding is None)

    def columns(self, source: RecordSource) -> tuple[str, ...]:
        if source.frame is not None:
            return tuple(source.frame.columns)
        if source.format == "parquet":
            import pyarrow.parquet as pq

            return tuple(pq.read_schema(source.path).names)
        return tuple(self._read(source, nrows=1).columns)

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
    against."""
    out = frame[list(plan.columns)].copy()
    generalized = {}
    for name, table in plan.labels.items():
        lookup = pd.Series(table["label"].to_numpy(), index=table["value"].to_numpy())
        generalized[name] = frame[name].astype(str).map(lookup)
        if generalized[name].isna().any():
            raise ConfigurationError(
                f"'{name}' has a value its hierarchy does not cover; the data changed since "
                "the histogram was built.")
    mask = np.zeros(len(frame), dtype=bool)
    if len(plan.suppressed) and plan.labels:
        keys = pd.MultiIndex.from_frame(pd.DataFrame(generalized)[list(plan.labels)])
        mask = keys.isin(pd.MultiIndex.from_frame(plan.suppressed[list(plan.labels)]))
    if plan.sample is not None:
        mask = mask | ~plan.sample.kept(np.arange(len(frame)))
    for name, values in generalized.items():
        values = values.to_numpy(dtype=object).copy()
        values[mask] = plan.suppressed_value
        if name in out.columns:
            out[name] = values
    if plan.remove_suppressed:
        out = out[~mask].reset_index(drop=True)
    if plan.shuffle_seed is not None:
        out = out.iloc[shuffle_order(len(out), plan.shuffle_seed)].reset_index(drop=True)
    return out, int(mask.sum())


def timed_write(frame: pd.DataFrame, plan: OutputPlan, path: Path, delimiter: str
                ) -> WriteSummary:
    """Write ``plan`` over an in-memory table with arxpy's exporter (atomic)."""
    from arxpy.data.export import export_table

    started = time.perf_counter()
    table, suppressed = apply_plan(frame, plan)
    if is_parquet_path(path):
        from arxpy.data.atomic import atomic_path

        with atomic_path(path) as temporary:
            table.to_parquet(temporary, index=False)
    else:
        export_table(table, path, delimiter=delimiter)
    return WriteSummary(path, len(table), suppressed, time.perf_counter() - started)
