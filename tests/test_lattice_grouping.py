"""Grouping, roll-up and the snapshot cache; the lattice's indexing."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.encoding import encode
from arxpy.lattice.grouping import Grouper, SnapshotCache, classes_nbytes
from arxpy.lattice.lattice import Lattice

AGE = Hierarchy([[str(a), f"{a // 5 * 5}", f"{a // 20 * 20}", "*"] for a in range(0, 60)])
CITY = Hierarchy([[c, c[0], "*"] for c in ["ab", "ac", "bd", "be", "cf"]])


def encoded(seed: int, n: int):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(0, 60, n).astype(str),
                          "city": rng.choice(["ab", "ac", "bd", "be", "cf"], n),
                          "disease": rng.choice(["a", "b", "c", "d"], n)})
    definition = DataDefinition([
        AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("city", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("disease", AttributeType.SENSITIVE)])
    return frame, encode(frame, definition, {"age": AGE, "city": CITY}, tracked=["disease"])


def as_table(classes, data):
    """Classes as {(label, ...): (size, {value: count})} for comparison."""
    out = {}
    dist = classes.distributions["disease"]
    values = data.tracked["disease"].values
    for c in range(classes.n_classes):
        key = tuple(q.labels[lv][classes.keys[c, j]]
                    for j, (q, lv) in enumerate(zip(data.quasi_identifiers, classes.levels,
                                                            strict=True)))
        mask = dist.class_index == c
        out[key] = (int(classes.sizes[c]),
                    {values[v]: int(n) for v, n in zip(dist.value[mask], dist.count[mask],
                                                       strict=True)})
    return out


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 1000), n=st.integers(1, 400))
def test_roll_up_equals_grouping_from_records(seed, n):
    frame, data = encoded(seed, n)
    grouper = Grouper(data, ["disease"])
    for low in itertools.product(range(4), range(3)):
        source, _ = grouper.group_records(low)
        for high in itertools.product(range(low[0], 4), range(low[1], 3)):
            direct, inverse = grouper.group_records(high)
            rolled = grouper.roll_up(source, high)
            assert as_table(rolled, data) == as_table(direct, data)
            assert np.all(np.diff(rolled.distributions["disease"].class_index) >= 0)
            # Independent check against pandas on the generalized labels.
            labels = pd.DataFrame({q.name: frame[q.name].map(q.hierarchy.mapping(lv))
                                   for q, lv in zip(data.quasi_identifiers, high, strict=True)})
            sizes = labels.groupby(["age", "city"]).size()
            assert {k: v[0] for k, v in as_table(direct, data).items()} == sizes.to_dict()
            assert np.all(direct.sizes[inverse] >= 1)
    assert grouper.rollups > 0


def test_snapshot_cache_is_bounded_and_prefers_small_sources():
    _, data = encoded(0, 500)
    grouper = Grouper(data, ["disease"])
    bottom, _ = grouper.group_records((0, 0))
    cache = SnapshotCache(2, max_bytes=classes_nbytes(bottom) * 3, max_entries=4)
    cache.put(bottom, pinned=True)
    for levels in [(1, 0), (2, 0), (1, 1), (2, 1), (3, 2)]:
        cache.put(grouper.roll_up(bottom, levels))
        assert cache.nbytes <= cache.max_bytes and len(cache) <= 4
    assert cache.get((0, 0)) is bottom  # pinned, never evicted
    source = cache.best_source((3, 2))
    assert source is not None and source.n_classes == 1
    assert cache.best_source((0, 1)) is bottom
    cache.clear()
    assert len(cache) == 1


def test_lattice_indexing_and_neighbours():
    lattice = Lattice(["a", "b", "c"], [0, 1, 0], [2, 3, 1])
    assert lattice.size == 3 * 3 * 2
    nodes = lattice.nodes()
    assert len(nodes) == lattice.size
    for i, levels in enumerate(nodes):
        assert lattice.index(levels) == i and lattice.levels(i) == tuple(levels)
    assert lattice.successors((2, 1, 0)) == [(2, 2, 0), (2, 1, 1)]
    assert lattice.predecessors((0, 1, 0)) == []
    assert lattice.height(lattice.top) == lattice.max_height == 5
