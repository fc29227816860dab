"""The DuckDB engine's shuffled write (issue 32): the written rows are numbered for the
shuffle by a temporary table's ``rowid``, not by a streaming ``row_number()`` (which held
the whole write to one thread), the temporary table spills only into the engine's
temporary folder, and the file is still the memory engine's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.data.definition import AttributeDefinition, DataDefinition
from arxpy.engine import AnonymizationConfig
from arxpy.engine.backends import MemoryEngine, RecordSource
from arxpy.engine.scaled import anonymize_source
from arxpy.errors import CancelledError
from arxpy.example import example_project
from arxpy.jobs import CancelToken

duckdb_engine = pytest.importorskip("arxpy.engine.backends.duckdb_engine",
                                    exc_type=ImportError)
pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def example():
    """The example with a column named ``rowid`` holding each record's input position:
    a shuffle numbering rows by it (and not by the written position) reorders them."""
    project = example_project(records=1500)
    data = project.data.assign(rowid=np.arange(len(project.data)).astype(str))
    definition = DataDefinition([*project.definition, AttributeDefinition("rowid")])
    config = AnonymizationConfig.from_dict({**project.settings, "remove_suppressed": True})
    return project, RecordSource.of_frame(data), definition, config


@pytest.fixture(scope="module")
def runs(example):
    """The example's run through DuckDB and through the memory engine."""
    project, source, definition, config = example
    return tuple(anonymize_source(source, definition, project.hierarchies, config, engine)
                 for engine in (duckdb_engine.DuckDBEngine(), MemoryEngine()))


def _explaining(engine, monkeypatch) -> list[str]:
    """The physical plan of every statement ``engine`` runs from now on."""
    plans, run = [], engine._run

    def explained(connection, sql, *args, **kwargs):
        plans.append("".join(row[1] for row in connection.execute(f"EXPLAIN {sql}").fetchall()))
        return run(connection, sql, *args, **kwargs)

    monkeypatch.setattr(engine, "_run", explained)
    return plans


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_shuffled_write_is_the_memory_engines_without_a_streaming_window(
        runs, tmp_path, monkeypatch, suffix):
    duck, memory = runs
    plans = _explaining(duck.engine, monkeypatch)
    written = duck.write(tmp_path / f"duck{suffix}", shuffle_seed=7)
    expected = memory.write(tmp_path / f"memory{suffix}", shuffle_seed=7)
    assert not any("Streaming Window" in plan for plan in plans)
    assert len(plans) == 2 and "Create Table As" in plans[0]  # numbered, then sorted
    assert 0 < written.suppressed == expected.suppressed  # suppressed rows left gaps
    assert written.records == expected.records
    if suffix == ".csv":
        assert written.path.read_bytes() == expected.path.read_bytes()
    else:  # the rowid column is released as it is, not replaced by the table's rowid
        pd.testing.assert_frame_equal(pd.read_parquet(written.path),
                                      pd.read_parquet(expected.path))


def test_the_numbered_rows_spill_into_the_engine_s_temporary_folder_only(
        example, tmp_path, monkeypatch):
    spill, output = tmp_path / "spill", tmp_path / "out"
    spill.mkdir(), output.mkdir()
    project, _, definition, config = example
    many = pd.concat([example[1].frame] * 20, ignore_index=True)
    many["rowid"] = np.arange(len(many)).astype(str)
    engine = duckdb_engine.DuckDBEngine(memory_limit="8MB", temp_directory=spill)
    duck = anonymize_source(RecordSource.of_frame(many), definition, project.hierarchies,
                            config, engine)
    spilled, run = [], engine._run

    def noting_spills(connection, sql, *args, **kwargs):
        rows = run(connection, sql, *args, **kwargs)
        spilled.extend(connection.execute("SELECT path FROM duckdb_temporary_files()")
                       .fetchall())
        return rows

    monkeypatch.setattr(engine, "_run", noting_spills)
    written = duck.write(output / "o.csv", shuffle_seed=7)
    assert spilled and all(path.startswith(str(spill)) for (path,) in spilled)
    assert not list(spill.iterdir()) and [p.name for p in output.iterdir()] == ["o.csv"]
    assert written.records == len(many) - written.suppressed


def test_a_shuffled_write_reports_progress_once_from_0_to_1_and_stops_on_cancel(
        runs, tmp_path, monkeypatch):
    duck, _ = runs
    run, seen = duck.engine._run, []

    def halfway_and_done(connection, sql, message, progress, cancel, *args, **kwargs):
        progress(0.5, message)
        progress(1.0, message)
        return run(connection, sql, message, None, cancel, *args, **kwargs)

    monkeypatch.setattr(duck.engine, "_run", halfway_and_done)
    duck.write(tmp_path / "o.csv", shuffle_seed=7, progress=lambda f, m: seen.append(f))
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) == 4  # two steps
    token = CancelToken()

    def cancelled_while_numbering(connection, sql, *args, **kwargs):
        if sql.startswith("CREATE"):
            token.cancel()
        return run(connection, sql, *args, **kwargs)

    monkeypatch.setattr(duck.engine, "_run", cancelled_while_numbering)
    with pytest.raises(CancelledError):
        duck.write(tmp_path / "cancelled.csv", shuffle_seed=7, cancel=token)
    assert not (tmp_path / "cancelled.csv").exists()


@pytest.mark.parametrize("delimiter", [";", ",", "§"])
def test_passed_columns_skip_the_pattern_only_when_no_cell_needs_quotes(delimiter):
    """The byte check that spares the regular expression is never wrong: on chunks with
    and without a telling character (also at a slice's edges and in a multi-byte
    delimiter), a passed column is quoted exactly as by the pattern alone."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from arxpy.data.export import quoting_characters

    telling = duckdb_engine._quoting_bytes(quoting_characters(delimiter))
    pattern = duckdb_engine._re2_quoting_pattern(delimiter, False)
    rng = np.random.default_rng(32)
    alphabet = ["a", "0", "-", "é", " ", "\t", '"', "\n", delimiter, ",", "|"]
    free = 0
    for chunk in range(200):
        cells = ["".join(rng.choice(alphabet[:4] if chunk % 2 else alphabet,
                                    rng.integers(0, 4))) for _ in range(6)]
        column = pa.array([*cells, None], type=pa.string()).slice(1, 5)
        if duckdb_engine._free_of(column, telling):
            free += 1
            assert not pc.any(pc.match_substring_regex(column, pattern)).as_py(), cells
    assert free >= 100  # every chunk of the plain alphabet skips the pattern
    clean = pa.array(["ab", "c-d", None], type=pa.large_string())
    assert duckdb_engine._free_of(clean, telling)
    assert not duckdb_engine._free_of(pa.array([1, 2]), telling)  # cannot tell: pattern
