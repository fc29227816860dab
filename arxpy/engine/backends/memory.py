"""The in-memory record engine: pandas over a table that fits in memory.

It is the reference the scalable engines are tested against; ``arxpy anonymize``
without ``--engine`` keeps searching the records themselves (the default path).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from arxpy.engine.backends.base import Histogram, RecordSource
from arxpy.jobs import CancelToken, Progress


def histogram_of_frame(frame: pd.DataFrame, attributes: Sequence[str]) -> Histogram:
    """Distinct combinations of ``attributes`` in ``frame`` with their record counts."""
    started = time.perf_counter()
    attributes = list(dict.fromkeys(attributes))
    grouped = frame.groupby(attributes, sort=True, dropna=False, observed=True).size()
    table = grouped.index.to_frame(index=False).astype(str)
    return Histogram(frame=table, counts=grouped.to_numpy(dtype=np.int64),
                     columns=tuple(frame.columns), seconds=time.perf_counter() - started)


class MemoryEngine:
    """Reads the whole table into memory (CSV through arxpy's reader)."""

    name = "memory"

    def _frame(self, source: RecordSource) -> pd.DataFrame:
        if source.frame is not None:
            return source.frame
        if source.format == "parquet":
            return pd.read_parquet(source.path).astype(str)
        from arxpy.data.csv_io import read_csv, sniff_csv

        fmt = sniff_csv(source.path, delimiter=source.delimiter, encoding=source.encoding)
        return read_csv(source.path, fmt)

    def columns(self, source: RecordSource) -> tuple[str, ...]:
        return tuple(self._frame(source).columns)

    def histogram(self, source: RecordSource, attributes: Sequence[str], *,
                  progress: Progress | None = None,
                  cancel: CancelToken | None = None) -> Histogram:
        return histogram_of_frame(self._frame(source), attributes)
