"""Positions of 64-bit hashes (issue 32): a record's patient found among the distinct
patients by DuckDB's ``hash`` of the identifier, in place of two MACs a record.

An open-addressing table of (hash, position) pairs, twice as many slots as hashes,
built once; looked up a chunk at a time by the compiled kernel
(``arxpy.lattice._kernels.hash_find``, the GIL released, the next slots fetched ahead;
``hash_insert`` builds it) or, where it was not built, by the same linear probing in
NumPy (same answers).
"""

from __future__ import annotations

import os

import numpy as np

try:
    from arxpy.lattice import _kernels
except ImportError:  # no compiler when arxpy was installed
    _kernels = None

#: Look up with the compiled kernel (``ARXPY_NUMPY_KERNELS=1`` turns it off, as it turns
#: off the other kernels).
COMPILED = _kernels is not None and hasattr(_kernels, "hash_find") \
    and not os.environ.get("ARXPY_NUMPY_KERNELS")
_EMPTY = -1  # the position of a free slot


class HashPositions:
    """Where each of some distinct 64-bit hashes is (its position in the given order)."""

    __slots__ = ("_mask", "_table", "repeats")

    def __init__(self, hashes: np.ndarray, compiled: bool | None = None) -> None:
        """``hashes``: uint64 (or int64) values, distinct (:meth:`of` checks that: a
        repeated one is counted in :attr:`repeats`). ``compiled`` None: the kernel where
        built."""
        hashes = np.ascontiguousarray(hashes).view(np.int64)
        size = 1 << max(int(2 * len(hashes) - 1).bit_length(), 1)  # at most half full
        self._mask = np.int64(size - 1)
        self._table = np.full((size, 2), _EMPTY, dtype=np.int64)
        self.repeats = 0
        if COMPILED if compiled is None else compiled:  # 10^6 hashes: 20 ms against 0.7 s
            self.repeats = _kernels.hash_insert(self._table.reshape(-1), hashes)
            return
        waiting = np.arange(len(hashes), dtype=np.int64)
        slots = hashes & self._mask
        while len(waiting):  # one hash takes each free slot it wants; the rest probe on
            free = np.flatnonzero(self._table[slots, 1] == _EMPTY)
            self._table[slots[free], 1] = waiting[free]  # whichever write lands, once
            placed = np.zeros(len(waiting), dtype=bool)
            placed[free] = self._table[slots[free], 1] == waiting[free]
            self._table[slots[placed], 0] = hashes[waiting[placed]]
            waiting, slots = waiting[~placed], (slots[~placed] + 1) & self._mask
        self.repeats = int((self.find(hashes, False) != np.arange(len(hashes))).sum())

    @classmethod
    def of(cls, hashes: np.ndarray) -> HashPositions | None:
        """The table of ``hashes``; None when one repeats (each must have one position)."""
        table = cls(hashes)
        return table if not table.repeats else None

    def find(self, hashes: np.ndarray, compiled: bool | None = None) -> np.ndarray:
        """The position of each hash (int64), -1 for a hash not in the table.
        ``compiled`` None: the kernel where built."""
        hashes = np.ascontiguousarray(hashes).view(np.int64)
        if COMPILED if compiled is None else compiled:
            out = np.empty(len(hashes), dtype=np.int64)
            _kernels.hash_find(self._table.reshape(-1), hashes, out)
            return out
        return self._probed(hashes)

    def _probed(self, hashes: np.ndarray) -> np.ndarray:
        out = np.full(len(hashes), _EMPTY, dtype=np.int64)
        waiting = np.arange(len(hashes))
        slots = hashes & self._mask
        while len(waiting):  # found, or an empty slot ends the search; the rest probe on
            stored, position = self._table[slots, 0], self._table[slots, 1]
            found = (stored == hashes[waiting]) & (position != _EMPTY)
            out[waiting[found]] = position[found]
            going = ~found & (position != _EMPTY)
            waiting, slots = waiting[going], (slots[going] + 1) & self._mask
        return out
