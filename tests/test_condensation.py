"""Condensation methods (Gal et al. 2014; spec 000-condensation.md §4 properties).

Group sizes are recounted here with a plain Counter, independently of the methods'
own bincounts; moments are recomputed with numpy from the encoded input.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.errors import CancelledError, ConfigurationError
from arxpy.jobs import CancelToken
from arxpy.methods import MDAV, TFRP, Condensation, ImprovedCondensation, run_method
from arxpy.methods.condensation import reassign_by_rank
from arxpy.methods.condensation.clustering import fill_small_clusters
from arxpy.methods.condensation.devdata import cancer_registry
from arxpy.methods.condensation.generator import synthesize

N, K = 1500, 50


@pytest.fixture(scope="module")
def registry() -> pd.DataFrame:
    return cancer_registry(N, seed=3)


def definition(frame: pd.DataFrame) -> DataDefinition:
    return DataDefinition.for_columns(frame.columns)


def improved(**kw) -> ImprovedCondensation:
    params = dict(k=K, time="SurvInterval", status="VitalStat", seed=7)
    params.update(kw)
    return ImprovedCondensation(**params)


ALL_METHODS = [
    pytest.param(lambda: improved(), id="improved"),
    pytest.param(lambda: Condensation(k=K, seed=7), id="condensation"),
    pytest.param(lambda: TFRP(k=K, seed=7), id="tfrp"),
    pytest.param(lambda: MDAV(k=K, seed=7), id="mdav"),
]


def brute_force_sizes(groups) -> list[int]:
    counts: Counter = Counter()
    for g in groups:
        if int(g) >= 0:
            counts[int(g)] += 1
    return sorted(counts.values())


def clusters(release):
    groups = release.input_groups
    return [np.flatnonzero(groups == g) for g in sorted(set(groups.tolist())) if g >= 0]


# --- §4.1, 4.2, 4.13: group size, group count, shape -------------------------------------

@pytest.mark.parametrize("make", ALL_METHODS)
def test_every_group_has_at_least_k_records(registry, make):
    release = make().run(registry, definition(registry))
    sizes = brute_force_sizes(release.groups)
    assert sizes and sizes[0] >= K
    assert sum(sizes) == N
    assert brute_force_sizes(release.input_groups) == sizes
    assert list(release.table.columns) == list(registry.columns)
    assert len(release.table) == N


def test_group_counts_follow_the_paper(registry):
    n0 = int((registry["VitalStat"] == "0").sum())
    n1 = N - n0
    assert len(brute_force_sizes(improved().run(registry, definition(registry)).groups)) == \
        n0 // K + n1 // K
    cond = Condensation(k=K, seed=1).run(registry, definition(registry))
    assert len(brute_force_sizes(cond.groups)) == N // K


def test_identifying_attributes_are_removed(registry):
    frame = registry.assign(Name=[f"p{i}" for i in range(N)])
    d = definition(frame).with_attribute("Name", type=AttributeType.IDENTIFYING)
    release = improved().run(frame, d)
    assert "Name" not in release.table.columns


# --- §4.3, 4.4, 4.6: per-cluster and global moments, linear identities ----------------

def _cov(block):
    return np.cov(block, rowvar=False) if len(block) > 1 else np.zeros((block.shape[1],) * 2)


@pytest.mark.parametrize("make", [pytest.param(lambda: improved(), id="improved"),
                                  pytest.param(lambda: Condensation(k=K, seed=2), id="cond")])
def test_raw_clusters_keep_mean_and_covariance(registry, make):
    method = make()
    release = method.run(registry, definition(registry))
    original, raw = release.encoded.matrix, release.raw
    time_column = release.encoded.block("SurvInterval").start
    columns = np.arange(original.shape[1])
    if isinstance(method, ImprovedCondensation):  # time is checked as a multiset
        columns = columns[columns != time_column]
    scale = np.abs(original).max()
    for rows in clusters(release):
        a, b = original[np.ix_(rows, columns)], raw[np.ix_(rows, columns)]
        np.testing.assert_allclose(b.mean(axis=0), a.mean(axis=0), rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(_cov(b), _cov(a), rtol=1e-8, atol=1e-9 * scale ** 2)


def test_condensation_keeps_global_moments_and_ols_fits(registry):
    release = Condensation(k=K, seed=4).run(registry, definition(registry))
    a, b = release.encoded.matrix, release.raw
    np.testing.assert_allclose(b.mean(axis=0), a.mean(axis=0), atol=1e-9 * np.abs(a).max())
    np.testing.assert_allclose(np.cov(b, rowvar=False), np.cov(a, rowvar=False),
                               rtol=1e-8, atol=1e-8)
    # §4.5: OLS of a column on the others (with intercept) gives the same coefficients.
    y = release.encoded.block("DiagAge").start
    others = [c for c in range(a.shape[1]) if c != y]

    def coefficients(m):
        design = np.column_stack([np.ones(len(m)), m[:, others]])
        return np.linalg.lstsq(design, m[:, y], rcond=None)[0]

    fitted_a = np.column_stack([np.ones(N), a[:, others]]) @ coefficients(a)
    fitted_b = np.column_stack([np.ones(N), a[:, others]]) @ coefficients(b)
    np.testing.assert_allclose(fitted_b, fitted_a, rtol=1e-8, atol=1e-8 * np.abs(fitted_a).max())


@pytest.mark.parametrize("mode", ["exact", "moments", "uniform"])
def test_one_hot_rows_sum_to_one_in_every_generator(registry, mode):
    release = Condensation(k=K, seed=5, generator=mode).run(registry, definition(registry))
    for block in release.encoded.blocks:
        if block.kind == "categorical":
            sums = release.raw[:, block.columns].sum(axis=1)
            np.testing.assert_allclose(sums, 1.0, rtol=1e-12, atol=1e-12)


def test_exact_generator_is_exact_on_a_rank_deficient_cluster():
    rng = np.random.default_rng(0)
    block = rng.normal(size=(12, 5))
    block[:, 4] = block[:, 0] + block[:, 1]  # a linear identity
    out = synthesize(block, np.random.default_rng(1), "exact")
    np.testing.assert_allclose(out.mean(axis=0), block.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(np.cov(out, rowvar=False), np.cov(block, rowvar=False),
                               atol=1e-12)
    np.testing.assert_allclose(out[:, 4], out[:, 0] + out[:, 1], atol=1e-12)
    assert not np.allclose(out, block)


def test_exact_generator_does_not_depend_on_row_order():
    # §4.10 symmetry (Definition 1): permuting a cluster's records leaves its block as is.
    rng = np.random.default_rng(2)
    block = rng.normal(size=(30, 4)) @ rng.normal(size=(4, 4))
    first = synthesize(block, np.random.default_rng(9), "exact")
    second = synthesize(block[rng.permutation(30)], np.random.default_rng(9), "exact")
    np.testing.assert_allclose(first, second, atol=1e-9)


# --- §4.7-4.9: improved keeps status and the times of each cluster -----------------------

def test_improved_keeps_status_per_record_and_times_per_cluster(registry):
    release = improved(shuffle_output=False).run(registry, definition(registry))
    assert (release.table["VitalStat"].to_numpy() == registry["VitalStat"].to_numpy()).all()
    out_time = release.table["SurvInterval"].astype(int).to_numpy()
    in_time = registry["SurvInterval"].astype(int).to_numpy()
    for rows in clusters(release):
        assert len(set(registry["VitalStat"].to_numpy()[rows])) == 1  # pure in status
        assert sorted(out_time[rows]) == sorted(in_time[rows])


def test_improved_leaves_kaplan_meier_unchanged(registry):
    from lifelines import KaplanMeierFitter

    release = improved().run(registry, definition(registry))  # shuffled output

    def curve(frame):
        fitter = KaplanMeierFitter().fit(frame["SurvInterval"].astype(float),
                                         frame["VitalStat"].astype(int) == 0)
        return fitter.survival_function_.iloc[:, 0].to_numpy()

    np.testing.assert_array_equal(curve(release.table), curve(registry))


def test_times_are_put_back_by_rank_within_each_group():
    rng = np.random.default_rng(3)
    groups = np.repeat([0, 1, 2], 20)
    synthetic, original = rng.normal(size=60), rng.integers(1, 90, 60).astype(float)
    out = reassign_by_rank(synthetic, original, groups)
    for g in range(3):
        rows = groups == g
        assert sorted(out[rows]) == sorted(original[rows])
        # Spearman = 1: the order of the synthetic times is kept.
        order = np.argsort(synthetic[rows], kind="stable")
        assert np.all(np.diff(out[rows][order]) >= 0)


# --- §4.11, 4.12: determinism and decoding ------------------------------------------------

@pytest.mark.parametrize("make", ALL_METHODS)
def test_same_seed_gives_the_same_release(registry, make):
    first = make().run(registry, definition(registry))
    second = make().run(registry, definition(registry))
    assert first.output_sha256 == second.output_sha256
    assert first.seed == 7


def test_another_seed_changes_the_synthetic_values(registry):
    first = improved(seed=1).run(registry, definition(registry))
    second = improved(seed=2).run(registry, definition(registry))
    assert first.output_sha256 != second.output_sha256


def test_without_a_seed_the_seed_used_is_recorded(registry):
    release = Condensation(k=K).run(registry, definition(registry))
    again = Condensation(k=K, seed=release.seed).run(registry, definition(registry))
    assert release.output_sha256 == again.output_sha256


@pytest.mark.parametrize("make", ALL_METHODS)
def test_decoded_values_stay_in_their_domains(registry, make):
    release = make().run(registry, definition(registry))
    for name in ("Gender", "Race", "Stage", "Appalachia", "TobaccoUse", "PrimaryPayor"):
        assert set(release.table[name]) <= set(registry[name])
    for name in ("DiagAge", "SurvInterval", "VitalStat"):
        out = release.table[name].astype(int)  # integers stay integers
        values = registry[name].astype(int)
        assert out.min() >= values.min() and out.max() <= values.max()


def test_clipping_is_counted(registry):
    release = Condensation(k=K, seed=3).run(registry, definition(registry))
    raw_age = release.raw[:, release.encoded.block("DiagAge").start]
    ages = registry["DiagAge"].astype(int)
    expected = int(((np.rint(raw_age) < ages.min()) | (np.rint(raw_age) > ages.max())).sum())
    assert release.clipped["DiagAge"] == expected


# --- §4.14: step 2c ---------------------------------------------------------------------

def test_small_clusters_are_filled_from_clusters_above_k():
    rng = np.random.default_rng(0)
    points = rng.normal(size=(100, 2))
    labels = np.array([0] * 3 + [1] * 7 + [2] * 40 + [3] * 50)
    centres = np.array([points[labels == c].mean(axis=0) for c in range(4)])
    filled, moved = fill_small_clusters(points, labels, centres, k=20)
    sizes = brute_force_sizes(filled)
    assert min(sizes) >= 20 and sum(sizes) == 100
    assert moved == (20 - 3) + (20 - 7)
    assert int((filled != labels).sum()) == moved


def test_an_empty_kmeans_cluster_is_filled():
    points = np.arange(40, dtype=float)[:, None]
    labels = np.array([0] * 25 + [2] * 15)  # cluster 1 is empty
    centres = np.array([[10.0], [20.0], [30.0]])
    filled, _ = fill_small_clusters(points, labels, centres, k=10)
    sizes = brute_force_sizes(filled)
    assert len(sizes) == 3 and min(sizes) >= 10 and sum(sizes) == 40


# --- §4.15: degenerate inputs -------------------------------------------------------------

def test_k_above_a_status_subset_is_refused_with_its_size(registry):
    n1 = int((registry["VitalStat"] == "1").sum())
    with pytest.raises(ConfigurationError, match=f"only {n1} records have VitalStat = 1"):
        improved(k=n1 + 1).run(registry, definition(registry))


def test_k_above_the_records_is_refused(registry):
    with pytest.raises(ConfigurationError, match="exceeds"):
        Condensation(k=N + 1).run(registry, definition(registry))


def test_small_subset_can_be_suppressed_or_merged(registry):
    n1 = int((registry["VitalStat"] == "1").sum())
    d = definition(registry)
    suppressed = improved(k=n1 + 1, small_subset="suppress").run(registry, d)
    assert suppressed.suppressed_records == n1
    assert (suppressed.table.loc[suppressed.suppressed, "Stage"] == "*").all()
    assert min(brute_force_sizes(suppressed.groups)) >= n1 + 1
    merged = improved(k=n1 + 1, small_subset="merge").run(registry, d)
    assert merged.suppressed_records == 0
    assert min(brute_force_sizes(merged.groups)) >= n1 + 1


def test_k_equal_to_a_subset_gives_one_cluster():
    frame = cancer_registry(300, seed=1)
    n1 = int((frame["VitalStat"] == "1").sum())
    release = improved(k=n1).run(frame, definition(frame))
    alive = release.input_groups[(frame["VitalStat"] == "1").to_numpy()]
    assert len(set(alive.tolist())) == 1


def test_a_constant_column_stays_constant(registry):
    frame = registry.assign(Registry="KY", Year="2009")
    release = improved().run(frame, definition(frame))
    assert set(release.table["Registry"]) == {"KY"}
    assert set(release.table["Year"]) == {"2009"}


def test_clusters_smaller_than_the_number_of_attributes_work():
    frame = cancer_registry(60, seed=2)  # about 20 encoded columns, clusters of 5
    release = Condensation(k=5, seed=1).run(frame, definition(frame))
    assert min(brute_force_sizes(release.groups)) >= 5
    release = Condensation(k=3, seed=1).run(frame, definition(frame))
    assert min(brute_force_sizes(release.groups)) >= 3


@pytest.mark.parametrize("k", [1, 2, 0, -5])
def test_k_below_three_is_refused_naming_the_parameter(k):
    # k = 1 releases every record as it is; k = 2 lets the exact generator pin both
    # records of a pair down. Neither may run, whatever else is set.
    with pytest.raises(ConfigurationError, match="k"):
        Condensation(k=k, seed=1)


def test_a_status_with_three_values_is_refused(registry):
    frame = registry.copy()
    frame.loc[0, "VitalStat"] = "9"
    with pytest.raises(ConfigurationError, match="binary"):
        improved().run(frame, definition(frame))


def test_missing_numbers_and_bad_kinds_are_refused(registry):
    frame = registry.copy()
    frame.loc[0, "DiagAge"] = ""
    d = definition(frame).with_attribute(
        "DiagAge", data_type=AttributeDefinition("x").data_type.__class__.from_dict(
            {"kind": "integer"}))
    with pytest.raises(ConfigurationError, match="missing"):
        improved().run(frame, d)
    with pytest.raises(ConfigurationError, match="attribute kind"):
        improved(types={"Stage": "ordinal"})
    with pytest.raises(ConfigurationError, match="numeric"):
        improved(types={"SurvInterval": "categorical"}).run(registry, definition(registry))


# --- jobs: progress and cancel -------------------------------------------------------------

@pytest.mark.parametrize("make", ALL_METHODS)
def test_cancel_stops_the_run(registry, make):
    token = CancelToken()
    seen = []

    def progress(fraction, message):
        seen.append(fraction)
        token.cancel()

    with pytest.raises(CancelledError):
        make().run(registry, definition(registry), progress=progress, cancel=token)
    assert seen


def test_methods_run_by_name_and_release_provenance(registry):
    release = run_method("improved-condensation", registry, definition(registry),
                         {"k": K, "time": "SurvInterval", "status": "VitalStat", "seed": 1})
    report = release.to_dict()
    assert report["method"] == "improved-condensation"
    assert report["parameters"]["seed"] == 1
    assert report["claims"][0]["kind"] == "k-cluster"
    assert "exactly" in report["claims"][0]["description"]
    assert report["moved_records"] == release.moved_records
    assert release.statistics.min_size >= K


def test_cancel_during_kmeans_stops_it():
    from arxpy.methods.condensation.clustering import kmeans

    token = CancelToken()
    points = np.random.default_rng(0).normal(size=(500, 3))
    fractions = []

    def on_iteration(fraction):
        fractions.append(fraction)
        token.cancel()

    with pytest.raises(CancelledError):
        kmeans(points, 10, np.random.default_rng(1), cancel=token, on_iteration=on_iteration)
    assert fractions == [0.0]


def test_a_text_status_is_kept_per_record(registry):
    frame = registry.assign(VitalStat=registry["VitalStat"].map({"0": "dead", "1": "alive"}))
    release = improved(shuffle_output=False, event_value="dead").run(frame, definition(frame))
    assert release.encoded.block("VitalStat").kind == "categorical"
    assert (release.table["VitalStat"].to_numpy() == frame["VitalStat"].to_numpy()).all()


@pytest.mark.parametrize("split", ["attribute", "column"])
def test_weights_give_w_to_the_response_and_share_the_rest(registry, split):
    from arxpy.methods.condensation.encoding import encode

    method = improved(weight=0.3, weight_split=split)
    encoded = encode(registry, definition(registry), list(registry.columns), {})
    m = encoded.matrix
    z = (m - m.mean(axis=0)) / m.std(axis=0)
    weights = (method.weighted_points(encoded)[0] / z[0]) ** 2
    block = encoded.block
    assert weights[block("SurvInterval").start] == pytest.approx(0.3)
    assert np.allclose(weights[block("VitalStat").columns], 0.0)
    others = [b for b in encoded.blocks if b.name not in ("SurvInterval", "VitalStat")]
    assert sum(weights[b.columns].sum() for b in others) == pytest.approx(0.7)
    per_attribute = [weights[b.columns].sum() for b in others]
    per_column = np.concatenate([weights[b.columns] for b in others])
    if split == "attribute":
        assert np.allclose(per_attribute, 0.7 / len(others))
    else:
        assert np.allclose(per_column, 0.7 / len(per_column))


def test_releases_flow_into_compare_utility_and_risk(registry):
    from arxpy.analysis import compare_releases, release_statistics
    from arxpy.risk.sample import risk_limits
    from arxpy.risk.summary import analyze_release

    d = definition(registry)
    for name in ("DiagAge", "Gender", "Stage"):
        d = d.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    ours, mdav = improved().run(registry, d), MDAV(k=K).run(registry, d)
    table = compare_releases({"improved": ours, "mdav": mdav})
    assert table.loc["records released", "improved"] == N
    release_statistics(registry, ours)
    analyze_release(ours)
    # Synthetic rows are not equivalence classes: no risk bound is claimed.
    assert risk_limits(ours.claims).prosecutor == 1.0


def test_subset_readout_warns_about_few_groups(registry):
    from arxpy.methods.condensation import subset_readout

    n0 = int((registry["VitalStat"] == "0").sum())
    readout = {r["value"]: r for r in subset_readout(registry, "VitalStat", K)}
    assert readout["0"]["records"] == n0 and readout["0"]["groups"] == n0 // K
    assert readout["1"]["warning"] == f"only {(N - n0) // K} groups (fewer than 20)"
    assert subset_readout(registry, None, N + 1)[0]["warning"] == f"fewer records than k = {N + 1}"


def _example_kinds(definition_of, **params):
    from arxpy.example import example_project

    project = example_project(records=300)
    frame = project.data
    release = Condensation(k=30, seed=1, **params).run(frame, definition_of(project))
    return frame, release


def test_declared_strings_stay_categorical_and_keep_their_leading_zeros():
    """The example declares Hospital ID and ZIP code as strings (IDs such as "050134")."""
    frame, release = _example_kinds(lambda project: project.definition)
    for name in ("Hospital ID", "ZIP code"):
        assert release.encoded.block(name).kind == "categorical"
        assert set(release.table[name]) <= set(frame[name])  # released values are inputs
    assert release.encoded.block("Age").kind == "integer"  # declared integer
    assert release.table["Hospital ID"].str.fullmatch(r"0\d{5}").all()


def test_a_fresh_import_infers_numbers_but_not_codes_with_leading_zeros():
    frame, release = _example_kinds(lambda project: DataDefinition.for_columns(
        project.data.columns))
    assert release.encoded.block("Hospital ID").kind == "categorical"  # "050134": a code
    assert release.encoded.block("ZIP code").kind == "integer"  # "79401": no type declared
    assert release.encoded.block("Age").kind == "integer"


def test_the_user_may_still_make_a_declared_string_numeric():
    _, release = _example_kinds(lambda project: project.definition,
                                types={"ZIP code": "integer"})
    assert release.encoded.block("ZIP code").kind == "integer"
