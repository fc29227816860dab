"""The vectorized EMDs of all classes at once equal a plain per-class reference.

The references below follow the textbook definitions class by class in exact fractions
(Li et al., ICDE 2007, Section 4.2): half the L1 distance for equal distance, the sum of
the running differences for ordered distance, and ARX's bottom-up matching of extras
(``HierarchicalDistanceTCloseness``) for hierarchical distance. The engine's code shares
none of them: it sums positive excesses over sparse triples or per-level tables. Every
path the engine can take (tables or sorting, float or int64 sums) is forced on the same
input and must give the same bits.
"""

from __future__ import annotations

from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from conftest import classes_from_matrix
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.data.definition import DataKind, DataType
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.classes import Distribution, EquivalenceClasses
from arxpy.lattice.encoding import EncodedData, TrackedAttribute
from arxpy.privacy import tcloseness
from arxpy.privacy.tcloseness import TCloseness

NAME = "disease"


def random_case(seed: int) -> tuple[np.ndarray, list[str], Hierarchy]:
    """A count matrix with single-valued classes and values absent from the data, labels
    whose code order is not their numeric order, and a random tree of height 1 to 3."""
    rng = np.random.default_rng(seed)
    n_values, n_classes = int(rng.integers(1, 10)), int(rng.integers(1, 25))
    matrix = rng.integers(0, 5, size=(n_classes, n_values)) * (rng.random((n_classes, n_values))
                                                               < rng.uniform(0.2, 1.0))
    single = rng.random(n_classes) < 0.3
    matrix[single] = 0
    matrix[single, rng.integers(0, n_values, int(single.sum()))] = rng.integers(1, 7)
    empty = matrix.sum(axis=1) == 0
    matrix[empty, rng.integers(0, n_values, int(empty.sum()))] = 1
    labels = [str(v) for v in rng.permutation(n_values) * 10]
    groups = np.arange(n_values)
    columns = [labels]
    for _ in range(int(rng.integers(0, 3))):  # inner levels, each a function of the last
        groups = rng.integers(0, max(1, groups.max() // 2 + 1), groups.max() + 1)[groups]
        columns.append([f"g{len(columns)}-{g}" for g in groups])
    columns.append(["*"] * n_values)
    hierarchy = Hierarchy([list(row) for row in zip(*columns, strict=True)])
    return matrix, labels, hierarchy


def reference(matrix: np.ndarray, labels: list[str], hierarchy: Hierarchy,
              distance: str) -> list[Fraction]:
    """Per class, the EMD by the definition, in exact fractions."""
    total = matrix.sum()
    q = [Fraction(int(c), int(total)) for c in matrix.sum(axis=0)]
    out = []
    for row in matrix:
        p = [Fraction(int(c), int(row.sum())) for c in row]
        diff = [a - b for a, b in zip(p, q, strict=True)]
        if distance == "equal":
            out.append(sum(abs(d) for d in diff) / 2)
        elif distance == "ordered":
            present = sorted((int(labels[v]), v) for v in range(len(labels)) if q[v] > 0)
            running, cost = Fraction(0), Fraction(0)
            for _, v in present[:-1]:
                running += diff[v]
                cost += abs(running)
            out.append(cost / (len(present) - 1) if len(present) > 1 else Fraction(0))
        else:
            out.append(arx_hierarchical(diff, hierarchy))
    return out


def arx_hierarchical(diff: list[Fraction], hierarchy: Hierarchy) -> Fraction:
    """ARX's algorithm: bottom-up, each inner node at level i matches its children's
    positive and negative extras, costing i / H per unit moved, and passes the rest up."""
    rows = hierarchy.rows
    height = len(rows[0]) - 1
    extra = {(0, rows[v][0]): diff[v] for v in range(len(rows))}
    cost = Fraction(0)
    for level in range(1, height + 1):
        positive: dict[str, Fraction] = {}
        negative: dict[str, Fraction] = {}
        for row in rows:
            child = extra.pop((level - 1, row[level - 1]), None)
            if child is None:
                continue  # a sibling already moved it up
            target = positive if child > 0 else negative
            target[row[level]] = target.get(row[level], Fraction(0)) + abs(child)
        for node in set(positive) | set(negative):
            pos, neg = positive.get(node, Fraction(0)), negative.get(node, Fraction(0))
            cost += Fraction(level, height) * min(pos, neg)
            extra[(level, node)] = pos - neg
    return cost


def engine_emd(matrix, labels, hierarchy, distance, scale=1):
    classes, data = classes_from_matrix(matrix, labels, DataType(DataKind.INTEGER),
                                        hierarchy, NAME)
    if scale != 1:
        # The records as one weighted row per value (a histogram), every count scaled.
        dist = classes.distributions[NAME]
        dist = Distribution(dist.class_index, dist.value, dist.count * scale, dist.n_values)
        classes = EquivalenceClasses(classes.levels, classes.keys, classes.sizes * scale,
                                     {NAME: dist})
        tracked = TrackedAttribute(NAME, np.arange(len(labels)), labels,
                                   DataType(DataKind.INTEGER), hierarchy,
                                   weights=matrix.sum(axis=0) * scale)
        data = EncodedData(int(matrix.sum()) * scale, [], {NAME: tracked})
    model = TCloseness(NAME, 1, distance)
    model.validate(data)
    model.prepare(data)
    return model.emd(classes)


#: What picks each distance's alternative paths in arxpy.privacy.tcloseness.
SWITCHES = {"equal": None, "ordered": "cumulative_table_pays", "hierarchical": "dense_enough"}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(sorted(SWITCHES)))
def test_every_path_equals_the_per_class_reference(seed, distance) -> None:
    matrix, labels, hierarchy = random_case(seed)
    expected = [float(f) for f in reference(matrix, labels, hierarchy, distance)]
    results = []
    for table in (True, False):
        switch = SWITCHES[distance] or "dense_enough"  # equal has one path only
        with mock.patch.object(tcloseness, switch, lambda cells, entries, t=table: t):
            results.append(engine_emd(matrix, labels, hierarchy, distance))
    assert np.array_equal(results[0], results[1])  # the same integers, one division
    assert results[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("distance", sorted(SWITCHES))
def test_large_counts_take_the_int64_sums(distance) -> None:
    # N**2 above 2**53 (and N * size within int64): float sums would round, so the sums
    # stay in int64. EMD depends on frequencies only, so scaled counts give the same
    # distances.
    for seed in range(20):
        matrix, labels, hierarchy = random_case(seed)
        scale = -(-10**8 // int(matrix.sum()))
        scaled = engine_emd(matrix, labels, hierarchy, distance, scale=scale)
        assert (int(matrix.sum()) * scale) ** 2 > 2**53
        expected = [float(f) for f in reference(matrix, labels, hierarchy, distance)]
        assert scaled == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("distance", sorted(SWITCHES))
def test_one_value_in_the_data_is_distance_zero(distance) -> None:
    # Three values in the hierarchy, one in the data: every class equals the whole.
    hierarchy = Hierarchy([["0", "a", "*"], ["10", "a", "*"], ["20", "b", "*"]])
    matrix = np.array([[4, 0, 0], [1, 0, 0]])
    assert engine_emd(matrix, ["0", "10", "20"], hierarchy, distance).tolist() == [0.0, 0.0]


def test_hierarchical_telescoping_matches_arx_on_a_deep_tree() -> None:
    # Four levels with uneven fan-out: the level sums must match ARX's node-by-node costs.
    hierarchy = Hierarchy([
        ["0", "a", "A", "X", "*"], ["10", "a", "A", "X", "*"], ["20", "b", "A", "X", "*"],
        ["30", "c", "B", "X", "*"], ["40", "d", "C", "Y", "*"], ["50", "d", "C", "Y", "*"],
    ])
    labels = [row[0] for row in hierarchy.rows]
    matrix = np.array([[5, 0, 0, 0, 0, 1], [0, 0, 3, 3, 0, 0], [1, 1, 1, 1, 1, 1],
                       [0, 0, 0, 0, 0, 2], [2, 0, 0, 7, 1, 0]])
    expected = [float(f) for f in reference(matrix, labels, hierarchy, "hierarchical")]
    got = engine_emd(matrix, labels, hierarchy, "hierarchical")
    assert got == pytest.approx(expected, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_ordered_distance_on_codes_already_in_value_order(seed) -> None:
    # Codes that ascend with the values (as numbers' and dates' usually do) let the
    # sorting path skip its sort: it must still give the reference.
    matrix, labels, hierarchy = random_case(seed)
    ascending = np.argsort([int(label) for label in labels])
    matrix, labels = matrix[:, ascending], [labels[i] for i in ascending]
    expected = [float(f) for f in reference(matrix, labels, hierarchy, "ordered")]
    seen = []
    original = tcloseness.OrderedDomain.from_order.__func__

    def from_order(cls, order, counts):
        domain = original(cls, order, counts)
        seen.append(domain.codes_in_order)
        return domain

    with mock.patch.object(tcloseness, "cumulative_table_pays", lambda cells, entries: False), \
            mock.patch.object(tcloseness.OrderedDomain, "from_order", classmethod(from_order)):
        got = engine_emd(matrix, labels, hierarchy, "ordered")
    assert seen == [True]
    assert got == pytest.approx(expected, abs=1e-12)
