"""The Spark record engine (issue 17) gives what the in-memory engine gives: the same
histogram (awkward CSVs included), the same search answers, the same written table.

One local Spark session serves the whole module. Every test that starts it is ``slow``
(the JVM and the first query take 20-60 s on the 2-core machine, a sixth of the default
suite's budget): run them with ``python3 -m pytest -m slow tests/test_spark_engine.py``. The
reference is always the in-memory engine or the default path over arxpy's CSV reader,
never the Spark engine's own plan.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import load_adult

from arxpy.data.csv_io import read_csv, sniff_csv
from arxpy.data.export import export_table
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.backends import MemoryEngine, OutputPlan, RecordSource
from arxpy.engine.backends.spark_engine import SparkEngine
from arxpy.engine.scaled import anonymize_source
from arxpy.errors import (
    CancelledError,
    ConfigurationError,
    DataExportError,
    DataImportError,
)
from arxpy.example import example_project
from arxpy.jobs import CancelToken

pytest.importorskip("pyspark", reason="the spark extra (pyspark) is not installed")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime for Spark", allow_module_level=True)


@pytest.fixture(scope="module")
def engine():
    with SparkEngine("local[2]", conf={"spark.sql.shuffle.partitions": "2"}) as spark:
        yield spark


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    project = example_project(records=2000)
    path = tmp_path_factory.mktemp("example") / "example.csv"
    export_table(project.data, path, delimiter=",")
    return project, RecordSource.of_file(path)


@pytest.fixture(scope="module")
def plan(example):
    """The memory engine's output plan of the example's optimum."""
    project, source = example
    config = AnonymizationConfig.from_dict(project.settings)
    return anonymize_source(source, project.definition, project.hierarchies, config,
                            MemoryEngine()).output_plan()


def assert_same_histogram(source, attributes, engine):
    expected = MemoryEngine().histogram(source, attributes)
    got = engine.histogram(source, attributes)
    assert got.columns == expected.columns
    pd.testing.assert_frame_equal(got.frame, expected.frame)
    np.testing.assert_array_equal(got.counts, expected.counts)


def read_output(path: Path) -> pd.DataFrame:
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    return read_csv(path, sniff_csv(path, delimiter=";"))


@pytest.mark.slow
def test_histogram_of_the_example_equals_the_memory_engines(engine, example):
    project, source = example
    assert engine.columns(source) == tuple(project.data.columns)
    assert_same_histogram(source, project.definition.quasi_identifiers, engine)


AWKWARD = {
    # quoted delimiters, embedded line breaks, empty cells (bare and quoted), doubled
    # quotes, unicode, spaces kept, a blank line, a backslash (no escape character)
    "comma": ('name,city,note\n'
              'a,"Zürich, CH",\n'
              'b,"two\nlines",""\n'
              '\n'
              'c,"say ""hi""", spaced \n'
              'a,"Zürich, CH",\n'
              'd,東京,back\\slash\n'
              'e,,"x;y"\n'),
    "semicolon": 'a;b\n"1;2";\n;""\n"1;2";\nÅ;"multi\n\nline"\n',
    # a line of only spaces is blank; Windows text
    "tab-cp1252": 'a\tb\n€\t"x\ty"\n   \n\t\né\t€\n',
}
DELIMITERS = {"semicolon": ";", "tab-cp1252": "\t"}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(AWKWARD))
def test_histogram_of_awkward_csv_equals_the_memory_engines(engine, tmp_path, name):
    path = tmp_path / f"{name}.csv"
    encoding = "cp1252" if name.endswith("cp1252") else "utf-8"
    path.write_text(AWKWARD[name], encoding=encoding)
    source = RecordSource.of_file(path, delimiter=DELIMITERS.get(name), encoding=encoding)
    columns = MemoryEngine().columns(source)
    assert engine.columns(source) == columns
    assert_same_histogram(source, list(columns), engine)
    assert_same_histogram(source, list(columns)[::-1][:1], engine)


@pytest.mark.slow
def test_a_ragged_record_is_refused(engine, tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("a,b\n1,2\n3\n4,5\n", encoding="utf-8")
    with pytest.raises(DataImportError, match="different number of fields"):
        engine.histogram(RecordSource.of_file(path), ["a"])


#: Cell texts that trip CSV readers and writers.
NASTY = ["", " ", "a", "a b", " lead", "trail ", "x,y", "x;y", 'say "hi"', "'quoted'",
         "two\nlines", "tab\there", "=1+2", "Zürich", "東京", "back\\slash", "NA", "*",
         '"', "|"]


def random_table(seed: int, rows: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"col {j}": rng.choice(NASTY, size=rows) for j in range(3)})


@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::arxpy.data.formulas.FormulaWarning")  # "=1+2"
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_nasty_tables_read_and_write_as_with_the_memory_engine(engine, tmp_path,
                                                                      seed):
    """Awkward values both in the input and in the released labels."""
    frame = random_table(seed)
    path = tmp_path / "nasty.csv"
    export_table(frame, path, delimiter=",")
    source = RecordSource.of_file(path, delimiter=",")
    assert_same_histogram(source, list(frame.columns), engine)
    rng = np.random.default_rng(seed + 100)
    qis = list(frame.columns[:2])
    labels = {q: pd.DataFrame({"value": NASTY, "label": rng.permutation(NASTY)})
              for q in qis}
    released = pd.DataFrame({q: frame[q].map(dict(labels[q].to_numpy())) for q in qis})
    plan = OutputPlan(columns=tuple(frame.columns), labels=labels,
                      suppressed=released.drop_duplicates().sample(5, random_state=seed),
                      remove_suppressed=bool(seed % 2),
                      shuffle_seed=None if seed == 0 else seed)
    expected = MemoryEngine().write(source, plan, tmp_path / "memory.csv")
    got = engine.write(source, plan, tmp_path / "spark.csv")
    assert (got.records, got.suppressed) == (expected.records, expected.suppressed)
    assert got.suppressed > 0
    pd.testing.assert_frame_equal(read_output(got.path), read_output(expected.path))


@pytest.mark.slow
@pytest.mark.parametrize(("remove_suppressed", "shuffle_seed"),
                         [(False, None), (True, None), (False, 3), (True, 2**32 - 1)])
def test_spark_writes_what_the_memory_engine_writes(engine, example, tmp_path,
                                                    remove_suppressed, shuffle_seed):
    project, source = example
    config = AnonymizationConfig.from_dict({**project.settings,
                                            "remove_suppressed": remove_suppressed})
    reference = anonymize_source(source, project.definition, project.hierarchies, config,
                                 MemoryEngine())
    run = anonymize_source(source, project.definition, project.hierarchies, config, engine)
    assert run.result.optimum == reference.result.optimum
    assert run.result.optimum.suppressed_records > 0
    expected = reference.write(tmp_path / "memory.csv", shuffle_seed=shuffle_seed)
    got = run.write(tmp_path / "spark.csv", shuffle_seed=shuffle_seed)
    assert (got.records, got.suppressed) == (expected.records, expected.suppressed)
    # Same table in the same order (the input's, or the seed's).
    pd.testing.assert_frame_equal(read_output(got.path), read_output(expected.path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.csv", "spark.csv"]


@pytest.mark.slow
def test_the_row_order_does_not_depend_on_the_partitions(engine, tmp_path):
    """A table in memory arrives in two partitions, a file in one; positions are counted
    across partitions, so the shuffled order is the memory engine's (issue 28)."""
    frame = pd.DataFrame({"row": np.arange(3000).astype(str),
                          "q": np.tile(["a", "b", "c"], 1000)})
    plan = OutputPlan(columns=("row", "q"),
                      labels={"q": pd.DataFrame({"value": ["a", "b", "c"],
                                                 "label": ["ab", "ab", "c"]})},
                      suppressed=pd.DataFrame({"q": ["c"]}), remove_suppressed=True,
                      shuffle_seed=17)
    source = RecordSource.of_frame(frame)
    assert engine._records(source)[0].rdd.getNumPartitions() > 1
    expected = MemoryEngine().write(source, plan, tmp_path / "memory.csv")
    got = engine.write(source, plan, tmp_path / "spark.csv")
    written = read_output(got.path)
    pd.testing.assert_frame_equal(written, read_output(expected.path))
    rows = written["row"].astype(int).to_numpy()
    assert np.mean(rows == np.sort(rows)) < 0.01


@pytest.mark.slow
def test_cancel_leaves_nothing_behind(engine, example, plan, tmp_path):
    _, source = example
    cancel = CancelToken()

    def progress(fraction, message):
        cancel.cancel()

    with pytest.raises(CancelledError):
        engine.write(source, plan, tmp_path / "out.csv", progress=progress,
                     cancel=cancel)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_value_no_hierarchy_covers_is_refused(engine, example, plan, tmp_path):
    _, source = example
    attr = next(iter(plan.labels))
    labels = {**plan.labels, attr: plan.labels[attr].iloc[1:]}
    broken = type(plan)(columns=plan.columns, labels=labels, suppressed=plan.suppressed)
    with pytest.raises(ConfigurationError, match=f"'{attr}' has a value its hierarchy"):
        engine.write(source, broken, tmp_path / "out.csv")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_no_folder_is_created_for_the_output(engine, example, plan, tmp_path):
    _, source = example
    with pytest.raises(DataExportError, match="does not exist"):
        engine.write(source, plan, tmp_path / "missing" / "out.csv")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_no_spark_folders_in_the_working_directory(engine, example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    project, source = example
    engine.histogram(source, project.definition.quasi_identifiers[:1])
    engine.session.sql("select 1").collect()
    assert list(tmp_path.iterdir()) == []


# -- errors that need no session ----------------------------------------------------

def test_missing_pyspark_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)
    with pytest.raises(ConfigurationError, match=r"arxpy\[spark\]"):
        SparkEngine()


def test_missing_java_says_to_install_java(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))  # no bin/java there
    with pytest.raises(ConfigurationError, match="Java 17 runtime"):
        SparkEngine()


def test_unreachable_master_is_named():
    with socket_closed_port() as port:
        master = f"spark://127.0.0.1:{port}"
        with pytest.raises(ConfigurationError, match=f"Cannot reach the Spark master at "
                                                     f"{master}"):
            SparkEngine(master).histogram(RecordSource.of_frame(pd.DataFrame({"a": ["1"]})),
                                          ["a"])


def socket_closed_port():
    """A context giving a local port nothing listens on."""
    import contextlib
    import socket

    @contextlib.contextmanager
    def closed():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        yield port

    return closed()


# -- slow: Parquet, same answers as on the records, Adult -------------------------

@pytest.mark.slow
@pytest.mark.parametrize("output", ["out.parquet", "out.csv"])
def test_parquet_source(engine, example, tmp_path, output):
    project, _ = example
    path = tmp_path / "example.parquet"
    # Small row groups and splits: several partitions, so the output order is tested.
    project.data.to_parquet(path, index=False, row_group_size=250)
    source = RecordSource.of_file(path)
    config = AnonymizationConfig.from_dict(project.settings)
    settings = engine.session.conf
    settings.set("spark.sql.files.maxPartitionBytes", "2048")
    try:
        assert engine._records(source)[0].rdd.getNumPartitions() > 1
        assert_same_histogram(source, project.definition.quasi_identifiers, engine)
        reference = anonymize_source(source, project.definition, project.hierarchies,
                                     config, MemoryEngine())
        run = anonymize_source(source, project.definition, project.hierarchies, config,
                               engine)
        expected = reference.write(tmp_path / f"memory-{output}")
        got = run.write(tmp_path / output)
    finally:
        settings.unset("spark.sql.files.maxPartitionBytes")
    assert (got.records, got.suppressed) == (expected.records, expected.suppressed)
    pd.testing.assert_frame_equal(read_output(got.path), read_output(expected.path))


@pytest.mark.slow
def test_same_answers_as_the_search_on_records_on_adult(engine, adult_dir, tmp_path):
    frame, definition, hierarchies = load_adult()
    config = AnonymizationConfig.from_dict({
        "privacy_models": [{"kind": "k-anonymity", "k": 5}],
        "quality_model": {"name": "loss"}, "suppression_limit": 0.02})
    reference = anonymize(frame, definition, hierarchies, config)
    source = RecordSource.of_file(adult_dir / "adult.csv", delimiter=";")
    run = anonymize_source(source, definition, hierarchies, config, engine)
    assert run.result.optimum.levels == reference.optimum.levels
    assert run.result.optimum.score == reference.optimum.score
    assert run.result.optimum.suppressed_records == reference.optimum.suppressed_records
    summary = run.write(tmp_path / "adult.csv")
    written = read_output(summary.path)
    from arxpy.engine.export import released_frame

    expected = released_frame(reference.release())
    assert list(written.columns) == list(expected.columns)
    assert (written.to_numpy() == expected.astype(str).to_numpy()).all()
