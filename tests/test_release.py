"""Releases: one apply, the same table on every surface, claims an independent checker
confirms, provenance, and the methods protocol."""

from __future__ import annotations

import dataclasses
import json

import audit as anonymity
import numpy as np
import pandas as pd
import pytest

import arxpy.cli as cli
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize, apply
from arxpy.errors import ConfigurationError
from arxpy.example import example_project
from arxpy.hierarchy.model import Hierarchy
from arxpy.methods import Generalization, method_from_dict, method_names, run_method
from arxpy.privacy import KAnonymity
from arxpy.release import SUPPRESSED_VALUE, Release, table_sha256

AGE = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 60)])
ZIP = Hierarchy([[f"{z}", f"{z // 10}*", "*"] for z in range(100, 140)])
DEFINITION = DataDefinition([
    AttributeDefinition("name", AttributeType.IDENTIFYING),
    AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING),
    AttributeDefinition("zip", AttributeType.QUASI_IDENTIFYING),
    AttributeDefinition("diagnosis", AttributeType.SENSITIVE),
])


def table(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "name": [f"p{i}" for i in range(n)],
        "age": rng.integers(20, 60, n).astype(str),
        "zip": rng.integers(100, 140, n).astype(str),
        "diagnosis": rng.choice(["flu", "cold", "asthma", "gout"], n, p=[.4, .3, .2, .1]),
    })


HIERARCHIES = {"age": AGE, "zip": ZIP}
CONFIG = AnonymizationConfig([KAnonymity(4)], suppression_limit=0.05)


def test_apply_equals_the_search_release_at_every_checked_transformation():
    frame = table()
    result = anonymize(frame, DEFINITION, HIERARCHIES, CONFIG)
    for state in result.checked_transformations()[:12]:
        searched = result.release(state.levels)
        applied = apply(frame, DEFINITION, HIERARCHIES, CONFIG, state.levels)
        pd.testing.assert_frame_equal(applied.table, searched.table)
        np.testing.assert_array_equal(applied.suppressed, searched.suppressed)
        assert applied.anonymous == searched.anonymous == (state.state == "anonymous")
        assert applied.suppressed_records == state.suppressed_records
        assert applied.output_sha256 == searched.output_sha256


def test_claims_hold_on_released_records_by_the_independent_audit():
    frame = table()
    release = anonymize(frame, DEFINITION, HIERARCHIES, CONFIG).release()
    claim, limit = release.claims
    assert (claim.kind, dict(claim.parameters), claim.attributes) == \
        ("k-anonymity", {"k": 4}, ("age", "zip"))
    assert (limit.kind, dict(limit.parameters)) == ("suppression-limit", {"limit": 0.05})
    assert release.suppressed_records <= 0.05 * len(frame) and release.anonymous
    released = release.released()
    assert anonymity.k_anonymity(released, list(claim.attributes)) >= claim.parameters["k"]
    assert claim.min_class_size == 4 and release.statistics.min_size >= 4
    # Suppressed rows show * in every quasi-identifier and nothing else changes.
    starred = (release.table[["age", "zip"]] == SUPPRESSED_VALUE).all(axis=1).to_numpy()
    np.testing.assert_array_equal(starred, release.suppressed)
    assert (release.table["diagnosis"] == frame["diagnosis"]).all()
    assert "name" not in release.table.columns
    # Groups are the equivalence classes of the released table.
    by_table = released.groupby(["age", "zip"]).ngroups
    assert len(np.unique(release.groups[~release.suppressed])) == by_table
    assert (release.groups[release.suppressed] == -1).all()


def test_provenance_and_summary():
    frame = table()
    release = anonymize(frame, DEFINITION, HIERARCHIES, CONFIG).release()
    assert release.method == "generalization"
    assert release.input_sha256 == table_sha256(frame)
    assert release.input_sha256 != table_sha256(frame.iloc[::-1])  # row order matters
    assert release.output_sha256 == table_sha256(release.table)
    assert set(release.versions) >= {"arxpy", "python", "numpy", "pandas"}
    report = json.loads(json.dumps(release.to_dict()))
    assert report["transformation"] == dict(release.transformation)
    assert report["classes"]["suppressed_records"] == release.suppressed_records
    summary = release.summary()
    assert summary.loc["suppressed records", "value"] == release.suppressed_records
    assert summary.loc["smallest group", "value"] == release.statistics.min_size
    assert list(summary.columns) == ["value", "description"]


def test_releases_without_groups_count_classes_from_the_table():
    frame = table()
    release = anonymize(frame, DEFINITION, HIERARCHIES, CONFIG).release()
    plain = Release(release.table, release.suppressed, release.definition, "other", {}, (),
                    release.input_sha256)
    np.testing.assert_array_equal(np.sort(plain.class_sizes), np.sort(release.class_sizes))


# --- the same transformation means the same table everywhere -------------------------------


@pytest.fixture(scope="module")
def project_file(tmp_path_factory):
    return example_project(records=2000).save(tmp_path_factory.mktemp("p") / "ex.arxpy")


def test_risk_evaluate_and_anonymize_agree_on_a_transformation(project_file, tmp_path):
    report, output = tmp_path / "a.json", tmp_path / "out.csv"
    assert cli.main(["anonymize", "--project", str(project_file), "--output", str(output),
                     "--report", str(report), "--keep-order"]) == 0  # compared row by row
    anonymized = json.loads(report.read_text())
    levels = anonymized["transformation"]
    # A neighbour of the optimum with suppression, named ATTR=LEVEL as a user would.
    name = next(q for q, v in levels.items() if v > 0)
    lower = {**levels, name: levels[name] - 1}
    text = ",".join(f"{q}={v}" for q, v in lower.items())
    project = example_project(records=2000)
    config = AnonymizationConfig.from_dict(project.settings)
    release = apply(project.data, project.definition, project.hierarchies, config, lower)

    risk_report = tmp_path / "r.json"
    assert cli.main(["risk", "--project", str(project_file), "--transformation", text,
                     "--report", str(risk_report), "--no-hipaa", "--qi-max-size", "0"]) == 0
    risk = json.loads(risk_report.read_text())
    assert risk["suppressed_records"] == release.suppressed_records > 0
    sizes = release.released().groupby(list(lower)).size().value_counts().sort_index()
    assert risk["class_sizes"] == {"sizes": sizes.index.tolist(), "counts": sizes.tolist()}

    evaluate_report = tmp_path / "e.json"
    assert cli.main(["evaluate", "--project", str(project_file), "--transformation", text,
                     "--class-attribute", "Sex", "--report", str(evaluate_report)]) == 0
    evaluated = json.loads(evaluate_report.read_text())
    assert evaluated["excluded_from_training"] == release.suppressed_records
    assert evaluated["anonymous"] == release.anonymous

    # The optimum: the file anonymize wrote is the release risk analyses.
    written = pd.read_csv(output, sep=";", dtype=str, keep_default_na=False)
    optimum = apply(project.data, project.definition, project.hierarchies, config, levels)
    pd.testing.assert_frame_equal(written, optimum.table.reset_index(drop=True).astype(str))
    assert anonymized["release"]["output_sha256"] == optimum.output_sha256


# --- the methods protocol ------------------------------------------------------------------


def test_generalization_method_runs_the_search():
    frame = table()
    assert "generalization" in method_names()
    result = run_method("generalization", frame, DEFINITION,
                        {"privacy_models": [{"kind": "k-anonymity", "k": 4}],
                         "suppression_limit": 0.05}, hierarchies=HIERARCHIES)
    direct = anonymize(frame, DEFINITION, HIERARCHIES, CONFIG)
    assert result.optimum == direct.optimum
    assert Generalization.from_config(CONFIG).config().to_dict() == CONFIG.to_dict()


@pytest.mark.parametrize(("params", "message"), [
    ({"suppression_limit": 2}, "suppression_limit must be between 0 and 1"),
    ({"strategy": "fast"}, "Unknown search strategy 'fast'"),
    ({"privacy_models": {"kind": "k-anonymity"}}, "privacy_models must be a list"),
    ({"privacy_models": [{"kind": "k-anonymity", "k": 0}]}, "k"),
    ({"colour": "red"}, "unknown setting 'colour'"),
])
def test_method_parameters_are_checked_with_the_setting_named(params, message):
    with pytest.raises(ConfigurationError, match=message):
        method_from_dict({"name": "generalization", **params})


def test_methods_command_lists_declared_parameters(capsys):
    assert cli.main(["methods", "--json"]) == 0
    [described] = [m for m in json.loads(capsys.readouterr().out)
                   if m["name"] == "generalization"]
    names = [p["name"] for p in described["params"]]
    assert names == [p.name for p in Generalization.params]
    suppression = described["params"][names.index("suppression_limit")]
    assert (suppression["low"], suppression["high"], suppression["default"]) == (0.0, 1.0, 0.0)
    assert cli.main(["methods", "nothing"]) == 2


def test_cli_options_come_from_the_declaration():
    import argparse

    from arxpy.methods.options import add_param_options, params_from_args

    parser = argparse.ArgumentParser()
    add_param_options(parser, Generalization.params)
    args = parser.parse_args(["--suppression-limit", "0.1", "--strategy", "heuristic",
                              "--time-limit", "3", "--privacy-models",
                              '[{"kind": "k-anonymity", "k": 3}]'])
    method = Generalization(**params_from_args(args, Generalization.params))
    assert (method.suppression_limit, method.strategy, method.time_limit) == (0.1, "heuristic",
                                                                              3.0)
    bad = parser.parse_args(["--suppression-limit", "lots"])
    with pytest.raises(ConfigurationError, match="suppression_limit must be a number"):
        Generalization(**params_from_args(bad, Generalization.params))


def test_releases_compare_side_by_side_with_recounted_figures():
    from arxpy.analysis import compare_releases

    frame = table()
    result = anonymize(frame, DEFINITION, HIERARCHIES, CONFIG)
    optimum = result.release()
    top = result.release(result.lattice.top)
    other = Release(optimum.table, optimum.suppressed, optimum.definition, "other", {}, (),
                    optimum.input_sha256)
    table_ = compare_releases({"optimum": optimum, "top": top, "other": other})
    assert list(table_.columns) == ["optimum", "top", "other"]
    released = optimum.released()
    sizes = released.groupby(["age", "zip"]).size()
    assert table_.loc["smallest class", "optimum"] == sizes.min()
    assert table_.loc["highest prosecutor risk", "optimum"] == pytest.approx(1 / sizes.min())
    assert table_.loc["classes (equal quasi-identifiers)", "top"] == 1
    assert table_.loc["method", "other"] == "other"
    assert table_.loc["claims", "other"] == "none"
    assert table_.loc["anonymous", "optimum"] is True
    assert table_.loc["verdict", "optimum"] == optimum.verify().headline
    assert table_.loc["anonymous", "other"] is False
    assert table_.loc["verdict", "other"] == ("Not anonymous: this release claims no privacy "
                                               "property.")
    elsewhere = apply(table(seed=5), DEFINITION, HIERARCHIES, CONFIG, optimum.levels)
    with pytest.raises(ConfigurationError, match="different input"):
        compare_releases({"a": optimum, "b": elsewhere})


def test_any_release_has_a_report_with_recounted_claims(tmp_path):
    from arxpy.engine.export import write_release_report

    frame = table()
    optimum = anonymize(frame, DEFINITION, HIERARCHIES, CONFIG).release()
    text = write_release_report(optimum, tmp_path / "r.html").read_text(encoding="utf-8")
    smallest = optimum.released().groupby(["age", "zip"]).size().min()
    assert f"smallest class {smallest:,} records, at least 4 claimed" in text
    assert optimum.verify().headline in text
    assert optimum.output_sha256 in text and optimum.input_sha256 in text
    assert "p0" not in text  # the identifying attribute never appears
    other = Release(optimum.table, optimum.suppressed, optimum.definition, "other", {}, (),
                    optimum.input_sha256)
    plain = write_release_report(other, tmp_path / "o.html").read_text(encoding="utf-8")
    assert "claims no privacy property" in plain and "other release" in plain
    with pytest.raises(Exception, match="o.html"):
        write_release_report(other, tmp_path / "o.html")


def test_compare_recounts_class_size_claims_from_the_methods_groups():
    """Compare shows the one verdict: condensation's cluster claim recounted from the
    release's own groups (its rows are synthetic and distinct, so classes of equal values
    mean nothing), interval boxes recounted from the released cells."""
    from arxpy.analysis.compare import compare_releases
    from arxpy.methods import Condensation, IntervalGeneralisation

    rng = np.random.default_rng(0)
    data = pd.DataFrame({"a": rng.normal(size=60).round(3).astype(str),
                         "b": rng.normal(size=60).round(3).astype(str)}).astype(object)
    definition = DataDefinition(AttributeDefinition(c, AttributeType.QUASI_IDENTIFYING)
                                for c in data.columns)
    condensed = Condensation(k=6, seed=1).run(data, definition)
    boxes = IntervalGeneralisation(attributes=["a", "b"], k=6).run(data, definition)
    table = compare_releases({"condensed": condensed, "boxes": boxes})
    assert table.loc["anonymous", "condensed"] is True
    assert "holds (smallest cluster" in table.loc["claims", "condensed"]
    assert str(table.loc["smallest class", "condensed"]).startswith("not applicable")
    assert table.loc["anonymous", "boxes"] is True
    lonely = boxes.table.copy()
    lonely.loc[0, "a"] = "[99, 99]"  # a record put back in a box of its own
    broken = dataclasses.replace(boxes, table=lonely)
    assert compare_releases({"x": broken}).loc["anonymous", "x"] is False
    assert "FAILS (smallest class 1 records" in compare_releases({"x": broken}).loc["claims", "x"]
    split = dataclasses.replace(condensed, groups=np.arange(60))  # clusters of one
    assert compare_releases({"x": split}).loc["anonymous", "x"] is False


def _digest_as_pandas_hashes_objects(frame: pd.DataFrame) -> str:
    """The digest's definition, written the slow, obvious way (every cell as an object)."""
    import hashlib

    digest = hashlib.sha256("\x1f".join(map(str, frame.columns)).encode("utf-8"))
    rows = pd.util.hash_pandas_object(frame.astype(object), index=False)
    digest.update(rows.to_numpy(dtype=np.uint64).tobytes())
    return digest.hexdigest()


def test_table_digest_turns_numbers_into_text_as_pandas_would():
    # Saved results store these digests: the fast path must hash every kind of cell
    # exactly as hashing the cells as Python objects does.
    rng = np.random.default_rng(7)
    n = 500
    frame = pd.DataFrame({
        "float": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n) * 1e17),
        "zeros": rng.choice([0.0, -0.0, np.inf, -np.inf, 1e-300, 0.1], n),
        "int": rng.integers(-2**62, 2**62, n),
        "small": rng.integers(0, 3, n).astype(np.int8),
        "bool": rng.random(n) < 0.5,
        "text": rng.choice(["a", "", "é", "1.0"], n),
        "mixed": pd.Series(rng.choice([1, "1", 1.5, None], n), dtype=object),
        "category": pd.Categorical(rng.choice(["x", "y"], n)),
    })
    frame.columns = ["float", "zeros", "int", "small", "bool", "text", "mixed", "float"]
    assert table_sha256(frame) == _digest_as_pandas_hashes_objects(frame)
    assert table_sha256(frame.iloc[:0]) == _digest_as_pandas_hashes_objects(frame.iloc[:0])
