"""ARE, MRE, workloads and Welch's test (spec 002 §4, §5 item 10)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from arxpy.analysis.setvalued_utility import (
    MRE_BINS,
    constraint_error,
    mre_histogram,
    welch_test,
    workload_error,
    workload_w1,
    workload_w2,
)
from arxpy.data.itemsets import count_queries
from arxpy.data.synth_ehr import generate_code_sets
from arxpy.data.transactions import CodeSets

TOY = CodeSets.from_sets([{"a", "b"}, {"a", "b", "c"}, {"a"}, {"b", "c"}, {"c"}, {"a", "c"}])


def test_are_by_hand_on_a_six_record_toy():
    queries = [("a",), ("a", "b"), ("c",)]
    true = count_queries(TOY, queries)
    assert true.tolist() == [4, 2, 4]
    released = CodeSets.from_sets([{"a", "b"}, {"a"}, {"a"}, {"b"}, {"c"}, {"a", "c"}])
    # a: 4 -> 4 (0); ab: 2 -> 1 (0.5); c: 4 -> 2 (0.5); ARE = 1/3.
    error = workload_error("toy", queries, true, [count_queries(released, queries)])
    assert error.per_query.tolist() == [0.0, 0.5, 0.5]
    assert error.are == pytest.approx(1 / 3)
    assert error.by_size() == {1: 0.25, 2: 0.5}


def test_are_averages_runs_and_reports_their_spread():
    error = workload_error("w", [("a",)], np.array([4]), [np.array([2]), np.array([4])])
    assert error.per_query.tolist() == [0.25]
    assert error.per_run.tolist() == [0.5, 0.0]
    assert error.are_sd == pytest.approx(np.std([0.5, 0.0], ddof=1))


def test_mre_by_hand_and_its_sign():
    constraints = [("a", "b"), ("c",)]
    # M_O: {a,b} matches 5 records, {c} 4.
    over = CodeSets.from_sets([{"a"}] * 6)  # a,b-constraint over-counted: 6 > 5
    result = constraint_error(TOY, [over], constraints)
    assert result.mre.tolist() == pytest.approx([(5 - 6) / 5 * 100, (4 - 0) / 4 * 100])
    assert result.mre[0] < 0  # over-counting is negative


def test_no_error_when_the_release_is_the_original():
    queries = workload_w1(TOY, 30.0)
    assert workload_error("w", queries, count_queries(TOY, queries),
                          [count_queries(TOY, queries)]).are == 0
    result = constraint_error(TOY, [TOY], [("a",), ("b", "c")])
    assert result.mre.tolist() == [0, 0] and result.histogram["0"] == 100


def test_constraints_that_match_no_record_are_skipped():
    assert constraint_error(TOY, [TOY], [("zz",), ("a",)]).constraints == [("a",)]


def test_w1_is_every_frequent_itemset_of_up_to_four_codes():
    sets = generate_code_sets(records=600, codes=40, seed=4)
    records = sets.to_sets()
    counts = Counter(s for r in records for size in range(1, 5)
                     for s in itertools.combinations(sorted(r), size))
    for support in (2.5, 10.0):
        expected = {s for s, c in counts.items() if c >= support / 100 * len(records)}
        assert set(workload_w1(sets, support)) == expected


def test_w1_counts_an_itemset_held_by_exactly_the_support():
    """30 % of 10 records is 3.0000000000000004 in floating point; 3 records are 30 %."""
    sets = CodeSets.from_sets([["a"]] * 3 + [["b"]] * 7)
    assert workload_w1(sets, 30.0) == [("a",), ("b",)]


def test_w2_chains_are_nested_occur_and_have_an_equal_share_per_size():
    sets = generate_code_sets(records=800, codes=60, seed=5)
    queries = workload_w2(sets, 40, np.random.default_rng(0))
    assert [len(q) for q in queries] == [1] * 10 + [2] * 10 + [3] * 10 + [4] * 10
    for chain in range(10):
        links = [set(queries[size * 10 + chain]) for size in range(4)]
        assert all(a < b for a, b in itertools.pairwise(links))
    assert (count_queries(sets, queries) >= 1).all()
    allowed = set(sets.vocabulary[:30])
    restricted = workload_w2(sets, 8, np.random.default_rng(1), allowed=allowed)
    assert all(allowed.issuperset(q) for q in restricted)


def test_mre_histogram_uses_the_papers_bins():
    values = np.array([-30, -10, -5, -2.5, 0, 1, 2.5, 5, 10])
    assert list(mre_histogram(values)) == list(MRE_BINS)
    assert list(mre_histogram(values).values()) == pytest.approx([100 / 9] * 9)


def test_welch_test_separates_clearly_different_errors():
    rng = np.random.default_rng(0)
    assert welch_test(rng.normal(0.1, 0.05, 200), rng.normal(0.9, 0.05, 200))["p"] < 0.01
    assert welch_test(np.array([0.1]), np.array([0.2])) == {"t": None, "p": None}
