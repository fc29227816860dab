"""The table-summing paths of roll-up and of hierarchical EMD give the sorting paths'
exact integers, so t-closeness decides every class alike, ties at t included.

Small (classes x values) key spaces are summed by ``bincount`` into a table, larger ones
by sorting (``dense_enough`` picks). Each property forces both paths on the same input
and compares them bit for bit; the EMDs are also checked against the transportation
problem solved as a linear program.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from conftest import classes_from_matrix as from_matrix
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice import grouping
from arxpy.privacy import tcloseness
from arxpy.privacy.tcloseness import TCloseness

NAME = "disease"
#: Eight values under a three-level tree (height 3).
TREE = Hierarchy([
    ["a1", "A", "AB", "*"], ["a2", "A", "AB", "*"], ["a3", "A", "AB", "*"],
    ["b1", "B", "AB", "*"], ["b2", "B", "AB", "*"],
    ["c1", "C", "CD", "*"], ["c2", "C", "CD", "*"], ["d1", "D", "CD", "*"],
])
VALUES = [row[0] for row in TREE.rows]


def forced(module, dense: bool):
    return mock.patch.object(module, "dense_enough", lambda cells, entries: dense)


def hierarchical_emd(matrix: np.ndarray, dense: bool) -> tuple[np.ndarray, TCloseness, object]:
    classes, data = from_matrix(matrix, VALUES, hierarchy=TREE)
    model = TCloseness(NAME, 1, "hierarchical")
    model.validate(data)
    model.prepare(data)
    with forced(tcloseness, dense):
        return model.emd(classes), model, classes


def tree_distance() -> np.ndarray:
    rows = TREE.rows
    n = len(rows)
    return np.array([[next(lv for lv in range(4) if rows[i][lv] == rows[j][lv]) / 3
                      for j in range(n)] for i in range(n)])


def transport_emd(p: np.ndarray, q: np.ndarray, d: np.ndarray) -> float:
    n = len(p)
    a_eq = np.vstack([np.kron(np.eye(n), np.ones(n)), np.kron(np.ones(n), np.eye(n))])
    result = linprog(d.ravel(), A_eq=a_eq, b_eq=np.concatenate([p, q]), bounds=(0, None),
                     method="highs")
    return float(result.fun)


matrices = st.lists(st.lists(st.integers(0, 6), min_size=8, max_size=8).filter(any),
                    min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(matrices)
def test_hierarchical_emd_is_the_same_on_both_paths(matrix) -> None:
    matrix = np.array(matrix)
    dense, model, classes = hierarchical_emd(matrix, dense=True)
    sorted_, _, _ = hierarchical_emd(matrix, dense=False)
    assert np.array_equal(dense, sorted_)  # bit for bit: the same integers, one division
    # Ties: t set to each class's own EMD accepts it on both paths, and only the classes
    # at or below that EMD.
    for t in np.unique(dense):
        model.t = float(t)
        for path in (True, False):
            with forced(tcloseness, path):
                assert np.array_equal(model.satisfied(classes), dense <= t)
    q = matrix.sum(axis=0) / matrix.sum()
    d = tree_distance()
    for row, got in zip(matrix[:4], dense[:4], strict=False):
        assert got == pytest.approx(transport_emd(row / row.sum(), q, d), abs=1e-9)


def test_hierarchical_tie_at_t_is_accepted() -> None:
    # Class 0 holds only a1, class 1 only d1; globally half and half. Moving a1's mass to
    # d1 crosses the root (distance 3/3), so EMD = 1/2 exactly for both classes.
    matrix = np.zeros((2, 8), dtype=np.int64)
    matrix[0, 0] = 3
    matrix[1, 7] = 3
    for dense in (True, False):
        emd, model, classes = hierarchical_emd(matrix, dense)
        assert emd.tolist() == [0.5, 0.5]
        model.t = 0.5
        with forced(tcloseness, dense):
            assert model.satisfied(classes).all()
        model.t = 0.4999999
        with forced(tcloseness, dense):
            assert not model.satisfied(classes).any()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 400), st.integers(1, 30), st.integers(1, 20))
def test_roll_up_merges_distributions_alike_on_both_paths(seed, entries, n_classes, n_values):
    rng = np.random.default_rng(seed)
    class_index = rng.integers(0, n_classes, entries)
    class_index[:n_classes] = np.arange(min(n_classes, entries))  # most classes touched
    value = rng.integers(0, n_values, entries)
    count = rng.integers(1, 50, entries)
    used = int(class_index.max()) + 1
    results = []
    for dense in (True, False):
        with forced(grouping, dense):
            results.append(grouping._merge_distribution(class_index, value, count, n_values,
                                                        used))
    a, b = results
    for field in ("class_index", "value", "count"):
        assert np.array_equal(getattr(a, field), getattr(b, field))
        assert getattr(a, field).dtype == np.int64
    # And the sums are right: the dense count matrix of the input.
    truth = np.zeros((used, n_values), dtype=np.int64)
    np.add.at(truth, (class_index, value), count)
    assert np.array_equal(a.dense(used), truth)
    assert np.all(a.count > 0)
