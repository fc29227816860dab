"""The transformations an explorer shows, as flat numpy arrays (no Qt).

Built once per result: for lattices up to :data:`~arxpy.engine.result.MAX_NODE_ARRAY`
nodes every transformation is a row (row = lattice index); above that only the checked
transformations are, and ``complete`` is False so views can say so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arxpy.engine.result import MAX_NODE_ARRAY, Result
from arxpy.lattice.lattice import Lattice
from arxpy.search import ANONYMOUS, NOT_ANONYMOUS, STATE_NAMES


@dataclass(frozen=True)
class LatticeNodes:
    """One row per transformation shown: levels, state, scores, suppressed records."""

    names: list[str]
    levels: np.ndarray  # (n, n_qi) int64
    index: np.ndarray  # (n,) lattice index, ascending
    states: np.ndarray  # (n,) int8 codes above
    scores: np.ndarray  # (n,) float64 raw score, NaN if unknown
    relative: np.ndarray  # (n,) float64 in [0, 1], NaN if unknown
    suppressed: np.ndarray  # (n,) int64, -1 if unknown
    bottom: tuple[int, ...]
    top: tuple[int, ...]
    lattice_size: int
    complete: bool  # every transformation of the lattice is a row
    optimum: int | None  # row of the optimum
    tied: tuple[int, ...] = ()  # rows of other checked transformations as good as the optimum

    @classmethod
    def from_result(cls, result: Result, max_nodes: int = MAX_NODE_ARRAY) -> LatticeNodes:
        lattice = result.lattice
        complete = lattice.size <= max_nodes
        if complete:
            levels = lattice.nodes()
            index = np.arange(lattice.size, dtype=np.int64)
            states = result.states_array()
            scores, suppressed = result.scores_array()
        else:
            levels, anonymous, scores, suppressed = result.checked_arrays()
            index = result.lattice.indices(levels)
            order = np.argsort(index, kind="stable")
            levels, index, scores, suppressed = levels[order], index[order], scores[order], \
                suppressed[order]
            states = np.where(anonymous[order], ANONYMOUS, NOT_ANONYMOUS).astype(np.int8)
        low, high = result.score_range
        span = high - low
        relative = np.clip((scores - low) / span, 0.0, 1.0) if span else \
            np.where(np.isnan(scores), np.nan, 0.0)
        nodes = cls(list(result.quasi_identifiers), levels, index, states, scores, relative,
                    suppressed, lattice.bottom, lattice.top, lattice.size, complete, None)
        best = result.optimum
        optimum = None if best is None else nodes.row_of(best.levels)
        tied = tuple(row for row in (nodes.row_of(t.levels) for t in result.tied_optima()[1:])
                     if row is not None)
        return cls(**{**nodes.__dict__, "optimum": optimum, "tied": tied})

    @property
    def n(self) -> int:
        return int(self.index.shape[0])

    @property
    def heights(self) -> np.ndarray:
        """Generalization steps above the bottom, per row."""
        return (self.levels - np.asarray(self.bottom, dtype=np.int64)).sum(axis=1)

    @property
    def max_height(self) -> int:
        return int(sum(self.top) - sum(self.bottom))

    def place_values(self) -> np.ndarray:
        """Index step of one level up in each attribute (see Lattice.place_values)."""
        return Lattice(self.names, self.bottom, self.top).place_values

    def rows_of_indices(self, indices: np.ndarray) -> np.ndarray:
        """Row of each lattice index, -1 where the transformation is not a row."""
        indices = np.asarray(indices, dtype=np.int64)
        if self.complete:
            inside = (indices >= 0) & (indices < self.lattice_size)
            return np.where(inside, indices, -1)
        pos = np.searchsorted(self.index, indices)
        pos = np.clip(pos, 0, max(self.n - 1, 0))
        found = (self.n > 0) & (self.index[pos] == indices) if self.n else \
            np.zeros(len(indices), bool)
        return np.where(found, pos, -1)

    def row_of(self, levels: tuple[int, ...] | None) -> int | None:
        """Row of ``levels``, or None if it is not shown."""
        if levels is None or self.n == 0:
            return None
        offsets = np.asarray(levels, np.int64) - np.asarray(self.bottom, np.int64)
        row = int(self.rows_of_indices(np.array([offsets @ self.place_values()]))[0])
        return None if row < 0 else row

    def levels_of(self, row: int) -> tuple[int, ...]:
        return tuple(int(v) for v in self.levels[row])

    def state_label(self, row: int) -> str:
        return STATE_NAMES[int(self.states[row])]
