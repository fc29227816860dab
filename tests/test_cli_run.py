"""``arxpy run METHOD``: options generated from every method's declaration, one report
shape, the one verdict."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest

from arxpy.cli import build_parser, main
from arxpy.example import example_project
from arxpy.methods import method_classes, run_method
from arxpy.methods.options import option_name


def _run_parser(name: str):
    parser = build_parser()
    run = next(a for a in parser._subparsers._group_actions if a.dest == "command")
    methods = run.choices["run"]._subparsers._group_actions[0]
    return methods.choices[name]


@pytest.mark.parametrize("name", sorted(method_classes()))
def test_every_declared_parameter_is_an_option_of_arxpy_run(name, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["run", name, "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    sub = _run_parser(name)
    dests = {action.dest: action.option_strings for action in sub._actions}
    for param in method_classes()[name].params:
        options = dests[f"param_{param.name}"]  # reachable, whatever its spelling
        assert any(option in text for option in options), (name, param.name)
        assert options[0] in (option_name(param),
                              f"--{name}-{param.name.replace('_', '-')}")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    project = example_project()
    data = project.data.sample(1_500, random_state=4).reset_index(drop=True)
    path = folder / "in.csv"
    data.to_csv(path, index=False)
    return folder, path, data, project


def test_a_run_writes_the_release_and_the_one_verdict(table):
    folder, path, data, project = table
    out, report = folder / "mdav.csv", folder / "mdav.json"
    status = main(["run", "mdav", "--data", str(path), "--identifying", "Hospital ID",
                   "--quasi-identifying", "Age", "--quasi-identifying", "Sex",
                   "--k", "4", "--seed", "9", "--output", str(out), "--report", str(report)])
    assert status == 0
    written = json.loads(report.read_text())
    assert written["output"] == "mdav.csv" and str(folder) not in report.read_text()
    assert written["output_file_sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert written["parameters"]["k"] == 4 and written["seed"] == 9
    assert set(written) >= {"method", "anonymous", "claims", "verification", "classes",
                            "input_sha256", "output_sha256", "versions", "elapsed_seconds"}
    assert written["anonymous"] is True
    assert written["verification"]["headline"] == "Anonymous: its one claim verified " \
                                                  "independently."
    released = pd.read_csv(out, dtype=str)
    assert len(released) == len(data) and "Hospital ID" not in released.columns


def test_interval_over_age_reads_not_anonymous_in_the_cli(table, capsys):
    folder, path, data, project = table
    qis = ["--quasi-identifying", "Age", "--quasi-identifying", "Sex",
           "--quasi-identifying", "ZIP code", "--quasi-identifying", "County"]
    report = folder / "boxes.json"
    assert main(["run", "intervals", "--data", str(path), *qis, "--attributes", "Age",
                 "--k", "5", "--output", str(folder / "boxes.csv"),
                 "--report", str(report)]) == 0
    written = json.loads(report.read_text())
    assert written["anonymous"] is False
    headline = written["verification"]["headline"]
    assert headline.startswith("Not anonymous over the declared quasi-identifiers "
                               "(smallest class 1)")
    assert headline in capsys.readouterr().out


def test_the_lattice_is_a_method_of_arxpy_run(table, tmp_path):
    _, _, data, project = table
    saved = tmp_path / "p.arxpy"
    project.save(saved)
    report = tmp_path / "r.json"
    assert main(["run", "generalization", "--project", str(saved),
                 "--privacy-models", '[{"kind": "k-anonymity", "k": 5}]',
                 "--suppression-limit", "0.05", "--output", str(tmp_path / "o.csv"),
                 "--report", str(report)]) == 0
    written = json.loads(report.read_text())
    assert written["method"] == "generalization" and written["transformation"]
    assert written["anonymous"] is True
    kinds = [c["kind"] for c in written["verification"]["claims"]]
    assert kinds == ["k-anonymity", "suppression-limit"]


def test_bad_values_name_the_parameter_and_write_nothing(table, capsys):
    folder, path, *_ = table
    out = folder / "never.csv"
    assert main(["run", "condensation", "--data", str(path), "--k", "2",
                 "--output", str(out)]) == 2
    assert "k must be a whole number at least 3" in capsys.readouterr().err
    assert not out.exists()
    assert main(["run", "mdav", "--data", str(path), "--k", "5",
                 "--output", str(path)]) == 2  # the input is never overwritten
    assert "same file" in capsys.readouterr().err


def test_run_and_the_api_give_the_same_release(table):
    folder, path, data, project = table
    report = folder / "same.json"
    main(["run", "tfrp", "--data", str(path), "--k", "6", "--seed", "1",
          "--shuffle-output", "no",
          "--output", str(folder / "same.csv"), "--report", str(report)])
    from arxpy.data.csv_io import read_csv, sniff_csv
    from arxpy.data.definition import DataDefinition
    frame = read_csv(path, sniff_csv(path))
    release = run_method("tfrp", frame, DataDefinition.for_columns(frame.columns),
                         {"k": 6, "seed": 1, "shuffle_output": False})
    assert json.loads(report.read_text())["output_sha256"] == release.output_sha256
