"""The kPB-MS evaluation protocol (spec 003 §4, §5.12): identical test folds for full and
anonymized data, training on the surviving fold records, the leak-free nested mode,
the paired t-test verdicts and reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

from arxpy.analysis import kpbms_evaluation as ev
from arxpy.analysis.kpbms_evaluation import Anonymized, evaluate_kpbms, paired_verdict
from tests.test_kpbms_method import synthetic


def _keep_even(table, k):
    """A stand-in anonymizer: two features, every other row kept (k > 1)."""
    kept = np.ones(len(table), bool) if k == 1 else (np.arange(len(table)) % 2 == 0)
    return Anonymized(("a0", "a1"), kept, float(1 - kept.mean()))


def test_same_test_folds_and_training_on_kept_rows(monkeypatch):
    calls = []

    def record(name, train, y_train, test, y_test, n_classes, seed, trees):
        calls.append((list(train.columns), set(train.index), set(test.index)))
        return 0.5

    monkeypatch.setattr(ev, "accuracy", record)
    frame = synthetic(n=120, d=4)
    result = evaluate_kpbms(frame, "class", _keep_even, ks=(1, 3), classifiers=("c45",),
                            folds=4, discretization="none")
    assert len(calls) == 4 * 3  # per fold: full, k = 1, k = 3
    for fold in range(4):
        full, k1, k3 = calls[3 * fold:3 * fold + 3]
        test = set(np.flatnonzero(result.test_folds == fold))
        assert full[2] == k1[2] == k3[2] == test  # removed records stay in the test fold
        assert full[0] == ["a0", "a1", "a2", "a3"] and k3[0] == ["a0", "a1"]
        assert k1[1] == full[1]
        assert k3[1] == {i for i in full[1] if i % 2 == 0}


def test_nested_protocol_never_shows_test_rows_to_the_anonymizer():
    frame = synthetic(n=150, d=4)
    seen = []

    def anonymize(table, k):
        seen.append(len(table))
        return _keep_even(table, k)

    result = evaluate_kpbms(frame, "class", anonymize, ks=(3,), classifiers=("c45",),
                            folds=5, protocol="nested", discretization="mdl")
    assert seen == [int((result.test_folds != f).sum()) for f in range(5)]


def test_infeasible_k_counts_as_worse_and_run_is_reproducible():
    frame = synthetic(n=200, d=4)

    def anonymize(table, k):
        return None if k >= 10 else _keep_even(table, k)

    first = evaluate_kpbms(frame, "class", anonymize, ks=(1, 3, 10),
                           classifiers=("knn", "c45"), folds=4, discretization="none")
    second = evaluate_kpbms(frame, "class", anonymize, ks=(1, 3, 10),
                            classifiers=("knn", "c45"), folds=4, discretization="none")
    assert first.to_dict() == second.to_dict()
    verdicts = {(c.k, c.classifier): c.verdict for c in first.cases}
    assert verdicts[(10, "knn")] == verdicts[(10, "c45")] == "infeasible"
    not_worse = sum(verdicts[(3, c)] in ("better", "similar") for c in ("knn", "c45"))
    assert first.share_not_worse == pytest.approx(not_worse / 4)
    assert "infeasible" in first.table().loc[10].tolist()


def test_paired_verdicts():
    full = [0.9, 0.91, 0.92, 0.93, 0.9]
    assert paired_verdict(full, full, 0.05) == (1.0, "similar")
    assert paired_verdict([a - 0.1 for a in full], full, 0.05)[1] == "worse"
    assert paired_verdict([0.95, 0.96, 0.97, 0.99, 0.96], full, 0.05)[1] == "better"
    p, verdict = paired_verdict([0.91, 0.89, 0.93, 0.92, 0.91], full, 0.05)
    assert verdict == "similar" and p > 0.05


def test_ibk_votes_over_every_tied_neighbour():
    train = np.array([[0], [0], [0], [1]])
    labels = np.array([1, 0, 0, 1])
    # Three records at distance 0: two of class 0 win, whatever the training order.
    assert ev._ibk_predict(train, labels, np.array([[0]]), 2).tolist() == [0]


def test_nested_equal_frequency_bins_are_fitted_on_the_training_rows_only():
    """Equal-frequency cuts inside each fold come from the training rows: the table the
    anonymizer sees has B bins of (nearly) equal size over *its* rows."""
    rng = np.random.default_rng(3)
    frame = synthetic(n=200, d=2, classes=2)
    frame["dose"] = [f"{v:.3f}" for v in rng.normal(size=200)]
    counts = []

    def anonymize(table, k):
        counts.append(sorted(table["dose"].value_counts().tolist()))
        return _keep_even(table, k)

    result = evaluate_kpbms(frame, "class", anonymize, ks=(3,), classifiers=("c45",),
                            folds=4, protocol="nested", discretization="eqfreq", bins=4)
    for fold, sizes in enumerate(counts):
        train = int((result.test_folds != fold).sum())
        assert len(sizes) == 4 and sum(sizes) == train
        assert max(sizes) - min(sizes) <= 1  # distinct readings: no ties to merge bins
