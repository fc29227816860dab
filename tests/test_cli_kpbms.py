"""``arxpy kpbms``, ``arxpy pbca`` and ``arxpy kpbms-evaluate``: the exact surfaces of
issue 16, the report keys scripts rely on, exit status 2 when the loss cannot be met."""

from __future__ import annotations

import json
from pathlib import Path

import audit as anonymity
import pandas as pd
import pytest

from arxpy import cli
from tests.test_kpbms_method import synthetic
from tests.test_kpbms_statistics import table1

CONTRACT_KEYS = {"selected_features", "loss", "k", "records_in", "records_out",
                 "patterns_removed", "patterns_trimmed", "homogeneous_groups",
                 "elapsed_seconds"}


@pytest.fixture
def table1_csv(tmp_path) -> Path:
    path = tmp_path / "table1.csv"
    table1().to_csv(path, index=False)
    return path


def test_kpbms_writes_selected_features_and_class_of_kept_records(table1_csv, tmp_path):
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    assert cli.main(["kpbms", "--data", str(table1_csv), "--class-attribute", "class",
                     "--k", "15", "--max-loss", "0.5", "--discretize", "none",
                     "--output", str(out), "--report", str(report)]) == 0
    written = pd.read_csv(out, dtype=str)
    assert list(written.columns) == ["f3", "class"] and len(written) == 60
    assert "*" not in written.to_numpy()
    assert anonymity.k_anonymity(written, ["f3", "class"]) >= 15
    data = json.loads(report.read_text())
    assert CONTRACT_KEYS <= set(data)
    assert data["selected_features"] == ["f3"] and data["loss"] == pytest.approx(0.4)
    assert (data["records_in"], data["records_out"]) == (100, 60)
    assert (data["patterns_removed"], data["patterns_trimmed"]) == (2, 0)
    assert data["dropped_by_reason"] == {"pattern": 30, "class": 10}
    assert [it["loss"] for it in data["iterations"]] == pytest.approx([0.8, 0.4])
    assert data["selection"]["ranking"] == ["f3", "f1"]


def test_kpbms_exits_2_with_one_line_when_no_prefix_meets_the_loss(table1_csv, tmp_path,
                                                                     capsys):
    out = tmp_path / "out.csv"
    status = cli.main(["kpbms", "--data", str(table1_csv), "--class-attribute", "class",
                       "--k", "15", "--max-loss", "0.1", "--discretize", "none",
                       "--output", str(out), "--report", str(tmp_path / "r.json")])
    assert status == 2 and not out.exists()
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "no feature prefix reaches loss <= 0.1" in error and "lower k" in error
    assert json.loads((tmp_path / "r.json").read_text())["ok"] is False


def test_kpbms_missing_class_attribute_is_one_line(table1_csv, tmp_path, capsys):
    status = cli.main(["kpbms", "--data", str(table1_csv), "--class-attribute", "nope",
                       "--output", str(tmp_path / "o.csv")])
    assert status == 2
    assert "no class attribute 'nope'" in capsys.readouterr().err


def test_kpbms_redacts_pattern_values(table1_csv, tmp_path):
    report = tmp_path / "r.json"
    cli.main(["kpbms", "--data", str(table1_csv), "--class-attribute", "class", "--k", "15",
              "--max-loss", "0.5", "--discretize", "none", "--output",
              str(tmp_path / "o.csv"), "--report", str(report), "--redact-patterns"])
    patterns = json.loads(report.read_text())["patterns"]
    assert patterns and all("f3" not in row for row in patterns)


def test_pbca_prints_the_pbca(table1_csv, capsys):
    assert cli.main(["pbca", "--data", str(table1_csv), "--class-attribute", "class"]) == 0
    assert float(capsys.readouterr().out.strip()) == pytest.approx(0.80)
    cli.main(["pbca", "--data", str(table1_csv), "--class-attribute", "class",
              "--features", "f3"])
    assert float(capsys.readouterr().out.strip()) == pytest.approx(0.70)


def test_kpbms_evaluate_report(tmp_path):
    data = tmp_path / "d.csv"
    synthetic(n=300, d=5, classes=2).to_csv(data, index=False)
    report = tmp_path / "e.json"
    assert cli.main(["kpbms-evaluate", "--data", str(data), "--class-attribute", "class",
                     "--k", "1,3,50", "--max-loss", "0.1", "--classifiers", "knn,c45",
                     "--folds", "3", "--seed", "0", "--discretize", "none",
                     "--report", str(report)]) == 0
    result = json.loads(report.read_text())
    cases = {(c["k"], c["classifier"]): c for c in result["cases"]}
    assert set(cases) == {(k, c) for k in (1, 3, 50) for c in ("knn", "c45")}
    assert cases[(50, "c45")]["verdict"] == "infeasible"
    assert cases[(3, "knn")]["verdict"] in ("better", "similar", "worse")
    for key in ("mean", "sd", "p_value"):
        assert key in cases[(3, "knn")]
    k3 = [cases[(3, c)]["verdict"] for c in ("knn", "c45")]
    expected = sum(v in ("better", "similar") for v in k3) / 4  # k = 50 counts as worse
    assert result["share_not_significantly_worse"] == pytest.approx(expected)


def test_kpbms_equal_frequency_discretization(tmp_path):
    frame = synthetic(n=300, d=3, classes=2)
    frame["dose"] = [f"{v / 3:.2f}" for v in range(300)]  # continuous: 300 distinct values
    data, out, report = tmp_path / "d.csv", tmp_path / "o.csv", tmp_path / "r.json"
    frame.to_csv(data, index=False)
    assert cli.main(["kpbms", "--data", str(data), "--class-attribute", "class",
                     "--k", "2", "--max-loss", "0.5", "--discretize", "eqfreq:3",
                     "--output", str(out), "--report", str(report)]) == 0
    result = json.loads(report.read_text())
    assert result["cut_points"] == {"dose": [33.165, 66.5]}
    assert result["release"]["parameters"]["bins"] == 3


@pytest.mark.parametrize("text", ["eqfreq:1", "eqfreq:x", "mdl:3", "quantile"])
def test_kpbms_refuses_a_bad_discretization(tmp_path, text, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["kpbms", "--data", str(tmp_path / "d.csv"), "--class-attribute", "c",
                  "--discretize", text, "--output", str(tmp_path / "o.csv")])
    assert exit_info.value.code == 2
    assert "eqfreq:B" in capsys.readouterr().err
