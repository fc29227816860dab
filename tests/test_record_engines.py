"""Record engines (issue 17): the histogram and the written output of every engine equal
what the in-memory path gives for the same run.

The reference for the output is the release the default path exports
(``released_frame`` of ``Result.release()``), not the engine's own plan; the reference
for reading is :func:`arxpy.data.csv_io.read_csv`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.data.csv_io import read_csv, sniff_csv
from arxpy.data.definition import AttributeDefinition, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.backends import ENGINES, MemoryEngine, RecordSource
from arxpy.engine.export import released_frame, shuffled
from arxpy.engine.scaled import anonymize_source
from arxpy.errors import ArxpyError, CancelledError, ConfigurationError, DataImportError
from arxpy.example import example_project
from arxpy.jobs import CancelToken


def _engine(name: str, **options):
    import importlib.util
    import shutil

    from arxpy.engine.backends.base import engine_missing

    module, cls, _, _ = ENGINES[name]
    missing = engine_missing(name)
    if missing:
        pytest.skip(f"the {name} engine is not installed: {missing}")
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not in this checkout")
    if name == "spark" and shutil.which("java") is None:
        pytest.skip("the spark engine needs a Java runtime")
    return getattr(importlib.import_module(module), cls)(**options)


#: The engines tested here. Spark starts a JVM and allows one session per process:
#: tests/test_spark_engine.py runs the same comparisons on one shared session.
ENGINE_NAMES = ["memory", "duckdb"]


@pytest.fixture(scope="module")
def example():
    project = example_project(records=3000)
    return project, AnonymizationConfig.from_dict(project.settings)


@pytest.mark.parametrize("engine_name", ENGINE_NAMES)
@pytest.mark.parametrize("remove_suppressed", [False, True])
def test_engine_writes_what_the_default_path_exports(example, tmp_path, engine_name,
                                                     remove_suppressed):
    project, config = example
    config = AnonymizationConfig.from_dict({**project.settings,
                                            "remove_suppressed": remove_suppressed})
    engine = _engine(engine_name)
    run = anonymize_source(RecordSource.of_frame(project.data), project.definition,
                           project.hierarchies, config, engine)
    reference = anonymize(project.data, project.definition, project.hierarchies, config)
    assert run.result.optimum == reference.optimum
    summary = run.write(tmp_path / "out.csv", delimiter=";")
    expected = released_frame(reference.release())
    written = read_csv(summary.path, sniff_csv(summary.path, delimiter=";"))
    assert summary.suppressed == reference.optimum.suppressed_records > 0
    assert summary.records == len(expected)
    assert list(written.columns) == list(expected.columns)
    assert (written.to_numpy() == expected.astype(str).to_numpy()).all()


def _awkward_csv(path, delimiter=","):
    """Quoted delimiters and quotes, embedded line breaks, empty cells (quoted or not),
    unicode, spaces kept, a blank line, a duplicate header name."""
    d = delimiter
    text = (f'zip{d}age{d}note{d}age\n'
            f'"1{d}2"{d}30{d} lead {d}x\n'
            f'12{d}{d}"two\nlines"{d}y\n'
            f'\n'
            f'"12"{d}""{d}"say ""hi"""{d}\n'
            f'ü€{d}30{d}\'q\'{d}=1+2\n')
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_duckdb_reads_awkward_csv_like_arxpy(tmp_path, delimiter):
    engine = _engine("duckdb")
    path = _awkward_csv(tmp_path / "awkward.csv", delimiter)
    reference = read_csv(path, sniff_csv(path))
    source = RecordSource.of_file(path)
    assert engine.columns(source) == tuple(reference.columns) == ("zip", "age", "note",
                                                                  "age (2)")
    histogram = engine.histogram(source, list(reference.columns))
    expected = reference.value_counts(dropna=False).sort_index()
    got = pd.Series(histogram.counts, index=pd.MultiIndex.from_frame(histogram.frame))
    assert got.sort_index().to_dict() == expected.to_dict()
    assert histogram.n_records == len(reference) == 4


def test_duckdb_histogram_of_parquet_equals_the_csv_one(tmp_path, example):
    project, _ = example
    csv_path, parquet_path = tmp_path / "d.csv", tmp_path / "d.parquet"
    project.data.to_csv(csv_path, index=False)
    project.data.astype(str).to_parquet(parquet_path, index=False)
    engine = _engine("duckdb")
    names = project.definition.quasi_identifiers
    from_csv = engine.histogram(RecordSource.of_file(csv_path), names)
    from_parquet = engine.histogram(RecordSource.of_file(parquet_path), names)
    reference = MemoryEngine().histogram(RecordSource.of_file(csv_path), names)
    for histogram in (from_csv, from_parquet):
        assert histogram.frame.equals(reference.frame)
        assert (histogram.counts == reference.counts).all()


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_duckdb_output_equals_the_memory_engine_s_byte_for_byte(example, tmp_path, suffix):
    project, config = example
    data = project.data.copy()
    # Cells the CSV writer must quote, in columns passed through unchanged.
    other = [c for c in data.columns if c not in project.definition.quasi_identifiers]
    data[other[0]] = np.where(np.arange(len(data)) % 3 == 0, 'a;"b"\nc', " x")
    source = RecordSource.of_frame(data)
    runs = {name: anonymize_source(source, project.definition, project.hierarchies, config,
                                   _engine(name)) for name in ENGINE_NAMES}
    outputs = {name: run.write(tmp_path / f"{name}{suffix}") for name, run in runs.items()}
    memory, duck = outputs["memory"], outputs["duckdb"]
    assert (duck.records, duck.suppressed) == (memory.records, memory.suppressed)
    if suffix == ".csv":
        assert duck.path.read_bytes() == memory.path.read_bytes()
    else:
        assert pd.read_parquet(duck.path).equals(pd.read_parquet(memory.path))


@pytest.mark.parametrize("engine_name", ENGINE_NAMES)
@pytest.mark.parametrize("remove_suppressed", [False, True])
def test_engines_write_the_keep_order_rows_permuted_by_the_seed(example, tmp_path,
                                                                engine_name,
                                                                remove_suppressed):
    """Defect 2 of issue 28: the rows no longer line up with the input's positions."""
    project, _ = example
    config = AnonymizationConfig.from_dict({**project.settings,
                                            "remove_suppressed": remove_suppressed})
    data = project.data.assign(row=np.arange(len(project.data)).astype(str))
    definition = DataDefinition([*project.definition, AttributeDefinition("row")])
    run = anonymize_source(RecordSource.of_frame(data), definition,
                           project.hierarchies, config, _engine(engine_name))
    kept = run.write(tmp_path / "kept.csv")
    first = run.write(tmp_path / "first.csv", shuffle_seed=5)
    again = run.write(tmp_path / "again.csv", shuffle_seed=5)
    other = run.write(tmp_path / "other.csv", shuffle_seed=6)
    assert first.path.read_bytes() == again.path.read_bytes()
    assert first.path.read_bytes() != other.path.read_bytes()
    kept_rows, rows = (read_csv(w.path, sniff_csv(w.path, delimiter=";"))
                       for w in (kept, first))
    kept_at = kept_rows["row"].astype(int).to_numpy()
    at = rows["row"].astype(int).to_numpy()
    assert (np.diff(kept_at) > 0).all()  # keep-order: input positions ascending
    assert sorted(at) == sorted(kept_at) and first.records == kept.records
    assert np.mean(at == kept_at) < 0.01  # was 1.0: rows aligned with the input
    assert abs(np.corrcoef(at, kept_at)[0, 1]) < 0.1
    assert rows.equals(shuffled(kept_rows, 5))  # the one order every engine writes


def test_duckdb_finds_suppressed_classes_without_class_numbers(example, tmp_path,
                                                               monkeypatch):
    """The fallback for too many label combinations to number gives the same file."""
    from arxpy.engine.backends import duckdb_engine

    project, config = example
    run = anonymize_source(RecordSource.of_frame(project.data), project.definition,
                           project.hierarchies, config, _engine("duckdb"))
    flags = run.write(tmp_path / "flags.csv")
    monkeypatch.setattr(duckdb_engine, "RADIX_LIMIT", 0)
    index = run.write(tmp_path / "index.csv")
    assert index.path.read_bytes() == flags.path.read_bytes()
    assert index.suppressed == flags.suppressed > 0


def test_duckdb_refuses_a_value_the_search_never_saw(example, tmp_path):
    project, config = example
    run = anonymize_source(RecordSource.of_frame(project.data), project.definition,
                           project.hierarchies, config, _engine("duckdb"))
    changed = project.data.copy()
    changed.loc[5, "Age"] = "999"
    with pytest.raises(ConfigurationError, match="'999'.*changed"):
        run.engine.write(RecordSource.of_frame(changed), run.output_plan(),
                         tmp_path / "out.csv")
    assert not list(tmp_path.iterdir())  # nothing left behind


def test_duckdb_errors_say_what_to_change(tmp_path):
    engine = _engine("duckdb")
    with pytest.raises(DataImportError, match="does not exist"):
        engine.histogram(RecordSource.of_file(tmp_path / "missing.csv"), ["a"])
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(ConfigurationError, match="no column 'c'.*a, b"):
        engine.histogram(RecordSource.of_file(path), ["c"])
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(DataImportError):
        engine.histogram(RecordSource.of_file(bad), ["a"])
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n1,2\n3\n")
    with pytest.raises(DataImportError):
        engine.histogram(RecordSource.of_file(ragged), ["a"])
    with pytest.raises(ArxpyError, match="cp1252|UTF-8"):
        latin = tmp_path / "cp.csv"
        latin.write_bytes("a,b\n\u20ac,1\n".encode("cp1252"))
        engine.histogram(RecordSource.of_file(latin, encoding="cp1252"), ["a"])


def test_duckdb_cancel_interrupts_a_running_query():
    import threading
    import time

    engine, token = _engine("duckdb"), CancelToken()
    seen = []
    threading.Timer(0.6, token.cancel).start()
    started = time.perf_counter()
    with engine._connection() as connection, pytest.raises(CancelledError):
        engine._run(connection, "SELECT count(*) FROM range(10000000000) t(i) "
                    "WHERE i % 7 = 3", "counting", lambda f, m: seen.append(f), token)
    assert time.perf_counter() - started < 5  # the query alone runs for minutes
    assert seen and all(0 <= f <= 1 for f in seen)


def test_a_missing_engine_names_its_extra(monkeypatch):
    import importlib.util

    from arxpy.engine.backends.base import create_engine, engine_missing

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyspark" else real_find_spec(name, *a))
    assert engine_missing("memory") is None
    assert "arxpy[spark]" in engine_missing("spark") and "Java" in engine_missing("spark")
    real_import = importlib.import_module

    def no_duckdb(name, *args):
        if "duckdb" in name:
            raise ImportError("No module named 'duckdb'")
        return real_import(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_duckdb)
    with pytest.raises(ConfigurationError, match=r"arxpy\[duckdb\]"):
        create_engine("duckdb")
    with pytest.raises(ConfigurationError, match="Unknown engine 'polars'"):
        create_engine("polars")


def test_duckdb_counts_the_suppressed_records_of_a_plan_without_counts(example, tmp_path):
    import dataclasses

    project, config = example
    run = anonymize_source(RecordSource.of_frame(project.data), project.definition,
                           project.hierarchies, config, _engine("duckdb"))
    plan = run.output_plan()
    bare = dataclasses.replace(plan, records=None, suppressed_records=None)
    summary = run.engine.write(run.source, bare, tmp_path / "out.csv")
    assert summary.suppressed == plan.suppressed_records == run.result.optimum.suppressed_records
    assert summary.records == len(project.data)


def test_duckdb_refuses_a_bad_memory_limit_and_leaves_no_spill_folder(tmp_path):
    engine = _engine("duckdb", memory_limit="lots", temp_directory=tmp_path)
    with pytest.raises(ConfigurationError, match="memory limit 'lots'"):
        engine.histogram(RecordSource.of_frame(pd.DataFrame({"a": ["1"]})), ["a"])
    assert not list(tmp_path.iterdir())
