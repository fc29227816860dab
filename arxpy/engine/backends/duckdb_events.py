"""The rows of released patients, and each patient's earliest date, as DuckDB reads an
event table of a linked release (issue 32; ``docs/linked-tables.md``).

A patient suppressed in the patient-level view leaves every table, so the DuckDB engine
writes an event table through :class:`ReleasedPatientsOnly`: its identifier treatment
over the records whose patient is released. Membership is a projection, not a join
(DuckDB's hash joins reorder their probe side, and the write numbers the rows in input
order to shuffle them as the memory engine does): an Arrow function finds each record's
patient among the released ones by DuckDB's ``hash`` of the identifier
(:class:`HashPositions`), then compares the identifiers themselves, so a hash that two
identifiers share never lets a suppressed patient's row through.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
import pandas as pd

from arxpy.engine.backends.hash_positions import HashPositions

_IDS = "arxpy_released_ids"  # the released identifiers, registered on the connection
_FUNCTION = "arxpy_released"
_DAY_FUNCTION = "arxpy_day"
#: The day number of a patient without a date (above every day a date can have).
NO_DAY = np.iinfo(np.int64).max


def _identifier(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


class ReleasedPatientsOnly:
    """A record source's treatment (``treatment``: a ``DuckDBTreatment`` of the event
    table) applied to the rows whose ``link`` value is one of ``released`` (the released
    patients' original identifiers); the rest are not read further. ``others``: to the
    rest instead (the suppressed patients' rows, whose values the treatment checks)."""

    def __init__(self, treatment: Any, link: str, released: Sequence[str],
                 others: bool = False) -> None:
        self.treatment, self.link, self.others = treatment, link, others
        self.released = pd.Series(released, dtype=object).astype(str)

    def __getattr__(self, name: str) -> Any:
        # the rest of the treatment's protocol (unread, treats, prepare, ...) is its own
        return getattr(self.treatment, name)

    def select(self, connection: Any, scan: str, columns: Sequence[str]) -> str:
        """The treatment's SQL over the released patients' rows of ``scan``, in input
        order."""
        return self.treatment.select(connection, self._kept(connection, scan), columns)

    def select_deferring(self, connection: Any, scan: str, columns: Sequence[str],
                         coded: Collection[str]) -> tuple[str, Any]:
        """The treatment's ``select_deferring`` over the released patients' rows."""
        return self.treatment.select_deferring(connection, self._kept(connection, scan),
                                               columns, coded)

    def _kept(self, connection: Any, scan: str) -> str:
        from duckdb.sqltypes import BOOLEAN, UBIGINT, VARCHAR

        member = _Released(self.released, _hashes(connection, self.released))
        connection.create_function(_FUNCTION, member, [UBIGINT, VARCHAR], BOOLEAN,
                                   type="arrow")
        text = f"COALESCE(CAST({_identifier(self.link)} AS VARCHAR), '')"
        negated = "NOT " if self.others else ""
        return f"(SELECT * FROM {scan} WHERE {negated}{_FUNCTION}(hash({text}), {text}))"


class FirstDays:
    """A record source's treatment giving one row per patient: the ``link`` value and, as
    ``date``, the day number (days since 1970-01-01, as text) of the patient's earliest
    date, :data:`NO_DAY` when none. ``days`` are the day numbers of the ``distinct``
    values of ``date`` (:data:`NO_DAY` where a value is missing). Read with the engine's
    histogram of ``(link, date)``: the grouping is DuckDB's, the rows one per patient."""

    def __init__(self, link: str, date: str, distinct: pd.Series, days: np.ndarray) -> None:
        self.link, self.date = link, date
        self.distinct = distinct.astype(str).reset_index(drop=True)
        self.days = np.asarray(days, dtype=np.int64)

    unread: tuple[str, ...] = ()  # nothing to read before the scan

    @staticmethod
    def treats(names: Collection[str]) -> bool:
        return True  # the rows are the patients': never counted from the raw records

    def select(self, connection: Any, scan: str, columns: Sequence[str]) -> str:
        from duckdb.sqltypes import BIGINT, UBIGINT, VARCHAR

        day = _DayOf(self.distinct, _hashes(connection, self.distinct), self.days)
        connection.create_function(_DAY_FUNCTION, day, [UBIGINT, VARCHAR], BIGINT,
                                   type="arrow")
        link, text = _identifier(self.link), f"COALESCE(CAST({_identifier(self.date)} " \
            "AS VARCHAR), '')"
        return (f"(SELECT {link}, CAST(min({_DAY_FUNCTION}(hash({text}), {text})) AS VARCHAR) "
                f"AS {_identifier(self.date)} FROM {scan} GROUP BY {link})")


class _DayOf:
    """An Arrow function: (hash, text) of a date -> its day number (:data:`NO_DAY` when
    missing); every text is one of the distinct values."""

    def __init__(self, distinct: pd.Series, hashes: np.ndarray, days: np.ndarray) -> None:
        self._days = days
        self._index = HashPositions.of(hashes) if len(hashes) else None
        self._by_text = pd.Index(distinct) if self._index is None else None

    def __call__(self, hashes: Any, texts: Any) -> Any:
        import pyarrow as pa

        if self._index is not None:
            hashes = hashes.combine_chunks() if hasattr(hashes, "combine_chunks") else hashes
            positions = self._index.find(hashes.to_numpy(zero_copy_only=False))
        else:  # two distinct dates with one hash: by their text
            texts = texts.combine_chunks() if hasattr(texts, "combine_chunks") else texts
            positions = self._by_text.get_indexer(texts.to_numpy(zero_copy_only=False))
        return pa.array(np.where(positions >= 0, self._days[positions], NO_DAY))


def _hashes(connection: Any, texts: pd.Series) -> np.ndarray:
    """DuckDB's ``hash`` of each text, in order (uint64)."""
    import pyarrow as pa

    connection.register(_IDS, pa.table({"id": pa.array(texts.tolist(), type=pa.string())}))
    try:
        hashes = connection.execute(f"SELECT hash(id) AS h FROM {_IDS}").fetchnumpy()["h"]
    finally:
        connection.unregister(_IDS)
    return np.asarray(hashes, dtype=np.uint64)


class _Released:
    """An Arrow function: (hash, identifier) of each record -> is its patient released?"""

    def __init__(self, released: pd.Series, hashes: np.ndarray) -> None:
        import pyarrow as pa

        self._ids = pa.array(released.tolist(), type=pa.string())
        # two released identifiers with one hash: found by their text instead
        self._index = HashPositions.of(hashes) if len(hashes) else None
        self._by_text = pd.Index(released) if self._index is None else None

    def __call__(self, hashes: Any, texts: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        texts = texts.combine_chunks() if hasattr(texts, "combine_chunks") else texts
        if not len(self._ids):
            return pa.array(np.zeros(len(texts), dtype=bool))
        if self._index is not None:
            hashes = hashes.combine_chunks() if hasattr(hashes, "combine_chunks") else hashes
            positions = self._index.find(hashes.to_numpy(zero_copy_only=False))
        else:
            positions = self._by_text.get_indexer(texts.to_numpy(zero_copy_only=False))
        found = positions >= 0
        named = self._ids.take(pa.array(np.where(found, positions, 0)))
        same = pc.equal(named, texts).to_numpy(zero_copy_only=False)
        return pa.array(found & same)
