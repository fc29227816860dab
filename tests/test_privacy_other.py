"""delta-disclosure, basic and enhanced beta-likeness, and the average-risk threshold.

Expected verdicts are worked out by hand from the definitions (Brickell & Shmatikov
2008 with ARX's log2 and strict bound; Cao & Karras 2012; ARX's average risk =
classes / records of the released output).
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
from arxpy.privacy.disclosure import DeltaDisclosure
from arxpy.privacy.likeness import BasicBetaLikeness, EnhancedBetaLikeness
from arxpy.privacy.registry import privacy_model_from_dict
from arxpy.privacy.risk_threshold import AverageRisk, average_risk

NAME = "disease"




def check(model, matrix) -> list[bool]:
    classes, data = from_matrix(matrix)
    model.validate(data)
    model.prepare(data)
    return model.satisfied(classes).tolist()


def sizes_only(sizes) -> EquivalenceClasses:
    sizes = np.asarray(sizes, dtype=np.int64)
    return EquivalenceClasses((0,), np.arange(sizes.size).reshape(-1, 1), sizes)


# ---- delta-disclosure -------------------------------------------------------------------


def test_delta_disclosure_uses_log2_and_a_strict_bound() -> None:
    # Global (1/2, 1/2). Class 0 = (1, 0): log2(1 / (1/2)) = 1 for v0; v1 is absent and
    # ignored (as in ARX). Class 1 = (0, 1) likewise; class 2 = (1/2, 1/2): 0.
    matrix = [[2, 0], [0, 2], [1, 1]]
    assert check(DeltaDisclosure(NAME, 1), matrix) == [False, False, True]
    assert check(DeltaDisclosure(NAME, 1.001), matrix) == [True, True, True]


def test_delta_disclosure_of_each_class() -> None:
    # Global (3/7, 4/7). Class 0 = (1/3, 2/3): |log2(7/9)| = 0.363, log2(7/6) = 0.222.
    # Class 1 = (0, 1): log2(7/4) = 0.807. Class 2 = (1, 0): log2(7/3) = 1.222.
    classes, data = from_matrix([[1, 2], [0, 2], [2, 0]])
    model = DeltaDisclosure(NAME, 1)
    model.prepare(data)
    expected = [math.log2(9 / 7), math.log2(7 / 4), math.log2(7 / 3)]
    assert model.class_disclosure(classes) == pytest.approx(expected)
    assert model.satisfied(classes).tolist() == [True, True, False]


def test_delta_disclosure_is_not_monotonic() -> None:
    # Why ARX flags it non-monotonic: merging classes 0 and 1 above dilutes v0 to 1/5,
    # |log2(7/15)| = 1.100 >= 1, though both parts passed.
    matrix = [[1, 2], [0, 2], [2, 0]]
    merged_classes, data = from_matrix([[1, 4], [2, 0]])
    model = DeltaDisclosure(NAME, 1)
    model.prepare(data)
    assert check(DeltaDisclosure(NAME, 1), matrix)[:2] == [True, True]
    assert model.satisfied(merged_classes).tolist() == [False, False]
    assert not DeltaDisclosure.monotonic_with_suppression
    assert not DeltaDisclosure.monotonic_without_suppression


# ---- beta-likeness -----------------------------------------------------------------------


def test_basic_beta_likeness_bounds_the_relative_gain() -> None:
    # Global (1/4, 3/4). Class 0 = (1/2, 1/2): gain of v0 (1/2 - 1/4) / (1/4) = 1;
    # class 1 = (0, 1): gain of v1 = 1/3.
    matrix = [[1, 1], [0, 2]]
    assert check(BasicBetaLikeness(NAME, 1), matrix) == [True, True]
    assert check(BasicBetaLikeness(NAME, 0.99), matrix) == [False, True]
    assert check(BasicBetaLikeness(NAME, 0.3), matrix) == [False, False]
    classes, data = from_matrix(matrix)
    model = BasicBetaLikeness(NAME, 1)
    model.prepare(data)
    assert model.class_gain(classes) == pytest.approx([1, 1 / 3])


def test_enhanced_beta_likeness_tightens_the_bound_for_frequent_values() -> None:
    # Global (1/2, 1/4, 1/4) over 8 records; -ln q = (0.693, 1.386, 1.386).
    # A (2/3, 1/3, 0): gains 1/3, 1/3.  B (1/2, 0, 1/2): gain of v2 = 1.
    # C (0, 1/2, 1/2): gains 1, 1.     D (1, 0, 0): gain of v0 = 1.
    matrix = [[2, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0]]
    assert check(BasicBetaLikeness(NAME, 1), matrix) == [True, True, True, True]
    assert check(BasicBetaLikeness(NAME, 0.99), matrix) == [True, False, False, False]
    # Enhanced, beta 1: bounds (0.693, 1, 1); only D's frequent v0 breaks its bound.
    assert check(EnhancedBetaLikeness(NAME, 1), matrix) == [True, True, True, False]
    assert check(EnhancedBetaLikeness(NAME, 0.5), matrix) == [True, False, False, False]


def test_beta_likeness_flags_follow_arx() -> None:
    for cls in (BasicBetaLikeness, EnhancedBetaLikeness):
        assert not cls.monotonic_with_suppression
        assert cls.monotonic_without_suppression


count_matrices = st.integers(1, 5).flatmap(
    lambda n_values: st.lists(
        st.lists(st.integers(0, 6), min_size=n_values, max_size=n_values).filter(any),
        min_size=1, max_size=6,
    )
)


@settings(max_examples=60, deadline=None)
@given(count_matrices, st.sampled_from([0.1, 0.5, 1, 2, 4]))
def test_beta_likeness_agrees_with_the_definition_and_merges(matrix, beta) -> None:
    matrix = np.array(matrix)
    classes, data = from_matrix(matrix)
    q = matrix.sum(axis=0) / matrix.sum()
    present = q > 0
    p = (matrix / matrix.sum(axis=1, keepdims=True))[:, present]
    gain = (p - q[present]) / q[present]
    for model, bound in [(BasicBetaLikeness(NAME, beta), beta),
                         (EnhancedBetaLikeness(NAME, beta), np.minimum(beta, -np.log(q[present])))]:
        model.prepare(data)
        verdict = model.satisfied(classes)
        assert verdict.tolist() == (gain <= bound + 1e-12).all(axis=1).tolist()
        # Monotonic with generalization: merged satisfying classes still satisfy.
        ok = np.flatnonzero(verdict)
        for i in ok:
            for j in ok[ok > i]:
                merged, _ = from_matrix([matrix[i] + matrix[j]])
                assert model.satisfied(merged)[0]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: DeltaDisclosure(NAME, 0), "delta must be positive"),
    (lambda: DeltaDisclosure(NAME, -1), "delta must be positive"),
    (lambda: BasicBetaLikeness(NAME, 0), "beta must be positive"),
    (lambda: EnhancedBetaLikeness(NAME, -0.5), "beta must be positive"),
    (lambda: EnhancedBetaLikeness(NAME, None), "must be a number"),
    (lambda: AverageRisk(0), "above 0 and below 1"),
    (lambda: AverageRisk(1), "above 0 and below 1"),
    (lambda: AverageRisk(-0.2), "above 0 and below 1"),
])
def test_impossible_parameters_are_refused(make, message) -> None:
    with pytest.raises(ConfigurationError, match=message):
        make()


def test_untracked_attribute_is_refused() -> None:
    _, data = from_matrix([[1, 1]])
    for model in (DeltaDisclosure("age", 1), BasicBetaLikeness("age", 1),
                  EnhancedBetaLikeness("age", 1)):
        with pytest.raises(ConfigurationError, match="'age' to be a sensitive attribute"):
            model.validate(data)


def test_round_trips_and_descriptions() -> None:
    models = [DeltaDisclosure(NAME, 1.5), BasicBetaLikeness(NAME, 2),
              EnhancedBetaLikeness(NAME, 0.5), AverageRisk(0.05)]
    for model in models:
        assert privacy_model_from_dict(model.to_dict()) == model
    assert [m.describe() for m in models] == [
        "1.5-disclosure privacy for 'disease'",
        "basic-2-likeness for 'disease'",
        "enhanced-0.5-likeness for 'disease'",
        "average re-identification risk at most 0.05",
    ]
    assert [m.sensitive_attribute for m in models] == [NAME, NAME, NAME, None]


# ---- average re-identification risk ----------------------------------------------------


def test_average_risk_is_classes_over_records_of_the_output() -> None:
    classes = sizes_only([1, 2, 3, 4])
    everything = np.ones(4, dtype=bool)
    assert average_risk(classes.sizes, everything) == pytest.approx(0.4)  # 4 / 10
    model = AverageRisk(0.4)
    assert model.satisfied(classes).tolist() == [True] * 4
    assert model.dataset_satisfied(classes, everything)
    assert not AverageRisk(0.39).dataset_satisfied(classes, everything)
    # Suppressed records count neither as records nor as a class: 2 / 7.
    kept = np.array([False, False, True, True])
    assert average_risk(classes.sizes, kept) == pytest.approx(2 / 7)
    assert AverageRisk(0.29).dataset_satisfied(classes, kept)
    # Nothing released: no defined risk, not accepted (as in ARX).
    assert not AverageRisk(0.5).dataset_satisfied(classes, np.zeros(4, dtype=bool))


def test_enforce_suppresses_the_smallest_classes_within_the_budget() -> None:
    classes = sizes_only([3, 1, 4, 2])
    everything = np.ones(4, dtype=bool)
    model = AverageRisk(0.3)
    # 4/10 -> drop size 1: 3/9 = 0.333 -> drop size 2: 2/7 = 0.286 <= 0.3.
    assert model.enforce(classes, everything, budget=3).tolist() == [True, False, True, False]
    # Over the budget ARX still ends where its search ends (3 records for a budget of
    # 2), and the transformation then fails the suppression limit, as in ARX.
    assert model.enforce(classes, everything, budget=2).tolist() == [True, False, True, False]
    assert model.enforce(classes, everything, budget=100).tolist() == [True, False, True, False]
    # Already satisfied: nothing changes.
    assert AverageRisk(0.5).enforce(classes, everything, budget=10).tolist() == [True] * 4


def test_average_risk_flags_follow_arx() -> None:
    assert AverageRisk.monotonic_with_suppression
    assert AverageRisk.monotonic_without_suppression
