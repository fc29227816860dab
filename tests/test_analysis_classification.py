"""Interwoven k-fold cross-validation (paper 004, section V-B) and its metrics."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    brier_score_loss,
    precision_recall_fscore_support,
    roc_curve,
)
from sklearn.preprocessing import OneHotEncoder

import arxpy.analysis.classification as classification
from arxpy.analysis.classification import (
    ClassificationConfig,
    ClassificationTask,
    CrossValidation,
    bin_values,
    evaluate_classification,
    make_folds,
)
from arxpy.analysis.classifiers import ClassifierSpec
from arxpy.analysis.metrics import Predictions, relative_accuracy
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.errors import CancelledError, ConfigurationError, DefinitionError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken

QI, INSENSITIVE = AttributeType.QUASI_IDENTIFYING, AttributeType.INSENSITIVE


def age_table(n: int = 240, seed: int = 1) -> tuple[pd.DataFrame, DataDefinition, dict]:
    """Ages 1-8 and sex; the class is 'low' for ages 1-4 and 'high' for 5-8 (70 % high)."""
    rng = np.random.default_rng(seed)
    ages = np.where(rng.random(n) < 0.7, rng.integers(5, 9, n), rng.integers(1, 5, n))
    frame = pd.DataFrame({
        "age": ages.astype(str),
        "sex": rng.choice(["F", "M"], n),
        "class": np.where(ages <= 4, "low", "high"),
    })
    definition = DataDefinition([AttributeDefinition("age", QI), AttributeDefinition("sex", QI),
                                 AttributeDefinition("class", INSENSITIVE)])
    hierarchies = {
        "age": Hierarchy((str(a), "1-4" if a <= 4 else "5-8", "*") for a in range(1, 9)),
        "sex": Hierarchy([("F", "*"), ("M", "*")]),
    }
    return frame, definition, hierarchies


def test_folds_are_seeded_and_balanced():
    folds = make_folds(100, 3, seed=7)
    assert np.array_equal(folds, make_folds(100, 3, seed=7))
    assert not np.array_equal(folds, make_folds(100, 3, seed=8))
    assert sorted(np.bincount(folds)) == [33, 33, 34]
    with pytest.raises(ConfigurationError, match="at least 3 records"):
        make_folds(2, 3, 0)


def test_same_folds_for_every_model_and_transformation(monkeypatch):
    """Baseline, original and output models see identical held-out folds; the output model
    trains on the same training folds minus the suppressed records."""
    frame, definition, hierarchies = age_table()
    calls = []
    real_train, real_zero_r = classification._train_and_predict, classification._zero_r

    def spy_train(spec, codes, labels, train, test, n_classes, cancel=None):
        calls.append(("model", train.copy(), test.copy()))
        return real_train(spec, codes, labels, train, test, n_classes, cancel)

    def spy_zero_r(labels, train, n_test, n_classes):
        calls.append(("zero_r", train.copy(), None))
        return real_zero_r(labels, train, n_test, n_classes)

    monkeypatch.setattr(classification, "_train_and_predict", spy_train)
    monkeypatch.setattr(classification, "_zero_r", spy_zero_r)
    config = ClassificationConfig("class", folds=3, seed=5)
    suppressed = np.zeros(len(frame), bool)
    suppressed[:10] = True
    validation = CrossValidation(ClassificationTask(frame, definition, hierarchies, config))
    first = validation.evaluate({"age": 1}, suppressed)
    second = validation.evaluate({"age": 2, "sex": 1})
    folds = make_folds(len(frame), 3, 5)
    assert np.array_equal(first.folds, folds) and np.array_equal(second.folds, folds)
    zero_r = [c for c in calls if c[0] == "zero_r"]
    models = [c for c in calls if c[0] == "model"]
    assert len(zero_r) == 3 and len(models) == 9  # original once, then output per evaluation
    for i in range(3):
        expected_test, expected_train = np.flatnonzero(folds == i), np.flatnonzero(folds != i)
        assert np.array_equal(zero_r[i][1], expected_train)
        original, out_first, out_second = models[i], models[3 + i], models[6 + i]
        assert np.array_equal(original[1], expected_train)
        for call in (original, out_first, out_second):
            assert np.array_equal(call[2], expected_test)
        assert np.array_equal(out_first[1], expected_train[~suppressed[expected_train]])
        assert np.array_equal(out_second[1], expected_train)


def test_held_out_features_are_generalized_before_prediction():
    """Trained on '1-4'/'5-8', the model can only be right on raw held-out ages when these
    are generalized too (a raw age is an unseen category and would be ignored)."""
    frame, definition, hierarchies = age_table()
    config = ClassificationConfig("class", features=("age",))
    task = ClassificationTask(frame, definition, hierarchies, config)
    labels = task.feature_labels({"age": 1})["age"]
    assert list(labels) == [hierarchies["age"].mapping(1)[a] for a in frame["age"]]
    result = evaluate_classification(frame, definition, hierarchies, config, {"age": 1})
    assert result.accuracy == 1.0
    assert result.original_accuracy == 1.0


def test_top_generalization_falls_back_to_the_majority():
    frame, definition, hierarchies = age_table()
    config = ClassificationConfig("class", features=("age",), seed=3)
    result = evaluate_classification(frame, definition, hierarchies, config, {"age": 2})
    assert result.accuracy == result.baseline_accuracy
    assert result.relative_accuracy == 0.0
    assert (result.output.predicted == result.baseline.predicted).all()


@pytest.mark.parametrize("kind", ["logistic", "tree", "forest", "bayes"])
def test_no_generalization_gives_the_original_accuracy(kind):
    frame, definition, hierarchies = age_table()
    frame["class"] = np.where(np.random.default_rng(2).random(len(frame)) < 0.2, "low",
                              frame["class"])  # noise, so accuracy is below 1
    params = {"n_estimators": 10} if kind == "forest" else {}
    config = ClassificationConfig("class", classifier=ClassifierSpec(kind, params))
    result = evaluate_classification(frame, definition, hierarchies, config, [0, 0])
    assert result.accuracy == result.original_accuracy
    assert result.relative_accuracy == 1.0
    assert result.original_accuracy > result.baseline_accuracy
    assert np.allclose(result.output.proba, result.original.proba)


def test_metrics_match_scikit_learn_on_a_fixed_case():
    labels = np.array([0, 1, 2, 1, 0, 2, 2, 1])
    proba = np.array([[.7, .2, .1], [.1, .6, .3], [.2, .2, .6], [.5, .4, .1],
                      [.3, .3, .4], [.1, .1, .8], [.3, .4, .3], [.2, .5, .3]])
    p = Predictions(labels, proba)
    assert p.accuracy == accuracy_score(labels, proba.argmax(axis=1)) == 5 / 8
    assert math.isclose(p.brier, brier_score_loss(labels, proba, labels=[0, 1, 2],
                                                  scale_by_half=False))
    assert math.isclose(p.average_error, np.mean(1 - proba[np.arange(8), labels]))
    assert relative_accuracy(0.7, 0.5, 0.9) == pytest.approx(0.5)
    assert math.isnan(relative_accuracy(0.7, 0.6, 0.6))


def test_performance_tables_agree_with_scikit_learn():
    frame, definition, hierarchies = age_table(seed=4)
    frame["class"] = np.where(np.random.default_rng(4).random(len(frame)) < 0.25, "low",
                              frame["class"])
    config = ClassificationConfig("class", seed=2)
    result = evaluate_classification(frame, definition, hierarchies, config, {"age": 1})
    output = result.output
    precision, recall, f1, _ = precision_recall_fscore_support(
        output.labels, output.predicted, labels=[0, 1], zero_division=0)
    table = result.per_class().loc["output"]
    assert np.allclose(table["precision"], precision) and np.allclose(table["f1"], f1)
    assert np.allclose(table["recall"], recall)
    # Binary: curves of the positive class, by default the last value in sorted order.
    assert result.curve_classes() == ["low"]
    roc = result.roc_curves()
    mine = roc[(roc["model"] == "output") & (roc["class"] == "low")]
    fpr, tpr, _ = roc_curve(output.labels == 1, output.proba[:, 1])
    assert np.allclose(mine["fpr"], fpr) and np.allclose(mine["tpr"], tpr)
    pr = result.precision_recall_curves()
    assert set(pr["model"]) == {"original", "output"}
    assert ((pr["precision"] >= 0) & (pr["precision"] <= 1)).all()
    report = result.to_dict()
    for key in ("baseline_accuracy", "original_accuracy", "accuracy", "relative_accuracy",
                "brier"):
        assert isinstance(report[key], float)
    summary = result.summary()
    assert list(summary.index) == ["baseline", "original", "output"]
    assert summary.loc["output", "accuracy"] == result.accuracy


def test_logistic_regression_matches_scikit_learn_pipeline():
    """Same folds, one-hot encoder fitted on the training folds (unknowns ignored), plain
    scikit-learn without the distinct-row weighting used internally."""
    frame, definition, hierarchies = age_table(n=300, seed=9)
    frame["class"] = np.where(np.random.default_rng(9).random(len(frame)) < 0.2, "low",
                              frame["class"])
    config = ClassificationConfig("class", seed=4)
    result = evaluate_classification(frame, definition, hierarchies, config)
    folds = make_folds(len(frame), 3, 4)
    x, y = frame[["age", "sex"]].to_numpy(), (frame["class"] == "low").to_numpy().astype(int)
    predicted = np.empty(len(frame), dtype=int)
    for i in range(3):
        train, test = folds != i, folds == i
        encoder = OneHotEncoder(handle_unknown="ignore").fit(x[train])
        model = LogisticRegression(solver="newton-cg", tol=1e-8, max_iter=1000)
        model.fit(encoder.transform(x[train]), y[train])
        predicted[test] = model.predict(encoder.transform(x[test]))
    assert result.original_accuracy == pytest.approx(np.mean(predicted == y))


def test_untrained_folds_count_as_wrong():
    frame, definition, hierarchies = age_table(n=60)
    config = ClassificationConfig("class")
    result = evaluate_classification(frame, definition, hierarchies, config, {"age": 1},
                                     np.ones(len(frame), bool))
    assert result.accuracy == 0.0
    assert result.excluded_from_training == len(frame)


def test_user_errors_name_the_problem():
    frame, definition, hierarchies = age_table(n=30)
    with pytest.raises(ConfigurationError, match="Unknown class attribute 'nope'"):
        evaluate_classification(frame, definition, hierarchies, ClassificationConfig("nope"))
    with pytest.raises(ConfigurationError, match="'class' is the class attribute"):
        evaluate_classification(frame, definition, hierarchies,
                                ClassificationConfig("class", features=("age", "class")))
    with pytest.raises(DefinitionError, match="Unknown attribute 'weight'"):
        evaluate_classification(frame, definition, hierarchies,
                                ClassificationConfig("class", features=("weight",)))
    with pytest.raises(ConfigurationError, match="at least 2 folds"):
        ClassificationConfig("class", folds=1)
    with pytest.raises(ConfigurationError, match="Level 3 of 'age' does not exist"):
        evaluate_classification(frame, definition, hierarchies, ClassificationConfig("class"),
                                {"age": 3})
    with pytest.raises(ConfigurationError, match="has no parameter depth"):
        ClassifierSpec("tree", {"depth": 3})
    numbers = pd.DataFrame({"x": ["a", "b"] * 75, "charge": [str(i) for i in range(150)]})
    with pytest.raises(ConfigurationError, match="150 distinct values.*bin it"):
        evaluate_classification(numbers, DataDefinition.for_columns(numbers.columns), {},
                                ClassificationConfig("charge"))


def test_cancel_stops_the_job():
    frame, definition, hierarchies = age_table()
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        evaluate_classification(frame, definition, hierarchies, ClassificationConfig("class"),
                                cancel=token)


def test_forest_grown_in_steps_equals_forest_grown_at_once():
    from arxpy.analysis.classifiers import fit

    frame, definition, hierarchies = age_table()
    task = ClassificationTask(frame, definition, hierarchies, ClassificationConfig("class"))
    codes, labels = task.feature_codes({}), task.class_codes(0)
    everything = np.arange(len(frame))
    spec = ClassifierSpec("forest", {"n_estimators": 25}, seed=3)
    x = classification._OneHot(codes).transform(codes)
    stepped = fit(spec, x, labels, None, 2, CancelToken()).predict_proba(x)
    at_once = fit(spec, x, labels, None, 2).predict_proba(x)
    assert np.allclose(stepped, at_once)
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        classification._train_and_predict(spec, codes, labels, everything, everything, 2, token)


def test_progress_runs_to_one():
    frame, definition, hierarchies = age_table()
    seen = []
    evaluate_classification(frame, definition, hierarchies, ClassificationConfig("class"),
                            progress=lambda f, m: seen.append(f))
    assert seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)


def test_class_attribute_quasi_identifier_is_generalized_for_all_models():
    frame, definition, hierarchies = age_table()
    config = ClassificationConfig("age", features=("sex",))
    result = evaluate_classification(frame, definition, hierarchies, config, {"age": 1})
    assert result.class_values == ["1-4", "5-8"]
    assert result.baseline_accuracy == pytest.approx((frame["class"] == "high").mean(), abs=0.05)


def test_bin_values():
    values = pd.Series(["9999.99", "10000", "49999", "50000", "NA", " 7 "], name="Charge")
    binned = bin_values(values, [10000, 50000])
    assert list(binned) == ["<10000", "[10000, 50000[", "[10000, 50000[", ">=50000", "NA",
                            "<10000"]
    with pytest.raises(ConfigurationError, match="increasing"):
        bin_values(values, [5, 1])


@pytest.mark.perf
@pytest.mark.slow
def test_one_evaluation_of_the_example_takes_seconds():
    """Issue target: 40,000 records, logistic regression, 3 folds in under 3 s (measured
    1.4-1.7 s on the 2-core development machine; the bound here leaves room for load)."""
    import time

    from arxpy.example import example_project

    project = example_project()
    frame = project.data.assign(Charge=bin_values(project.data["Charge"], [10000, 50000]))
    config = ClassificationConfig("Charge")
    levels = {"Hospital ID": 1, "Age": 4, "ZIP code": 3, "County": 1, "Admission quarter": 2}
    evaluate_classification(frame.iloc[:300], project.definition, project.hierarchies, config)
    started = time.perf_counter()
    result = evaluate_classification(frame, project.definition, project.hierarchies, config,
                                     levels)
    assert time.perf_counter() - started < 6.0
    assert result.baseline_accuracy < result.accuracy < result.original_accuracy
