"""The independent audit (tests/audit.py) on small tables whose answers are worked out
by hand in the comments, so the checker the privacy tests rely on is itself proven."""

from __future__ import annotations

import math

import audit
import numpy as np
import pandas as pd
import pytest


def table(classes: dict[tuple, list]) -> pd.DataFrame:
    """Rows (age, zip, disease): each class key (age, zip) once per listed disease."""
    rows = [(*key, value) for key, values in classes.items() for value in values]
    return pd.DataFrame(rows, columns=["age", "zip", "disease"])


QI = ["age", "zip"]
S = ["disease"]


# ---- k-anonymity and distinct l-diversity --------------------------------------------


def test_k_is_the_smallest_class_and_l_the_fewest_distinct_values():
    # Classes of 4, 3 and 2 rows with 3, 2 and 2 distinct diseases.
    data = table({(30, "130"): ["flu", "flu", "cold", "cancer"],
                  (40, "140"): ["flu", "cold", "cold"],
                  (40, "130"): ["flu", "cancer"]})
    assert audit.k_anonymity(data, QI) == 2
    assert audit.k_anonymity(data, tuple(QI)) == 2  # a tuple of columns, not one key
    assert audit.k_anonymity(data, ["age"]) == 4  # age 30: 4 rows, age 40: 5 rows
    assert audit.l_diversity(data, QI, S) == 2
    # By age alone: age 30 holds flu, cold, cancer; age 40 flu, cold, cancer too.
    assert audit.l_diversity(data, ["age"], S) == 3


def test_a_missing_quasi_identifier_value_is_a_class_of_its_own():
    # The NaN row would vanish from a groupby that drops missing keys (k = 3, l = 2).
    data = table({(30, "130"): ["flu", "cold", "flu"],
                  (40, "140"): ["flu", "cold", "cold"],
                  (np.nan, "140"): ["flu"]})
    assert audit.k_anonymity(data, QI) == 1
    assert audit.l_diversity(data, QI, S) == 1
    # (NaN, 130) and (NaN, 140) are two classes, not one "missing" class.
    data = table({(np.nan, "130"): ["flu", "flu"], (np.nan, "140"): ["cold", "cold", "cold"]})
    assert audit.k_anonymity(data, QI) == 2
    assert audit.l_diversity(data, QI, S) == 1


def test_l_diversity_takes_the_worst_sensitive_attribute():
    data = table({(30, "130"): ["flu", "cold", "cancer"], (40, "140"): ["flu", "cold", "flu"]})
    data["drug"] = ["a", "a", "a", "b", "c", "d"]  # 1 distinct drug in the first class
    assert audit.l_diversity(data, QI, ["disease"]) == 2
    assert audit.l_diversity(data, QI, ["drug"]) == 1
    assert audit.l_diversity(data, QI, ["disease", "drug"]) == 1


# ---- entropy l-diversity -------------------------------------------------------------


def test_entropy_l_is_exp_of_the_smallest_class_entropy_as_a_float():
    # Class A: a, b, c, d once each: H = ln 4. Class B: a, a, b, c: shares 1/2, 1/4, 1/4,
    # H = 1/2 ln 2 + 2 * 1/4 ln 4 = 3/2 ln 2, exp(H) = 2^(3/2) = 2 sqrt 2 = 2.83 (an
    # int-truncating checker says 2).
    data = table({(30, "130"): ["a", "b", "c", "d"], (40, "140"): ["a", "a", "b", "c"]})
    assert audit.entropy_l_diversity(data, QI, S) == pytest.approx(2 * math.sqrt(2),
                                                                   rel=1e-12)
    # Only class A: exp(ln 4) is 4 up to rounding, not truncated to 3.
    only_a = data.iloc[:4]
    assert audit.entropy_l_diversity(only_a, QI, S) == pytest.approx(4.0, rel=1e-12)
    # A class with one value has entropy 0: l = 1.
    data = table({(30, "130"): ["a", "b"], (40, "140"): ["c", "c"]})
    assert audit.entropy_l_diversity(data, QI, S) == pytest.approx(1.0, rel=1e-12)


# ---- t-closeness ---------------------------------------------------------------------


def test_t_closeness_equal_distance_for_strings():
    # Table: flu 4/8, cold 3/8, cancer 1/8.
    # A (flu, flu): 0.5 * (1/2 + 3/8 + 1/8) = 1/2.
    # B (flu, flu, cold, cold, cold, cancer): 0.5 * (|1/3 - 1/2| + |1/2 - 3/8| + |1/6 - 1/8|)
    #   = 0.5 * (4/24 + 3/24 + 1/24) = 1/6.
    data = table({(30, "130"): ["flu", "flu"],
                  (40, "140"): ["flu", "flu", "cold", "cold", "cold", "cancer"]})
    assert audit.t_closeness(data, QI, S) == pytest.approx(0.5, abs=1e-12)
    # Without class A the single remaining class is the table: t = 0.
    assert audit.t_closeness(data.iloc[2:], QI, S) == pytest.approx(0.0, abs=1e-12)


def test_t_closeness_ordered_distance_for_numbers():
    # Sorted distinct values 9 < 10 < 100 (m = 3; as strings they would sort 10, 100, 9).
    # Table: 1/4, 1/2, 1/4.
    # A (9, 100): q - p = (1/4, -1/2, 1/4), cumulative (1/4, -1/4, 0): (1/2) / 2 = 1/4.
    # B (10, 10): q - p = (-1/4, 1/2, -1/4), cumulative (-1/4, 1/4, 0): 1/4.
    data = table({(30, "130"): [9, 100], (40, "140"): [10, 10]})
    assert audit.t_closeness(data, QI, S) == pytest.approx(0.25, abs=1e-12)
    # The same values as strings: equal distance, 0.5 * (1/4 + 1/2 + 1/4) = 1/2.
    as_text = data.astype({"disease": str})
    assert audit.t_closeness(as_text, QI, S) == pytest.approx(0.5, abs=1e-12)


def test_t_closeness_ordered_distance_with_unequal_classes():
    # Values 1..4 (m = 4), table counts 2, 1, 1, 2: p = (1/3, 1/6, 1/6, 1/3).
    # A (1, 1, 2, 4): q - p = (1/6, 1/12, -1/6, -1/12), cumulative (1/6, 1/4, 1/12, 0):
    #   (1/2) / 3 = 1/6.
    # B (3, 4): q - p = (-1/3, -1/6, 1/3, 1/6), cumulative (-1/3, -1/2, -1/6, 0): 1 / 3.
    data = table({(30, "130"): [1, 1, 2, 4], (40, "140"): [3, 4]})
    assert audit.t_closeness(data, QI, S) == pytest.approx(1 / 3, abs=1e-12)
    # With a second (string) attribute the worse of the two counts: here 1/2 for it.
    data["drug"] = ["a", "a", "a", "a", "b", "b"]  # A all a, B all b; table 4/6, 2/6
    # A: 0.5 * (1/3 + 1/3) = 1/3; B: 0.5 * (2/3 + 2/3) = 2/3.
    assert audit.t_closeness(data, QI, ["disease", "drug"]) == pytest.approx(2 / 3, abs=1e-12)


# ---- beta-likeness and delta-disclosure ---------------------------------------------


@pytest.fixture
def likeness_table() -> pd.DataFrame:
    # Table: flu 6/10, cold 4/10.
    # A (flu, cold, cold, cold): flu 1/4, cold 3/4.
    # B (flu, flu, flu, cold):   flu 3/4, cold 1/4.
    # C (flu, flu):              flu 1,   cold 0.
    return table({(30, "130"): ["flu", "cold", "cold", "cold"],
                  (40, "140"): ["flu", "flu", "flu", "cold"],
                  (50, "150"): ["flu", "flu"]})


def test_basic_beta_likeness_is_the_largest_relative_gain(likeness_table):
    # Gains (q - p) / p above 0: A cold (3/4 - 2/5) / (2/5) = 7/8, B flu 1/4, C flu 2/3.
    # C's absent cold has gain -1; counting |gain| would give 1.
    assert audit.basic_beta_likeness(likeness_table, QI, S) == pytest.approx(7 / 8, abs=1e-12)


def test_delta_disclosure_is_the_largest_absolute_log_ratio(likeness_table):
    # |ln(q / p)|: A flu ln(12/5) = 0.875, A cold ln(15/8) = 0.629, B flu ln(5/4),
    # B cold ln(8/5), C flu ln(5/3); C's absent cold is left out (it would be infinite).
    # Without the absolute value the largest would be ln(15/8).
    delta = audit.delta_disclosure(likeness_table, QI, S)
    assert delta == pytest.approx(math.log(12 / 5), abs=1e-12)


def test_models_against_the_global_distribution_vanish_on_a_single_class():
    # One class holding the whole table: q = p for every value.
    data = table({(30, "130"): ["flu", "flu", "cold", "cold", "cold", "cancer"]})
    assert audit.k_anonymity(data, QI) == 6
    assert audit.l_diversity(data, QI, S) == 3
    # H = -(1/3 ln 1/3 + 1/2 ln 1/2 + 1/6 ln 1/6)
    entropy = math.log(3) / 3 + math.log(2) / 2 + math.log(6) / 6
    assert audit.entropy_l_diversity(data, QI, S) == pytest.approx(math.exp(entropy),
                                                                   rel=1e-12)
    assert audit.t_closeness(data, QI, S) == pytest.approx(0.0, abs=1e-12)
    assert audit.basic_beta_likeness(data, QI, S) == pytest.approx(0.0, abs=1e-12)
    assert audit.delta_disclosure(data, QI, S) == pytest.approx(0.0, abs=1e-12)


def test_wildcard_k_anonymity_counts_a_star_as_any_value():
    # (1, x): both (1, x) and (1, *); (1, *): those, itself and (*, y); (2, y): itself and
    # (*, y), the fewest; (*, y): (1, *), (2, y) and itself.
    table = pd.DataFrame({"a": ["1", "1", "1", "2", "*"], "b": ["x", "x", "*", "y", "y"]})
    assert audit.wildcard_k_anonymity(table, ["a", "b"]) == 2
    assert audit.wildcard_k_anonymity(table.iloc[:4], ["a", "b"]) == 1
    assert audit.wildcard_k_anonymity(table.iloc[:3], ["a", "b"]) == 3
    assert audit.wildcard_average_risk(table, ["a", "b"]) == pytest.approx(
        (1 / 3 + 1 / 3 + 1 / 4 + 1 / 2 + 1 / 3) / 5)
