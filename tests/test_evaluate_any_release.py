"""Classifier performance for a release of every method (seed 004's interwoven
cross-validation through Release.recode), and recoding itself."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from arxpy.analysis.classification import (
    ClassificationConfig,
    ClassificationTask,
    bin_values,
    evaluate_release,
    evaluation_unavailable,
)
from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize, apply
from arxpy.errors import ConfigurationError
from arxpy.example import example_project
from arxpy.methods import run_method
from arxpy.privacy import KAnonymity
from arxpy.quality.loss import Loss
from arxpy.release import Release, table_sha256

EDGES = [10_000, 50_000]


@pytest.fixture(scope="module")
def example():
    project = example_project()
    data = project.data.sample(3_000, random_state=11).reset_index(drop=True)
    binned = data.copy()
    binned["Charge"] = bin_values(data["Charge"], EDGES)
    task = ClassificationTask(binned, project.definition, project.hierarchies,
                              ClassificationConfig("Charge"))
    return project, data, binned, task


@pytest.fixture(scope="module")
def releases(example):
    project, data, binned, _ = example
    config = AnonymizationConfig([KAnonymity(5)], Loss(), 0.05)
    made = {"lattice": anonymize(data, project.definition, project.hierarchies,
                                 config).release()}
    for name, params, source in [
            ("intervals", {"attributes": ["Age", "Length of stay"], "k": 5}, data),
            ("mdav", {"k": 5, "seed": 1}, data),
            ("condensation", {"k": 5, "seed": 1}, data),
            ("kpbms", {"k": 5, "class_attribute": "Charge"}, binned)]:
        made[name] = run_method(name, source, project.definition, params)
    return made


def test_every_method_that_takes_the_table_gets_classifier_performance(example, releases):
    *_, task = example
    results = {name: evaluate_release(task, release, class_edges=EDGES)
               for name, release in releases.items()}
    # One protocol: the same folds, the same ZeroR and original-data models for all.
    baselines = {round(r.baseline_accuracy, 12) for r in results.values()}
    originals = {round(r.original_accuracy, 12) for r in results.values()}
    assert len(baselines) == 1 and len(originals) == 1
    for name, performance in results.items():
        assert performance.output.proba.shape == (task.n_records, 3), name
        assert np.allclose(performance.output.proba.sum(axis=1), 1.0), name
        # Every method keeps some predictive value on this table (above ZeroR).
        assert performance.accuracy > performance.baseline_accuracy, name
    assert results["lattice"].notes == []
    assert "generated rows" in results["condensation"].notes[0]
    assert "released row" in results["mdav"].notes[0]


def _threshold_table(n: int = 200) -> tuple[pd.DataFrame, DataDefinition]:
    rng = np.random.default_rng(0)
    x = rng.integers(1, 101, n)
    frame = pd.DataFrame({"x": x.astype(str), "noise": rng.choice(["a", "b"], n),
                          "label": np.where(x > 50, "high", "low")})
    definition = DataDefinition.for_columns(frame.columns).with_attribute(
        "x", type=AttributeType.QUASI_IDENTIFYING)
    return frame, definition


def test_each_held_out_record_is_predicted_from_its_own_released_row():
    frame, definition = _threshold_table()
    task = ClassificationTask(frame, definition, {}, ClassificationConfig(
        "label", ("x",), seed=1))
    # Boxes of about 5 neighbouring x values rarely straddle 50: the box predicts the label.
    boxes = run_method("intervals", frame, definition, {"attributes": ["x"], "k": 5})
    assert evaluate_release(task, boxes).accuracy >= 0.9
    # The same release with every cell replaced by * teaches nothing: ZeroR's level.
    blank = boxes.table.copy()
    blank["x"] = "*"
    hidden = Release(blank, boxes.suppressed, boxes.definition, "blank", {}, boxes.claims,
                     boxes.input_sha256, groups=boxes.groups)
    performance = evaluate_release(task, hidden)
    assert performance.accuracy == pytest.approx(performance.baseline_accuracy, abs=0.05)


def test_a_release_without_records_says_why():
    frame, definition = _threshold_table(20)

    class Document(Release):
        def input_rows(self):
            return None

    document = Document(frame, np.zeros(20, bool), definition, "disassociation", {}, (),
                        table_sha256(frame))
    reason = evaluation_unavailable(document)
    assert reason and "ARE/MRE" in reason
    task = ClassificationTask(frame, definition, {}, ClassificationConfig("label", ("x",)))
    with pytest.raises(ConfigurationError, match="ARE/MRE"):
        evaluate_release(task, document)


def test_recode_reads_own_records_off_the_release_and_new_ones_through_hierarchies(
        example, releases):
    project, data, _, _ = example
    mdav = releases["mdav"]  # rows shuffled: recode puts them back in input order
    recoded = mdav.recode(data)
    rows = mdav.input_rows()
    for i in (0, 17, 2_999):
        position = int(np.flatnonzero(rows == i)[0])
        assert recoded.iloc[i].tolist() == mdav.table.iloc[position].tolist()
    lattice = releases["lattice"]
    fresh = project.data.iloc[3_000:3_050].reset_index(drop=True)
    config = AnonymizationConfig([KAnonymity(1)], Loss(), 0.0)
    expected = apply(fresh, project.definition, project.hierarchies, config,
                     lattice.levels).table
    for name in lattice.transformation:
        assert recoded_column(lattice, fresh, name) == expected[name].tolist()
    with pytest.raises(ConfigurationError, match="generated rows"):
        releases["condensation"].recode(data)
    with pytest.raises(ConfigurationError, match="only the records it was made from"):
        releases["intervals"].recode(fresh)


def recoded_column(release, frame, name):
    return release.recode(frame)[name].tolist()


def test_cli_evaluate_takes_any_method(tmp_path, example):
    _, data, _, _ = example
    path = tmp_path / "in.csv"
    data.to_csv(path, index=False)
    report = tmp_path / "e.json"
    status = main(["evaluate", "--data", str(path), "--identifying", "Hospital ID",
                   "--method", "mdav", "--method-param", "k=5", "--method-param", "seed=2",
                   "--class-attribute", "Charge", "--class-bins", "10000,50000",
                   "--report", str(report)])
    assert status == 0
    written = json.loads(report.read_text())
    assert written["method"] == "mdav" and written["anonymous"] is True
    assert written["verification"]["headline"].startswith("Anonymous")
    assert 0 < written["accuracy"] <= 1
    bad = main(["evaluate", "--data", str(path), "--method", "mdav", "--method-param",
                "colour=blue", "--class-attribute", "Charge", "--class-bins", "10000",
                "--report", str(tmp_path / "x.json")])
    assert bad == 2 and not (tmp_path / "x.json").exists()


def test_relative_accuracy_carries_a_caveat_when_the_original_is_no_better_than_zero_r():
    """A target the features cannot predict: relative accuracy divides by noise, and the
    report, Compare and the panel say so instead of showing it bare."""
    import numpy as np

    from arxpy.analysis.compare import compare_releases

    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"x": rng.integers(0, 3, 300).astype(str),  # tells nothing
                          "coin": rng.choice(["heads", "tails"], 300, p=[0.8, 0.2])})
    definition = DataDefinition.for_columns(frame.columns).with_attribute(
        "x", type=AttributeType.QUASI_IDENTIFYING)
    task = ClassificationTask(frame, definition, {}, ClassificationConfig("coin", ("x",)))
    boxes = run_method("intervals", frame, definition, {"attributes": ["x"], "k": 5})
    performance = evaluate_release(task, boxes)
    assert performance.original_accuracy - performance.baseline_accuracy <= 0.01
    assert "no better than ZeroR" in performance.relative_accuracy_caveat
    assert performance.to_dict()["relative_accuracy_caveat"] == \
        performance.relative_accuracy_caveat
    cell = compare_releases({"b": boxes, "c": boxes}, frame, task).loc["relative accuracy", "b"]
    assert str(cell).startswith("not meaningful: ")
    predictable, _ = _threshold_table()
    definition = DataDefinition.for_columns(predictable.columns).with_attribute(
        "x", type=AttributeType.QUASI_IDENTIFYING)
    task = ClassificationTask(predictable, definition, {},
                              ClassificationConfig("label", ("x",)))
    boxes = run_method("intervals", predictable, definition, {"attributes": ["x"], "k": 5})
    assert evaluate_release(task, boxes).relative_accuracy_caveat is None


def test_a_release_without_the_target_says_why_instead_of_a_figure(example):
    """kPB-MS publishing another class attribute gives its recipient no labels for the
    target: no accuracy is printed, the reason is (Compare's cell says the same)."""
    from arxpy.analysis.compare import evaluation

    project, data, _, task = example
    other = run_method("kpbms", data, project.definition,
                       {"k": 5, "class_attribute": "Ethnicity"})
    assert "Charge" not in other.table.columns
    with pytest.raises(ConfigurationError, match="does not publish 'Charge'"):
        evaluate_release(task, other, class_edges=EDGES)
    assert evaluation(task, other, EDGES).startswith(
        "not applicable: The release does not publish 'Charge'")
