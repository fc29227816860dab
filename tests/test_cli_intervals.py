"""``arxpy intervals`` and ``arxpy interval-stats``: output columns, report keys (contracts),
the utility-constrained mode and user errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.methods import IntervalGeneralisation


@pytest.fixture()
def blood_pressure(tmp_path):
    rng = np.random.default_rng(0)
    x = np.round(rng.multivariate_normal([139, 80], [[1000, 150], [150, 200]], 120))
    frame = pd.DataFrame({"id": range(120), "bp": x[:, 0].astype(int),
                          "dia": x[:, 1].astype(int), "sex": rng.choice(["m", "f"], 120)})
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_intervals_writes_lo_hi_columns_and_the_report(blood_pressure, tmp_path):
    path, frame = blood_pressure
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    status = main(["intervals", "--data", str(path), "--attributes", "bp,dia", "--k", "4",
                   "--keep-order",
                   "--statistic", "variance:bp", "--order", "sorted", "--output", str(out),
                   "--report", str(report)])
    assert status == 0
    table = pd.read_csv(out)
    assert list(table.columns) == ["id", "bp_lo", "bp_hi", "dia_lo", "dia_hi", "sex"]
    assert (table["bp_lo"] <= frame["bp"]).all() and (frame["bp"] <= table["bp_hi"]).all()
    assert table.groupby(["bp_lo", "bp_hi", "dia_lo", "dia_hi"]).size().min() >= 4
    data = json.loads(report.read_text())
    for key in ("k", "records", "boxes", "min_box_size", "leftovers", "nesting",
                "elapsed_seconds"):
        assert key in data
    assert data["k"] == 4 and data["records"] == 120 and data["min_box_size"] >= 4
    assert set(data["nesting"]) == {"bp", "dia"}
    assert all(isinstance(v, bool) for v in data["nesting"].values())
    # boxes with equal extents read as one group in the table
    assert data["boxes"] >= table.groupby(["bp_lo", "bp_hi", "dia_lo", "dia_hi"]).ngroups
    assert "variance" in data["gradient_rule"]


def test_interval_stats_report_per_statistic(blood_pressure, tmp_path):
    path, frame = blood_pressure
    out, stats = tmp_path / "out.csv", tmp_path / "s.json"
    assert main(["intervals", "--data", str(path), "--attributes", "bp,dia", "--k", "3",
                 "--output", str(out)]) == 0
    assert main(["interval-stats", "--data", str(out), "--attributes", "bp,dia", "--stats",
                 "mean,variance,sd,median,q:0.9,gmean,hmean,cv,iqr,skewness,ci:0.95,"
                 "exceed:140,ecdf,cov:bp,dia,corr:bp,dia", "--ddof", "1",
                 "--report", str(stats)]) == 0
    data = json.loads(stats.read_text())["statistics"]
    for key in ("mean(bp)", "variance(ddof=1)(bp)", "q:0.9(dia)", "ci:0.95:lower(bp)",
                "ci:0.95:upper(dia)", "exceed:140(bp)", "ecdf(bp)", "cov(ddof=1)(bp,dia)",
                "corr(bp,dia)"):
        assert {"lo", "hi", "width", "flag"} <= set(data[key]), key
    bp = frame["bp"].to_numpy(dtype=float)
    assert data["mean(bp)"]["lo"] <= bp.mean() <= data["mean(bp)"]["hi"]
    var = data["variance(ddof=1)(bp)"]
    assert var["lo"] <= bp.var(ddof=1) <= var["hi"]
    assert data["mean(bp)"]["flag"] == "exact"


def test_utility_constrained_mode_finds_the_largest_feasible_k(blood_pressure, tmp_path):
    path, frame = blood_pressure
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    assert main(["intervals", "--data", str(path), "--attributes", "bp",
                 "--max-width", "mean:bp=4", "--k-max", "15", "--output", str(out),
                 "--report", str(report)]) == 0
    data = json.loads(report.read_text())
    # recount every k independently: mean width = mean(hi) - mean(lo) of the boxes
    feasible = []
    for k in range(2, 16):
        boxes = IntervalGeneralisation(attributes=["bp"], k=k).boxes(frame)
        if boxes.record_hi().mean() - boxes.record_lo().mean() <= 4:
            feasible.append(k)
    assert feasible, "the limit should admit some k on this data"
    assert data["k"] == data["utility"]["best_k"] == max(feasible)
    assert data["mode"] == "utility-constrained" and data["min_box_size"] >= max(feasible)


def test_utility_constrained_mode_says_not_releasable(blood_pressure, tmp_path, capsys):
    path, _ = blood_pressure
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    status = main(["intervals", "--data", str(path), "--attributes", "bp,dia",
                   "--max-width", "variance:bp=0.001,cov:bp,dia=0.001", "--k-max", "5",
                   "--output", str(out), "--report", str(report)])
    assert status == 1 and not out.exists()
    assert "Not releasable" in capsys.readouterr().out
    data = json.loads(report.read_text())
    assert data["releasable"] is False and data["utility"]["best_k"] is None
    assert set(data["utility"]["widths"]) == {"2", "3", "4", "5"}


@pytest.mark.parametrize(("argv", "message"), [
    (["--attributes", "sex", "--k", "3"], "'sex' must be numeric"),
    (["--attributes", "bp", "--k", "500"], "k = 500 needs at least 500 records"),
    (["--attributes", "bp"], "Give --k K"),
    (["--attributes", "bp", "--k", "3", "--statistic", "mean:dia"], "not among"),
    (["--attributes", "bp", "--max-width", "mean:bp"], "Cannot read --max-width"),
])
def test_user_errors_exit_2_without_output(blood_pressure, tmp_path, capsys, argv, message):
    path, _ = blood_pressure
    out = tmp_path / "out.csv"
    status = main(["intervals", "--data", str(path), *argv, "--output", str(out)])
    assert status == 2 and not out.exists()
    assert message in capsys.readouterr().err


def test_interval_stats_reads_bracket_cells(tmp_path):
    path = tmp_path / "iv.csv"
    pd.DataFrame({"a": ["[0, 1]", "[2, 3]"]}).to_csv(path, index=False)
    report = tmp_path / "s.json"
    assert main(["interval-stats", "--data", str(path), "--attributes", "a", "--stats",
                 "variance", "--report", str(report)]) == 0
    var = json.loads(report.read_text())["statistics"]["variance(a)"]
    assert (var["lo"], var["hi"], var["flag"]) == (0.25, 2.25, "exact")
