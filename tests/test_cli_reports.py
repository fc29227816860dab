"""Reports a reviewer can check and repeat (issue 28, defect 11): compare-models records
versions, hashes and the methods' parameters and names its input by file name only;
intervals hashes its output and draws (and reports) a seed for a random order; the
kPB-MS report leaves the suppressed small cells' values out unless asked."""

from __future__ import annotations

import hashlib
import json
import platform
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from arxpy import __version__
from arxpy.cli import main
from arxpy.methods.condensation.devdata import cancer_registry
from tests.test_kpbms_statistics import table1

ANALYSES = [{"type": "cox", "covariates": ["DiagAge", "Gender"], "time": "SurvInterval",
             "event": "VitalStat"}]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def registry(tmp_path) -> dict[str, Path]:
    cancer_registry(300, seed=4).to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "analyses.json").write_text(json.dumps(ANALYSES))
    return {"in": tmp_path / "in.csv", "analyses": tmp_path / "analyses.json"}


def _compare(files: dict[str, Path], report: Path, *extra: str) -> dict:
    assert main(["compare-models", "--original", str(files["in"]), "--analyses",
                 str(files["analyses"]), "--report", str(report), *extra]) == 0
    return json.loads(report.read_text())


def test_compare_models_report_names_files_hashes_and_versions(registry, tmp_path):
    report = tmp_path / "r.json"
    written = _compare(registry, report, "--methods", "mdav,k-anonymity", "--k", "10",
                       "--repeats", "2", "--seed", "7")
    assert written["original"] == "in.csv" and written["analyses_file"] == "analyses.json"
    assert str(tmp_path) not in report.read_text()  # no folder of the custodian's
    assert written["original_file_sha256"] == _sha256(registry["in"])
    assert written["analyses_sha256"] == _sha256(registry["analyses"])
    assert written["versions"]["arxpy"] == __version__
    assert written["versions"]["python"] == platform.python_version()
    assert written["versions"]["numpy"] == np.__version__
    assert written["versions"]["pandas"] == pd.__version__
    mdav, baseline = written["results"]
    assert mdav["parameters"]["k"] == 10 and mdav["seeds"] == [7, 8]
    assert "seed" not in mdav["parameters"]  # each repetition's seed is in seeds
    assert baseline["parameters"]["quasi_identifiers"] == ["DiagAge", "Gender"]
    assert baseline["parameters"]["suppression_limit"] == pytest.approx(0.05)


def test_compare_models_input_hash_follows_the_data(registry, tmp_path):
    first = _compare(registry, tmp_path / "a.json", "--anonymized", str(registry["in"]))
    table = pd.read_csv(registry["in"], dtype=str)
    table.loc[0, "DiagAge"] = str(int(table.loc[0, "DiagAge"]) + 1)
    changed = tmp_path / "changed.csv"
    table.to_csv(changed, index=False)
    second = _compare({**registry, "in": changed}, tmp_path / "b.json",
                      "--anonymized", str(registry["in"]))
    assert len(first["input_sha256"]) == 64
    assert first["input_sha256"] != second["input_sha256"]  # one cell changes it
    assert first["anonymized"] == [{"file": "in.csv", "sha256": _sha256(registry["in"])}]


def _intervals(data: Path, out: Path, *extra: str) -> dict:
    report = out.with_suffix(".json")
    assert main(["intervals", "--data", str(data), "--attributes", "DiagAge,SurvInterval",
                 "--k", "5", "--output", str(out), "--report", str(report), *extra]) == 0
    return json.loads(report.read_text())


def test_intervals_report_hashes_the_written_file(registry, tmp_path):
    report = _intervals(registry["in"], tmp_path / "out.csv")
    assert report["output_file_sha256"] == _sha256(tmp_path / "out.csv")


def test_a_random_order_without_a_seed_draws_and_reports_one(registry, tmp_path, capsys):
    drawn = _intervals(registry["in"], tmp_path / "drawn.csv", "--order", "random")
    seed = drawn["parameters"]["seed"]
    assert isinstance(seed, int) and drawn["release"]["seed"] == seed
    assert f"--seed {seed}" in capsys.readouterr().err
    again = _intervals(registry["in"], tmp_path / "again.csv", "--order", "random",
                       "--seed", str(seed))
    assert again["parameters"]["seed"] == seed
    # The reported seed repeats the run byte for byte, where another seed would not.
    assert (tmp_path / "drawn.csv").read_bytes() == (tmp_path / "again.csv").read_bytes()
    _intervals(registry["in"], tmp_path / "other.csv", "--order", "random",
               "--seed", str((seed + 1) % 2**32))
    assert (tmp_path / "other.csv").read_bytes() != (tmp_path / "drawn.csv").read_bytes()


def _kpbms(tmp_path: Path, *extra: str) -> list[dict]:
    data, report = tmp_path / "t.csv", tmp_path / "r.json"
    table1().to_csv(data, index=False)
    assert main(["kpbms", "--data", str(data), "--class-attribute", "class", "--k", "15",
                 "--max-loss", "0.5", "--discretize", "none", "--output",
                 str(tmp_path / "o.csv"), "--report", str(report), *extra]) == 0
    written = json.loads(report.read_text())
    assert written["selected_features"] == ["f3"]
    return written["patterns"], written["patterns_redacted"]


def test_kpbms_report_leaves_pattern_values_out_by_default(tmp_path):
    patterns, redacted = _kpbms(tmp_path)
    assert patterns and redacted is True
    assert all("f3" not in row for row in patterns)  # counts stay, the cells' values go
    assert _kpbms(tmp_path, "--redact-patterns") == (patterns, True)  # the old spelling


def test_kpbms_report_lists_pattern_values_when_asked(tmp_path):
    patterns, redacted = _kpbms(tmp_path, "--include-patterns")
    values = set(table1()["f3"].astype(str))
    assert redacted is False
    assert patterns and all(str(row["f3"]) in values for row in patterns)


def _table1(folder: Path) -> Path:
    table1().to_csv(folder / "t.csv", index=False)
    return folder / "t.csv"


def _codes(folder: Path) -> Path:
    path = folder / "codes.csv"
    path.write_text("pid,dx\n" + "".join(f"p{i},401.{i % 3};250.{i % 2};{300 + i % 7}\n"
                                          for i in range(40)))
    return path


# Commands that write a report from inputs in the test's folder (argv from the folder).
REPORTING = {
    "condense": lambda f: ["condense", "--data", str(f / "in.csv"), "--method", "mdav",
                           "--k", "10", "--output", str(f / "o.csv")],
    "intervals": lambda f: ["intervals", "--data", str(f / "in.csv"), "--attributes",
                            "DiagAge", "--k", "5", "--output", str(f / "o.csv")],
    "compare-models": lambda f: ["compare-models", "--original", str(f / "in.csv"),
                                 "--anonymized", str(f / "in.csv"), "--analyses",
                                 str(f / "analyses.json")],
    "kpbms-evaluate": lambda f: ["kpbms-evaluate", "--data", str(_table1(f)),
                                 "--class-attribute", "class", "--k", "2", "--max-loss",
                                 "0.5", "--discretize", "none", "--classifiers", "knn",
                                 "--folds", "2"],
    "disassociate": lambda f: ["disassociate", "--data", str(_codes(f)), "--codes-column",
                               "dx", "--k", "2", "--output", str(f / "o.json"),
                               "--reconstruct", str(f / "rec.csv"), "--reconstructions", "2"],
    "run": lambda f: ["run", "mdav", "--data", str(f / "in.csv"), "--k", "10",
                      "--output", str(f / "o.csv")],
}


@pytest.mark.parametrize("command", REPORTING)
def test_no_report_holds_the_custodians_folders(registry, tmp_path, command):
    report = tmp_path / "report.json"
    assert main([*REPORTING[command](tmp_path), "--report", str(report)]) == 0
    assert str(tmp_path) not in report.read_text()
