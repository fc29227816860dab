"""``arxpy risk`` end to end: the bundled example project and a small CSV."""

from __future__ import annotations

import json

import pytest

import arxpy.cli as cli
from arxpy.example import example_project


@pytest.fixture(autouse=True)
def risk_command(monkeypatch):
    # Until the lead registers "risk" in arxpy/cli.py.
    if "risk" not in cli.COMMANDS:
        monkeypatch.setattr(cli, "COMMANDS", (*cli.COMMANDS, "risk"))


@pytest.fixture(scope="module")
def project_file(tmp_path_factory):
    return example_project(records=3000).save(tmp_path_factory.mktemp("p") / "ex.arxpy")


@pytest.fixture
def small_csv(tmp_path):
    # sex/zip classes of sizes 1, 1, 2, 3, 3, 3 (13 records).
    rows = ([("F", "78701")] + [("M", "78701")] + [("F", "78702")] * 2 + [("M", "78702")] * 3
            + [("F", "78703")] * 3 + [("M", "78703")] * 3)
    path = tmp_path / "small.csv"
    path.write_text("sex;zip;email\n" + "".join(f"{s};{z};p{i}@example.org\n"
                                               for i, (s, z) in enumerate(rows)))
    hierarchy = tmp_path / "zip.csv"
    hierarchy.write_text("".join(f"{z};{z[:4]}*;*\n" for z in ("78701", "78702", "78703")))
    return path, hierarchy


def run(*argv: str) -> int:
    return cli.main(["risk", *argv])


def test_small_csv_input(small_csv, tmp_path, capsys):
    data, _ = small_csv
    report = tmp_path / "r.json"
    assert run("--data", str(data), "--delimiter", ";", "--qi", "sex,zip", "--threshold", "0.4",
               "--population-size", "26", "--report", str(report)) == 0
    r = json.loads(report.read_text())
    assert r["records"] == 13 and r["analysed"] == "input" and r["transformation"] is None
    assert r["sample_uniqueness"] == pytest.approx(2 / 13)
    assert r["prosecutor"]["highest"] == 1.0
    assert r["prosecutor"]["average"] == pytest.approx(6 / 13)
    assert r["prosecutor"]["records_at_highest"] == pytest.approx(2 / 13)
    assert r["fraction_above_threshold"] == pytest.approx(4 / 13)
    assert r["marketer"]["average"] == pytest.approx(6 / 13)
    assert r["journalist"] == r["prosecutor"]
    pu = r["population_uniqueness"]
    assert set(pu) >= {"pitman", "zayatz", "snb", "dankar"}
    assert pu["population_size"] == 26 and pu["sampling_fraction"] == 0.5
    assert pu["zayatz"] == pytest.approx(2 * ((2 / 6 * 0.5) / (2 / 6 * 0.5 + 1 / 6 * 0.52
                                                              + 3 / 6 * 0.39)) / 0.5 / 26)
    assert {q["attributes"][0] for q in r["quasi_identifier_analysis"]} >= {"sex", "zip"}
    assert {m["attribute"] for m in r["hipaa"]} >= {"email", "zip"}
    assert "Prosecutor risk: highest 1.0000" in capsys.readouterr().out


def test_small_csv_with_levels(small_csv, tmp_path):
    data, hierarchy = small_csv
    report = tmp_path / "r.json"
    assert run("--data", str(data), "--qi", "sex,zip", "--hierarchy", f"zip={hierarchy}",
               "--transformation", "zip=2", "--report", str(report), "--no-hipaa") == 0
    r = json.loads(report.read_text())
    assert r["transformation"] == {"sex": 0, "zip": 2}
    assert r["prosecutor"]["highest"] == pytest.approx(1 / 6)  # F: 6 records, M: 7
    assert r["sample_uniqueness"] == 0.0
    assert "hipaa" not in r


def test_example_project_input_and_optimum(project_file, tmp_path):
    before, after = tmp_path / "in.json", tmp_path / "out.json"
    assert run("--project", str(project_file), "--report", str(before)) == 0
    assert run("--project", str(project_file), "--transformation", "optimum",
               "--report", str(after)) == 0
    r_in, r_out = json.loads(before.read_text()), json.loads(after.read_text())
    assert r_in["records"] == r_out["records"] == 3000
    assert r_out["analysed"] == "output" and set(r_out["transformation"]) == set(
        r_in["quasi_identifiers"])
    # The project asks for 5-anonymity: every released record has risk at most 1/5.
    assert r_out["prosecutor"]["highest"] <= 0.2 < r_in["prosecutor"]["highest"]
    assert r_out["prosecutor"]["estimated"] <= 0.2
    assert r_out["records_analyzed"] == 3000 - r_out["suppressed_records"]
    assert r_out["population_uniqueness"]["dankar"] <= r_in["population_uniqueness"]["dankar"]


def test_errors_are_one_line(small_csv, tmp_path, capsys):
    data, _ = small_csv
    report = str(tmp_path / "r.json")
    assert run("--data", str(data), "--report", report) == 2
    assert "--qi" in capsys.readouterr().err
    assert run("--data", str(data), "--qi", "sex,nope", "--report", report) == 2
    assert "'nope'" in capsys.readouterr().err
    assert run("--data", str(data), "--qi", "sex", "--transformation", "sex=1",
               "--report", report) == 2
    assert "hierarchy" in capsys.readouterr().err
    assert run("--data", str(data), "--qi", "sex", "--population-size", "5",
               "--report", report) == 2
    assert "smaller than the sample" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()
