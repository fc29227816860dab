"""The Flash replay's shortcuts give what ARX's own comparisons give."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from arxpy.search.flash import _ranks


def _java_compare(a: np.ndarray, b: np.ndarray) -> int:
    """``FLASHStrategy.compare`` written out: the first criterion that is less or greater
    decides (NaN is neither)."""
    for x, y in zip(a, b, strict=True):
        if x < y:
            return -1
        if x > y:
            return 1
    return 0


@pytest.mark.parametrize("seed", range(3))
def test_ranks_sort_as_the_strategy_compares(seed):
    """Stable sorts by rank and by the comparator agree, with many ties, -0.0 beside 0.0
    and a column NaN throughout (an attribute with one level)."""
    rng = np.random.default_rng(seed)
    criteria = rng.integers(0, 3, size=(300, 3)).astype(float) / 2
    criteria[rng.random(300) < 0.2, 0] = -0.0
    criteria[:, 1] = np.nan if seed == 2 else criteria[:, 1]
    rank = _ranks(criteria)
    order = list(rng.permutation(300))
    by_java = sorted(order, key=functools.cmp_to_key(
        lambda a, b: _java_compare(criteria[a], criteria[b])))
    assert sorted(order, key=rank.__getitem__) == by_java
    for a, b in rng.integers(0, 300, size=(200, 2)).tolist():
        assert (rank[a] > rank[b]) - (rank[a] < rank[b]) == \
            _java_compare(criteria[a], criteria[b])


def test_ranks_refuse_criteria_that_are_no_order():
    """A column NaN for some nodes only makes Java's comparison intransitive: no ranks."""
    criteria = np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 2.0]])
    assert _ranks(criteria) is None
