"""The pieces that make a large file's run fast (issue 31) give today's answers.

The shuffle's permutation is the stable argsort of the shuffle keys whichever path
sorts them (compiled or numpy): the written file for a seed never depends on it.
"""

from __future__ import annotations

import numpy as np
import pytest

from arxpy.engine.backends.base import shuffle_keys, shuffle_order
from arxpy.lattice import kernels

needs_kernels = pytest.mark.skipif(not kernels.compiled_available(),
                                   reason="the compiled kernels were not built here")


@pytest.fixture(params=[True, False], ids=["compiled", "numpy"])
def kernel_path(request, monkeypatch):
    if request.param and not kernels.compiled_available():
        pytest.skip("the compiled kernels were not built here")
    monkeypatch.setattr(kernels, "USE_COMPILED", request.param)
    return request.param


def _keys(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    full = np.iinfo(np.int64)
    if kind == "distinct":
        return rng.integers(full.min, full.max, n, dtype=np.int64, endpoint=True)
    if kind == "few ties":  # repeated hashed keys spread over the whole range
        pool = rng.integers(full.min, full.max, max(n // 4, 1), dtype=np.int64)
        return pool[rng.integers(0, len(pool), n)]
    if kind == "small":  # many ties around zero: crosses the sign bit
        return rng.integers(-3, 3, n).astype(np.int64)
    if kind == "one bucket":  # equal top bits: the per-bucket radix sort does the work
        return (rng.integers(0, 1 << 20, n).astype(np.int64) << 8) | np.int64(1 << 62)
    extremes = np.array([full.min, full.max, 0, -1, 1, full.min + 1, full.max - 1])
    return extremes[rng.integers(0, len(extremes), n)]


@pytest.mark.parametrize("kind", ["distinct", "few ties", "small", "one bucket", "extremes"])
@pytest.mark.parametrize("n", [0, 1, 2, 47, 49, 3000, 70_000])
def test_stable_argsort_is_numpys_stable_argsort(kernel_path, kind, n):
    keys = _keys(kind, n, np.random.default_rng(n))
    order = kernels.stable_argsort(keys)
    assert order.dtype == np.int64
    np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))


def test_stable_argsort_refuses_a_short_output():
    if not kernels.compiled_available():
        pytest.skip("the compiled kernels were not built here")
    from arxpy.lattice import _kernels

    with pytest.raises(ValueError, match="shorter"):
        _kernels.argsort(np.arange(5, dtype=np.int64), np.empty(4, dtype=np.int64))


@pytest.mark.parametrize("seed", [0, 7, 2**63 - 1])
def test_shuffle_order_is_the_sorted_shuffle_keys(kernel_path, seed):
    rows = 50_000
    expected = np.argsort(shuffle_keys(np.arange(rows), seed), kind="stable")
    np.testing.assert_array_equal(shuffle_order(rows, seed), expected)
