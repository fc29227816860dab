"""``arxpy anonymize`` end to end: files in, anonymized CSV and JSON report out."""

from __future__ import annotations

import json
from pathlib import Path

import audit as anonymity
import pandas as pd
import pytest
from conftest import ADULT_DIR as ADULT

from arxpy.cli import main

ADULT_ORDER = ["sex", "age", "race", "marital-status", "education", "native-country",
               "workclass", "occupation", "salary-class"]
REPORT_KEYS = {"quasi_identifiers", "transformation", "score", "relative_score",
               "suppressed_records", "records", "lattice_size", "transformations_checked",
               "optimal", "elapsed_seconds", "privacy_models", "quality_model"}


@pytest.fixture
def small(tmp_path):
    rows = ["name;age;zip;disease"]
    for i in range(60):
        rows.append(f"p{i};{20 + (i * 7) % 40};{1300 + (i * 3) % 9};{['flu', 'NA'][i % 2]}")
    (tmp_path / "data.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "age.csv").write_text("\n".join(
        f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in range(20, 60)) + "\n")
    (tmp_path / "zip.csv").write_text("\n".join(
        f"{z};{z // 10}*;*" for z in range(1300, 1310)) + "\n")
    return tmp_path


def args_for(folder: Path, *extra: str) -> list[str]:
    return ["anonymize", "--data", str(folder / "data.csv"), "--delimiter", ";",
            "--hierarchy", f"age={folder / 'age.csv'}", "--hierarchy", f"zip={folder / 'zip.csv'}",
            "--identifying", "name", *extra]


def test_small_end_to_end(small, capsys):
    out, report_path = small / "out.csv", small / "report.json"
    code = main(args_for(small, "--k", "4", "--suppression", "0.1", "--keep-order",
                         "--output", str(out),
                         "--report", str(report_path)))
    assert code == 0
    report = json.loads(report_path.read_text())
    assert REPORT_KEYS <= set(report)
    assert report["quasi_identifiers"] == ["age", "zip"]
    assert set(report["transformation"]) == {"age", "zip"}
    assert report["records"] == 60 and report["optimal"] is True
    assert report["privacy_models"] == [{"kind": "k-anonymity", "k": 4}]
    assert report["quality_model"]["name"] == "loss"
    frame = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    assert list(frame.columns) == ["age", "zip", "disease"]  # identifying column removed
    assert (frame["disease"] == ["flu", "NA"] * 30).all()
    kept = frame[frame["age"] != "*"]
    assert len(frame) - len(kept) == report["suppressed_records"]
    assert anonymity.k_anonymity(kept, ["age", "zip"]) >= 4
    captured = capsys.readouterr()
    assert "Transformation:" in captured.out
    assert "%" in captured.err  # the progress bar


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--k", "500"], "larger than the number of records"),
        (["--k", "2", "--suppression", "1.5"], "suppression_limit must be between 0 and 1"),
        (["--k", "2", "--hierarchy", "height=nowhere.csv"], "nowhere.csv"),
        (["--k", "2", "--ldiversity", "disease:fancy:2"], "variant"),
        (["--k", "2", "--metric", "classification"], "--class-attribute"),
        ([], "privacy model"),
    ],
)
def test_user_errors_exit_2_with_one_line(small, capsys, extra, message):
    code = main(args_for(small, *extra))
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("arxpy: error:") and message in err
    assert not (small / "report.json").exists()


def test_missing_hierarchy_value_is_a_user_error(small, capsys):
    (small / "zip.csv").write_text("1300;130*;*\n")
    assert main(args_for(small, "--k", "2")) == 2
    assert "not in the hierarchy: '1303' and '1306'" in capsys.readouterr().err


@pytest.mark.skipif(not (ADULT / "adult.csv").exists(), reason=f"no Adult data at {ADULT}")
def test_adult_end_to_end(tmp_path):
    hierarchies = [arg for name in ADULT_ORDER for arg in
                   ("--hierarchy", f"{name}={ADULT / f'adult_hierarchy_{name}.csv'}")]
    report_path = tmp_path / "report.json"
    code = main(["anonymize", "--data", str(ADULT / "adult.csv"), *hierarchies, "--k", "5",
                 "--suppression", "0.02", "--report", str(report_path),
                 "--output", str(tmp_path / "out.csv")])
    assert code == 0
    report = json.loads(report_path.read_text())
    assert REPORT_KEYS <= set(report)
    assert report["quasi_identifiers"] == ADULT_ORDER
    assert list(report["transformation"].values()) == [0, 3, 0, 2, 2, 1, 1, 2, 0]
    assert report["score"] == pytest.approx(0.3137130352819242, rel=1e-9)
    assert report["suppressed_records"] == 506 and report["records"] == 30162
    assert report["lattice_size"] == 12960 and report["optimal"] is True
    assert report["transformations_checked"] < 12960
    frame = pd.read_csv(tmp_path / "out.csv", sep=";", dtype=str, keep_default_na=False)
    kept = frame[frame["sex"] != "*"]
    assert len(frame) - len(kept) == 506
    assert anonymity.k_anonymity(kept, ADULT_ORDER) >= 5
