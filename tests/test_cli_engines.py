"""``arxpy anonymize --engine``: the scalable engines give the in-memory path's answers.

Same optimum, score, suppressed count and output bytes on the example, on Adult (skips
when absent) and on random tables (hypothesis); the report keeps today's keys and adds
``engine``; the release keys a histogram cannot give are absent, not invented. The
k-anonymity of the written file is checked by the independent audit (tests/audit.py),
not by arxpy.
"""

from __future__ import annotations

import json
from pathlib import Path

import audit as anonymity
import numpy as np
import pandas as pd
import pytest
from conftest import ADULT_DIR
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arxpy.cli import main
from arxpy.data.csv_io import read_csv, sniff_csv
from arxpy.engine.export import shuffled
from arxpy.example import example_definition, write_example

pytest.importorskip("duckdb", reason="the duckdb engine needs arxpy[duckdb]")

ADULT_ORDER = ["sex", "age", "race", "marital-status", "education", "native-country",
               "workclass", "occupation", "salary-class"]
SAME = ("transformation", "score", "relative_score", "suppressed_records", "records",
        "lattice_size", "tied_optima", "optimal", "completely_generalized_records")


@pytest.fixture(scope="module")
def example_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("example")
    write_example(folder, records=1000)
    return folder


def _example_args(folder: Path) -> list[str]:
    hierarchies = [a for name in example_definition().quasi_identifiers
                   for a in ("--hierarchy", f"{name}={folder / 'hierarchies' / f'{name}.csv'}")]
    data = next(p for p in folder.iterdir() if p.suffix == ".csv")
    return ["anonymize", "--data", str(data), *hierarchies, "--k", "5",
            "--suppression", "0.02"]


def _run(args: list[str], folder: Path, engine: str, *extra: str) -> tuple[dict, Path]:
    output, report = folder / f"out-{engine}.csv", folder / f"report-{engine}.json"
    assert main([*args, "--engine", engine, "--output", str(output), "--report", str(report),
                 "--keep-order", *extra]) == 0  # files compared row by row
    return json.loads(report.read_text()), output


def _assert_same_answers(memory: dict, scaled: dict) -> None:
    for key in SAME:
        assert scaled[key] == memory[key], key
    assert set(memory) - {"release"} <= set(scaled)
    for key in ("method", "parameters", "transformation", "anonymous", "claims", "classes"):
        assert scaled["release"][key] == memory["release"][key], key


def test_duckdb_on_the_example_gives_the_memory_engine_s_answers_and_file(example_dir,
                                                                         tmp_path):
    args = _example_args(example_dir)
    memory, memory_out = _run(args, tmp_path, "memory")
    duck, duck_out = _run(args, tmp_path, "duckdb")
    _assert_same_answers(memory, duck)
    assert duck_out.read_bytes() == memory_out.read_bytes()
    assert duck["suppressed_records"] > 0
    engine = duck["engine"]
    assert engine["name"] == "duckdb" and 0 < engine["histogram_rows"] <= duck["records"]
    assert set(engine["seconds"]) == {"histogram", "search", "write"}
    release = duck["release"]
    assert release["output_records"] == memory["records"]
    assert len(release["output_file_sha256"]) == 64
    # absent rather than invented: digests of tables that were never in memory
    assert "input_sha256" not in release and "output_sha256" not in release
    written = read_csv(duck_out, sniff_csv(duck_out, delimiter=";"))
    released = written[written["Age"] != "*"]
    assert anonymity.k_anonymity(released, example_definition().quasi_identifiers) >= 5


def test_duckdb_reads_parquet_and_writes_parquet(example_dir, tmp_path):
    args = _example_args(example_dir)
    data = Path(args[2])
    parquet = tmp_path / "data.parquet"
    read_csv(data, sniff_csv(data)).to_parquet(parquet, index=False)
    memory, memory_out = _run(args, tmp_path, "memory")  # today's path reads CSV only
    args[2] = str(parquet)
    out, report = tmp_path / "out.parquet", tmp_path / "report.json"
    assert main([*args, "--engine", "duckdb", "--output", str(out), "--report",
                 str(report), "--shuffle-seed", "7"]) == 0
    duck = json.loads(report.read_text())
    _assert_same_answers(memory, duck)
    assert duck["output_order"] == {"shuffled": True, "seed": 7}
    expected = read_csv(memory_out, sniff_csv(memory_out, delimiter=";"))
    assert pd.read_parquet(out).equals(shuffled(expected, 7))
    # the in-memory engine reads Parquet too, through the same path
    memory_parquet, _ = _run(args, tmp_path, "memory")
    _assert_same_answers(memory, memory_parquet)
    assert memory_parquet["engine"]["name"] == "memory"


@pytest.mark.slow
@pytest.mark.skipif(not (ADULT_DIR / "adult.csv").exists(), reason=f"no Adult at {ADULT_DIR}")
def test_duckdb_on_adult_gives_the_memory_engine_s_answers(tmp_path):
    hierarchies = [a for name in ADULT_ORDER for a in
                   ("--hierarchy", f"{name}={ADULT_DIR / f'adult_hierarchy_{name}.csv'}")]
    args = ["anonymize", "--data", str(ADULT_DIR / "adult.csv"), *hierarchies, "--k", "5",
            "--suppression", "0.02", "--delimiter", ";"]
    memory, memory_out = _run(args, tmp_path, "memory")
    duck, duck_out = _run(args, tmp_path, "duckdb")
    _assert_same_answers(memory, duck)
    assert duck_out.read_bytes() == memory_out.read_bytes()


def test_engine_errors_are_one_line(example_dir, tmp_path, capsys):
    args = _example_args(example_dir)
    assert main([*args, "--engine", "duckdb", "--neutralize-formulas",
                 "--output", str(tmp_path / "o.csv")]) == 2
    assert "--neutralize-formulas works with --engine memory" in capsys.readouterr().err
    assert main([*args, "--engine", "duckdb", "--spark-master", "local[1]"]) == 2
    assert "--spark-master is an option of --engine spark" in capsys.readouterr().err
    args[2] = str(tmp_path / "missing.parquet")
    assert main([*args, "--engine", "duckdb"]) == 2
    assert "does not exist" in capsys.readouterr().err


@st.composite
def tables(draw):
    rows = draw(st.integers(20, 120))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    order = draw(st.sampled_from([["--keep-order"], ["--shuffle-seed", str(seed)]]))
    frame = pd.DataFrame({
        "a": rng.integers(0, draw(st.integers(2, 12)), rows).astype(str),
        "b": rng.choice(["x", "y ", "", 'q"', "z;w"], rows),
        "s": rng.choice(["flu", "cold", "NA"], rows),
    })
    k = draw(st.integers(2, 5))
    suppression = draw(st.sampled_from([0.0, 0.05, 0.2]))
    return frame, k, suppression, order


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(case=tables())
def test_random_tables_give_the_same_answers_and_file(tmp_path_factory, case):
    frame, k, suppression, order = case
    folder = tmp_path_factory.mktemp("random")
    frame.to_csv(folder / "data.csv", sep=";", index=False)
    (folder / "a.csv").write_text("".join(f"{v};{int(v) // 4};*\n" for v in range(12)))
    (folder / "b.csv").write_text('x;xy;*\n"y ";xy;*\n;other;*\n"q""";other;*\n"z;w";other;*\n')
    args = ["anonymize", "--data", str(folder / "data.csv"), "--delimiter", ";",
            "--hierarchy", f"a={folder / 'a.csv'}", "--hierarchy", f"b={folder / 'b.csv'}",
            "--k", str(k), "--suppression", str(suppression), "--sensitive", "s"]
    code_memory = main([*args, "--output", str(folder / "m.csv"), *order,
                        "--report", str(folder / "m.json")])
    code_duck = main([*args, "--engine", "duckdb", "--output", str(folder / "d.csv"),
                      *order, "--report", str(folder / "d.json")])
    assert code_duck == code_memory
    if code_memory != 0:
        return
    memory = json.loads((folder / "m.json").read_text())
    duck = json.loads((folder / "d.json").read_text())
    _assert_same_answers(memory, duck)
    assert duck["output_order"] == memory["output_order"]
    # the same rows in the same order, kept or shuffled by the same seed
    assert (folder / "d.csv").read_bytes() == (folder / "m.csv").read_bytes()
