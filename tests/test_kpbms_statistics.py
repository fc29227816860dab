"""PBCA (Eq. 1), the exact 2 x c Fisher test and MDL discretization (spec 003 §5.1-5.5,
5.13), against the paper's golden values and independent computations."""

from __future__ import annotations

import itertools
from math import comb, prod

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact

from arxpy.analysis.pbca import pbca
from arxpy.data.mdl import apply_cuts, fit_mdl, mdl_cut_points
from arxpy.errors import ConfigurationError
from arxpy.quality.fisher_exact import fisher_2xc, fisher_exact_2xc

#: The paper's Table 1: f1, f2, f3, instances of class 0, instances of class 1.
TABLE1 = [(1, 2, 1, 10, 0), (1, 2, 2, 0, 10), (2, 3, 1, 10, 20), (2, 3, 3, 10, 10),
          (3, 1, 1, 20, 0), (3, 1, 3, 0, 10)]


def table1() -> pd.DataFrame:
    records = []
    for f1, f2, f3, zeros, ones in TABLE1:
        records += [(f1, f2, f3, 0)] * zeros + [(f1, f2, f3, 1)] * ones
    return pd.DataFrame(records, columns=["f1", "f2", "f3", "class"]).astype(str)


# --- PBCA ----------------------------------------------------------------------------


def test_pbca_of_table1_is_080():
    assert pbca(table1(), "class").pbca == pytest.approx(0.80)


@pytest.mark.parametrize(("features", "expected"), [
    ([], 0.5), (["f1"], 0.6), (["f2"], 0.6), (["f3"], 0.7), (["f1", "f2"], 0.6),
    (["f1", "f3"], 0.8), (["f2", "f3"], 0.8)])
def test_pbca_of_table1_subsets(features, expected):
    assert pbca(table1(), "class", features).pbca == pytest.approx(expected)


def _pbca_by_dicts(frame, features, target):
    """Eq. 1 with a hash table of patterns, written independently of the code."""
    table: dict = {}
    for row in frame[features + [target]].itertuples(index=False):
        table.setdefault(tuple(row[:-1]), {}).setdefault(row[-1], 0)
        table[tuple(row[:-1])][row[-1]] += 1
    return sum(max(c.values()) for c in table.values()) / len(frame)


def test_pbca_matches_a_hash_table_and_is_invariant():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.integers(0, 4, (400, 4)), columns=list("abcd")).astype(str)
    frame["y"] = rng.integers(0, 3, 400).astype(str)
    for features in (["a"], ["a", "b"], ["b", "c", "d"]):
        expected = _pbca_by_dicts(frame, features, "y")
        assert pbca(frame, "y", features).pbca == pytest.approx(expected)
        shuffled = frame.sample(frac=1, random_state=1)
        relabelled = shuffled.replace({"0": "zero", "1": "one"})
        assert pbca(relabelled, "y", features).pbca == pytest.approx(expected)
    frame["id"] = np.arange(400).astype(str)
    assert pbca(frame, "y", ["id"]).pbca == 1.0


def test_pbca_is_an_upper_bound_of_a_memorising_tree():
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.integers(0, 3, (300, 3)), columns=list("abc")).astype(str)
    frame["y"] = rng.integers(0, 2, 300).astype(str)
    x = OneHotEncoder().fit_transform(frame[list("abc")])
    tree = DecisionTreeClassifier(random_state=0).fit(x, frame["y"])
    assert tree.score(x, frame["y"]) == pytest.approx(pbca(frame, "y").pbca)


def test_cv_pbca_of_table1_with_seeded_folds():
    # Spec §2.1: 10-fold stratified CV with seed 0 gives 0.74 for {f3, f1}.
    assert pbca(table1(), "class", ["f3", "f1"], cv_folds=10, seed=0).pbca == \
        pytest.approx(0.74)


def test_pbca_errors_name_the_attribute():
    with pytest.raises(ConfigurationError, match="no class attribute 'nope'"):
        pbca(table1(), "nope")
    with pytest.raises(ConfigurationError, match="'f9' is not a feature"):
        pbca(table1(), "class", ["f9"])


# --- Fisher ------------------------------------------------------------------------


def _brute_fisher(table) -> float:
    """Sum of the probabilities of every table with these margins at most as probable."""
    table = np.asarray(table)
    columns, r = table.sum(axis=0), int(table[0].sum())
    total = comb(int(columns.sum()), r)

    def probability(row):
        return prod(comb(int(c), int(x)) for c, x in zip(columns, row, strict=True)) / total

    observed = probability(table[0])
    return sum(probability(row) for row in itertools.product(*[range(c + 1) for c in columns])
               if sum(row) == r and probability(row) <= observed * (1 + 1e-7))


def test_table2_fisher_p():
    assert fisher_exact_2xc([[10, 20], [0, 20]]) == pytest.approx(0.003433, abs=5e-7)


def test_exact_2x3_p():
    assert fisher_exact_2xc([[10, 20, 5], [0, 20, 5]]) == pytest.approx(0.009757, abs=5e-7)


def test_2x2_matches_scipy():
    rng = np.random.default_rng(0)
    for _ in range(120):
        table = rng.integers(0, 40, (2, 2))
        assert abs(fisher_exact_2xc(table) - fisher_exact(table)[1]) < 1e-12


@pytest.mark.parametrize("columns", [3, 4])
def test_2xc_matches_brute_force(columns):
    rng = np.random.default_rng(columns)
    for _ in range(60):
        table = rng.integers(0, 9, (2, columns))
        assert fisher_exact_2xc(table) == pytest.approx(_brute_fisher(table), abs=1e-12)


def test_zero_columns_reduce_to_the_smaller_table():
    assert fisher_exact_2xc([[10, 0, 20], [0, 0, 20]]) == fisher_exact_2xc([[10, 20], [0, 20]])
    assert fisher_exact_2xc([[5, 3], [0, 0]]) == 1.0


def test_fisher_is_deterministic_and_flags_estimates():
    table = [[300, 200, 150, 100, 90, 80, 70, 60, 50, 40],
             [300, 200, 150, 100, 90, 80, 70, 60, 50, 0]]
    first, second = fisher_2xc(table), fisher_2xc(table)
    assert first == second and not first.exact and first.pvalue < 0.001
    small = fisher_2xc([[10, 20, 5], [0, 20, 5]])
    assert small.exact and small.pvalue == pytest.approx(0.009757, abs=5e-7)
    estimate = fisher_2xc([[10, 20, 5, 3, 7], [10, 20, 5, 0, 7]], max_nodes=1)
    assert not estimate.exact
    assert estimate.pvalue == pytest.approx(
        fisher_exact_2xc([[10, 20, 5, 3, 7], [10, 20, 5, 0, 7]]), abs=0.02)


# --- MDL ---------------------------------------------------------------------------


def test_mdl_one_cut_at_the_midpoint_of_a_perfect_split():
    values = np.arange(1.0, 41.0)
    labels = (values > 20).astype(int)
    assert mdl_cut_points(values, labels) == [20.5]


def test_mdl_no_cut_on_noise():
    rng = np.random.default_rng(0)
    assert mdl_cut_points(rng.normal(size=200), rng.integers(0, 2, 200)) == []


def test_mdl_keeps_missing_values_as_a_category():
    frame = pd.DataFrame({"x": [str(v) for v in range(1, 41)] + ["NA"] * 5})
    labels = np.array([0] * 20 + [1] * 20 + [0] * 5)
    cuts = fit_mdl(frame, ["x"], labels)
    assert cuts == {"x": [20.5]}
    out = apply_cuts(frame["x"], cuts["x"])
    assert list(out[:2]) == ["<=20.5", "<=20.5"] and out.iloc[25] == ">20.5"
    assert (out[-5:] == "NA").all()


def test_discretize_replaces_the_cut_columns_and_leaves_the_input_alone():
    from arxpy.data.mdl import discretize

    frame = pd.DataFrame({"x": ["1.5", "2.5", "9.0"], "colour": ["red", "blue", "red"]})
    out = discretize(frame, {"x": [2.0]})
    assert out["x"].tolist() == ["<=2", ">2", ">2"]
    assert out["colour"].tolist() == ["red", "blue", "red"]
    assert frame["x"].tolist() == ["1.5", "2.5", "9.0"]  # shared columns, not overwritten


def test_ordinal_scores_are_categorical_and_measurements_continuous():
    from arxpy.data.mdl import continuous_attributes

    frame = pd.DataFrame({"score": [str(v % 10 + 1) for v in range(100)],
                          "size": [f"{v / 7:.2f}" for v in range(100)],
                          "count": [str(v) for v in range(100)],
                          "colour": ["red", "blue"] * 50})
    assert continuous_attributes(frame, list(frame.columns)) == ["size", "count"]


# --- equal-frequency discretization (spec 003 §3) -------------------------------------


def test_equal_frequency_bins_hold_equal_shares():
    from arxpy.data.discretization import equal_frequency_cut_points

    values = np.random.default_rng(1).permutation(np.arange(1.0, 101.0))
    cuts = equal_frequency_cut_points(values, 4)
    assert cuts == [25.5, 50.5, 75.5]
    # Counted independently of the cut code: every bin holds n / bins values.
    counts = np.histogram(values, bins=[-np.inf, *cuts, np.inf])[0]
    assert counts.tolist() == [25, 25, 25, 25]


def test_equal_frequency_never_splits_equal_values():
    from arxpy.data.discretization import equal_frequency_cut_points

    values = np.r_[np.zeros(50), np.arange(1.0, 51.0)]
    cuts = equal_frequency_cut_points(values, 5)
    assert all(c not in values for c in cuts)  # midway between distinct values
    assert cuts[0] == 0.5  # the 50 zeros stay in one bin
    assert equal_frequency_cut_points(np.ones(10), 3) == []
    with pytest.raises(ConfigurationError):
        equal_frequency_cut_points(values, 0)


def test_fit_cuts_eqfreq_keeps_missing_values_and_ignores_the_class():
    from arxpy.data.discretization import fit_cuts

    frame = pd.DataFrame({"x": [str(v) for v in range(1, 41)] + ["NA"] * 5,
                          "colour": ["red"] * 45})
    one, other = np.zeros(45, int), np.arange(45) % 2
    cuts = fit_cuts(frame, ["x", "colour"], one, "eqfreq", bins=2)
    assert cuts == {"x": [20.5]} == fit_cuts(frame, ["x"], other, "eqfreq", bins=2)
    assert fit_cuts(frame, ["x"], one, "none") == {}
    with pytest.raises(ConfigurationError, match="mdl, eqfreq, none"):
        fit_cuts(frame, ["x"], one, "quantile")
