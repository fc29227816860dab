"""Parameters that scale work or memory, and those a document supplies, have upper
bounds with a clear message (issue 28, defect 5): a 1.4 KB document or a typo cannot
make a command run for minutes or take gigabytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_checks import one_error_line

from arxpy.cli import main
from arxpy.data.disassociated import MAX_M, MAX_RECONSTRUCTIONS
from arxpy.data.discretization import MAX_BINS
from arxpy.data.synth_ehr import MAX_RECORDS, generate_ehr
from arxpy.methods import method_classes
from arxpy.methods.condensation.devdata import cancer_registry


def _document(m: int, codes: int, k: int = 2) -> dict:
    """A small forged publication: one chunk whose two subrecords hold ``codes`` codes."""
    names = [f"{400 + i}.1" for i in range(codes)]
    chunk = {"domain": names, "subrecords": [names, names]}
    return {"method": "disassociation", "k": k, "m": m, "params": {},
            "joint_clusters": [{"clusters": [{"size": 2, "record_chunks": [chunk],
                                              "item_chunk": []}], "shared_chunks": []}]}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bounds")
    generate_ehr(records=60, codes=30, seed=1).to_csv(path / "ehr.csv", index=False)
    cancer_registry(60, seed=2).to_csv(path / "in.csv", index=False)
    (path / "m24.json").write_text(json.dumps(_document(24, 8)))
    (path / "wide.json").write_text(json.dumps(_document(MAX_M, 40)))
    return path


CASES = [
    ("setvalued-utility --baseline with a document's m = 24", lambda f: [
        "setvalued-utility", "--original", str(f / "ehr.csv"), "--codes-column", "codes",
        "--published", str(f / "m24.json"), "--baseline", "sup", "--report",
        str(f / "u.json")], f"'m' is 24; m is at most {MAX_M}"),
    ("km-check of a document with m = 24", lambda f: [
        "km-check", "--published", str(f / "m24.json"), "--k", "2", "--m", "2"],
     f"'m' is 24; m is at most {MAX_M}"),
    ("km-check --m 12", lambda f: [
        "km-check", "--published", str(f / "wide.json"), "--k", "2", "--m", "12"],
     f"m = 12 cannot be checked: m is at most {MAX_M}"),
    ("km-check of a chunk of two 40-code subrecords at the largest m", lambda f: [
        "km-check", "--published", str(f / "wide.json"), "--k", "2", "--m", str(MAX_M)],
     "more than the 5,000,000 a check counts per chunk"),
    ("disassociate --m 24", lambda f: [
        "disassociate", "--data", str(f / "ehr.csv"), "--codes-column", "codes", "--k", "2",
        "--m", "24", "--output", str(f / "d.json")], f"m must be a whole number between 1 "
     f"and {MAX_M}, got 24"),
    ("setvalued-risk --m 24", lambda f: [
        "setvalued-risk", "--data", str(f / "ehr.csv"), "--codes-column", "codes",
        "--m", "24"], f"--m from 1 to {MAX_M}"),
    ("synth-ehr --records 1e9", lambda f: [
        "synth-ehr", "--records", "1000000000", "--output", str(f / "s.csv")],
     f"--records must be from 1 to {MAX_RECORDS:,}"),
    ("example --records 1e9", lambda f: [
        "example", "--records", "1000000000", "--output", str(f / "example")],
     "records must be from 1 to 2,000,000"),
    ("kpbms --discretize eqfreq:1e9", lambda f: [
        "kpbms", "--data", str(f / "in.csv"), "--class-attribute", "VitalStat",
        "--discretize", "eqfreq:1000000000", "--output", str(f / "k.csv")],
     f"eqfreq:B with B from 2 to {MAX_BINS} bins"),
    ("run kpbms --bins 1e9", lambda f: [
        "run", "kpbms", "--data", str(f / "in.csv"), "--class-attribute", "VitalStat",
        "--discretize", "eqfreq", "--bins", "1000000000", "--output", str(f / "k.csv")],
     f"bins must be a whole number between 2 and {MAX_BINS}"),
    ("setvalued-utility --reconstructions 1e6", lambda f: [
        "setvalued-utility", "--original", str(f / "ehr.csv"), "--codes-column", "codes",
        "--published", str(f / "m24.json"), "--reconstructions", "1000000", "--report",
        str(f / "u.json")],
     f"--reconstructions must be at least 1 and at most {MAX_RECONSTRUCTIONS}"),
    ("compare-models --repeats 1e6", lambda f: [
        "compare-models", "--original", str(f / "in.csv"), "--methods", "mdav", "--k", "5",
        "--repeats", "1000000", "--analyses", _analyses(f), "--report", str(f / "r.json")],
     "--repeats must be from 1 to 1000"),
]


def _analyses(folder: Path) -> str:
    path = folder / "analyses.json"
    path.write_text(json.dumps([{"type": "ols", "covariates": ["DiagAge"],
                                 "response": "SurvInterval"}]))
    return str(path)


@pytest.mark.parametrize("argv, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_runaway_parameter_is_refused_at_once(folder, capsys, argv, expected):
    assert expected in one_error_line(argv(folder), capsys)


def test_declared_bounds_reach_every_form_and_arxpy_run():
    """The GUI form and ``arxpy run`` read the bounds from the declarations."""
    declared = {cls.name: {p.name: p for p in cls.params}
                for cls in method_classes().values()}
    assert declared["disassociation"]["m"].high == MAX_M
    assert declared["kpbms"]["bins"].high == MAX_BINS


def test_the_largest_m_still_checks_an_honest_publication(folder, tmp_path):
    """The bound sits above real use: m = MAX_M checks a real publication."""
    published = tmp_path / "p.json"
    assert main(["disassociate", "--data", str(folder / "ehr.csv"), "--codes-column",
                 "codes", "--k", "2", "--m", str(MAX_M), "--seed", "1",
                 "--output", str(published)]) == 0
    assert main(["km-check", "--published", str(published), "--k", "2",
                 "--m", str(MAX_M)]) == 0
