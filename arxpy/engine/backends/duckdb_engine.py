"""The DuckDB record engine: out of core, one query per step, nothing per record in Python.

The histogram is one ``GROUP BY`` over ``read_csv``/``read_parquet`` with every value as
text, exactly as arxpy's CSV reader gives it (an empty cell is ``""``); the output is one
``COPY (SELECT ...) TO`` a temporary file renamed on success. DuckDB spills to a
temporary folder beyond ``memory_limit``, so neither step needs the records in memory.

The output keeps the input's record order, or with the plan's ``shuffle_seed`` is stored
in a temporary table first (its ``rowid`` is the written position) and sorted by each
row's :func:`~arxpy.engine.backends.base.shuffle_keys`; either way it is compared
line by line with the in-memory engine's. Joins would not keep the input's order
(DuckDB's hash joins reorder their probe side), so generalization and suppression are
projections: vectorized functions over Arrow batches that look values up in each
hierarchy's values and number a record's class by its label codes. CSV cells are quoted
as :func:`arxpy.data.export.csv_text` quotes them and written as one raw line, so the
file equals the in-memory export byte for byte.
"""

from __future__ import annotations

import codecs
import csv
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.arrays import distinct
from arxpy.data.atomic import atomic_path
from arxpy.data.csv_io import CsvFormat, make_unique_names
from arxpy.data.export import quote_cells, quoting_characters, quoting_pattern
from arxpy.engine.backends.base import (
    Histogram,
    OutputPlan,
    RecordSample,
    RecordSource,
    WriteSummary,
    is_parquet_path,
    missing_extra,
    shuffle_keys,
)
from arxpy.errors import CancelledError, ConfigurationError, DataExportError, DataImportError
from arxpy.jobs import CancelToken, Progress, progress_part

#: Encodings DuckDB's CSV reader decodes itself (Python codec name -> DuckDB name).
_DUCKDB_ENCODINGS = {"utf-8": "utf-8", "utf-8-sig": "utf-8", "ascii": "utf-8",
                     "latin-1": "latin-1", "iso8859-1": "latin-1", "utf-16": "utf-16"}
_POLL_SECONDS = 0.25
#: Classes are numbered in mixed radix of their label codes below this many combinations.
RADIX_LIMIT = 2**62
#: The temporary table of a shuffled write's rows, numbered by ``rowid``.
_WRITTEN = "arxpy_written"
#: The share of a shuffled write's progress spent storing its rows (the rest sorts them).
_NUMBERING_SHARE = 0.7


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError as exc:
        raise missing_extra("duckdb", exc) from None
    return duckdb


def _identifier(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


class DuckDBEngine:
    """Reads CSV or Parquet files with DuckDB, spilling to disk beyond ``memory_limit``.

    ``memory_limit`` is DuckDB's setting (e.g. ``"2GB"``); ``threads`` None uses every
    core; ``temp_directory`` None makes a temporary folder per step, removed afterwards.
    """

    name = "duckdb"

    def __init__(self, memory_limit: str = "2GB", threads: int | None = None,
                 temp_directory: str | Path | None = None) -> None:
        self.memory_limit = memory_limit
        self.threads = threads
        self.temp_directory = temp_directory
        _duckdb()  # the missing-extra error now, not in the middle of a run

    # -- connection ------------------------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        duckdb = _duckdb()
        spill = Path(tempfile.mkdtemp(prefix="arxpy-duckdb-", dir=self.temp_directory))
        try:
            connection = duckdb.connect(config={"memory_limit": self.memory_limit,
                                                "temp_directory": str(spill),
                                                "preserve_insertion_order": True})
        except duckdb.Error as exc:
            shutil.rmtree(spill, ignore_errors=True)
            raise ConfigurationError(
                f"Cannot start DuckDB ({exc}); check the memory limit "
                f"'{self.memory_limit}' (e.g. 2GB).") from None
        try:
            # query_progress needs the progress bar; it must not print
            connection.execute("SET enable_progress_bar = true")
            connection.execute("SET enable_progress_bar_print = false")
            if self.threads:
                connection.execute(f"SET threads = {int(self.threads)}")
            yield connection
        except duckdb.OutOfMemoryException as exc:
            raise ConfigurationError(
                f"DuckDB ran out of memory ({exc}); raise the memory limit (now "
                f"{self.memory_limit}) or free disk space in the temporary folder.") from None
        finally:
            connection.close()
            shutil.rmtree(spill, ignore_errors=True)

    def _run(self, connection: Any, sql: str, message: str, progress: Progress | None,
             cancel: CancelToken | None, numpy: bool = False) -> Any:
        """Run ``sql``, reporting DuckDB's progress and interrupting it on cancel; the
        rows as tuples, or with ``numpy`` as one array per column."""
        duckdb = _duckdb()
        cancel = cancel or CancelToken()
        cancel.raise_if_cancelled()
        finished = threading.Event()

        def watch() -> None:
            while not finished.wait(_POLL_SECONDS):
                if cancel.cancelled:
                    connection.interrupt()
                    return
                if progress is not None:
                    percent = connection.query_progress()
                    if percent >= 0:
                        progress(min(percent, 100.0) / 100.0, message)

        watcher = threading.Thread(target=watch, name="duckdb-progress", daemon=True)
        watcher.start()
        try:
            cursor = connection.execute(sql)
            return cursor.fetchnumpy() if numpy else cursor.fetchall()
        except duckdb.InterruptException:
            if cancel.cancelled:
                raise CancelledError("Cancelled.") from None
            raise KeyboardInterrupt from None  # Ctrl-C, which DuckDB caught itself
        except duckdb.IOException as exc:
            raise DataImportError(f"DuckDB cannot read the data: {exc}") from None
        except duckdb.InvalidInputException as exc:
            if "KeyboardInterrupt" in str(exc):  # Ctrl-C inside one of our functions
                raise KeyboardInterrupt from None
            raise DataImportError(_invalid_input_message(exc)) from None
        except duckdb.ConversionException as exc:
            # a cast to the ENUM of a hierarchy's values failed
            value = re.search(r"convert string ('.*?') to ENUM", str(exc))
            raise ConfigurationError(
                f"The value {value.group(1) if value else ''} of a quasi-identifier is not "
                "in its hierarchy: the data changed since the histogram was built. Run the "
                "search again.") from None
        finally:
            finished.set()
            watcher.join()
            cancel.raise_if_cancelled()

    # -- reading ---------------------------------------------------------------------

    def columns(self, source: RecordSource) -> tuple[str, ...]:
        if source.frame is not None:
            return tuple(str(c) for c in source.frame.columns)
        if source.format == "parquet":
            with self._connection() as connection:
                rows = self._run(connection, f"DESCRIBE SELECT * FROM {self._raw_scan(source)}",
                                 "Reading the columns", None, None)
            return tuple(row[0] for row in rows)
        return tuple(_csv_header(source.path, source.csv_format()))

    def _scan(self, source: RecordSource, connection: Any) -> str:
        """The SQL table expression of ``source`` with its identifier treatments."""
        return self._scan_deferring(source, connection, None)[0]

    def _scan_deferring(self, source: RecordSource, connection: Any,
                        coded: Collection[str] | None) -> tuple[str, Any]:
        """:meth:`_scan`, and with ``coded`` (the columns the SQL reads itself) the
        treated columns left to the release's function, if any (a ``Deferred``)."""
        scan = self._raw_scan(source, connection)
        treatment = source.treatment
        if treatment is None:
            return scan, None
        if treatment.unread:  # a first scan of its own
            treatment.prepare(lambda names: self.distinct_values(source, names))
        columns = self.columns(source)
        if coded is None:
            return treatment.select(connection, scan, columns), None
        return treatment.select_deferring(connection, scan, columns, coded)

    def distinct_values(self, source: RecordSource, attributes: Sequence[str], *,
                        progress: Progress | None = None,
                        cancel: CancelToken | None = None) -> dict[str, list[str]]:
        """The distinct values of each attribute as text, as the source holds them, in
        one scan (a grouping set each; text is never NULL, so NULL says "another set")."""
        attributes = list(dict.fromkeys(attributes))
        _check_known(attributes, self.columns(source), source)
        names = [f"v{i}" for i in range(len(attributes))]
        values = ", ".join(f"{_text(a)} AS {n}" for a, n in zip(attributes, names, strict=True))
        sets = ", ".join(f"({n})" for n in names)
        with self._connection() as connection:
            scan = self._raw_scan(source, connection)
            arrays = self._run(connection, f"SELECT {', '.join(names)} FROM (SELECT {values} "
                               f"FROM {scan}) GROUP BY GROUPING SETS ({sets})",
                               f"Reading the values of {', '.join(attributes)}", progress,
                               cancel, numpy=True)
        return {attribute: _present(arrays[name])
                for attribute, name in zip(attributes, names, strict=True)}

    def _raw_scan(self, source: RecordSource, connection: Any = None) -> str:
        """The SQL table expression reading ``source`` (a frame is registered first)."""
        if source.frame is not None:
            connection.register("arxpy_source", source.frame.astype(str))
            return "arxpy_source"
        path = Path(source.path)
        if not path.is_file():
            raise DataImportError(f"'{path}' does not exist or is not a file; check the name.")
        if source.format == "parquet":
            return f"read_parquet({_literal(str(path))})"
        fmt = source.csv_format()
        names = _csv_header(path, fmt)
        encoding = _DUCKDB_ENCODINGS.get(codecs.lookup(fmt.encoding).name)
        if encoding is None:
            raise ConfigurationError(
                f"DuckDB cannot read '{path}' in the {fmt.encoding} encoding (it reads UTF-8, "
                "UTF-16 and Latin-1); convert the file to UTF-8 or use the memory engine.")
        columns = "{" + ", ".join(f"{_literal(n)}: 'VARCHAR'" for n in names) + "}"
        return (f"read_csv({_literal(str(path))}, auto_detect = false, columns = {columns}, "
                f"header = {str(fmt.has_header).lower()}, delim = {_literal(fmt.delimiter)}, "
                f"quote = {_literal(fmt.quotechar)}, escape = {_literal(fmt.quotechar)}, "
                f"encoding = {_literal(encoding)}, strict_mode = true, "
                "max_line_size = 100000000)")

    def histogram(self, source: RecordSource, attributes: Sequence[str], *,
                  progress: Progress | None = None, cancel: CancelToken | None = None,
                  sample: RecordSample | None = None) -> Histogram:
        started = time.perf_counter()
        attributes = list(dict.fromkeys(attributes))
        columns = self.columns(source)
        _check_known(attributes, columns, source)
        treatment = source.treatment
        # The values a treatment reads first, in the histogram's scan when it counts
        # untreated columns: one pass over the records instead of two.
        reads = [] if treatment is None or sample is not None or \
            treatment.treats(attributes) else treatment.unread
        with self._connection() as connection:
            scan = self._raw_scan(source, connection) if reads else \
                self._scan(source, connection)
            values = ", ".join([*(f"{_text(a)} AS {_identifier(a)}" for a in attributes),
                                *(f"{_text(a)} AS r{i}" for i, a in enumerate(reads))])
            grouped = ", ".join(_identifier(a) for a in attributes)
            counts = "count(*) AS arxpy_count"
            if sample is not None:
                # The sample by input position, as in memory (RecordSample.kept).
                _register_sample(connection, sample)
                values += ", arxpy_sampled(row_number() OVER () - 1) AS arxpy_kept"
                counts += ", count(*) FILTER (WHERE arxpy_kept) AS arxpy_sampled"
            sql = (f"SELECT {grouped}, {counts} FROM (SELECT {values} FROM {scan}) "
                   f"GROUP BY {grouped} ORDER BY {grouped}")
            if reads:  # a grouping set each; text is never NULL, so NULL says "another set"
                read = ", ".join(f"r{i}" for i in range(len(reads)))
                sets = ", ".join([f"({grouped})", *(f"(r{i})" for i in range(len(reads)))])
                # unordered: DuckDB sorts every set's rows on one thread, seconds at 10^6
                sql = (f"SELECT {grouped}{', ' if grouped else ''}{read}, {counts}, "
                       f"grouping({read}) AS arxpy_set FROM (SELECT {values} FROM {scan}) "
                       f"GROUP BY GROUPING SETS ({sets})")
            arrays = self._run(connection, sql, "Counting distinct rows (DuckDB)",
                               progress, cancel, numpy=True)
        rows = slice(None)
        if reads:
            rows = np.asarray(arrays["arxpy_set"]) == (1 << len(reads)) - 1
            treatment.prepare(lambda names: {a: _present(arrays[f"r{i}"])
                                             for i, a in enumerate(reads)})
        frame = pd.DataFrame({a: np.asarray(arrays[a], dtype=object)[rows]
                              for a in attributes}, columns=attributes)
        counts = np.asarray(arrays["arxpy_count"], dtype=np.int64)[rows]
        if reads and attributes:  # DuckDB's order: text by code point, as Python's
            order = frame.sort_values(attributes).index.to_numpy()
            frame, counts = frame.iloc[order].reset_index(drop=True), counts[order]
        sampled = None if sample is None else np.asarray(arrays["arxpy_sampled"], dtype=np.int64)
        return Histogram(frame=frame, counts=counts, columns=columns,
                         seconds=time.perf_counter() - started, sampled=sampled)

    # -- writing ---------------------------------------------------------------------

    def write(self, source: RecordSource, plan: OutputPlan, path: Path, *,
              delimiter: str = ";", progress: Progress | None = None,
              cancel: CancelToken | None = None) -> WriteSummary:
        started = time.perf_counter()
        path = Path(path)
        parquet = is_parquet_path(path)
        _check_known(plan.columns, self.columns(source), source)
        with self._connection() as connection:
            scan, deferred = self._scan_deferring(source, connection, plan.labels)
            output = _OutputQuery(plan, connection, None if parquet else delimiter, deferred)
            suppressed = plan.suppressed_records
            if suppressed is None:  # a plan without counts: one pass to count them
                suppressed = int(self._run(
                    connection, f"SELECT count(*) FROM ({output.released(scan)}) "
                    "WHERE r.arxpy_suppressed", "Counting suppressed records",
                    progress, cancel)[0][0])
            numbering = output.numbering(scan)
            if numbering is not None:
                self._run(connection, numbering, f"Releasing {path.name} (DuckDB)",
                          progress_part(progress, 0.0, _NUMBERING_SHARE), cancel)
                progress = progress_part(progress, _NUMBERING_SHARE, 1.0 - _NUMBERING_SHARE)
            with atomic_path(path) as temporary:
                if parquet:
                    options = "FORMAT parquet"
                else:
                    # One raw line per record, already quoted; the header is its name.
                    options = "FORMAT csv, HEADER true, QUOTE '', ESCAPE '', DELIMITER '\x1f'"
                rows = self._run(connection,
                                 f"COPY ({output.select(scan)}) TO "
                                 f"{_literal(str(temporary))} ({options})",
                                 f"Writing {path.name} (DuckDB)", progress,
                                 cancel)
                written = int(rows[0][0]) if rows else 0
                expected = plan.expected_rows()
                if expected is not None and written != expected:
                    raise DataExportError(
                        f"Wrote {written} rows to '{path}' but the histogram promised "
                        f"{expected}; the data changed since the search. Run it again.")
        return WriteSummary(path, written, suppressed, time.perf_counter() - started)


def _present(column: Any) -> list[str]:
    """The values of a column of grouping sets' rows where its own set grouped it."""
    return np.asarray(column, dtype=object)[~np.ma.getmaskarray(column)].tolist()


def _register_sample(connection: Any, sample: RecordSample) -> None:
    """``arxpy_sampled(position)``: is the record at this input position in the sample?"""
    from duckdb.sqltypes import BIGINT, BOOLEAN

    def kept(positions: Any) -> Any:
        import pyarrow as pa

        if hasattr(positions, "combine_chunks"):
            positions = positions.combine_chunks()
        return pa.array(sample.kept(positions.to_numpy()))

    connection.create_function("arxpy_sampled", kept, [BIGINT], BOOLEAN, type="arrow")


class _OutputQuery:
    """The ``SELECT`` producing a plan's output, and the Arrow function it calls.

    DuckDB turns each quasi-identifier's values into codes (a cast to an ``ENUM`` of the
    hierarchy's values: an unknown value fails the cast); one vectorized function per
    chunk of rows (:class:`_Release`) does the rest with Arrow kernels. A join would
    reorder the records, and lookup lists in the SQL are copied for every chunk, which
    is slow for large hierarchies. ``delimiter`` None gives one column per output column
    (Parquet); a delimiter gives one column holding the CSV line, named by the header.
    ``deferred``: treated columns the release's function computes from their inputs.
    """

    def __init__(self, plan: OutputPlan, connection: Any, delimiter: str | None,
                 deferred: Any = None) -> None:
        from duckdb.sqltypes import BIGINT, BOOLEAN, INTEGER, VARCHAR

        self.plan, self.delimiter, self._deferred = plan, delimiter, deferred
        self._codes = []  # SQL of each quasi-identifier's value codes
        for i, (name, table) in enumerate(plan.labels.items()):
            _create_enum(connection, f"arxpy_values_{i}", table["value"].astype(str))
            self._codes.append(f"enum_code(CAST({_text(name)} AS arxpy_values_{i}))::INTEGER")
        treated = () if deferred is None else deferred.columns
        self._passed = [c for c in plan.columns if c not in plan.labels and c not in treated]
        release = _Release(plan, self._passed, delimiter, deferred)
        fields = {**{f"q{i}": INTEGER for i in range(len(self._codes))},
                  **{f"c{j}": VARCHAR for j in range(len(self._passed))}}
        if deferred is not None:
            fields["t"] = deferred.arguments(connection)
        if plan.sample is not None:
            fields["p"] = BIGINT  # the input position, for the sample
        outputs = {**{name: VARCHAR for name in release.output_names},
                   "arxpy_suppressed": BOOLEAN}
        # one struct argument and result: DuckDB wants a fixed signature
        connection.create_function("arxpy_release", release,
                                   [connection.struct_type(fields)],
                                   connection.struct_type(outputs), type="arrow")
        self._output_names = release.output_names
        if plan.shuffle_seed is not None:
            connection.create_function("arxpy_shuffle_key", _ShuffleKey(plan.shuffle_seed),
                                       [BIGINT], BIGINT, type="arrow")

    def released(self, scan: str) -> str:
        """One struct per record: the released columns and ``arxpy_suppressed``."""
        arguments = [f"q{i} := {sql}" for i, sql in enumerate(self._codes)]
        arguments += [f"c{j} := {_text(name)}" for j, name in enumerate(self._passed)]
        if self._deferred is not None:
            arguments.append(f"t := {_identifier(self._deferred.column)}")
        if self.plan.sample is not None:
            arguments.append("p := row_number() OVER () - 1")
        return (f"SELECT arxpy_release(struct_pack({', '.join(arguments)})) AS r "
                f"FROM {scan}")

    def _kept(self, scan: str) -> str:
        """The written rows in input order, one column each output column."""
        where = " WHERE NOT r.arxpy_suppressed" if self.plan.remove_suppressed else ""
        columns = ", ".join(f"r.{_identifier(n)} AS {_identifier(n)}"
                            for n in self._output_names)
        return f"SELECT {columns} FROM ({self.released(scan)}){where}"

    def numbering(self, scan: str) -> str | None:
        """The statement that stores the written rows in input order before a shuffle, so
        that each one's ``rowid`` (0, 1, ...) is its written position; None keeps order.

        A streaming ``row_number() OVER ()`` would number them too, but it holds the whole
        pipeline (scan, release, treatments) to one thread; an insert keeps the input's
        order on every thread (insertion order is preserved) and spills like a sort.
        Columns are stored by position: an output column may be named ``rowid``."""
        if self.plan.shuffle_seed is None:
            return None
        stored = ", ".join(f"{_identifier(n)} AS c{i}"
                           for i, n in enumerate(self._output_names))
        return (f"CREATE TEMP TABLE {_WRITTEN} AS SELECT {stored} "
                f"FROM ({self._kept(scan)})")

    def select(self, scan: str) -> str:
        """The written rows: in input order, or (after :meth:`numbering`) sorted by the
        shuffle keys of their written positions."""
        if self.plan.shuffle_seed is None:
            return self._kept(scan)
        names = ", ".join(f"c{i} AS {_identifier(n)}" for i, n in enumerate(self._output_names))
        return f"SELECT {names} FROM {_WRITTEN} ORDER BY arxpy_shuffle_key(rowid)"


class _Release:
    """An Arrow function: a chunk of value codes and passed-through values -> the
    released columns (or the CSV line) and whether each record is suppressed.

    Labels are taken by code; a class is the combination of its label codes, numbered
    in mixed radix and looked up in the sorted numbers of the suppressed classes (a
    MultiIndex when the numbers would not fit 63 bits)."""

    def __init__(self, plan: OutputPlan, passed: list[str], delimiter: str | None,
                 deferred: Any = None) -> None:
        import pyarrow as pa

        self.plan, self.passed, self.delimiter = plan, passed, delimiter
        self.deferred = deferred
        single = len(plan.columns) == 1
        self._pattern = quoting_pattern(delimiter, single) if delimiter is not None else None
        self._re2 = _re2_quoting_pattern(delimiter, single) if delimiter is not None else None
        # a single column quotes its empty cells, which no byte shows
        self._telling = None if delimiter is None or single else \
            _quoting_bytes(quoting_characters(delimiter))
        self._label_codes, self._shown, distincts = [], [], []
        for table in plan.labels.values():
            labels, codes = np.unique(table["label"].astype(str).to_numpy(dtype=object),
                                      return_inverse=True)
            self._label_codes.append(codes)
            # the suppressed value last: suppression is one more index, not an if_else
            shown = np.append(labels, plan.suppressed_value).astype(object)
            self._shown.append(pa.array(self._quoted(shown), type=pa.string()))
            distincts.append(labels)
        sizes = [len(d) for d in distincts]
        self._strides = np.cumprod([1, *sizes[:-1]], dtype=object)
        self._radix = int(np.prod(np.asarray(sizes, dtype=object))) < RADIX_LIMIT
        suppressed = [_label_positions(d, plan.suppressed[name], name)
                      for d, name in zip(distincts, plan.labels, strict=True)]
        if self._radix:
            self._keys = distinct(self._numbers(suppressed)) \
                if len(plan.suppressed) else None
        else:
            self._index = pd.MultiIndex.from_arrays(suppressed)
        if delimiter is None:
            self.output_names = list(plan.columns)
        else:
            self.output_names = [delimiter.join(self._quoted(
                np.array([str(n) for n in plan.columns], dtype=object)))]

    def _quoted(self, texts: np.ndarray) -> np.ndarray:
        return quote_cells(texts, self._pattern) if self._pattern is not None else texts

    def _numbers(self, codes: list[np.ndarray]) -> np.ndarray:
        total = np.zeros(len(codes[0]), dtype=np.int64)
        for column, stride in zip(codes, self._strides, strict=True):
            total += column.astype(np.int64) * np.int64(stride)
        return total

    def _is_suppressed(self, codes: list[np.ndarray], rows: int) -> np.ndarray:
        if not codes or not len(self.plan.suppressed):
            return np.zeros(rows, dtype=bool)
        if self._radix:
            numbers = self._numbers(codes)
            at = np.minimum(np.searchsorted(self._keys, numbers), len(self._keys) - 1)
            return self._keys[at] == numbers
        return pd.MultiIndex.from_arrays(codes).isin(self._index)

    def _pass(self, values: Any) -> Any:
        """A passed-through column, quoted for CSV like the exporter quotes."""
        import pyarrow.compute as pc

        if self._re2 is None or _free_of(values, self._telling):
            return values
        needs = pc.match_substring_regex(values, self._re2)
        if not pc.any(needs).as_py():  # the common case: nothing to quote
            return values
        quoted = pc.binary_join_element_wise(
            '"', pc.replace_substring(values, '"', '""'), '"', "")
        return pc.if_else(needs, quoted, values)

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        if hasattr(batch, "combine_chunks"):
            batch = batch.combine_chunks()
        rows = len(batch)
        codes = [label_codes[batch.field(f"q{i}").to_numpy()]
                 for i, label_codes in enumerate(self._label_codes)]
        suppressed = self._is_suppressed(codes, rows)
        if self.plan.sample is not None:
            suppressed |= ~self.plan.sample.kept(batch.field("p").to_numpy())
        cells = {name: shown.take(np.where(suppressed, len(shown) - 1, code))
                 for name, shown, code in zip(self.plan.labels, self._shown, codes,
                                              strict=True)}
        for j, name in enumerate(self.passed):
            cells[name] = self._pass(batch.field(f"c{j}"))
        if self.deferred is not None:
            for name, values in self.deferred(batch.field("t")).items():
                cells[name] = self._pass(values)
        columns = [cells[name] for name in self.plan.columns]
        if self.delimiter is not None:
            columns = [pc.binary_join_element_wise(*columns, self.delimiter)]
        return pa.StructArray.from_arrays([*columns, pa.array(suppressed)],
                                          names=[*self.output_names, "arxpy_suppressed"])


class _ShuffleKey:
    """An Arrow function: written-row positions -> their :func:`shuffle_keys`."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, positions: Any) -> Any:
        import pyarrow as pa

        if hasattr(positions, "combine_chunks"):
            positions = positions.combine_chunks()
        return pa.array(shuffle_keys(positions.to_numpy(), self.seed), type=pa.int64())


def _label_positions(distinct: np.ndarray, labels: pd.Series, name: str) -> np.ndarray:
    """Positions of released ``labels`` of ``name`` among its sorted ``distinct`` labels."""
    labels = labels.astype(str).to_numpy(dtype=object)
    codes = np.minimum(np.searchsorted(distinct, labels), max(len(distinct) - 1, 0))
    if len(labels) and not (distinct[codes] == labels).all():
        raise ConfigurationError(
            f"The output plan suppresses a label of '{name}' that its hierarchy does not "
            "give at the chosen level.")
    return codes


def _text(name: str) -> str:
    """A column's value as arxpy's CSV reader gives it: text, empty for a missing cell."""
    return f"COALESCE(CAST({_identifier(name)} AS VARCHAR), '')"


def _quoting_bytes(characters: str) -> tuple[bytes, ...]:
    """The UTF-8 bytes whose absence proves that no cell needs quoting: the quoting
    characters' and the space and tab a cell may not start or end with."""
    return tuple(c.encode() for c in dict.fromkeys(characters + " \t"))


def _free_of(values: Any, telling: tuple[bytes, ...] | None) -> bool:
    """Whether a chunk's text holds none of ``telling`` (so no cell needs quoting), read
    from its Arrow data buffer by ``bytes.find``: a tenth of a regular expression per
    value. False when it cannot tell (another type, or ``telling`` None)."""
    import pyarrow as pa

    if telling is None or values.type not in (pa.string(), pa.large_string()):
        return False
    if not len(values):
        return True
    width = 4 if values.type == pa.string() else 8
    _, offsets, data = values.buffers()
    if data is None:  # no text at all: nothing to quote
        return True
    ends = np.frombuffer(offsets, dtype=f"<i{width}", count=len(values) + 1,
                         offset=width * values.offset)[[0, -1]]
    text = data[int(ends[0]):int(ends[1])].to_pybytes()
    return not any(b in text for b in telling)


def _re2_quoting_pattern(delimiter: str, single_column: bool) -> str:
    """:func:`quoting_pattern` for Arrow's RE2 engine (characters as ``\\x{..}``)."""
    characters = "".join(f"\\x{{{ord(c):x}}}" for c in quoting_characters(delimiter))
    return f"[{characters}]|^[ \\t]|[ \\t]$" + ("|^$" if single_column else "")


def _create_enum(connection: Any, name: str, values: Sequence[str]) -> None:
    members = ", ".join(_literal(v) for v in values)
    connection.execute(f"CREATE TYPE {name} AS ENUM ({members})")


def _csv_header(path: Path, fmt: CsvFormat) -> list[str]:
    """Column names as :func:`arxpy.data.csv_io.read_csv` names them (first record)."""
    try:
        with open(path, encoding=fmt.encoding, newline="") as handle:
            reader = csv.reader(handle, delimiter=fmt.delimiter, quotechar=fmt.quotechar,
                                doublequote=True, strict=False)
            first = next((r for r in reader
                          if r and not (len(r) == 1 and not r[0].strip(" \t"))), None)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DataImportError(f"Cannot read the first record of '{path}': {exc}") from None
    if first is None:
        raise DataImportError(f"'{path}' is empty; choose a file that contains data.")
    if first[0].startswith("\ufeff"):
        first[0] = first[0][1:]
    if fmt.has_header:
        return make_unique_names(first)
    return [f"Column {i}" for i in range(1, len(first) + 1)]


def _check_known(names: Sequence[str], columns: Sequence[str], source: RecordSource) -> None:
    unknown = [n for n in names if n not in set(columns)]
    if unknown:
        raise ConfigurationError(
            f"{source.describe()} has no column {', '.join(repr(n) for n in unknown)}; its "
            f"columns are: {', '.join(columns)}.")


def _invalid_input_message(exc: Exception) -> str:
    text = str(exc)
    if "unicode" in text.lower() or "utf" in text.lower():
        return (f"The data is not valid UTF-8 ({text.splitlines()[0]}); give its encoding, "
                "convert it to UTF-8, or use the memory engine.")
    return f"DuckDB cannot read the data: {text}"

