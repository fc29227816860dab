"""The generalization lattice (step 2 of the core loop).

A transformation is a vector of levels, one per quasi-identifier, each within the
attribute's ``[min_level, max_level]``. Transformations are ordered component-wise:
``a <= b`` when ``b`` generalizes every attribute at least as much as ``a``. Each node
has an integer index (mixed radix over the level ranges, first attribute most
significant), so per-node state lives in flat numpy arrays.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.encoding import EncodedData


class Lattice:
    """The full-domain generalization lattice between ``bottom`` and ``top``."""

    def __init__(self, names: Sequence[str], bottom: Sequence[int], top: Sequence[int]) -> None:
        self.names = list(names)
        self.bottom = tuple(int(v) for v in bottom)
        self.top = tuple(int(v) for v in top)
        if any(b > t for b, t in zip(self.bottom, self.top, strict=True)):
            raise ConfigurationError(f"Lattice bottom {self.bottom} lies above its top {self.top}.")
        self.widths = np.array([t - b + 1 for b, t in zip(self.bottom, self.top, strict=True)],
                               dtype=np.int64)
        # Place value of each attribute in the node index (mixed radix, first most
        # significant): one level up in attribute i moves the index by place_values[i].
        # Python ints where int64 would overflow (30 attributes; refused later, with a
        # message, not a warning).
        places = [1] * len(self.widths)
        for i in range(len(self.widths) - 2, -1, -1):
            places[i] = places[i + 1] * int(self.widths[i + 1])
        fits = not places or places[0] * int(self.widths[0]) < 2**63
        self.place_values = np.array(places, dtype=np.int64 if fits else object)

    @classmethod
    def for_data(cls, data: EncodedData) -> Lattice:
        qis = data.quasi_identifiers
        return cls([q.name for q in qis], [q.min_level for q in qis], [q.max_level for q in qis])

    @property
    def size(self) -> int:
        """Number of transformations (may be huge; a Python int)."""
        return int(np.prod([int(w) for w in self.widths], dtype=object)) if len(self.widths) else 1

    @property
    def max_height(self) -> int:
        """Height of the top: the sum of level steps above the bottom."""
        return int(self.widths.sum() - len(self.widths))

    def index(self, levels: Sequence[int]) -> int:
        """Index of a transformation in ``[0, size)``."""
        return int(self.indices(np.asarray(levels, dtype=np.int64)[None, :])[0])

    def indices(self, levels: np.ndarray) -> np.ndarray:
        """Index of each row of an (n, n_qi) level matrix (vectorized :meth:`index`)."""
        offsets = np.asarray(levels, dtype=np.int64) - np.asarray(self.bottom, dtype=np.int64)
        return offsets @ self.place_values if len(self.bottom) else \
            np.zeros(len(offsets), dtype=np.int64)

    def levels(self, index: int) -> tuple[int, ...]:
        """Inverse of :meth:`index`."""
        out = []
        for place, low in zip(self.place_values, self.bottom, strict=True):
            step, index = divmod(index, int(place))
            out.append(low + step)
        return tuple(out)

    def contains(self, levels: Sequence[int]) -> bool:
        return len(levels) == len(self.bottom) and all(
            b <= v <= t for b, v, t in zip(self.bottom, levels, self.top, strict=True))

    def nodes(self) -> np.ndarray:
        """(size, n_qi) level matrix in index order; only for lattices that fit in memory."""
        n = len(self.bottom)
        if not n:
            return np.zeros((1, 0), dtype=np.int64)
        # Column by column through a view of the lattice's shape: one broadcast write each,
        # several times faster than a meshgrid stacked and cast (a search builds this twice).
        out = np.empty((self.size, n), dtype=np.int64)
        grid = out.reshape(tuple(int(w) for w in self.widths) + (n,))
        for q, (low, high) in enumerate(zip(self.bottom, self.top, strict=True)):
            axis = [1] * n
            axis[q] = -1
            grid[..., q] = np.arange(low, high + 1, dtype=np.int64).reshape(axis)
        return out

    def height(self, levels: Sequence[int]) -> int:
        """Number of generalization steps above the bottom."""
        return int(sum(levels) - sum(self.bottom))

    def successors(self, levels: Sequence[int]) -> list[tuple[int, ...]]:
        """Direct generalizations: one attribute one level higher."""
        out = []
        for i, (v, t) in enumerate(zip(levels, self.top, strict=True)):
            if v < t:
                out.append(tuple(levels[:i]) + (v + 1,) + tuple(levels[i + 1:]))
        return out

    def predecessors(self, levels: Sequence[int]) -> list[tuple[int, ...]]:
        """Direct specializations: one attribute one level lower."""
        out = []
        for i, (v, b) in enumerate(zip(levels, self.bottom, strict=True)):
            if v > b:
                out.append(tuple(levels[:i]) + (v - 1,) + tuple(levels[i + 1:]))
        return out

    def to_dict(self) -> dict[str, object]:
        return {"names": self.names, "bottom": list(self.bottom), "top": list(self.top)}
