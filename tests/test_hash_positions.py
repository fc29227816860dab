"""Positions of 64-bit hashes (the DuckDB engine's patients and dates): the compiled
look-up and the NumPy one give the same positions, -1 for what the table lacks."""

import numpy as np
import pytest

from arxpy.engine.backends import hash_positions
from arxpy.engine.backends.hash_positions import HashPositions

BOTH = [False, pytest.param(True, marks=pytest.mark.skipif(
    not hash_positions.COMPILED, reason="the compiled kernel was not built"))]


@pytest.mark.parametrize("compiled", BOTH)
def test_each_hash_is_found_at_its_position_and_others_nowhere(compiled):
    rng = np.random.default_rng(7)
    # many share their low bits, so they probe past each other (and wrap around)
    hashes = np.concatenate([
        rng.integers(0, 2**20, 300, dtype=np.uint64) << np.uint64(40) | np.uint64(1023),
        np.array([0, 2**64 - 1, 2**63, 1023, 1022], dtype=np.uint64),
        rng.integers(0, 2**63, 200, dtype=np.int64).view(np.uint64)])
    hashes = hashes[np.sort(np.unique(hashes, return_index=True)[1])]
    table = HashPositions(hashes, compiled)
    assert table.repeats == 0
    queries = np.concatenate([hashes, hashes[::-1]])
    np.testing.assert_array_equal(table.find(queries, compiled),
                                  np.r_[np.arange(len(hashes)), np.arange(len(hashes))[::-1]])
    absent = np.array([5, 2**64 - 2, 1024, 1021], dtype=np.uint64)
    assert not np.isin(absent, hashes).any()
    assert (table.find(absent, compiled) == -1).all()
    assert table.find(np.zeros(0, np.uint64), compiled).shape == (0,)


@pytest.mark.parametrize("compiled", BOTH)
def test_an_empty_table_finds_nothing(compiled):
    table = HashPositions(np.zeros(0, np.uint64), compiled)
    assert table.find(np.array([0, 7], np.uint64), compiled).tolist() == [-1, -1]


@pytest.mark.skipif(not hash_positions.COMPILED, reason="the compiled kernel was not built")
def test_the_kernel_refuses_a_table_of_no_power_of_two_and_short_outputs():
    from arxpy.lattice import _kernels

    hashes = np.arange(3, dtype=np.int64)
    with pytest.raises(ValueError, match="power of two"):
        _kernels.hash_find(np.full(6, -1, np.int64), hashes, np.empty(3, np.int64))
    with pytest.raises(ValueError, match="shorter"):
        _kernels.hash_find(np.full(8, -1, np.int64), hashes, np.empty(2, np.int64))
    with pytest.raises(ValueError, match="above the number of hashes"):
        _kernels.hash_insert(np.full(6, -1, np.int64), hashes)  # 3 slots for 3 hashes


@pytest.mark.parametrize("compiled", BOTH)
def test_hashes_that_repeat_are_counted_and_have_no_table(compiled, monkeypatch):
    monkeypatch.setattr(hash_positions, "COMPILED", compiled)
    repeated = np.array([3, 9, 3, 2**64 - 3, 9, 3], np.uint64)
    assert HashPositions(repeated).repeats == 3
    assert HashPositions.of(repeated) is None
    assert HashPositions.of(np.array([3, 9, 2**64 - 3], np.uint64)) is not None
