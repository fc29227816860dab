"""l-diversity models (distinct, entropy, recursive-(c,l)) against hand-computed verdicts.

Expected verdicts come from the definitions (Machanavajjhala et al. 2007, and ARX's
implementations for boundaries: entropy >= ln l, r_1 < c (r_l + ... + r_m) strictly),
never from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import classes_from_matrix as from_matrix
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.privacy.ldiversity import (
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    grassberger_g,
)
from arxpy.privacy.registry import privacy_model_from_dict

NAME = "disease"




def build(rows: list[tuple[str, str]]) -> tuple[EquivalenceClasses, EncodedData]:
    """Classes (sorted by key) from (qi_key, sensitive_value) rows."""
    keys = sorted({k for k, _ in rows})
    values = sorted({v for _, v in rows})
    matrix = np.zeros((len(keys), len(values)), dtype=np.int64)
    for key, value in rows:
        matrix[keys.index(key), values.index(value)] += 1
    return from_matrix(matrix)


def check(model, classes, data) -> list[bool]:
    model.validate(data)
    model.prepare(data)
    return model.satisfied(classes).tolist()


ROWS = (
    [("a", "flu")] * 3  # one value only
    + [("b", "flu"), ("b", "cold")]  # two values, 1:1
    + [("c", "flu")] * 3 + [("c", "cold")]  # two values, 3:1
    + [("d", "flu"), ("d", "cold"), ("d", "hiv")]  # three values, 1:1:1
)


def test_distinct_counts_values_per_class() -> None:
    classes, data = build(ROWS)
    assert check(DistinctLDiversity(NAME, 1), classes, data) == [True, True, True, True]
    assert check(DistinctLDiversity(NAME, 2), classes, data) == [False, True, True, True]
    assert check(DistinctLDiversity(NAME, 3), classes, data) == [False, False, False, True]


def test_entropy_hand_verdicts() -> None:
    classes, data = build(ROWS)
    # Entropies: a 0, b ln 2, c -(3/4 ln 3/4 + 1/4 ln 1/4) = 0.562, d ln 3.
    assert check(EntropyLDiversity(NAME, 2), classes, data) == [False, True, False, True]
    # ln 1.5 = 0.405 <= 0.562, and ceil(1.5) = 2 distinct values suffice.
    assert check(EntropyLDiversity(NAME, 1.5), classes, data) == [False, True, True, True]
    assert check(EntropyLDiversity(NAME, 3), classes, data) == [False, False, False, True]


@pytest.mark.parametrize(
    ("counts", "l"),
    [([1, 1], 2), ([2, 2], 2), ([3, 3, 3], 3), ([5] * 5, 5), ([7] * 6, 6),
     # Entropy 1.5 ln 2 = ln 2**1.5 and 2.5 ln 2 = ln 2**2.5: the bound alone decides.
     ([1, 1, 2], 2**1.5), ([1, 1, 1, 1, 2, 2], 2**2.5), ([2, 2, 4], 2**1.5)],
)
def test_entropy_exactly_log_l_is_enough(counts: list[int], l: float) -> None:  # noqa: E741
    classes, data = from_matrix([counts])
    assert check(EntropyLDiversity(NAME, l), classes, data) == [True]
    if math.ceil(l * (1 + 1e-9)) == math.ceil(l):  # same distinct-value requirement
        assert check(EntropyLDiversity(NAME, l * (1 + 1e-9)), classes, data) == [False]


def test_class_entropy_in_nats() -> None:
    classes, data = build(ROWS)
    model = EntropyLDiversity(NAME, 2)
    model.prepare(data)
    expected = [0.0, math.log(2), -(0.75 * math.log(0.75) + 0.25 * math.log(0.25)), math.log(3)]
    assert model.class_entropy(classes) == pytest.approx(expected)


def test_grassberger_matches_arx_table() -> None:
    # Values from ARX's EntropyLDiversity.G_PRECOMPUTED (G_1, G_2, G_4, G_100) and G_{2n+1} = G_2n.
    n = np.array([1, 2, 3, 4, 5, 100, 101])
    expected = [-1.2703628454614782, 0.7296371545385218, 0.7296371545385218,
                1.3963038212051886, 1.3963038212051886, 4.605186851488337, 4.605186851488337]
    assert grassberger_g(n) == pytest.approx(expected, abs=1e-12)
    # Above 100 ARX uses the digamma expansion ln n + m (1/24 - m (7/960 - m 31/8064)).
    for size in (1000, 12345):
        even = size - size % 2
        m = 1.0 / (even / 2) ** 2
        arx = math.log(even) + m * (1 / 24 - m * (7 / 960 - m * 31 / 8064))
        assert grassberger_g(np.array([size]))[0] == pytest.approx(arx, abs=1e-12)


def test_grassberger_is_more_permissive_than_shannon() -> None:
    # Counts 3:1. Shannon: 0.562 < ln 2. Grassberger: G(4) - (3 G(3) + G(1)) / 4 = 1.167 >= ln 2.
    classes, data = from_matrix([[3, 1]])
    assert check(EntropyLDiversity(NAME, 2), classes, data) == [False]
    assert check(EntropyLDiversity(NAME, 2, "grassberger"), classes, data) == [True]
    model = EntropyLDiversity(NAME, 2, "grassberger")
    model.prepare(data)
    assert model.class_entropy(classes)[0] == pytest.approx(1.1666666666666667)


def test_grassberger_class_that_arx_rejects_by_stopping_early() -> None:
    # Issue 19, item 3: Adult's class Self-emp-not-inc|*|HS-grad|*|Europe|* has sensitive
    # counts 15:3:1 (N = 19). By hand, G_n = -gamma - ln 2 + sum_{k<=n//2} 2/(2k-1):
    # G_1 = -1.27036284546, G_3 = 0.72963715454, G_15 = -1.27036284546 + 3.91026751027
    # = 2.63990466481, G_19 = -1.27036284546 + 4.16124790242 = 2.89088505696.
    # H = G_19 - (15 G_15 + 3 G_3 + G_1) / 19 = 2.89088505696 - 40.5171185902 / 19
    #   = 0.75840513116 >= ln 2 = 0.69314718056: the class is entropy-2-diverse.
    # ARX stops summing once the running sum passes the bound 19 (G_19 - ln 2) = 41.757:
    # 15 G_15 + 3 G_3 = 41.787 passes it before G_1 (negative) brings it back to 40.517,
    # so ARX rejects the class when G_1 comes last. arxpy sums every count (docs/engine.md).
    classes, data = from_matrix([[15, 3, 1]])
    model = EntropyLDiversity(NAME, 2, "grassberger")
    assert check(model, classes, data) == [True]
    assert model.class_entropy(classes)[0] == pytest.approx(0.75840513116, abs=1e-10)
    assert check(EntropyLDiversity(NAME, 2), classes, data) == [False]  # Shannon: 0.633


def test_recursive_cl_is_strict() -> None:
    classes, data = from_matrix([[5, 3, 2]])
    # l = 2: r1 = 5 against c * (3 + 2).
    assert check(RecursiveCLDiversity(NAME, 2, 2), classes, data) == [True]
    assert check(RecursiveCLDiversity(NAME, 1, 2), classes, data) == [False]  # 5 < 5 is false
    # l = 3: r1 = 5 against c * 2.
    assert check(RecursiveCLDiversity(NAME, 3, 3), classes, data) == [True]
    assert check(RecursiveCLDiversity(NAME, 2.5, 3), classes, data) == [False]


def test_recursive_cl_sorts_each_class() -> None:
    # Classes with the largest count in different columns, and a single-valued class.
    classes, data = from_matrix([[1, 6, 2], [4, 0, 4], [0, 0, 9], [2, 2, 2]])
    # (c=2, l=2): 6 < 2*3 no; 4 < 2*4 yes; one value fails l=2; 2 < 2*4 yes.
    assert check(RecursiveCLDiversity(NAME, 2, 2), classes, data) == [False, True, False, True]


def test_single_value_class_fails_every_variant_with_l_2() -> None:
    classes, data = from_matrix([[4, 0], [1, 1]])
    for model in (DistinctLDiversity(NAME, 2), EntropyLDiversity(NAME, 2),
                  EntropyLDiversity(NAME, 2, "grassberger"), RecursiveCLDiversity(NAME, 3, 2)):
        assert check(model, classes, data)[0] is False


def test_l_above_distinct_values_is_refused_with_the_count() -> None:
    _, data = build(ROWS)
    for model in (DistinctLDiversity(NAME, 4), EntropyLDiversity(NAME, 3.5),
                  RecursiveCLDiversity(NAME, 2, 4)):
        with pytest.raises(ConfigurationError, match=r"only 3 distinct value"):
            model.validate(data)


def test_untracked_attribute_is_refused() -> None:
    _, data = build(ROWS)
    with pytest.raises(ConfigurationError, match="mark it sensitive"):
        DistinctLDiversity("diagnosis", 2).validate(data)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: DistinctLDiversity(NAME, 0), "at least 1"),
        (lambda: DistinctLDiversity(NAME, 2.5), "whole number"),
        (lambda: DistinctLDiversity(NAME, "3"), "l must be a whole number"),
        (lambda: EntropyLDiversity(NAME, 0.5), "at least 1"),
        (lambda: EntropyLDiversity(NAME, 2, "miller"), "Unknown entropy estimator"),
        (lambda: RecursiveCLDiversity(NAME, 0, 2), "c must be positive"),
        (lambda: RecursiveCLDiversity(NAME, -1, 2), "c must be positive"),
        (lambda: DistinctLDiversity("", 2), "name of a sensitive attribute"),
    ],
)
def test_impossible_parameters_are_refused(make, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        make()


def test_round_trip_and_descriptions() -> None:
    models = [DistinctLDiversity(NAME, 3), EntropyLDiversity(NAME, 2.5),
              EntropyLDiversity(NAME, 3, "grassberger"), RecursiveCLDiversity(NAME, 4, 3)]
    for model in models:
        again = privacy_model_from_dict(model.to_dict())
        assert again == model and again.to_dict() == model.to_dict()
        assert model.sensitive_attribute == NAME
    assert [m.describe() for m in models] == [
        "distinct-3-diversity for 'disease'",
        "entropy-2.5-diversity for 'disease'",
        "grassberger-entropy-3-diversity for 'disease'",
        "recursive-(4,3)-diversity for 'disease'",
    ]


def test_monotonicity_flags_follow_arx() -> None:
    assert DistinctLDiversity.monotonic_with_suppression
    assert DistinctLDiversity.monotonic_without_suppression
    for cls in (EntropyLDiversity, RecursiveCLDiversity):
        assert not cls.monotonic_with_suppression
        assert cls.monotonic_without_suppression
    assert EntropyLDiversity(NAME, 2).monotonic_without_suppression


def test_grassberger_entropy_is_not_monotonic() -> None:
    # Counterexample to ARX's flag: each 1:1:1:1 class passes, their merge 2:2:2:2 fails
    # (G(4) - G(1) = 2.667 >= ln 4, but G(8) - G(2) = 1.352 < ln 4).
    model = EntropyLDiversity(NAME, 4, "grassberger")
    before, data = from_matrix([[1, 1, 1, 1], [1, 1, 1, 1]])
    model.prepare(data)
    after, _ = from_matrix([[2, 2, 2, 2]])
    assert model.satisfied(before).tolist() == [True, True]
    assert model.satisfied(after).tolist() == [False]
    assert not model.monotonic_without_suppression
    assert not model.monotonic_with_suppression


# ---- properties ---------------------------------------------------------------------

count_matrices = st.integers(1, 5).flatmap(
    lambda n_values: st.lists(
        st.lists(st.integers(0, 6), min_size=n_values, max_size=n_values).filter(any),
        min_size=1,
        max_size=6,
    )
)


def reference_entropy(row: np.ndarray) -> float:
    p = row[row > 0] / row.sum()
    return float(-(p * np.log(p)).sum())


def reference_recursive(row: np.ndarray, c: float, l: int) -> bool:  # noqa: E741
    r = sorted((int(x) for x in row if x > 0), reverse=True)
    return len(r) >= l and r[0] < c * sum(r[l - 1:])


@settings(max_examples=60, deadline=None)
@given(count_matrices, st.integers(1, 5), st.sampled_from([0.5, 1, 1.5, 2, 3]))
def test_models_agree_with_definitions(matrix, l, c) -> None:  # noqa: E741
    matrix = np.array(matrix)
    classes, data = from_matrix(matrix)
    distinct = (matrix > 0).sum(axis=1)
    for model, expected in [
        (DistinctLDiversity(NAME, l), distinct >= l),
        (RecursiveCLDiversity(NAME, c, l), [reference_recursive(r, c, l) for r in matrix]),
    ]:
        model.prepare(data)
        assert model.satisfied(classes).tolist() == list(expected)
    entropy = EntropyLDiversity(NAME, l)
    entropy.prepare(data)
    got = entropy.satisfied(classes)
    for row, verdict in zip(matrix, got, strict=True):
        h = reference_entropy(row)
        if abs(h - math.log(l)) > 1e-9:  # away from the boundary (tested exactly above)
            assert verdict == (h >= math.log(l))
    # Entropy l-diversity implies distinct l-diversity (entropy <= ln(#values)).
    assert np.all(distinct[got] >= l)


def merged(matrix: np.ndarray, i: int, j: int) -> np.ndarray:
    """The classes with classes i and j merged into one (the dataset is unchanged)."""
    rest = [r for k, r in enumerate(matrix) if k not in (i, j)]
    return np.array([matrix[i] + matrix[j], *rest])


@settings(max_examples=60, deadline=None)
@given(count_matrices, st.integers(1, 4), st.sampled_from([1, 1.5, 2, 3]))
def test_merging_satisfying_classes_keeps_monotonic_models_satisfied(matrix, l, c) -> None:  # noqa: E741
    matrix = np.array(matrix)
    classes, data = from_matrix(matrix)
    models = [DistinctLDiversity(NAME, l), EntropyLDiversity(NAME, l),
              RecursiveCLDiversity(NAME, c, l)]
    for model in models:
        assert model.monotonic_without_suppression
        model.prepare(data)
        ok = np.flatnonzero(model.satisfied(classes))
        for i in ok:
            for j in ok[ok > i]:
                after, _ = from_matrix(merged(matrix, i, j))
                assert model.satisfied(after)[0], (model.describe(), matrix[i], matrix[j])


def test_many_classes_are_checked_without_per_class_loops() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.integers(0, 3, size=(100_000, 8))
    matrix[matrix.sum(axis=1) == 0, 0] = 1
    classes, data = from_matrix(matrix)
    model = RecursiveCLDiversity(NAME, 2, 3)
    model.prepare(data)
    expected = [reference_recursive(r, 2, 3) for r in matrix[:500]]
    assert model.satisfied(classes)[:500].tolist() == expected
