"""Valid runs of every command on tiny generated inputs, and the hostile variations of
issue 28 built from them: an output pointed at an input, a parameter out of its bounds,
a forged published document, a forged saved result.

Shared by the fast cases in ``tests/fuzz/test_command_inputs.py`` and the campaign
(``benchmarks/fuzz_campaign.py``). Input files are named ``in_*`` so that the campaign's
check of changed inputs sees them; nothing hostile is committed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

Files = dict[str, str]
Argv = Callable[[Files], list[str]]

ANALYSES = [{"type": "ols", "covariates": ["DiagAge"], "response": "SurvInterval"}]


def write_inputs(folder: Path) -> Files:
    """Every kind of input a command reads, small; returns name -> path (and ``dir``)."""
    from arxpy.cli import main
    from arxpy.methods.condensation.devdata import cancer_registry

    cancer_registry(200, seed=1).to_csv(folder / "in_registry.csv", index=False)
    texts = {
        "in_other.csv": (folder / "in_registry.csv").read_text(),
        "in_people.csv": "age;sex\n" + "".join(f"{20 + i % 3};{'MF'[i % 2]}\n"
                                              for i in range(30)),
        "in_age.csv": "20;2*;*\n21;2*;*\n22;2*;*\n",
        "in_types.json": '{"Stage": "categorical"}\n',
        "in_analyses.json": json.dumps(ANALYSES),
        "in_codes.csv": "pid,dx\n" + "".join(f"p{i},401.{i % 3};250.{i % 2}\n"
                                             for i in range(20)),
        "in_sensitive.txt": "401.1\n",
        "in_policy.json": '[["401.0", "401.1"]]\n',
    }
    for name, text in texts.items():
        (folder / name).write_text(text)
    made = [["disassociate", "--data", str(folder / "in_codes.csv"), "--codes-column", "dx",
             "--k", "2", "--seed", "1", "--output", str(folder / "in_published.json")],
            ["intervals", "--data", str(folder / "in_registry.csv"), "--attributes",
             "DiagAge", "--k", "5", "--shuffle-seed", "1",
             "--output", str(folder / "in_intervals.csv")]]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for argv in made:
            if main(argv) != 0:
                raise RuntimeError(f"could not make an input: {argv}")
    files = {path.stem[3:]: str(path) for path in folder.glob("in_*")}
    return files | {"dir": str(folder)}


def out(files: Files, name: str) -> str:
    return str(Path(files["dir"]) / f"out_{name}")


def published_document(k: int, m: int, codes: int = 2) -> dict[str, Any]:
    """A disassociation publication of one cluster whose two subrecords hold ``codes``
    codes (forged when k, m or codes are out of bounds)."""
    names = [f"{400 + i}.1" for i in range(codes)]
    chunk = {"domain": names, "subrecords": [names, names]}
    return {"method": "disassociation", "k": k, "m": m, "params": {},
            "joint_clusters": [{"clusters": [{"size": 2, "record_chunks": [chunk],
                                              "item_chunk": []}], "shared_chunks": []}]}


#: One valid run of each command (and of each method through ``arxpy run``).
TEMPLATES: dict[str, Argv] = {
    "anonymize": lambda f: [
        "anonymize", "--data", f["people"], "--delimiter", ";", "--hierarchy",
        f"age={f['age']}", "--k", "2", "--output", out(f, "a.csv"),
        "--report", out(f, "a.json")],
    "anonymize --engine duckdb": lambda f: [
        "anonymize", "--data", f["people"], "--delimiter", ";", "--hierarchy",
        f"age={f['age']}", "--k", "2", "--engine", "duckdb", "--output", out(f, "d.csv"),
        "--report", out(f, "d.json")],
    "risk": lambda f: [
        "risk", "--data", f["people"], "--qi", "age,sex", "--no-hipaa",
        "--report", out(f, "risk.json")],
    "condense": lambda f: [
        "condense", "--data", f["registry"], "--method", "mdav", "--k", "3", "--types",
        f["types"], "--output", out(f, "c.csv"), "--groups", out(f, "g.csv"),
        "--report", out(f, "c.json")],
    "compare-models": lambda f: [
        "compare-models", "--original", f["registry"], "--anonymized", f["other"],
        "--analyses", f["analyses"], "--csv", out(f, "m.csv"), "--report", out(f, "m.json")],
    "disassociate": lambda f: [
        "disassociate", "--data", f["codes"], "--codes-column", "dx", "--k", "2",
        "--sensitive-codes", f["sensitive"], "--policy", f"file:{f['policy']}",
        "--output", out(f, "p.json"), "--report", out(f, "p-report.json")],
    "setvalued-utility": lambda f: [
        "setvalued-utility", "--original", f["codes"], "--codes-column", "dx",
        "--published", f["published"], "--policy", f"file:{f['policy']}",
        "--report", out(f, "u.json")],
    "setvalued-risk": lambda f: [
        "setvalued-risk", "--data", f["codes"], "--codes-column", "dx", "--m", "2",
        "--report", out(f, "sr.json")],
    "km-check": lambda f: [
        "km-check", "--published", f["published"], "--k", "2", "--m", "1",
        "--report", out(f, "km.json")],
    "kpbms": lambda f: [
        "kpbms", "--data", f["registry"], "--class-attribute", "Stage", "--k", "3",
        "--output", out(f, "k.csv"), "--report", out(f, "k.json")],
    "kpbms-evaluate": lambda f: [
        "kpbms-evaluate", "--data", f["registry"], "--class-attribute", "Stage",
        "--k", "2", "--classifiers", "knn", "--folds", "2", "--report", out(f, "ke.json")],
    "intervals": lambda f: [
        "intervals", "--data", f["registry"], "--attributes", "DiagAge", "--k", "5",
        "--output", out(f, "i.csv"), "--report", out(f, "i.json")],
    "interval-stats": lambda f: [
        "interval-stats", "--data", f["intervals"], "--attributes", "DiagAge",
        "--report", out(f, "is.json")],
    "pbca": lambda f: [
        "pbca", "--data", f["registry"], "--class-attribute", "VitalStat",
        "--cv-folds", "3", "--json"],
    "synth-ehr": lambda f: [
        "synth-ehr", "--records", "20", "--seed", "3", "--output", out(f, "s.csv"),
        "--report", out(f, "s.json")],
    "example": lambda f: [
        "example", "--records", "30", "--seed", "1", "--output", out(f, "example")],
    "run intervals": lambda f: [
        "run", "intervals", "--data", f["registry"], "--attributes", "DiagAge", "--k", "5",
        "--output", out(f, "ri.csv"), "--report", out(f, "ri.json")],
    "run kpbms": lambda f: [
        "run", "kpbms", "--data", f["registry"], "--class-attribute", "Stage",
        "--k", "3", "--output", out(f, "rk.csv"), "--report", out(f, "rk.json")],
    "run disassociation": lambda f: [
        "run", "disassociation", "--data", f["codes"], "--codes-column", "dx", "--k", "2",
        "--policy", f"file:{f['policy']}", "--output", out(f, "rd.json"),
        "--report", out(f, "rd-report.json")],
}

#: Values of issue 28's invalid and out-of-bound parameters, per option (the numeric
#: ones for every option that takes a number).
HOSTILE_NUMBERS = ["0", "-5", "-1", "1", "2", "1e308", "nan", "inf", "x", "", "1e9",
                   "4294967296", "2.5"]
HOSTILE_VALUES = {
    "--delimiter": [";;", "", '"', "\n", "tab", "\\t"],
    "--discretize": ["eqfreq:0", "eqfreq:1e9", "eqfreq:nan", "eqwidth:-1", "bogus", ""],
    "--encoding": ["rot13", "nope", ""],
    "--qi": ["DiagAge,DiagAge", "", "nope", ","],
    "--attributes": ["DiagAge,DiagAge", "", "nope"],
}
NUMERIC_OPTIONS = ("--k", "--m", "--seed", "--shuffle-seed", "--records", "--bins",
                   "--repeats", "--reconstructions", "--suppression", "--folds",
                   "--cv-folds", "--l", "--time-limit", "--codes", "--max-size")


#: Placeholder paths to read a template's options without writing its inputs.
PLACES = {"dir": "/d"} | {k: f"/d/{k}" for k in (
    "people", "age", "registry", "other", "types", "analyses", "codes", "sensitive",
    "policy", "published", "intervals")}


def overwritable() -> list[str]:
    """Templates writing a file that could replace another file of the same run."""
    return [name for name, argv in TEMPLATES.items()
            if (found := declared(argv(PLACES)))[1] and sum(map(len, found)) > 1]


def parser_of(argv: list[str]) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    from arxpy.cli import build_parser

    parser = build_parser()
    return parser, parser.parse_args(argv)


def declared(argv: list[str]) -> tuple[list[tuple[str, Path]], list[tuple[str, Path]]]:
    """(inputs, outputs) of a run as (option, path) pairs, read from its parser."""
    from arxpy.commands.files import command_actions, declared_files

    parser, args = parser_of(argv)
    return declared_files(command_actions(parser, args), args)


def output_over_input(argv: list[str], rng: random.Random, folder: Path) -> list[str]:
    """``argv`` with one output option naming an input or another output: the path as
    given, through ``..``, or through a symbolic link."""
    inputs, outputs = declared(argv)
    option, target = rng.choice(outputs)
    victims = [p for o, p in inputs + outputs if p != target]
    victim = Path(rng.choice(victims))
    way = rng.randrange(3)
    if way == 1:
        (victim.parent / "sub").mkdir(exist_ok=True)
        victim = victim.parent / "sub" / ".." / victim.name
    elif way == 2:
        link = folder / f"link-{rng.randrange(10**6)}{victim.suffix}"
        link.symlink_to(victim)
        victim = link
    at = argv.index(option) + 1
    return [*argv[:at], str(victim), *argv[at + 1:]]


def options_of(argv: list[str]) -> set[str]:
    parser, args = parser_of(argv)
    from arxpy.commands.files import command_actions

    return {flag for action in command_actions(parser, args) for flag in action.option_strings}


def with_parameter(argv: list[str], option: str, value: str) -> list[str]:
    """``argv`` with ``option`` set to ``value`` (replaced, or added)."""
    if option in argv:
        at = argv.index(option) + 1
        return [*argv[:at], value, *argv[at + 1:]]
    return [*argv, option, value]


def hostile_parameter(argv: list[str], rng: random.Random) -> list[str]:
    """``argv`` with one of its command's parameters set to a hostile value."""
    present = options_of(argv)
    candidates = [o for o in (*NUMERIC_OPTIONS, *HOSTILE_VALUES) if o in present]
    option = rng.choice(candidates)
    values = HOSTILE_VALUES.get(option, HOSTILE_NUMBERS)
    return with_parameter(argv, option, rng.choice(values))


def forged_document(rng: random.Random) -> dict[str, Any]:
    """A published disassociation document with hostile k, m, sizes or shapes."""
    k = rng.choice([2, 0, -1, 10**9, "2", None, 2.5])
    m = rng.choice([1, 2, 6, 7, 12, 24, 10**9, 0, -1, "x", None, float("nan")])
    document = published_document(k, m, rng.choice([1, 2, 8, 40, 200]))
    cluster = document["joint_clusters"][0]["clusters"][0]
    damage = rng.randrange(6)
    if damage == 1:
        cluster["size"] = rng.choice([0, -3, 10**12, "x"])
    elif damage == 2:
        del document[rng.choice(["k", "m", "joint_clusters", "method"])]
    elif damage == 3:
        cluster["record_chunks"][0]["subrecords"] = [[["nested"]], 5]
    elif damage == 4:
        document["joint_clusters"] = [document["joint_clusters"][0]] * rng.choice([2, 500])
    return document


#: Readers of published documents: argv given the document's path.
DOCUMENT_READERS: list[Callable[[Files, str], list[str]]] = [
    lambda f, doc: ["km-check", "--published", doc, "--k", "2", "--m", "2",
                    "--report", out(f, "km.json")],
    lambda f, doc: ["setvalued-utility", "--original", f["codes"], "--codes-column", "dx",
                    "--published", doc, "--report", out(f, "u.json")],
    lambda f, doc: ["setvalued-utility", "--original", f["codes"], "--codes-column", "dx",
                    "--published", doc, "--baseline", "sup", "--report", out(f, "u.json")],
    lambda f, doc: ["setvalued-utility", "--original", f["codes"], "--codes-column", "dx",
                    "--published", doc, "--reconstructions", "3",
                    "--report", out(f, "u.json")],
]


def saved_result_run() -> tuple[Any, ...]:
    """A small search and its stored outcome: (frame, definition, hierarchies, config,
    result, stored)."""
    import pandas as pd

    from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.engine.stored import store_outcome
    from arxpy.hierarchy.model import Hierarchy

    frame = pd.DataFrame({"age": [str(20 + i % 9) for i in range(40)],
                          "zip": [f"1{i % 4}" for i in range(40)]})
    definition = DataDefinition([AttributeDefinition(n, AttributeType.QUASI_IDENTIFYING)
                                 for n in ("age", "zip")])
    hierarchies = {
        "age": Hierarchy([[str(v), f"{v // 3 * 3}-{v // 3 * 3 + 2}", "*"]
                          for v in range(20, 29)]),
        "zip": Hierarchy([[f"1{v}", "1*", "*"] for v in range(4)]),
    }
    config = AnonymizationConfig.from_dict(
        {"privacy_models": [{"kind": "k-anonymity", "k": 4}], "suppression_limit": 0.0})
    result = anonymize(frame, definition, hierarchies, config)
    return frame, definition, hierarchies, config, result, store_outcome(result)


def forged_outcome(stored: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``stored`` (a saved search outcome) with its optimum, verdicts or scores forged."""
    forged = json.loads(json.dumps(stored))
    damage = rng.randrange(5)
    if damage == 0:  # the top (or another node) named the optimum
        forged["optimum"] = rng.choice([[2, 2], [1, 2], [2, 1], [0, 0], [9, 9], "x"])
    elif damage == 1:
        forged["optimum"] = None
    elif damage == 2:
        forged = _forge_values(forged, rng, lambda v: v * rng.choice([0, -1, 0.5, 1e300]),
                               float)
    elif damage == 3:
        forged = _forge_values(forged, rng, lambda v: not v, bool)
    else:
        key = rng.choice(sorted(forged))
        forged[key] = rng.choice([None, [], {}, "x", 10**20])
    return forged


def _forge_values(tree: Any, rng: random.Random, change: Callable[[Any], Any],
                  kind: type) -> Any:
    if isinstance(tree, dict):
        return {k: _forge_values(v, rng, change, kind) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_forge_values(v, rng, change, kind) for v in tree]
    if type(tree) is kind and rng.random() < 0.3:
        return change(tree)
    return tree
