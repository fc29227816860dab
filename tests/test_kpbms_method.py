"""kPB-MS as a method (spec 003 §5.4, 5.6-5.11): golden runs, the privacy property checked
by the independent audit (tests/audit.py) and a groupby, the per-pattern rule with an
independently recomputed Fisher test, the loss limit, determinism and errors."""

from __future__ import annotations

import audit as anonymity
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import fisher_exact

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.errors import ArxpyError, ConfigurationError
from arxpy.methods import method_classes, run_method
from arxpy.methods.kpbms import LossLimitError
from tests.test_kpbms_statistics import _brute_fisher, table1


def run(frame, **params):
    params = {"class_attribute": "class", "discretize": "none", **params}
    return run_method("kpbms", frame, DataDefinition.for_columns(frame.columns), params)


def released(release):
    return release.export_table()


def test_registered_with_declared_params():
    names = [p.name for p in method_classes()["kpbms"].params]
    for name in ("class_attribute", "qis", "discretize", "k", "max_loss", "alpha",
                 "cv_folds", "seed"):
        assert name in names


@pytest.mark.parametrize("cv_folds", [0, 10])
def test_pb_fss_ranks_table1_f3_then_f1(cv_folds):
    release = run(table1(), k=1, cv_folds=cv_folds)
    assert release.selection.ranking == ["f3", "f1"]
    assert release.selected_features == ("f3", "f1")
    assert release.loss == 0 and not release.suppressed.any()  # k = 1: selection only


def test_worked_kpbms_run_on_table1():
    release = run(table1(), k=15, max_loss=0.5)
    assert [it.loss for it in release.iterations] == pytest.approx([0.80, 0.40])
    assert release.selected_features == ("f3",)
    assert (~release.suppressed).sum() == 60
    out = released(release)
    assert list(out.columns) == ["f3", "class"]
    assert anonymity.k_anonymity(out, ["f3", "class"]) >= 15
    by_pattern = release.patterns.set_index("f3")
    assert by_pattern.loc["1", "action"] == "kept"
    assert by_pattern.loc["2", "action"] == "removed"
    # Table 2: (10, 20) -> (0, 20), p = 0.003433 < 0.05: the whole pattern goes.
    assert by_pattern.loc["3", "p"] == pytest.approx(0.003433, abs=5e-7)
    assert by_pattern.loc["3", "action"] == "removed"
    assert not (release.table["f3"] == "3").any()
    assert release.drop_reason[(table1()["f3"] == "3").to_numpy()].tolist() == ["pattern"] * 30


def test_table2_pattern_is_removed_whole_not_trimmed():
    frame = pd.DataFrame({"f": ["a"] * 30 + ["b"] * 40,
                          "class": ["0"] * 10 + ["1"] * 20 + ["0"] * 40})
    release = run(frame, k=15, max_loss=0.5, cv_folds=0)
    a = release.patterns.set_index("f").loc["a"]
    assert (a["before:0"], a["before:1"], a["after:0"], a["after:1"]) == (10, 20, 0, 20)
    assert a["action"] == "removed"
    assert release.suppressed[:30].all() and not release.suppressed[30:].any()


def test_a_non_significant_change_trims_only_the_violators():
    frame = pd.DataFrame({"f": ["a"] * 102 + ["b"] * 100,
                          "class": ["0"] * 2 + ["1"] * 100 + ["0"] * 60 + ["1"] * 40})
    release = run(frame, k=5, max_loss=0.5, cv_folds=0)
    a = release.patterns.set_index("f").loc["a"]
    assert a["action"] == "trimmed" and a["p"] >= 0.05
    assert release.suppressed[:2].all() and not release.suppressed[2:].any()


def test_loss_limit_never_met_raises_with_the_trace():
    with pytest.raises(LossLimitError, match="no feature prefix reaches loss <= 0.1") as info:
        run(table1(), k=15, max_loss=0.1)
    assert [it.loss for it in info.value.iterations] == pytest.approx([0.80, 0.40])
    assert isinstance(info.value, ArxpyError)


def test_missing_and_constant_class_attribute_are_clear_errors():
    frame = table1()
    with pytest.raises(ConfigurationError, match="no class attribute 'diagnosis'"):
        run(frame, class_attribute="diagnosis")
    frame["one"] = "x"
    with pytest.raises(ConfigurationError, match="'one' has a single value"):
        run(frame, class_attribute="one")


def test_an_identifying_class_or_no_informative_feature_is_refused():
    frame = table1()
    definition = DataDefinition([AttributeDefinition("class", AttributeType.IDENTIFYING)] +
                                [AttributeDefinition(c) for c in ("f1", "f2", "f3")])
    with pytest.raises(ConfigurationError, match="identifying"):
        run_method("kpbms", frame[["class", "f1", "f2", "f3"]], definition,
                   {"class_attribute": "class"})
    noise = pd.DataFrame({"f": ["a", "b"] * 50, "class": ["0"] * 50 + ["1"] * 50})
    with pytest.raises(ConfigurationError, match="better than its majority class"):
        run(noise, cv_folds=0)


def test_xor_is_the_documented_miss_of_forward_selection():
    # y = f1 XOR f2 with every combination (and a noise feature) balanced: no single
    # feature beats the majority class, so forward selection stops before the pair.
    grid = [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)] * 25
    frame = pd.DataFrame(grid, columns=["f1", "f2", "n1"])
    frame["class"] = frame["f1"] ^ frame["f2"]
    frame = frame.astype(str)
    with pytest.raises(ConfigurationError, match="better than its majority class"):
        run(frame, k=1, cv_folds=0)


def test_mdl_discretization_reports_cut_points_and_publishes_categories():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, 300)
    frame = pd.DataFrame({"x": np.round(x, 2).astype(str), "class": (x > 5).astype(int)})
    frame["class"] = frame["class"].astype(str)
    release = run(frame, discretize="mdl", k=5)
    assert len(release.cut_points["x"]) == 1
    assert 4.5 < release.cut_points["x"][0] < 5.5
    assert set(released(release)["x"]) == {f"<={release.cut_points['x'][0]:g}",
                                           f">{release.cut_points['x'][0]:g}"}


def test_release_states_class_in_quasi_identifier_and_homogeneous_groups():
    release = run(table1(), k=15, max_loss=0.5)
    claim = release.claims[0]
    assert claim.kind == "k-anonymity" and claim.attributes == ("f3", "class")
    assert "class attribute 'class' is part of the quasi-identifier" in claim.description
    frame = pd.DataFrame({"f": ["a"] * 30 + ["b"] * 40,
                          "class": ["0"] * 30 + ["0"] * 15 + ["1"] * 25})
    homogeneous = run(frame, k=5, cv_folds=0)
    assert homogeneous.homogeneous_groups == 1
    assert "attribute disclosure" in homogeneous.warnings[0]
    assert homogeneous.to_dict()["homogeneous_groups"] == 1


def synthetic(n=600, d=8, seed=0, classes=3):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, (n, d))
    y = (x[:, 0] + (x[:, 1] > 1) + rng.integers(0, 2, n)) % classes
    frame = pd.DataFrame(x, columns=[f"a{i}" for i in range(d)]).astype(str)
    frame["class"] = y.astype(str)
    return frame


def _check_release(frame, release, k, max_loss, alpha=0.05):
    """Independent checks: k-anonymity (tests/audit.py and groupby), loss, per-pattern rule."""
    out = released(release)
    columns = list(release.selected_features) + ["class"]
    assert list(out.columns) == columns
    if len(out):
        assert anonymity.k_anonymity(out, columns) >= k
        assert out.groupby(columns).size().min() >= k
    assert release.loss == pytest.approx(1 - len(out) / len(frame))
    assert release.loss <= max_loss
    features = list(release.selected_features)
    before = frame.groupby(features + ["class"]).size().unstack(fill_value=0)
    after = out.groupby(features + ["class"]).size().unstack(fill_value=0)
    after = after.reindex(index=before.index, columns=before.columns, fill_value=0)
    for pattern, counts in before.iterrows():
        init = counts.to_numpy()
        kept = after.loc[pattern].to_numpy()
        violated = ((init > 0) & (init < k)).any()
        if not violated:
            assert (kept == init).all()
            continue
        anon = np.where(init >= k, init, 0)
        table = np.vstack([init, anon])[:, init > 0]
        p = 1.0 if not anon.any() else (fisher_exact(table)[1] if table.shape[1] == 2
                                         else _brute_fisher(table))
        if p < alpha:
            assert not kept.any()
        else:
            assert (kept == anon).all()


@pytest.mark.parametrize("k", [2, 5, 10])
def test_outputs_are_k_anonymous_and_follow_the_pattern_rule(k):
    frame = synthetic(n=300, d=5, classes=2)
    try:
        release = run(frame, k=k, max_loss=0.3)
    except LossLimitError:
        pytest.skip("no feasible prefix")
    _check_release(frame, release, k, 0.3)


def test_deterministic():
    frame = synthetic()
    first, second = run(frame, k=5, max_loss=0.2), run(frame, k=5, max_loss=0.2)
    assert first.selected_features == second.selected_features
    assert first.output_sha256 == second.output_sha256
    assert first.patterns.equals(second.patterns)


def test_number_of_features_non_increasing_in_k():
    frame = synthetic(n=800, d=6)
    counts = []
    for k in (1, 3, 5, 10, 20):
        try:
            counts.append(len(run(frame, k=k, max_loss=0.15).selected_features))
        except LossLimitError:
            counts.append(0)
    assert counts == sorted(counts, reverse=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6), n=st.integers(20, 120),
       max_loss=st.sampled_from([0.05, 0.2, 0.5, 1.0]))
def test_random_tables_property(seed, k, n, max_loss):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.integers(0, 3, (n, 3)), columns=["a", "b", "c"]).astype(str)
    frame["class"] = np.where(rng.random(n) < 0.7, frame["a"], rng.integers(0, 3, n).astype(str))
    if frame["class"].nunique() < 2:
        return
    try:
        release = run(frame, k=k, max_loss=max_loss, cv_folds=0)
    except LossLimitError as error:
        assert all(it.loss > max_loss for it in error.iterations)
        assert len(error.iterations[-1].features) == 1
        return
    except ConfigurationError as error:
        assert "majority class" in str(error)
        return
    assert release.selected_features  # never the empty feature set
    _check_release(frame, release, k, max_loss)


def test_progress_and_cancel():
    from arxpy.errors import CancelledError
    from arxpy.jobs import CancelToken

    frame = synthetic()
    seen = []
    run_method("kpbms", frame, DataDefinition.for_columns(frame.columns),
               {"class_attribute": "class", "discretize": "none"},
               progress=lambda fraction, message: seen.append(fraction))
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        run_method("kpbms", frame, DataDefinition.for_columns(frame.columns),
                   {"class_attribute": "class", "discretize": "none"}, cancel=token)


def test_release_flows_into_compare_risk_and_utility():
    from arxpy.analysis.compare import compare_releases
    from arxpy.analysis.statistics import release_statistics
    from arxpy.risk.summary import analyze_release

    frame = synthetic()
    five, three = run(frame, k=5, max_loss=0.3), run(frame, k=3, max_loss=0.3)
    table = compare_releases({"k5": five, "k3": three})
    assert table.loc["smallest class", "k5"] >= 5
    assert table.loc["anonymous", "k5"] is True
    assert table.loc["verdict", "k5"] == five.verify().headline
    assert analyze_release(five) is not None
    assert release_statistics(frame, five) is not None


def test_continuous_attributes_can_be_named():
    rng = np.random.default_rng(2)
    score = rng.integers(1, 11, 300)
    frame = pd.DataFrame({"score": score.astype(str), "colour": rng.choice(["r", "b"], 300),
                          "class": np.where(score > 5, "high", "low")})
    default = run(frame, discretize="mdl", k=5)
    assert default.cut_points == {}  # an ordinal 1-10 score is categorical by default
    named = run(frame, discretize="mdl", continuous=["score"], k=5)
    assert named.cut_points == {"score": [5.5]}
    with pytest.raises(ConfigurationError, match="'colour' has values that are not numbers"):
        run(frame, discretize="mdl", continuous=["colour"])


def _wide(n=10_000, d=100, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, (n, d))
    score = x[:, 0] - 1.5 + 0.8 * (x[:, 1] == 2) - 0.5 * x[:, 2] + rng.normal(0, 1, n)
    frame = pd.DataFrame(x, columns=[f"a{i}" for i in range(d)]).astype(str)
    frame["class"] = np.where(score > 0, "yes", "no")
    return frame


@pytest.mark.perf
def test_kpbms_on_10000_by_100_within_10_s():
    import time

    frame = _wide()
    started = time.perf_counter()
    release = run(frame, discretize="mdl", k=5, max_loss=0.1)
    assert time.perf_counter() - started < 10
    assert release.selected_features


@pytest.mark.perf
def test_kpbms_cancels_within_200_ms():
    import threading
    import time

    from arxpy.errors import CancelledError
    from arxpy.jobs import CancelToken

    # 40,000 records: about 2 s of work (10,000 took 0.5 s, so a cancel after 0.5 s raced
    # the run's end).
    frame, token, outcome = _wide(n=40_000), CancelToken(), {}
    run(frame.head(300), max_loss=1.0)  # imports happen once, before any job
    started = threading.Event()

    def work():
        try:
            run_method("kpbms", frame, DataDefinition.for_columns(frame.columns),
                       {"class_attribute": "class"}, cancel=token,
                       progress=lambda _fraction, _message: started.set())
            outcome["finished"] = time.perf_counter()
        except CancelledError:
            outcome["stopped"] = time.perf_counter()

    thread = threading.Thread(target=work)
    thread.start()
    assert started.wait(30)
    time.sleep(0.3)  # well into the work, wherever that is
    cancelled = time.perf_counter()
    token.cancel()
    thread.join(30)
    assert "finished" not in outcome, "the run ended before it could be cancelled"
    assert outcome["stopped"] - cancelled < 0.2


def test_a_selected_feature_with_many_categories_is_flagged():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"visit": [f"v{i // 2}" for i in range(200)],
                          "class": rng.choice(["a", "b"], 200)})
    release = run(frame, k=1, cv_folds=0)  # resubstitution PBCA rewards the 100 visits
    assert release.selected_features == ("visit",)
    assert any("'visit' has 100 categories for 200 records" in w for w in release.warnings)
    assert not any("categories" in w for w in run(table1(), k=1).warnings)


def _independent_fisher(init: np.ndarray, k: int) -> float:
    """p of [init; init with classes below k zeroed], recomputed here (all-zero: 1)."""
    anon = np.where(init >= k, init, 0)
    if not anon.any():
        return 1.0
    table = np.vstack([init, anon])[:, init > 0]
    return fisher_exact(table)[1] if table.shape[1] == 2 else _brute_fisher(table)


@pytest.mark.parametrize("seed", range(12))
def test_rows_dropped_at_k_include_those_dropped_at_smaller_k(seed):
    """Spec 003 §5.10, second point: at a fixed feature set the rows dropped at k are a
    superset of those dropped at k' < k, except where the Fisher rule removed a whole
    pattern at k' that it only trims at k. Any exception is checked independently."""
    from arxpy.methods.kpbms import anonymize_prefix
    from arxpy.quality.pbca import encode_table

    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 250))
    frame = pd.DataFrame(rng.integers(0, 3, (n, 2)), columns=["a", "b"]).astype(str)
    frame["class"] = np.where(rng.random(n) < 0.5, frame["a"],
                              rng.integers(0, int(rng.integers(2, 5)), n).astype(str))
    codes, labels, classes = encode_table(frame, ["a", "b"], "class")
    dropped = {k: anonymize_prefix(codes, labels, len(classes), [0, 1], k, 0.05, {}).dropped
               for k in range(1, 10)}
    counts = frame.groupby(["a", "b", "class"]).size().unstack(fill_value=0)
    pattern = list(zip(frame["a"], frame["b"], strict=True))
    for small in range(1, 10):
        # Independently: a record in a (pattern, class) group below k always goes.
        below = frame.groupby(["a", "b", "class"])["class"].transform("size") < small
        assert dropped[small][below.to_numpy()].all()
        for large in range(small + 1, 10):
            for row in np.flatnonzero(dropped[small] & ~dropped[large]):
                init = counts.loc[pattern[row]].to_numpy()
                assert _independent_fisher(init, small) < 0.05 <= _independent_fisher(
                    init, large), f"row {row} dropped at k={small} but kept at k={large}"
