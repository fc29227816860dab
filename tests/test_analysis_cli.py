"""``arxpy evaluate`` and ``arxpy study classification`` end to end on a small CSV."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from arxpy import cli


@pytest.fixture
def run(monkeypatch):
    # The lead registers the commands in cli.COMMANDS; until then the tests add them.
    commands = tuple(dict.fromkeys(cli.COMMANDS + ("evaluate", "study")))
    monkeypatch.setattr(cli, "COMMANDS", commands)
    return cli.main


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    age = rng.integers(20, 60, n)
    charge = np.round(np.exp(7 + age / 12 + rng.normal(0, 0.4, n)), 2)
    frame = pd.DataFrame({"id": [f"p{i}" for i in range(n)], "age": age,
                          "zip": rng.integers(1300, 1309, n), "charge": charge})
    frame.to_csv(tmp_path / "data.csv", sep=";", index=False)
    (tmp_path / "age.csv").write_text("\n".join(
        f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in range(20, 60)) + "\n")
    (tmp_path / "zip.csv").write_text("\n".join(
        f"{z};{z // 10}*;*" for z in range(1300, 1309)) + "\n")
    return tmp_path


def data_args(folder):
    return ["--data", str(folder / "data.csv"), "--delimiter", ";",
            "--hierarchy", f"age={folder / 'age.csv'}", "--hierarchy", f"zip={folder / 'zip.csv'}",
            "--identifying", "id", "--class-attribute", "charge", "--class-bins", "3000,10000"]


def test_evaluate_optimum(run, files, capsys):
    report_path = files / "r.json"
    code = run(["evaluate", *data_args(files), "--k", "5", "--suppression", "0.05",
                "--folds", "4", "--seed", "3", "--report", str(report_path),
                "--plots", str(files / "plots")])
    assert code == 0
    report = json.loads(report_path.read_text())
    for key in ("baseline_accuracy", "original_accuracy", "accuracy", "relative_accuracy",
                "brier"):
        assert isinstance(report[key], float), key
    assert report["folds"] == 4 and report["records"] == 300
    assert report["class_values"] == ["<3000", ">=10000", "[3000, 10000["]
    assert report["features"] == ["age", "zip"] and report["anonymous"] is True
    assert set(report["transformation"]) == {"age", "zip"}
    assert (files / "plots" / "classification_roc.png").exists()
    assert "relative_accuracy" in capsys.readouterr().out


def test_evaluate_named_transformation_and_classifier(run, files):
    report_path = files / "r.json"
    code = run(["evaluate", *data_args(files), "--transformation", "age=2",
                "--features", "age", "--classifier", "tree", "--param", "max_depth=3",
                "--report", str(report_path)])
    assert code == 0
    report = json.loads(report_path.read_text())
    assert report["transformation"] == {"age": 2, "zip": 0}
    assert report["accuracy"] == report["baseline_accuracy"]  # age is '*': majority only
    assert report["classifier"]["parameters"]["max_depth"] == 3
    assert report["anonymous"] is None  # no privacy model given


def test_evaluate_errors_are_one_line(run, files, capsys):
    code = run(["evaluate", *data_args(files), "--transformation", "weight=1",
                "--report", str(files / "r.json")])
    assert code == 2
    assert "'weight' in the transformation is not a quasi-identifier" in capsys.readouterr().err
    assert not (files / "r.json").exists()


def test_study_classification(run, files, capsys):
    report_path = files / "study.json"
    code = run(["study", "classification", *data_args(files), "--k", "5", "--suppression",
                "0.05", "--report", str(report_path), "--plots", str(files / "plots")])
    assert code == 0
    report = json.loads(report_path.read_text())
    assert set(report["models"]) == {"loss", "entropy", "kl", "classification"}
    for model in report["models"].values():
        assert {"chosen_transformation", "chosen_relative_accuracy", "spearman"} <= set(model)
    assert isinstance(report["best_relative_accuracy"], float)
    assert report["lattice_size"] == 9 and report["sampled"] is False
    assert (files / "plots" / "study.png").exists()
    assert "classification" in capsys.readouterr().out


@pytest.mark.parametrize(("extra", "message"), [
    (["--param", "C=abc"], "Logistic regression: C must be a number, got 'abc'"),
    (["--param", "C=0"], "C must be positive"),
    (["--classifier", "tree", "--param", "max_depth=-1"],
     "Decision tree: max_depth must be a whole number at least 1, got -1"),
    (["--classifier", "forest", "--param", "n_estimators=2.5"], "n_estimators must be a whole"),
    (["--classifier", "tree", "--param", "criterion=best"], "Unknown split criterion 'best'"),
    (["--seed", "-1"], "seed must be a whole number between 0 and"),
])
def test_evaluate_bad_classifier_settings_are_one_line(run, files, capsys, extra, message):
    code = run(["evaluate", *data_args(files), "--k", "5", *extra,
                "--report", str(files / "r.json")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not (files / "r.json").exists()
