"""Grouping, roll-up and the snapshot cache; the lattice's indexing."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.classes import EquivalenceClasses
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


def as_table(classes, data, tracked="disease"):
    """Classes as {(label, ...): (size, {value: count})} for comparison."""
    out = {}
    dist = classes.distributions[tracked]
    values = data.tracked[tracked].values
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


def _wide_table(seed: int, n: int, domains: list[int], weighted: bool):
    """A random table whose quasi-identifier ``q<i>`` has values 0..domains[i]-1 and a
    hierarchy value -> value // 3 -> value // 9 -> *; a sensitive ``s``; optional weights."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"q{i}": rng.integers(0, d, n).astype(str)
                          for i, d in enumerate(domains)})
    frame["s"] = rng.choice(["x", "y", "z"], n)
    hierarchies = {f"q{i}": Hierarchy([[str(v), f"{v // 3}", f"{v // 9}", "*"]
                                       for v in range(d)]) for i, d in enumerate(domains)}
    definition = DataDefinition(
        [AttributeDefinition(f"q{i}", AttributeType.QUASI_IDENTIFYING)
         for i in range(len(domains))] + [AttributeDefinition("s", AttributeType.SENSITIVE)])
    weights = rng.integers(1, 5, n).astype(np.int64) if weighted else None
    data = encode(frame, definition, hierarchies, tracked=["s"], weights=weights)
    return frame, hierarchies, data, weights


def _brute_force(frame, hierarchies, levels, weights):
    """{(label, ...): (records, {sensitive value: records})} by pandas on the labels."""
    names = list(hierarchies)
    labels = pd.DataFrame({name: frame[name].map(hierarchies[name].mapping(lv))
                           for name, lv in zip(names, levels, strict=True)})
    labels["s"] = frame["s"]
    labels["w"] = 1 if weights is None else weights
    out = {}
    for key, group in labels.groupby(names):
        per_value = group.groupby("s")["w"].sum()
        out[tuple(key)] = (int(group["w"].sum()), {v: int(c) for v, c in per_value.items()})
    return out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 300), n_qi=st.integers(2, 5),
       weighted=st.booleans(), decode=st.lists(st.booleans(), min_size=8, max_size=8))
def test_chained_roll_ups_equal_a_brute_force_grouping(seed, n, n_qi, weighted, decode):
    """Roll-up from rolled-up classes (packed keys, digits rewritten) and from classes
    whose keys a model decoded (columns recombined), along random chains with random
    jumps, matches pandas grouping the generalized labels, histogram weights included."""
    rng = np.random.default_rng(seed)
    domains = [int(d) for d in rng.integers(2, 40, n_qi)]
    frame, hierarchies, data, weights = _wide_table(seed, n, domains, weighted)
    grouper = Grouper(data, ["s"])
    source, _ = grouper.group_records((0,) * n_qi)
    tops = [q.height - 1 for q in data.quasi_identifiers]
    for step in range(8):
        if source.levels == tuple(tops):
            break
        levels = list(source.levels)
        for q in rng.choice(n_qi, size=int(rng.integers(1, n_qi + 1)), replace=False):
            levels[q] = int(rng.integers(levels[q], tops[q] + 1))
        rolled = grouper.roll_up(source, levels)
        assert rolled.packed is not None and not rolled.keys_decoded
        assert as_table(rolled, data, "s") == _brute_force(frame, hierarchies, levels, weights)
        assert np.all(np.diff(rolled.distributions["s"].class_index) >= 0)
        if decode[step]:
            rolled.keys  # noqa: B018  (as a model reading keys would)
        source = rolled


def test_keys_too_wide_to_pack_take_the_column_path():
    """Seven attributes of 600 values: their bottom keys do not fit one int64, so the
    bottom carries its key matrix; roll-ups still match a brute force and pack once the
    generalized keys fit."""
    frame, hierarchies, data, _ = _wide_table(3, 700, [600] * 7, weighted=False)
    grouper = Grouper(data, ["s"])
    bottom, _ = grouper.group_records((0,) * 7)
    assert bottom.packed is None and bottom.keys_decoded
    middle = grouper.roll_up(bottom, (1, 0, 0, 0, 0, 0, 0))  # 200 * 600**6 > 2**62
    assert middle.packed is None
    assert as_table(middle, data, "s") == _brute_force(frame, hierarchies, middle.levels, None)
    high = grouper.roll_up(middle, (2, 2, 2, 2, 1, 1, 0))  # 67**4 * 200**2 * 600 fits
    assert high.packed is not None
    assert as_table(high, data, "s") == _brute_force(frame, hierarchies, high.levels, None)
    top = grouper.roll_up(high, (3,) * 7)
    assert top.n_classes == 1 and top.sizes.tolist() == [700]


def test_cache_accounts_for_decoded_keys_and_prefers_a_predecessor():
    _, _, data, _ = _wide_table(1, 400, [30, 30, 30], weighted=False)
    grouper = Grouper(data, ["s"])
    bottom, _ = grouper.group_records((0, 0, 0))
    cache = SnapshotCache(3)
    cache.put(bottom, pinned=True)
    left = grouper.roll_up(bottom, (1, 0, 0))
    right = grouper.roll_up(bottom, (0, 2, 0))
    cache.put(left)
    cache.put(right)
    before = cache.nbytes
    assert not left.keys_decoded
    left.keys  # noqa: B018
    cache.remeasure(left)
    assert cache.nbytes == before + left.keys.nbytes
    kept = right.derive("twice the sizes", lambda c: 2.0 * c.sizes)  # a model's derived array
    assert right.derive("twice the sizes", lambda c: c.sizes) is kept  # computed once
    cache.remeasure(right)
    assert cache.nbytes == before + left.keys.nbytes + kept.nbytes
    # Two cached direct predecessors of (1, 2, 0): the one with fewer classes is taken.
    step = grouper.roll_up(left, (1, 1, 0))
    cache.put(step)
    chosen = cache.best_source((1, 2, 0))
    assert chosen in (right, step)
    assert chosen.n_classes == min(right.n_classes, step.n_classes)
    # No cached direct predecessor of (1, 2, 2): the scan finds the fewest classes below.
    below = (bottom, left, right, step)
    assert cache.best_source((1, 2, 2)).n_classes == min(c.n_classes for c in below)
    assert cache.best_source((0, 0, 1)) is bottom
    cache.clear()
    assert len(cache) == 1 and cache.get((0, 0, 0)) is bottom
    assert cache.nbytes == classes_nbytes(bottom)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_cache_source_scan_matches_brute_force_at_any_level(data):
    # The scan compares levels packed a byte each while every cached level is below 128,
    # and plainly once one is not: both must pick what a brute-force search picks.
    n_qi = data.draw(st.integers(1, 10))
    high = data.draw(st.sampled_from([3, 127, 200]))
    level = st.integers(0, high)
    entries = data.draw(st.lists(st.tuples(*[level] * n_qi), min_size=1, max_size=25,
                                 unique=True))
    cache = SnapshotCache(n_qi)
    held = {}
    for count, levels in enumerate(entries, start=1):
        snapshot = EquivalenceClasses(levels, np.zeros((count, n_qi), dtype=np.int64),
                                      np.ones(count, dtype=np.int64), {}, {})
        cache.put(snapshot)
        held[levels] = snapshot
    for _ in range(10):
        target = data.draw(st.tuples(*[level] * n_qi))
        below = [lv for lv in held if all(a <= b for a, b in zip(lv, target, strict=True))]
        direct = [lv for lv in below if sum(b - a for a, b in zip(lv, target, strict=True)) == 1]
        pool = direct or below
        chosen = cache.best_source(target)
        if not pool:
            assert chosen is None
        else:
            assert chosen is held[min(pool, key=lambda lv: held[lv].n_classes)]
