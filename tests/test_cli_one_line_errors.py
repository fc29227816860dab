"""Inputs that used to end in a traceback give one ``arxpy: error:`` line naming what to
change and exit with status 2 (issue 28, defect 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_checks import one_error_line

from arxpy.cli import main
from arxpy.methods.condensation.devdata import cancer_registry


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("one-line")
    table = cancer_registry(80, seed=5)
    table.to_csv(path / "in.csv", index=False)
    huge = table.copy()
    huge["Dose"] = ["1e308"] + ["2.5"] * (len(huge) - 1)  # squares overflow
    huge.to_csv(path / "huge.csv", index=False)
    (path / "codes.csv").write_text("pid,dx\n" + "".join(
        f"p{i},401.{i % 3};250.{i % 2};{300 + i % 7}\n" for i in range(40)))
    return path


def _analyses(folder: Path, name: str, document) -> str:
    path = folder / name
    path.write_text(json.dumps(document))
    return str(path)


def _condense(folder: Path, data: str, *extra: str) -> list[str]:
    return ["condense", "--data", str(folder / data), "--output", str(folder / "o.csv"),
            *extra]


COX = {"type": "cox", "covariates": ["DiagAge"], "time": "SurvInterval",
       "event": "VitalStat"}

CASES = [
    ("condense on 1e308 (condensation)", lambda f: _condense(
        f, "huge.csv", "--method", "condensation", "--k", "10"), "'Dose' holds '1e308'"),
    ("condense on 1e308 (mdav)", lambda f: _condense(
        f, "huge.csv", "--method", "mdav", "--k", "10"), "'Dose' holds '1e308'"),
    ("condense on 1e308 (improved)", lambda f: _condense(
        f, "huge.csv", "--k", "10", "--time", "SurvInterval"), "'Dose' holds '1e308'"),
    ("condense --k 0 (improved, per-status readout)", lambda f: _condense(
        f, "in.csv", "--k", "0", "--time", "SurvInterval", "--status", "VitalStat"),
     "k must be a whole number at least 3, got 0"),
    ("condense --delimiter ';;'", lambda f: _condense(
        f, "in.csv", "--method", "mdav", "--k", "10", "--delimiter", ";;"),
     "argument --delimiter: ';;' is not a delimiter"),
    ("pbca --seed -1", lambda f: [
        "pbca", "--data", str(f / "in.csv"), "--class-attribute", "VitalStat",
        "--cv-folds", "3", "--seed", "-1"], "argument --seed"),
    ("synth-ehr --seed -1", lambda f: [
        "synth-ehr", "--records", "10", "--seed", "-1", "--output", str(f / "s.csv")],
     "argument --seed"),
    ("setvalued-risk --seed -1", lambda f: [
        "setvalued-risk", "--data", str(f / "codes.csv"), "--codes-column", "dx",
        "--seed", "-1"], "argument --seed"),
    ("intervals --order random --seed -1", lambda f: [
        "intervals", "--data", str(f / "in.csv"), "--attributes", "DiagAge", "--k", "5",
        "--order", "random", "--seed", "-1", "--output", str(f / "i.csv")],
     "argument --seed"),
    ("kpbms-evaluate --seed -1", lambda f: [
        "kpbms-evaluate", "--data", str(f / "in.csv"), "--class-attribute", "VitalStat",
        "--k", "2", "--classifiers", "knn", "--folds", "2", "--seed", "-1",
        "--report", str(f / "e.json")], "argument --seed"),
    ("example --seed -1", lambda f: [
        "example", "--output", str(f / "example"), "--records", "10", "--seed", "-1"],
     "argument --seed"),
    ("analyses: an item that is not an object", lambda f: [
        "compare-models", "--original", str(f / "in.csv"), "--anonymized",
        str(f / "in.csv"), "--analyses", _analyses(f, "a1.json", [1]),
        "--report", str(f / "r.json")], "--analyses: Each analysis is an object"),
    ("analyses: covariates not a list", lambda f: [
        "compare-models", "--original", str(f / "in.csv"), "--anonymized",
        str(f / "in.csv"), "--analyses", _analyses(f, "a2.json", [{**COX, "covariates": 5}]),
        "--report", str(f / "r.json")], "--analyses: Analysis 'cox': 'covariates' must be"),
    ("analyses: categorical as text", lambda f: [
        "compare-models", "--original", str(f / "in.csv"), "--anonymized",
        str(f / "in.csv"), "--analyses",
        _analyses(f, "a3.json", [{**COX, "categorical": "Stage"}]),
        "--report", str(f / "r.json")], "--analyses: Analysis 'cox': 'categorical' must be"),
    ("analyses: a threshold that is not a number", lambda f: [
        "compare-models", "--original", str(f / "in.csv"), "--anonymized",
        str(f / "in.csv"), "--analyses", _analyses(f, "a4.json", [
            {"type": "logit", "covariates": ["DiagAge"], "response": "Gender",
             "threshold": "x"}]),
        "--report", str(f / "r.json")], "--analyses: Analysis 'logit': 'threshold' must be"),
    ("analyses: a response list", lambda f: [
        "compare-models", "--original", str(f / "in.csv"), "--anonymized",
        str(f / "in.csv"), "--analyses", _analyses(f, "a5.json", [
            {"type": "ols", "covariates": ["DiagAge"], "response": ["SurvInterval"]}]),
        "--report", str(f / "r.json")], "--analyses: Analysis 'ols': 'response' must be"),
    ("kpbms --qi age,age", lambda f: [
        "kpbms", "--data", str(f / "in.csv"), "--class-attribute", "VitalStat",
        "--qi", "DiagAge,DiagAge", "--output", str(f / "k.csv")],
     "--qi names 'DiagAge' more than once"),
]


@pytest.mark.parametrize("argv, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_former_traceback_is_one_line_naming_the_option(folder, capsys, argv, expected):
    line = one_error_line(argv(folder), capsys)
    assert expected in line


def test_argparse_errors_are_one_line_naming_the_command_help(capsys):
    line = one_error_line(["condense", "--k", "x"], capsys)
    assert "argument --k: invalid int value: 'x'" in line
    assert "arxpy condense --help" in line


def test_a_seed_at_the_top_of_its_range_is_accepted(folder):
    # The bound is where every generator still takes the seed, not below it.
    assert main(["pbca", "--data", str(folder / "in.csv"), "--class-attribute",
                 "VitalStat", "--cv-folds", "3", "--seed", str(2**32 - 1)]) == 0


def test_a_declared_list_of_attributes_refuses_a_name_twice():
    from arxpy.errors import ConfigurationError
    from arxpy.methods.interval_boxes import IntervalGeneralisation

    with pytest.raises(ConfigurationError, match="'A' more than once"):
        IntervalGeneralisation(attributes=["A", "B", "A"], k=3)
