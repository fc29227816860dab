"""t-closeness with equal, ordered and hierarchical ground distance.

Hand-worked examples come from Li, Li, Venkatasubramanian (ICDE 2007); the property
tests compare every EMD with an independent checker: the transportation problem
solved as a linear program with the ground distance written out pair by pair.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import classes_from_matrix as from_matrix
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from arxpy.data.definition import DataKind, DataType
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy.registry import privacy_model_from_dict
from arxpy.privacy.tcloseness import TCloseness

NAME = "disease"




def build(rows, data_type=None, hierarchy=None):
    """Classes (sorted by key) from (qi_key, sensitive_value) rows."""
    keys = sorted({k for k, _ in rows})
    values = list(dict.fromkeys(v for _, v in rows))
    matrix = np.zeros((len(keys), len(values)), dtype=np.int64)
    for key, value in rows:
        matrix[keys.index(key), values.index(value)] += 1
    return from_matrix(matrix, values, data_type, hierarchy)


def emd_of(model, classes, data) -> np.ndarray:
    model.validate(data)
    model.prepare(data)
    return model.emd(classes)


# ---- the t-closeness paper's examples -----------------------------------------------

SALARIES = ["3000", "4000", "5000", "6000", "7000", "8000", "9000", "10000", "11000"]
SALARY_ROWS = (
    [("1", s) for s in ("3000", "4000", "5000")]
    + [("2", s) for s in ("6000", "8000", "11000")]
    + [("3", s) for s in ("7000", "9000", "10000")]
)


def test_ordered_distance_salary_example() -> None:
    # Li et al.: {3k, 4k, 5k} is 0.375 from the uniform {3k..11k}, {6k, 8k, 11k} is 0.167.
    # Third class {7k, 9k, 10k}: r = p - q is +2/9 on its values, -1/9 elsewhere; the
    # cumulative sums in ninths are -1,-2,-3,-4,-2,-3,-1,+1,0: sum |.| = 17/9, / 8 = 17/72.
    classes, data = build(SALARY_ROWS, DataType(DataKind.INTEGER))
    emd = emd_of(TCloseness("disease", 0.375, "ordered"), classes, data)
    assert emd == pytest.approx([0.375, 1 / 6, 17 / 72])
    # The bound is inclusive (ARX: fails only if distance > t).
    model = TCloseness(NAME, 0.375, "ordered")
    model.prepare(data)
    assert model.satisfied(classes).tolist() == [True, True, True]
    model = TCloseness(NAME, 0.374, "ordered")
    model.prepare(data)
    assert model.satisfied(classes).tolist() == [False, True, True]


def test_ordered_distance_sorts_numerically_not_lexicographically() -> None:
    # As strings "10000" < "11000" < "3000" < ...: a different order, different distances.
    classes, data = build(SALARY_ROWS)
    assert emd_of(TCloseness(NAME, 1, "ordered"), classes, data)[0] != pytest.approx(0.375)
    classes, data = build(SALARY_ROWS, DataType(DataKind.DECIMAL))
    assert emd_of(TCloseness(NAME, 1, "ordered"), classes, data)[0] == pytest.approx(0.375)


def test_ordered_distance_uses_the_ordinal_order() -> None:
    ordinal = DataType(DataKind.ORDINAL, order=("low", "medium", "high"))
    rows = [("a", "low"), ("a", "medium"), ("b", "high"), ("b", "high")]
    classes, data = build(rows, ordinal)
    # Global q = (1/4, 1/4, 1/2); class a p = (1/2, 1/2, 0): r cumulative 1/4, 1/2, 0 -> 3/4 / 2.
    # Class b p = (0, 0, 1): r cumulative -1/4, -1/2, 0 -> 3/4 / 2.
    assert emd_of(TCloseness(NAME, 1, "ordered"), classes, data) == pytest.approx([3 / 8, 3 / 8])


def test_ordered_distance_sorts_dates_chronologically() -> None:
    # d1 < d2 < d3 < d4 in time; as strings the order is d3, d2, d4, d1.
    dates = DataType(DataKind.DATE, format="%d.%m.%Y")
    rows = [("a", "31.12.2019"), ("a", "15.06.2020"), ("b", "01.01.2021"), ("b", "20.03.2021")]
    classes, data = build(rows, dates)
    # Class a = (1/2, 1/2, 0, 0) against 1/4 each: cumulative 1/4, 1/2, 1/4, 0 -> 1 / 3.
    assert emd_of(TCloseness(NAME, 1, "ordered"), classes, data) == pytest.approx([1 / 3] * 2)
    classes, data = build(rows)
    assert emd_of(TCloseness(NAME, 1, "ordered"), classes, data) == pytest.approx([1 / 6] * 2)
    _, data = build([("a", "31.12.2019"), ("b", "2019-12-31")], dates)
    with pytest.raises(ConfigurationError, match="'2019-12-31'"):
        TCloseness(NAME, 1, "ordered").validate(data)


DISEASES = ["gastric ulcer", "gastritis", "stomach cancer", "colitis", "diarrhea",
            "colon cancer", "flu", "pneumonia", "bronchitis"]
DISEASE_HIERARCHY = Hierarchy(
    [[d, "stomach diseases", "digestive system diseases", "*"] for d in DISEASES[:3]]
    + [[d, "colon diseases", "digestive system diseases", "*"] for d in DISEASES[3:6]]
    + [[d, "respiratory infection", "respiratory system diseases", "*"] for d in DISEASES[6:]]
)
DISEASE_ROWS = (
    [("1", d) for d in DISEASES[:3]]
    + [("2", d) for d in ("colitis", "diarrhea", "flu")]
    + [("3", d) for d in ("colon cancer", "pneumonia", "bronchitis")]
)


def test_hierarchical_distance_disease_example() -> None:
    # Height H = 3; global 1/9 each. Class 1 = the three stomach diseases, extras +2/9 each:
    #  level 1: stomach pos 6/9 neg 0 -> 0; colon, respiratory infection only negative -> 0;
    #  level 2: digestive gets +6/9 (stomach) and -3/9 (colon): 2/3 * 3/9 = 2/9;
    #  level 3: root gets +3/9 (digestive) and -3/9 (respiratory): 3/3 * 3/9 = 3/9.  Total 5/9.
    # Class 2 = colitis, diarrhea, flu:
    #  level 1: colon (+2/9, +2/9, -1/9) -> 1/3 * 1/9; respiratory (+2/9, -1/9, -1/9) -> 1/3 * 2/9;
    #  level 2: digestive (stomach -3/9, colon +3/9) -> 2/3 * 3/9; level 3: 0.  Total 1/3.
    classes, data = build(DISEASE_ROWS, hierarchy=DISEASE_HIERARCHY)
    emd = emd_of(TCloseness(NAME, 0.5, "hierarchical"), classes, data)
    assert emd[:2] == pytest.approx([5 / 9, 1 / 3])
    model = TCloseness(NAME, 0.5, "hierarchical")
    model.prepare(data)
    assert model.satisfied(classes).tolist() == [False, True, True]


def test_equal_distance_is_half_the_l1_distance() -> None:
    # Class 1 of the disease example: 1/2 (3 * (1/3 - 1/9) + 6 * 1/9) = 2/3.
    classes, data = build(DISEASE_ROWS)
    assert emd_of(TCloseness(NAME, 0.5, "equal"), classes, data) == pytest.approx([2 / 3] * 3)
    classes, data = build([("a", "x"), ("a", "y"), ("b", "x"), ("b", "x")])
    # Global (3/4, 1/4); a (1/2, 1/2): 1/2 (1/4 + 1/4); b (1, 0): 1/2 (1/4 + 1/4).
    assert emd_of(TCloseness(NAME, 0.25), classes, data) == pytest.approx([0.25, 0.25])


def test_single_value_domain_has_distance_zero() -> None:
    classes, data = build([("a", "5"), ("b", "5")], DataType(DataKind.INTEGER))
    for distance in ("equal", "ordered"):
        assert emd_of(TCloseness(NAME, 0, distance), classes, data).tolist() == [0.0, 0.0]


# ---- validation ----------------------------------------------------------------------


@pytest.mark.parametrize(("t", "distance", "message"), [
    (-0.1, "equal", "between 0 and 1"), (1.5, "equal", "between 0 and 1"),
    ("0.2", "equal", "must be a number"), (0.2, "euclidean", "Unknown ground distance"),
])
def test_impossible_parameters_are_refused(t, distance, message) -> None:
    with pytest.raises(ConfigurationError, match=message):
        TCloseness(NAME, t, distance)


def test_hierarchical_needs_a_hierarchy() -> None:
    _, data = build(DISEASE_ROWS)
    with pytest.raises(ConfigurationError, match="needs a generalization hierarchy"):
        TCloseness(NAME, 0.2, "hierarchical").validate(data)


def test_hierarchy_must_cover_the_data() -> None:
    partial = Hierarchy([r for r in DISEASE_HIERARCHY.rows if r[0] != "flu"])
    _, data = build(DISEASE_ROWS, hierarchy=partial)
    with pytest.raises(ConfigurationError, match=r"no row for 1 value.*'flu'"):
        TCloseness(NAME, 0.2, "hierarchical").validate(data)


def test_hierarchy_must_be_a_tree() -> None:
    rows = [list(r) for r in DISEASE_HIERARCHY.rows]
    rows[0][2] = "respiratory system diseases"  # 'stomach diseases' gets two parents
    _, data = build(DISEASE_ROWS, hierarchy=Hierarchy(rows))
    with pytest.raises(ConfigurationError, match="'stomach diseases' at level 1"):
        TCloseness(NAME, 0.2, "hierarchical").validate(data)


def test_hierarchy_must_have_a_single_top() -> None:
    two_tops = Hierarchy([r[:3] for r in DISEASE_HIERARCHY.rows])  # digestive | respiratory
    _, data = build(DISEASE_ROWS, hierarchy=two_tops)
    with pytest.raises(ConfigurationError, match="single value"):
        TCloseness(NAME, 0.2, "hierarchical").validate(data)


def test_ordered_values_must_parse() -> None:
    _, data = build([("a", "3000"), ("a", "n/a"), ("b", "?")], DataType(DataKind.INTEGER))
    with pytest.raises(ConfigurationError, match=r"2 values of the data cannot be read as integer"):
        TCloseness(NAME, 0.2, "ordered").validate(data)
    ordinal = DataType(DataKind.ORDINAL, order=("low", "high"))
    _, data = build([("a", "low"), ("b", "medium")], ordinal)
    with pytest.raises(ConfigurationError, match="'medium'"):
        TCloseness(NAME, 0.2, "ordered").validate(data)


def test_round_trip_description_and_flags() -> None:
    model = TCloseness(NAME, 0.2, "hierarchical")
    assert privacy_model_from_dict(model.to_dict()) == model
    assert model.describe() == "0.2-closeness with hierarchical distance for 'disease'"
    assert TCloseness(NAME, 1).describe() == "1-closeness with equal distance for 'disease'"
    assert model.sensitive_attribute == NAME
    assert not TCloseness.monotonic_with_suppression
    assert TCloseness.monotonic_without_suppression


# ---- independent checker: the transportation problem --------------------------------

VALUES = ["5", "10", "20", "40", "80", "160"]  # numeric order = column order
TREE = Hierarchy([
    ["5", "A", "X", "*"], ["10", "A", "X", "*"], ["20", "A", "X", "*"],
    ["40", "B", "X", "*"], ["80", "B", "X", "*"], ["160", "C", "Y", "*"],
])


def ground_distance(distance: str, present: np.ndarray) -> np.ndarray:
    n = len(VALUES)
    if distance == "equal":
        return 1.0 - np.eye(n)
    if distance == "ordered":
        rank = np.cumsum(present) - 1  # positions among the values in the data
        m = max(int(present.sum()) - 1, 1)
        return np.abs(rank[:, None] - rank[None, :]) / m
    rows = TREE.rows
    d = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            d[i, j] = next(lv for lv in range(4) if rows[i][lv] == rows[j][lv]) / 3
    return d


def transport_emd(p: np.ndarray, q: np.ndarray, d: np.ndarray) -> float:
    n = len(p)
    rows = np.kron(np.eye(n), np.ones(n))  # sum_j f_ij = p_i
    cols = np.kron(np.ones(n), np.eye(n))  # sum_i f_ij = q_j
    result = linprog(d.ravel(), A_eq=np.vstack([rows, cols]), b_eq=np.concatenate([p, q]),
                     bounds=(0, None), method="highs")
    return float(result.fun)


count_matrices = st.lists(
    st.lists(st.integers(0, 5), min_size=6, max_size=6).filter(any), min_size=1, max_size=4
)


@settings(max_examples=40, deadline=None)
@given(count_matrices, st.sampled_from(["equal", "ordered", "hierarchical"]))
def test_emd_solves_the_transportation_problem(matrix, distance) -> None:
    matrix = np.array(matrix)
    classes, data = from_matrix(matrix, VALUES, DataType(DataKind.INTEGER), TREE)
    emd = emd_of(TCloseness(NAME, 1, distance), classes, data)
    q = matrix.sum(axis=0) / matrix.sum()
    d = ground_distance(distance, matrix.sum(axis=0) > 0)
    for row, got in zip(matrix, emd, strict=True):
        assert got == pytest.approx(transport_emd(row / row.sum(), q, d), abs=1e-9)
    # EMD lies in [0, 1], so t = 1 accepts every class.
    assert np.all((emd >= 0) & (emd <= 1 + 1e-12))
    model = TCloseness(NAME, 1, distance)
    model.prepare(data)
    assert model.satisfied(classes).all()


@settings(max_examples=40, deadline=None)
@given(count_matrices, st.sampled_from(["equal", "ordered", "hierarchical"]),
       st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5]))
def test_merging_close_classes_stays_close(matrix, distance, t) -> None:
    matrix = np.array(matrix)
    classes, data = from_matrix(matrix, VALUES, DataType(DataKind.INTEGER), TREE)
    model = TCloseness(NAME, t, distance)
    model.validate(data)
    model.prepare(data)
    ok = np.flatnonzero(model.satisfied(classes))
    for i in ok:
        for j in ok[ok > i]:
            merged = np.array([matrix[i] + matrix[j]])
            after, _ = from_matrix(merged, VALUES, DataType(DataKind.INTEGER), TREE)
            assert model.satisfied(after)[0]


def test_many_classes_match_a_dense_computation() -> None:
    rng = np.random.default_rng(11)
    matrix = rng.integers(0, 4, size=(50_000, 6))
    matrix[matrix.sum(axis=1) == 0, 2] = 1
    classes, data = from_matrix(matrix, VALUES, DataType(DataKind.INTEGER), TREE)
    p = matrix / matrix.sum(axis=1, keepdims=True)
    q = matrix.sum(axis=0) / matrix.sum()
    ordered = np.abs(np.cumsum(p - q, axis=1)).sum(axis=1) / 5
    equal = np.abs(p - q).sum(axis=1) / 2
    assert emd_of(TCloseness(NAME, 1, "ordered"), classes, data) == pytest.approx(ordered)
    assert emd_of(TCloseness(NAME, 1, "equal"), classes, data) == pytest.approx(equal)
