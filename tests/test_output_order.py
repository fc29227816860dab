"""Released rows are written shuffled by default (seeded, the seed in the report), so a
copy of the input in the same order cannot be joined by row number; --keep-order keeps
the input's order on request (issue 28, defect 2)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.example import example_project


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("order")
    frame = example_project().data.sample(600, random_state=3).reset_index(drop=True)
    path = folder / "in.csv"
    frame.to_csv(path, index=False)
    return folder, path, frame


def _read(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False, sep=None, engine="python")


def _aligned(frame: pd.DataFrame, written: pd.DataFrame, column: str) -> float:
    """Share of written rows whose unchanged column equals the input row at that position."""
    return float((written[column].to_numpy() == frame[column].astype(str).to_numpy()).mean())


def _same_rows_other_order(shuffled: pd.DataFrame, kept: pd.DataFrame) -> bool:
    rows = [tuple(r) for r in shuffled.itertuples(index=False)]
    kept_rows = [tuple(r) for r in kept.itertuples(index=False)]
    in_place = sum(a == b for a, b in zip(rows, kept_rows, strict=True)) / max(len(rows), 1)
    return sorted(rows) == sorted(kept_rows) and in_place < 0.2


COMMANDS = {
    "run intervals": ["run", "intervals", "--attributes", "Age", "--k", "5"],
    "intervals": ["intervals", "--attributes", "Age", "--k", "5"],
    "run top coding": ["run", "top-bottom-coding", "--attribute", "Age", "--top", "80"],
    "kpbms": ["kpbms", "--class", "Ethnicity", "--k", "5"],
}


def test_anonymize_shuffles_too(data, tmp_path):
    _, _, frame = data
    project = example_project()
    project.data = frame
    saved = project.save(tmp_path / "p.arxpy")
    out, report = tmp_path / "o.csv", tmp_path / "r.json"
    assert main(["anonymize", "--project", str(saved), "--k", "5", "--output", str(out),
                 "--report", str(report)]) == 0
    order = json.loads(report.read_text())["output_order"]
    assert order["shuffled"] is True
    assert _aligned(frame, _read(out), "Charge") < 0.05


@pytest.mark.parametrize("name", COMMANDS)
def test_rows_are_shuffled_by_default_and_the_seed_repeats_the_file(data, name):
    folder, path, frame = data
    args = COMMANDS[name]
    out, report = folder / f"{name}.csv", folder / f"{name}.json"
    assert main([*args, "--data", str(path), "--output", str(out),
                 "--report", str(report)]) == 0
    order = json.loads(report.read_text())["output_order"]
    assert order["shuffled"] is True and isinstance(order["seed"], int)
    again = folder / f"{name}-again.csv"
    assert main([*args, "--data", str(path), "--output", str(again),
                 "--shuffle-seed", str(order["seed"])]) == 0
    assert again.read_bytes() == out.read_bytes()
    kept = folder / f"{name}-kept.csv"
    assert main([*args, "--data", str(path), "--output", str(kept), "--keep-order",
                 "--report", str(report)]) == 0
    assert json.loads(report.read_text())["output_order"] == {"shuffled": False, "seed": None}
    # Row numbers no longer link: the same rows, in another order.
    assert _same_rows_other_order(_read(out), _read(kept))
    if "Charge" in _read(kept).columns:  # kept unchanged by these methods
        assert _aligned(frame, _read(kept), "Charge") == 1.0
        assert _aligned(frame, _read(out), "Charge") < 0.05


@pytest.mark.parametrize("engine", ["duckdb", pytest.param("spark", marks=pytest.mark.slow)])
def test_record_engines_shuffle_like_the_memory_engine(data, tmp_path, capsys, engine):
    """DuckDB and Spark write the keep-order rows in the order the seed gives, the same
    file as the memory engine's for that seed, without a warning."""
    from arxpy.engine.backends.base import engine_missing

    missing = engine_missing(engine)
    if missing:
        pytest.skip(f"the {engine} engine is not installed: {missing}")
    _, _, frame = data
    project = example_project()
    project.data = frame
    saved = project.save(tmp_path / "p.arxpy")
    args = ["anonymize", "--project", str(saved), "--k", "5", "--engine", engine]
    out, report = tmp_path / "o.csv", tmp_path / "r.json"
    assert main([*args, "--output", str(out), "--report", str(report)]) == 0
    order = json.loads(report.read_text())["output_order"]
    assert order["shuffled"] is True and isinstance(order["seed"], int) and "note" not in order
    assert "warning" not in capsys.readouterr().err
    assert _aligned(frame, _read(out), "Charge") < 0.05
    kept = tmp_path / "kept.csv"
    assert main([*args, "--output", str(kept), "--keep-order"]) == 0
    assert _aligned(frame, _read(kept), "Charge") == 1.0
    assert _same_rows_other_order(_read(out), _read(kept))
    again, memory = tmp_path / "again.csv", tmp_path / "memory.csv"
    seed = ["--shuffle-seed", str(order["seed"])]
    assert main([*args, "--output", str(again), *seed]) == 0
    assert again.read_bytes() == out.read_bytes()
    assert main([*args[:-2], "--output", str(memory), *seed]) == 0
    # the same table in the same order (Spark quotes every cell)
    pd.testing.assert_frame_equal(_read(out), _read(memory))
