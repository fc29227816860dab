"""One overwrite guard for every command (issue 28, defect 1): each option naming files
is declared an input or an output where it is added, and no output may name an input
or another output of the same run."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from arxpy.cli import build_parser, main
from arxpy.commands.files import (
    INPUT,
    OUTPUT,
    add_input_option,
    command_actions,
    declared_files,
    file_role,
)
from arxpy.methods.condensation.devdata import cancer_registry

#: Metavars and help texts that say an option takes a file or a folder.
_PATH_METAVAR = re.compile(r"FILE|DIR|\bCSV\b|\bOUT\b|\.[A-Za-z]+$")


def _looks_like_a_path(action: argparse.Action) -> bool:
    metavar = action.metavar if isinstance(action.metavar, str) else ""
    return (action.type is Path or bool(_PATH_METAVAR.search(metavar))
            or "file:" in (action.help or ""))


def _leaf_parsers(parser: argparse.ArgumentParser, name: str = "arxpy"):
    choosers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not choosers:
        yield name, parser
    for chooser in choosers:
        for sub_name, sub in chooser.choices.items():
            yield from _leaf_parsers(sub, f"{name} {sub_name}")


def test_every_option_naming_a_file_is_declared_input_or_output():
    undeclared, declared = [], 0
    for name, parser in _leaf_parsers(build_parser()):
        for action in parser._actions:
            if _looks_like_a_path(action):
                if file_role(action) in (INPUT, OUTPUT):
                    declared += 1
                else:
                    undeclared.append(f"{name} {action.option_strings or action.dest}")
    assert undeclared == []
    assert declared > 60  # every command's files, not a parser that lost its options


def test_the_walk_would_catch_a_new_undeclared_file_option():
    parser = argparse.ArgumentParser()
    forgotten = parser.add_argument("--extra", metavar="EXTRA.csv")
    typed = parser.add_argument("--other", type=Path)
    kept = add_input_option(parser, "--given", type=Path)
    assert _looks_like_a_path(forgotten) and file_role(forgotten) is None
    assert _looks_like_a_path(typed) and file_role(typed) is None
    assert file_role(kept) == INPUT


def test_the_guard_reads_the_declarations_of_the_command_being_run():
    parser = build_parser()
    args = parser.parse_args(["run", "disassociation", "--data", "d.csv", "--hierarchy",
                              "age=a.csv", "--codes-column", "dx", "--k", "2",
                              "--policy", "file:u.json", "--output", "o.json",
                              "--report", "r.json"])
    inputs, outputs = declared_files(command_actions(parser, args), args)
    assert sorted(str(p) for _, p in inputs) == ["a.csv", "d.csv", "u.json"]
    assert sorted(str(p) for _, p in outputs) == ["o.json", "r.json"]


@pytest.fixture
def files(tmp_path) -> dict[str, str]:
    """Real inputs (a run without the guard would read them and overwrite one)."""
    cancer_registry(60, seed=3).to_csv(tmp_path / "in.csv", index=False)
    written = {
        "types.json": '{"Stage": "categorical"}\n',
        "analyses.json": '[{"type": "ols", "covariates": ["DiagAge"], '
                         '"response": "SurvInterval"}]\n',
        "codes.csv": "pid,dx\n" + "".join(f"p{i},401.{i % 3};250.{i % 2}\n"
                                          for i in range(20)),
        "sensitive.txt": "401.1\n",
        "policy.json": '[["401.0", "401.1"]]\n',
        "published.json": '{"method": "disassociation", "k": 2, "m": 1, '
                          '"joint_clusters": []}\n',
        "rec-2.csv": "row,dx\n0,401.1\n",
        "other.csv": (tmp_path / "in.csv").read_text(),
    }
    for name, text in written.items():
        (tmp_path / name).write_text(text)
    return {name.split(".")[0].replace("-", "_"): str(tmp_path / name)
            for name in ["in.csv", *written]} | {"dir": str(tmp_path)}


def _out(f, name: str) -> str:
    return str(Path(f["dir"]) / name)


# (case, argv from the files, the output option, the option it would destroy)
CASES = [
    ("condense --groups is the data",
     lambda f: ["condense", "--data", f["in"], "--method", "mdav", "--k", "3", "--output",
                _out(f, "o.csv"), "--groups", f["in"]], "--groups", "--data"),
    ("condense --report is the types file",
     lambda f: ["condense", "--data", f["in"], "--method", "mdav", "--k", "3", "--types",
                f["types"], "--output", _out(f, "o.csv"), "--report", f["types"]],
     "--report", "--types"),
    ("condense --groups is the types file",
     lambda f: ["condense", "--data", f["in"], "--method", "mdav", "--k", "3", "--types",
                f["types"], "--output", _out(f, "o.csv"), "--groups", f["types"]],
     "--groups", "--types"),
    ("condense --groups equals --output",
     lambda f: ["condense", "--data", f["in"], "--method", "mdav", "--k", "3",
                "--output", _out(f, "o.csv"), "--groups", _out(f, "o.csv")],
     "--groups", "--output"),
    ("compare-models --csv is the original",
     lambda f: ["compare-models", "--original", f["in"], "--anonymized", f["other"],
                "--analyses", f["analyses"], "--report", _out(f, "r.json"),
                "--csv", f["in"]], "--csv", "--original"),
    ("compare-models --report is an anonymized table",
     lambda f: ["compare-models", "--original", f["in"], "--anonymized", f["in"],
                f["other"], "--analyses", f["analyses"], "--report", f["other"]],
     "--report", "--anonymized"),
    ("compare-models --report is the analyses file",
     lambda f: ["compare-models", "--original", f["in"], "--anonymized", f["other"],
                "--analyses", f["analyses"], "--report", f["analyses"]],
     "--report", "--analyses"),
    ("compare-models --report is the types file",
     lambda f: ["compare-models", "--original", f["in"], "--methods", "mdav", "--k", "3",
                "--repeats", "1", "--types", f["types"], "--analyses", f["analyses"],
                "--report", f["types"]], "--report", "--types"),
    ("compare-models --report equals --csv",
     lambda f: ["compare-models", "--original", f["in"], "--anonymized", f["other"],
                "--analyses", f["analyses"], "--csv", _out(f, "x.csv"),
                "--report", _out(f, "x.csv")], "--csv", "--report"),
    ("disassociate --report is the sensitive-codes list",
     lambda f: ["disassociate", "--data", f["codes"], "--codes-column", "dx", "--k", "2",
                "--sensitive-codes", f["sensitive"], "--output", _out(f, "o.json"),
                "--report", f["sensitive"]], "--report", "--sensitive-codes"),
    ("disassociate --report is the policy file",
     lambda f: ["disassociate", "--data", f["codes"], "--codes-column", "dx", "--k", "2",
                "--policy", f"file:{f['policy']}", "--output", _out(f, "o.json"),
                "--report", f["policy"]], "--report", "--policy"),
    ("disassociate --reconstruct R=2 names the data",
     lambda f: ["disassociate", "--data", f["rec_2"], "--codes-column", "dx", "--k", "2",
                "--output", _out(f, "o.json"), "--reconstruct", _out(f, "rec.csv"),
                "--reconstructions", "2"], "--reconstruct", "--data"),
    ("setvalued-utility --report is the policy file",
     lambda f: ["setvalued-utility", "--original", f["codes"], "--codes-column", "dx",
                "--published", f["published"], "--policy", f"file:{f['policy']}",
                "--report", f["policy"]], "--report", "--policy"),
    ("run disassociation --report is the policy file",
     lambda f: ["run", "disassociation", "--data", f["codes"], "--codes-column", "dx",
                "--k", "2", "--policy", f"file:{f['policy']}", "--output",
                _out(f, "o.json"), "--report", f["policy"]], "--report", "--policy"),
    ("evaluate --report is a --method-param file",
     lambda f: ["evaluate", "--data", f["codes"], "--class-attribute", "pid", "--method",
                "disassociation", "--method-param", f"policy=file:{f['policy']}",
                "--report", f["policy"]], "--report", "--method-param"),
    ("km-check --report is the published document",
     lambda f: ["km-check", "--published", f["published"], "--k", "2", "--m", "1",
                "--report", f["published"]], "--report", "--published"),
    ("kpbms --report equals --output",
     lambda f: ["kpbms", "--data", f["in"], "--class-attribute", "VitalStat",
                "--output", _out(f, "o.csv"), "--report", _out(f, "o.csv")],
     "--report", "--output"),
    ("kpbms-evaluate --report is the data",
     lambda f: ["kpbms-evaluate", "--data", f["in"], "--class-attribute", "VitalStat",
                "--report", f["in"]], "--report", "--data"),
    ("setvalued-risk --report is the data",
     lambda f: ["setvalued-risk", "--data", f["codes"], "--codes-column", "dx",
                "--report", f["codes"]], "--report", "--data"),
    ("interval-stats --report is the data",
     lambda f: ["interval-stats", "--data", f["in"], "--attributes", "DiagAge",
                "--report", f["in"]], "--report", "--data"),
    ("synth-ehr --report equals --output",
     lambda f: ["synth-ehr", "--records", "10", "--output", _out(f, "s.csv"),
                "--report", _out(f, "s.csv")], "--report", "--output"),
    ("study --plots is the data",
     lambda f: ["study", "classification", "--data", f["in"], "--class-attribute",
                "VitalStat", "--k", "2", "--report", _out(f, "r.json"), "--plots", f["in"]],
     "--plots", "--data"),
]


def _snapshot(folder: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in Path(folder).iterdir()}


@pytest.mark.parametrize("argv, output, destroyed", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_an_output_over_an_input_or_another_output_is_refused(files, capsys, argv, output,
                                                             destroyed):
    before = _snapshot(files["dir"])
    assert main(argv(files)) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arxpy: error:")
    assert f"{output} '" in lines[0] and f"same file as {destroyed} '" in lines[0]
    assert _snapshot(files["dir"]) == before  # nothing changed, nothing written
