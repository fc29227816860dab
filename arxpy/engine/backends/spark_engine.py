"""The Spark record engine: the histogram and the output written by a Spark cluster.

The executors read the records, group them and write the output; the driver (this
process) receives only the histogram of distinct (quasi-identifier, tracked) value
combinations with their counts, runs the search on it, and sends back the lookup tables
(original value -> released label per quasi-identifier) and the label combinations of
the suppressed classes, both broadcast to every executor. docs/scale-out.md ("Spark on
a cluster") has the picture and how to point at a cluster.

Values are the strings arxpy's CSV reader gives (every column read as a string, an
empty cell is ``""``, quoted delimiters and line breaks kept, lines of only spaces
skipped, a ragged record refused). Two differences remain,
both from Spark's CSV parser: a CRLF line break inside a quoted cell is read as LF, and
in a file mixing LF and CRLF line ends the last cell of a CRLF line keeps its CR.
Parquet columns are cast to strings; a null becomes ``""``.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import numpy as np

from arxpy.data.atomic import atomic_path
from arxpy.data.csv_io import CsvFormat, read_csv
from arxpy.engine.backends.base import (
    Histogram,
    OutputPlan,
    RecordSource,
    WriteSummary,
    missing_extra,
)
from arxpy.engine.backends.spark_files import (
    csv_read_options,
    csv_write_options,
    join_csv_parts,
    join_parquet_parts,
)
from arxpy.errors import (
    CancelledError,
    ConfigurationError,
    DataExportError,
    DataImportError,
)
from arxpy.jobs import CancelToken, Progress, no_progress

T = TypeVar("T")

#: Spark settings the engine starts with; ``conf`` given by the caller wins.
_DEFAULT_CONF = {
    "spark.ui.showConsoleProgress": "false",
    # Small local runs: a few shuffle partitions instead of 200 (AQE merges them anyway).
    "spark.sql.shuffle.partitions": "8",
    # The histogram comes to the driver as Arrow batches, not pickled rows (pyarrow is
    # in the extra; Spark falls back to rows without it).
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # Spark 4 reads CSV only in the UTF and Latin-1 charsets unless Java's are allowed
    # (Windows files are often cp1252).
    "spark.sql.legacy.javaCharsets": "true",
    # Every field of every CSV record is parsed, so a ragged record is always seen.
    "spark.sql.csv.parser.columnPruning.enabled": "false",
}
_JAVA_HINT = ("install a Java 17 runtime (e.g. 'apt-get install openjdk-17-jre-headless') "
              "or set JAVA_HOME to one")
#: Wraps the message of an error an executor raises for the user (raise_error), so the
#: driver can show it as the project error it is.
_USER_ERROR = "[arxpy:{kind}:{message}:arxpy]"
_USER_ERROR_PATTERN = re.compile(r"\[arxpy:(\w+):(.*?):arxpy\]", re.DOTALL)
_LOG_CONFIG = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
# Spark announces a shell log level unless its own loggers are configured at the
# root's level; its and Hadoop's start-up warnings (loopback address, native library)
# are noise here.
logger.apache.name = org.apache
logger.apache.level = error
logger.shaded.name = org.sparkproject
logger.shaded.level = error
"""


class SparkEngine:
    """Histogram and output on Spark: local mode (``local[2]``) or a cluster URL.

    The constructor checks that pyspark and a Java runtime are there and stores the
    settings; the Spark session starts on first use and is stopped by :meth:`close` (or
    leaving a ``with`` block). One engine per process: Spark allows one session per
    process. ``conf`` holds Spark settings (``{"spark.executor.memory": "8g"}``).
    """

    name = "spark"

    def __init__(self, master: str = "local[2]", app_name: str = "arxpy",
                 conf: Mapping[str, str] | None = None) -> None:
        try:
            import pyspark  # noqa: F401
        except ImportError as exc:
            raise missing_extra("spark", exc) from None
        if not _java_found():
            raise ConfigurationError(f"The spark engine needs Java: {_JAVA_HINT}.")
        self.master = master
        self.app_name = app_name
        self.conf = dict(conf or {})
        self._session: Any = None
        self._scratch: Path | None = None
        self._lock = threading.Lock()
        self._headers: dict[tuple, tuple[str, ...]] = {}

    # -- session ---------------------------------------------------------------------

    @property
    def session(self) -> Any:
        """The engine's SparkSession, started on first use."""
        with self._lock:
            if self._session is None:
                self._session = self._start()
            return self._session

    def _start(self) -> Any:
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        _check_master_reachable(self.master)
        if SparkContext._active_spark_context is not None:
            raise ConfigurationError(
                "A Spark session is already running in this process; Spark allows one. "
                "Close the other SparkEngine (engine.close()) or stop that session first.")
        # Warehouse and logging setup live in a scratch folder, never in the cwd.
        self._scratch = Path(tempfile.mkdtemp(prefix="arxpy-spark-"))
        log_config = self._scratch / "log4j2.properties"
        log_config.write_text(_LOG_CONFIG, encoding="utf-8")
        conf = {**_DEFAULT_CONF,
                "spark.sql.warehouse.dir": (self._scratch / "warehouse").as_uri(),
                "spark.ui.enabled": "false" if self.master.startswith("local") else "true",
                **self.conf}
        quiet = f"-Dlog4j.configurationFile={log_config.as_uri()}"
        conf["spark.driver.extraJavaOptions"] = " ".join(
            filter(None, [conf.get("spark.driver.extraJavaOptions"), quiet]))
        builder = SparkSession.builder.master(self.master).appName(self.app_name)
        for key, value in conf.items():
            builder = builder.config(key, value)
        try:
            session = builder.getOrCreate()
        except Exception as exc:
            self._remove_scratch()
            raise _start_error(self.master, exc) from None
        session.sparkContext.setLogLevel("ERROR")
        return session

    def close(self) -> None:
        """Stop the Spark session (if started) and remove the engine's scratch folder."""
        with self._lock:
            if self._session is not None:
                self._session.stop()
                self._session = None
            self._remove_scratch()

    def _remove_scratch(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def __enter__(self) -> SparkEngine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the record engine -----------------------------------------------------------

    def columns(self, source: RecordSource) -> tuple[str, ...]:
        if source.format == "csv" and source.frame is None:
            return self._csv_names(_existing(source), _csv_format(source))
        return self._records(source)[1]

    def histogram(self, source: RecordSource, attributes: Sequence[str], *,
                  progress: Progress | None = None,
                  cancel: CancelToken | None = None) -> Histogram:
        self.session  # noqa: B018 - the session's start is not part of the pass
        started = time.perf_counter()
        attributes = list(dict.fromkeys(attributes))
        records, names = self._records(source)
        internal = [_internal(names, a, source) for a in attributes]
        grouped = records.groupBy(*internal).count()
        with warnings.catch_warnings():
            # On a failed job pyspark warns that Arrow "can not continue"; the error says
            # what went wrong.
            warnings.filterwarnings("ignore", "toPandas attempted Arrow", UserWarning)
            table = self._run(grouped.toPandas, progress, cancel,
                              "Counting distinct records")
        table.columns = [*attributes, "__count"]
        # The memory engine's order (pandas' groupby sorts), so the histograms are equal.
        table = table.sort_values(attributes, kind="stable", ignore_index=True)
        counts = table.pop("__count").to_numpy(dtype=np.int64)
        return Histogram(frame=table.astype(str), counts=counts, columns=names,
                         seconds=time.perf_counter() - started)

    def write(self, source: RecordSource, plan: OutputPlan, path: Path, *,
              delimiter: str = ";", progress: Progress | None = None,
              cancel: CancelToken | None = None) -> WriteSummary:
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        started = time.perf_counter()
        path = Path(path)
        parquet = path.suffix.lower() in (".parquet", ".pq")
        if not parquet and (len(delimiter) != 1 or delimiter in "\"\r\n"):
            raise DataExportError(
                f"Delimiter {delimiter!r} cannot be used; choose one character such as "
                ", ; | or tab.")
        if not path.parent.is_dir():  # Spark would create it
            raise DataExportError(
                f"Cannot write '{path}': the folder '{path.parent}' does not exist. Choose "
                "an existing folder.")
        records, names = self._records(source)
        released, suppressed = self._released(records, names, plan, source)
        tally = Observation("arxpy-write")
        released = released.observe(tally, F.count(F.lit(1)).alias("rows"),
                                    F.sum(suppressed.cast("long")).alias("suppressed"))
        if plan.remove_suppressed:
            released = released.where(~suppressed)
        released = released.select(*[f"_o{i}" for i in range(len(plan.columns))])
        if plan.shuffle_seed is not None:
            released = self._shuffled(released, plan.shuffle_seed, progress, cancel)
        if parquet:
            writer = released.toDF(*plan.columns).write.mode("overwrite").parquet
        else:
            writer = released.write.mode("overwrite").options(
                **csv_write_options(delimiter)).csv
        with atomic_path(path) as temporary:
            # Spark writes part files into a folder beside the target; they are joined
            # into the temporary file, which atomic_path renames onto the target.
            parts = temporary.with_name(temporary.name + ".d")
            try:
                self._run(lambda: writer(parts.resolve().as_uri()), progress, cancel,
                          "Writing the output")
                if parquet:
                    join_parquet_parts(parts, temporary, plan.columns)
                else:
                    join_csv_parts(parts, temporary, plan.columns, delimiter)
            finally:
                shutil.rmtree(parts, ignore_errors=True)
        counts = tally.get
        rows, n_suppressed = int(counts["rows"]), int(counts["suppressed"] or 0)
        written = rows - n_suppressed if plan.remove_suppressed else rows
        return WriteSummary(path, written, n_suppressed, time.perf_counter() - started)

    # -- pieces ----------------------------------------------------------------------

    def _shuffled(self, rows: Any, seed: int, progress: Progress | None,
                  cancel: CancelToken | None) -> Any:
        """``rows`` sorted by :func:`~arxpy.engine.backends.base.shuffle_keys` of their
        keep-order positions: Spark's own ``xxhash64``, so the order depends on the seed
        and the data, never on the partitioning. A first pass counts each partition's
        rows; a row's position is its partition's offset plus its index there."""
        from pyspark.sql import functions as F

        rows = rows.withColumn("_part", F.spark_partition_id()).withColumn(
            "_index", F.monotonically_increasing_id())  # (partition << 33) + index
        counts = self._run(lambda: rows.groupBy("_part").count().collect(), progress,
                           cancel, "Numbering the rows")
        offsets, total = [], 0
        for part, count in sorted((int(r[0]), int(r[1])) for r in counts):
            offsets.append((part, total))
            total += count
        offsets = self.session.createDataFrame(offsets or [(0, 0)],
                                               "_part int, _offset long")
        rows = rows.join(F.broadcast(offsets), "_part", "left")
        position = (F.col("_index") - F.shiftleft(F.col("_part").cast("long"), 33)
                    + F.col("_offset"))
        key = F.xxhash64(F.lit(int(seed)).cast("long"), position)
        return rows.orderBy(key).drop("_part", "_index", "_offset")

    def _records(self, source: RecordSource) -> tuple[Any, tuple[str, ...]]:
        """The records as a Spark DataFrame of strings with columns ``_c0, _c1, ...``
        (positional names: real names may hold dots or spaces), and the real names."""
        from pyspark.sql import functions as F
        from pyspark.sql import types as T

        spark = self.session
        if source.frame is not None:
            frame = source.frame.astype(str)
            names = tuple(str(c) for c in frame.columns)
            schema = T.StructType([T.StructField(f"_c{i}", T.StringType())
                                   for i in range(len(names))])
            records = spark.createDataFrame(list(frame.itertuples(index=False, name=None)),
                                            schema)
            return records, names
        path = _existing(source)
        if source.format == "parquet":
            records = spark.read.parquet(path.resolve().as_uri())
            names = tuple(records.columns)
            records = records.toDF(*[f"_c{i}" for i in range(len(names))])
        else:
            fmt = _csv_format(source)
            names = self._csv_names(path, fmt)
            schema = T.StructType([T.StructField(f"_c{i}", T.StringType())
                                   for i in range(len(names))]
                                  + [T.StructField("_corrupt", T.StringType())])
            records = (spark.read.schema(schema).options(**csv_read_options(fmt, "_corrupt"))
                       .csv(path.resolve().as_uri()))
            # arxpy's reader skips lines of only spaces and tabs and refuses ragged ones.
            corrupt = F.col("_corrupt")
            ragged = _user_error(
                "import", f"'{path}': a record has a different number of fields than the "
                "header, or a quote that does not close. Check the delimiter and quote "
                "character, or fix the record.")
            records = records.where(F.when(corrupt.isNull(), True)
                                    .when(corrupt.rlike(r"^[ \t]*$"), False)
                                    .otherwise(F.raise_error(ragged))).drop("_corrupt")
        # Spark reads an empty cell (and casts a Parquet null) as null; arxpy as "".
        records = records.select(*[F.coalesce(F.col(c).cast("string"), F.lit("")).alias(c)
                                   for c in records.columns])
        return records, names

    def _csv_names(self, path: Path, fmt: CsvFormat) -> tuple[str, ...]:
        """Column names as arxpy's reader gives them (unique, BOM removed); remembered
        per file version, as the reader scans the whole file for NUL bytes."""
        stat = path.stat()
        key = (path.resolve(), stat.st_size, stat.st_mtime_ns, fmt)
        if key not in self._headers:
            self._headers[key] = tuple(read_csv(path, fmt, nrows=0).columns)
        return self._headers[key]

    def _released(self, records: Any, names: tuple[str, ...], plan: OutputPlan,
                  source: RecordSource) -> tuple[Any, Any]:
        """``records`` with the released columns ``_o0, _o1, ...`` and the column
        telling which records are suppressed: broadcast joins with the plan's tables."""
        from pyspark.sql import functions as F

        spark = self.session
        label_of = {}
        for j, (attr, table) in enumerate(plan.labels.items()):
            lookup = table[["value", "label"]].astype(str).drop_duplicates("value")
            lookup = spark.createDataFrame(list(lookup.itertuples(index=False, name=None)),
                                           f"_v{j} string, _l{j} string")
            column = _internal(names, attr, source)
            records = records.join(F.broadcast(lookup), F.col(column) == F.col(f"_v{j}"),
                                   "left")
            message = _user_error(
                "config", f"'{attr}' has a value its hierarchy does not cover; the data "
                "changed since the histogram was built.")
            label_of[attr] = F.when(F.col(f"_l{j}").isNull(), F.raise_error(message)
                                    ).otherwise(F.col(f"_l{j}"))
        suppressed = F.lit(False)
        if len(plan.suppressed) and plan.labels:
            keys = plan.suppressed[list(plan.labels)].astype(str).drop_duplicates()
            key_names = [f"_s{j}" for j in range(keys.shape[1])]
            keys = spark.createDataFrame(list(keys.itertuples(index=False, name=None)),
                                         ", ".join(f"{k} string" for k in key_names))
            keys = keys.withColumn("_suppressed", F.lit(True))
            on = [F.col(f"_l{j}") == F.col(k) for j, k in enumerate(key_names)]
            records = records.join(F.broadcast(keys), on, "left")
            suppressed = F.col("_suppressed").isNotNull()
        out = []
        for i, name in enumerate(plan.columns):
            if name in label_of:
                value = F.when(suppressed, F.lit(plan.suppressed_value)).otherwise(
                    label_of[name])
            else:
                value = F.col(_internal(names, name, source))
            out.append(value.alias(f"_o{i}"))
        records = records.select(*out, suppressed.alias("_is_suppressed"))
        return records, F.col("_is_suppressed")

    def _run(self, action: Callable[[], T], progress: Progress | None,
             cancel: CancelToken | None, message: str) -> T:
        """Run a Spark action; report its tasks' progress and cancel its jobs when
        ``cancel`` is set (a watcher thread: the action blocks this one)."""
        cancel = cancel or CancelToken()
        cancel.raise_if_cancelled()
        progress = progress or no_progress
        context = self.session.sparkContext
        done = threading.Event()

        def watch() -> None:
            while not done.wait(0.1):
                if cancel.cancelled:
                    # Again until the action returns: it may start further jobs
                    # (broadcasts, then the write) after one is cancelled.
                    context.cancelAllJobs()
                else:
                    progress(_task_fraction(context), message)

        watcher = threading.Thread(target=watch, name="arxpy-spark-watch", daemon=True)
        progress(0.0, message)
        watcher.start()
        try:
            result = action()
        except Exception as exc:
            if cancel.cancelled:
                raise CancelledError(
                    "The job was cancelled; nothing it produced was kept.") from None
            raise _action_error(exc) from exc
        finally:
            done.set()
            watcher.join()
        cancel.raise_if_cancelled()
        progress(1.0, message)
        return result


# -- helpers (no session) -----------------------------------------------------------

def _java_found() -> bool:
    home = os.environ.get("JAVA_HOME")
    if home:
        return (Path(home) / "bin" / "java").exists()
    return shutil.which("java") is not None


def _check_master_reachable(master: str) -> None:
    """A standalone master that does not answer makes Spark retry for a minute; try
    its port first so the user learns at once which URL is wrong."""
    if not master.startswith("spark://"):
        return
    failures = []
    for address in master[len("spark://"):].split(","):
        parts = urlsplit(f"//{address}")
        try:
            port = parts.port or 7077
            with socket.create_connection((parts.hostname or "", port), timeout=5):
                return
        except (OSError, ValueError) as exc:
            failures.append(str(exc))
    raise ConfigurationError(
        f"Cannot reach the Spark master at {master} ({'; '.join(failures)}); check the "
        "--spark-master URL and that the master is running.")


def _start_error(master: str, exc: Exception) -> ConfigurationError:
    text = str(exc)
    if "JAVA_GATEWAY_EXITED" in text or "Java gateway process exited" in text:
        return ConfigurationError(
            f"Spark could not start its Java process: {_JAVA_HINT}.")
    if "Could not parse Master URL" in text or "Master URL" in text:
        return ConfigurationError(
            f"'{master}' is not a Spark master URL; use local[N], spark://HOST:PORT, yarn "
            "or k8s://URL.")
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return ConfigurationError(f"Spark could not start with master '{master}': {first}")


def _action_error(exc: Exception) -> Exception:
    """A user's error inside a Spark action as the project error it is."""
    found = _USER_ERROR_PATTERN.search(str(exc))
    if found is None:
        return exc
    kind, message = found.groups()
    return (DataImportError if kind == "import" else ConfigurationError)(message)


def _user_error(kind: str, message: str) -> Any:
    """A literal for ``raise_error``: an error of ``kind`` ("import" or "config")."""
    from pyspark.sql import functions as F

    return F.lit(_USER_ERROR.format(kind=kind, message=message))


def _task_fraction(context: Any) -> float:
    """Completed tasks of the running stages, as a fraction (coarse: stages of a job
    start one after another)."""
    tracker = context.statusTracker()
    done = total = 0
    for stage in tracker.getActiveStageIds():
        info = tracker.getStageInfo(stage)
        if info is not None:
            done += info.numCompletedTasks
            total += info.numTasks
    return done / total if total else 0.0


def _existing(source: RecordSource) -> Path:
    if source.path is None:
        raise DataImportError("The record source has neither a file nor a table.")
    if not source.path.is_file():
        raise DataImportError(
            f"'{source.path}' does not exist or is not a file; check the file name and "
            "folder.")
    return source.path


def _csv_format(source: RecordSource) -> CsvFormat:
    # The same detection the memory engine uses, so both read the same table.
    _existing(source)
    return source.csv_format()


def _internal(names: Sequence[str], name: str, source: RecordSource) -> str:
    try:
        return f"_c{list(names).index(name)}"
    except ValueError:
        raise DataImportError(
            f"{source.describe()} has no column '{name}'; its columns are: "
            f"{', '.join(names)}.") from None
