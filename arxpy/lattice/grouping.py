"""Grouping records into equivalence classes, and roll-up (steps 3 and 4 of the core loop).

Grouping from the records costs one pass over every record. Roll-up computes the
classes of a transformation from the classes of any transformation below it: each
class key is mapped up level by level with a precomputed code map, equal keys are
merged, and sizes and the sparse per-class distributions are summed. That costs a
pass over the *classes*, which are usually far fewer than the records. A bounded
:class:`SnapshotCache` keeps checked transformations as roll-up sources.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.data.codes import combine_codes
from arxpy.lattice.classes import Distribution, EquivalenceClasses
from arxpy.lattice.encoding import EncodedData


@dataclass(frozen=True)
class _Grouped:
    """The result of merging rows with equal keys."""

    inverse: np.ndarray  # row -> class index
    keys: np.ndarray  # (n_classes, n_qi) codes, Fortran order
    n_classes: int


def _decode(values: np.ndarray, radices: Sequence[int]) -> np.ndarray:
    """Invert :func:`_combine` for exact keys: (len(values), n_qi) codes."""
    out = np.empty((len(values), len(radices)), dtype=np.int64, order="F")
    rest = values  # divmod returns new arrays: the input is left alone
    for q in range(len(radices) - 1, 0, -1):
        rest, out[:, q] = np.divmod(rest, radices[q])
    if len(radices):
        out[:, 0] = rest  # exact keys: what is left is below the first radix
    return out


def _merge(columns: Sequence[np.ndarray], radices: Sequence[int]) -> _Grouped:
    """Merge rows whose codes agree in every column."""
    if not columns:
        raise ValueError("grouping needs at least one quasi-identifier")
    n = len(columns[0])
    key, exact = combine_codes(columns, radices)
    span = int(np.prod(np.asarray(radices, dtype=object)))
    if exact and span <= max(4 * n, 1 << 16):
        # Small key space: a dense table beats hashing.
        present = np.zeros(span, dtype=bool)
        present[key] = True
        distinct = np.flatnonzero(present)
        lookup = np.empty(span, dtype=np.int64)
        lookup[distinct] = np.arange(len(distinct), dtype=np.int64)
        return _Grouped(lookup[key], _decode(distinct, radices), len(distinct))
    inverse, uniques = pd.factorize(key, sort=False)
    inverse = inverse.astype(np.int64)
    if exact:
        keys = _decode(np.asarray(uniques, dtype=np.int64), radices)
    else:
        # Any member represents its class: all members share the codes.
        member = np.empty(len(uniques), dtype=np.int64)
        member[inverse] = np.arange(n, dtype=np.int64)
        keys = np.asfortranarray(np.column_stack([c[member] for c in columns]))
    return _Grouped(inverse, keys, len(uniques))


def dense_enough(cells: int, entries: int) -> bool:
    """Is a table of ``cells`` cleared and summed faster than ``entries`` hashed?"""
    return cells <= max(8 * entries, 1 << 18)


def _merge_distribution(class_index: np.ndarray, value: np.ndarray, count: np.ndarray | None,
                        n_values: int, n_classes: int) -> Distribution:
    """Sum counts of equal (class, value) pairs; result sorted by class, then value."""
    width = max(n_values, 1)
    pair = class_index * width + value
    if dense_enough(n_classes * width, len(pair)):
        # A (classes x values) table summed by one bincount (int64 when unweighted; float64
        # sums of integer counts stay exact), read off in pair order. nonzero on a boolean
        # mask is several times faster than on the float table itself.
        summed = np.bincount(pair, weights=count, minlength=n_classes * width)
        present = np.flatnonzero(summed > 0)
        owner = present // width
        return Distribution(
            class_index=owner,
            value=present - owner * width,  # cheaper than a second integer division
            count=summed[present].astype(np.int64, copy=False),
            n_values=n_values,
        )
    inverse, uniques = pd.factorize(pair, sort=False)
    summed = np.bincount(inverse, weights=count, minlength=len(uniques))
    order = np.argsort(uniques, kind="stable")
    uniques = np.asarray(uniques, dtype=np.int64)[order]
    owner = uniques // width
    return Distribution(
        class_index=owner,
        value=uniques - owner * width,
        count=summed[order].astype(np.int64, copy=False),
        n_values=n_values,
    )


class Grouper:
    """Computes equivalence classes of transformations for one encoded table.

    ``tracked`` names the tracked attributes whose distributions the classes carry.
    """

    def __init__(self, data: EncodedData, tracked: Sequence[str] = (),
                 record_sums: Mapping[str, np.ndarray] | None = None) -> None:
        self.data = data
        self.tracked = [data.tracked[name] for name in dict.fromkeys(tracked)]
        #: Per-row values whose per-class sums the classes carry (a histogram row's
        #: value covers all the records it stands for).
        self.record_sums = dict(record_sums or {})
        self._up: dict[tuple[int, int, int], np.ndarray] = {}
        #: Number of transformations computed by roll-up / from the records.
        self.rollups = 0
        self.groupings = 0

    def radices(self, levels: Sequence[int]) -> list[int]:
        """Domain size of each quasi-identifier at ``levels``."""
        return [q.domain_size(lv) for q, lv in zip(self.data.quasi_identifiers, levels,
                                                     strict=True)]

    def up_map(self, q: int, low: int, high: int) -> np.ndarray:
        """Code at level ``low`` -> code at level ``high`` for quasi-identifier ``q``."""
        cached = self._up.get((q, low, high))
        if cached is None:
            qi = self.data.quasi_identifiers[q]
            cached = np.zeros(qi.domain_size(low), dtype=np.int64)
            # The hierarchy is functional, so any row with a low label fixes its high label.
            cached[qi.level_maps[low]] = qi.level_maps[high]
            self._up[(q, low, high)] = cached
        return cached

    def record_codes(self, levels: Sequence[int]) -> list[np.ndarray]:
        """Per quasi-identifier, each record's code at ``levels``."""
        return [q.level_maps[lv][q.codes] for q, lv in zip(self.data.quasi_identifiers, levels,
                                                            strict=True)]

    def group_records(self, levels: Sequence[int]) -> tuple[EquivalenceClasses, np.ndarray]:
        """Classes of ``levels`` from the records, and each record's class index (each
        histogram row's, when the data are weighted)."""
        levels = tuple(int(v) for v in levels)
        merged = _merge(self.record_codes(levels), self.radices(levels))
        weights = self.data.weights  # histogram rows count their records
        sizes = self.data.row_counts(merged.inverse, merged.n_classes)
        distributions = {
            t.name: _merge_distribution(merged.inverse, t.codes, weights, len(t.values),
                                        merged.n_classes)
            for t in self.tracked
        }
        sums = {name: np.bincount(merged.inverse, weights=values, minlength=merged.n_classes)
                for name, values in self.record_sums.items()}
        self.groupings += 1
        return EquivalenceClasses(levels, merged.keys, sizes, distributions, sums), merged.inverse

    def roll_up(self, source: EquivalenceClasses, levels: Sequence[int]) -> EquivalenceClasses:
        """Classes of ``levels`` from those of ``source`` (``source.levels <= levels``)."""
        levels = tuple(int(v) for v in levels)
        columns = []
        for q, (low, high) in enumerate(zip(source.levels, levels, strict=True)):
            if low > high:
                raise ValueError(f"cannot roll up from {source.levels} to {levels}")
            column = source.keys[:, q]
            columns.append(column if low == high else self.up_map(q, low, high)[column])
        merged = _merge(columns, self.radices(levels))
        sizes = np.rint(np.bincount(merged.inverse, weights=source.sizes,
                                    minlength=merged.n_classes)).astype(np.int64)
        distributions = {
            name: _merge_distribution(merged.inverse[d.class_index], d.value, d.count, d.n_values,
                                      merged.n_classes)
            for name, d in source.distributions.items()
        }
        sums = {name: np.bincount(merged.inverse, weights=values, minlength=merged.n_classes)
                for name, values in source.sums.items()}
        self.rollups += 1
        return EquivalenceClasses(levels, merged.keys, sizes, distributions, sums)


def classes_nbytes(classes: EquivalenceClasses) -> int:
    """Memory held by the arrays of ``classes``, in bytes."""
    total = classes.keys.nbytes + classes.sizes.nbytes
    for d in classes.distributions.values():
        total += d.class_index.nbytes + d.value.nbytes + d.count.nbytes
    total += sum(s.nbytes for s in classes.sums.values())
    return int(total)


class SnapshotCache:
    """Bounded LRU cache of equivalence classes, used as roll-up sources.

    Holds at most ``max_bytes`` of arrays and ``max_entries`` snapshots; pinned
    snapshots (the search's bottom) are never evicted.
    """

    def __init__(self, n_qi: int, max_bytes: int = 256 << 20, max_entries: int = 4096) -> None:
        self.max_bytes = int(max_bytes)
        self.max_entries = int(max_entries)
        self._levels = np.zeros((n_qi, self.max_entries), dtype=np.int64)  # column per slot
        self._classes = np.zeros(self.max_entries, dtype=np.int64)
        self._used = np.zeros(self.max_entries, dtype=np.int64)  # last-use tick, 0 = free
        self._pinned = np.zeros(self.max_entries, dtype=bool)
        self._items: list[EquivalenceClasses | None] = [None] * self.max_entries
        self._slot: dict[tuple[int, ...], int] = {}
        self._end = 0  # one past the highest slot ever used: lookups scan no further
        self._tick = 0
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self._slot)

    def get(self, levels: Sequence[int]) -> EquivalenceClasses | None:
        slot = self._slot.get(tuple(int(v) for v in levels))
        if slot is None:
            return None
        self._touch(slot)
        return self._items[slot]

    def best_source(self, levels: Sequence[int]) -> EquivalenceClasses | None:
        """The cached snapshot below or at ``levels`` with the fewest classes."""
        if not self._slot:
            return None
        end = self._end
        below = self._used[:end] > 0
        below &= (self._levels[:, :end] <= np.asarray(levels, dtype=np.int64)[:, None]).all(axis=0)
        if not below.any():
            return None
        slot = int(np.flatnonzero(below)[np.argmin(self._classes[:end][below])])
        self._touch(slot)
        return self._items[slot]

    def put(self, classes: EquivalenceClasses, pinned: bool = False) -> None:
        key = tuple(classes.levels)
        if key in self._slot:
            self._touch(self._slot[key])
            return
        size = classes_nbytes(classes)
        if size > self.max_bytes and not pinned:
            return
        while self._slot and (len(self._slot) >= self.max_entries
                              or self.nbytes + size > self.max_bytes):
            if not self._evict():
                break
        if len(self._slot) >= self.max_entries:
            return
        slot = int(np.flatnonzero(self._used == 0)[0])
        self._end = max(self._end, slot + 1)
        self._items[slot] = classes
        self._levels[:, slot] = key
        self._classes[slot] = classes.n_classes
        self._pinned[slot] = pinned
        self._slot[key] = slot
        self.nbytes += size
        self._touch(slot)

    def clear(self) -> None:
        """Drop every snapshot that is not pinned."""
        while self._evict():
            pass

    def _touch(self, slot: int) -> None:
        self._tick += 1
        self._used[slot] = self._tick

    def _evict(self) -> bool:
        candidates = np.flatnonzero((self._used > 0) & ~self._pinned)
        if len(candidates) == 0:
            return False
        slot = int(candidates[np.argmin(self._used[candidates])])
        item = self._items[slot]
        assert item is not None
        self.nbytes -= classes_nbytes(item)
        del self._slot[tuple(item.levels)]
        self._items[slot] = None
        self._used[slot] = 0
        self._pinned[slot] = False
        return True
