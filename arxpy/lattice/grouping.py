"""Grouping records into equivalence classes, and roll-up (steps 3 and 4 of the core loop).

Grouping from the records costs one pass over every record. Roll-up computes the
classes of a transformation from the classes of any transformation below it: each
class key is mapped up level by level with a precomputed code map, equal keys are
merged, and sizes and the sparse per-class distributions are summed. That costs a
pass over the *classes*, which are usually far fewer than the records. Keys travel
packed, one exact mixed-radix int64 per class, so roll-up rewrites only the digits of
the attributes whose level changes, and the key matrix is decoded only for models that
read it. A bounded :class:`SnapshotCache` keeps checked
transformations as roll-up sources.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.data.codes import KEY_LIMIT, combine_codes
from arxpy.lattice.classes import Distribution, EquivalenceClasses, PackedKeys
from arxpy.lattice.encoding import EncodedData


@dataclass(frozen=True)
class _Grouped:
    """The result of merging rows with equal keys."""

    inverse: np.ndarray  # row -> class index
    n_classes: int
    packed: PackedKeys | None  # the classes' exact keys, when they fit one int64
    keys: np.ndarray | None = None  # (n_classes, n_qi) codes, when not packed


def _span(radices: Sequence[int]) -> int:
    """Number of possible keys (a Python int: it may exceed int64)."""
    return math.prod(int(r) for r in radices)


def _group_exact(key: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's group index and the distinct keys, for exact keys below ``span``."""
    if span <= max(4 * len(key), 1 << 16):
        # Small key space: a dense table beats hashing (and lists the keys sorted).
        if span > 32 * len(key) and len(key):
            # Few keys in a large table: sorting them is cheaper than scanning the table.
            ordered = np.sort(key)
            first = np.empty(len(key), dtype=bool)
            first[0] = True
            np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
            distinct = ordered[first]
        else:
            present = np.zeros(span, dtype=bool)
            present[key] = True
            distinct = present.nonzero()[0]
        lookup = np.empty(span, dtype=np.int64)
        lookup[distinct] = np.arange(len(distinct), dtype=np.int64)
        return lookup[key], distinct
    inverse, uniques = pd.factorize(key, sort=False)
    return inverse.astype(np.int64, copy=False), np.asarray(uniques, dtype=np.int64)


def _merge(columns: Sequence[np.ndarray], radices: Sequence[int]) -> _Grouped:
    """Merge rows whose codes agree in every column."""
    if not columns:
        raise ValueError("grouping needs at least one quasi-identifier")
    key, exact = combine_codes(columns, radices)
    if exact:
        inverse, distinct = _group_exact(key, _span(radices))
        return _Grouped(inverse, len(distinct), PackedKeys(distinct, tuple(radices)))
    inverse, uniques = pd.factorize(key, sort=False)
    inverse = inverse.astype(np.int64)
    # Any member represents its class: all members share the codes.
    member = np.empty(len(uniques), dtype=np.int64)
    member[inverse] = np.arange(len(key), dtype=np.int64)
    keys = np.asfortranarray(np.column_stack([c[member] for c in columns]))
    return _Grouped(inverse, len(uniques), None, keys)


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
        present = (summed > 0).nonzero()[0]
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


#: Memory for the roll-up root's key columns at other levels and their adjacent pairs
#: (:meth:`Grouper.roll_up`).
LEVEL_COLUMNS_BYTES = 64 << 20


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
        #: The last classes grouped from the records (the search's bottom, its usual
        #: roll-up root) and their key columns mapped up to other levels, kept while they
        #: fit ``LEVEL_COLUMNS_BYTES``: rolling up from the root then takes no lookups.
        self._root: EquivalenceClasses | None = None
        self._root_columns: dict[tuple[int, ...], np.ndarray] = {}
        self._root_bytes = 0
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
        # Decoded once here: grouping from the records is rare (the bottom, mostly), and a
        # source's key columns make rolling up many attributes at once cheaper.
        keys = merged.keys if merged.packed is None else merged.packed.decode()
        classes = EquivalenceClasses(levels, keys, sizes, distributions, sums, merged.packed)
        self._root, self._root_columns, self._root_bytes = classes, {}, 0
        return classes, merged.inverse

    def roll_up(self, source: EquivalenceClasses, levels: Sequence[int]) -> EquivalenceClasses:
        """Classes of ``levels`` from those of ``source`` (``source.levels <= levels``)."""
        levels = tuple(int(v) for v in levels)
        if any(low > high for low, high in zip(source.levels, levels, strict=True)):
            raise ValueError(f"cannot roll up from {source.levels} to {levels}")
        changed = sum(low != high for low, high in zip(source.levels, levels, strict=True))
        # Rewriting a digit costs about six array operations, recombining the key columns
        # two per attribute: with columns at hand and many changes, recombine.
        if source.packed is None or (source.keys_decoded and 6 * changed > 2 * len(levels)):
            return self._roll_up_columns(source, levels)
        key, radices = self._rewrite_digits(source.packed, source.levels, levels)
        inverse, distinct = _group_exact(key, _span(radices))
        return self._summed(source, levels, inverse, len(distinct), None,
                            PackedKeys(distinct, radices))

    def _rewrite_digits(self, packed: PackedKeys, low: tuple[int, ...],
                        high: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
        """``packed``'s keys (at levels ``low``) re-expressed at levels ``high``.

        key = (above * span(first..last) + middle) * place + below, where first..last are
        the quasi-identifiers whose level changes: ``above`` and ``below`` keep their
        digits, the middle is taken apart digit by digit, its changed digits are mapped
        up and it is reassembled in the new radices. (A floor division by a scalar, a
        multiply and a subtract cost less in numpy than one divmod.)
        """
        changed = [q for q, (a, b) in enumerate(zip(low, high, strict=True)) if a != b]
        key = packed.values
        if not changed:
            return key, packed.radices
        radices = list(packed.radices)
        first, last = changed[0], changed[-1]
        place = _span(radices[last + 1:])
        below = None
        if place > 1:
            head = key // place
            below = key - head * place
            key = head
        digits: dict[int, np.ndarray] = {}
        for q in range(last, first, -1):
            head = key // radices[q]
            digits[q] = key - head * radices[q]
            key = head
        if first > 0:
            head = key // radices[first]
            digits[first] = key - head * radices[first]
            key = head
        else:  # nothing above the first attribute
            digits[first], key = key, None
        for q in range(first, last + 1):
            digit = digits[q]
            if low[q] != high[q]:
                digit = self.up_map(q, low[q], high[q]).take(digit)
                radices[q] = self.data.quasi_identifiers[q].domain_size(high[q])
            key = digit if key is None else key * radices[q] + digit
        if below is not None:
            key = key * place + below
        return key, tuple(radices)

    def _roll_up_columns(self, source: EquivalenceClasses,
                         levels: tuple[int, ...]) -> EquivalenceClasses:
        """Roll-up over the key columns (when keys do not fit one packed int64, or many
        attributes change and the columns are at hand)."""
        radices = self.radices(levels)
        if source is self._root and _span(radices) < KEY_LIMIT:
            # The root's columns combined two by two (kept, bounded): half the work.
            key = self._root_pairs(levels, radices)
            inverse, distinct = _group_exact(key, _span(radices))
            return self._summed(source, levels, inverse, len(distinct), None,
                                PackedKeys(distinct, tuple(radices)))
        columns = [self._key_column(source, q, level) for q, level in enumerate(levels)]
        merged = _merge(columns, radices)
        return self._summed(source, levels, merged.inverse, merged.n_classes, merged.keys,
                            merged.packed)

    def _root_pairs(self, levels: tuple[int, ...], radices: Sequence[int]) -> np.ndarray:
        """The root's classes' exact key at ``levels`` (whose span fits an int64), built
        from pairs of adjacent key columns: the same mixed-radix number, in radices
        ``radices[q] * radices[q + 1]``."""
        assert self._root is not None
        key = None
        for q in range(0, len(levels), 2):
            if q + 1 < len(levels):
                part = self._root_columns.get((q, levels[q], levels[q + 1]))
                if part is None:
                    part = self._key_column(self._root, q, levels[q]) * radices[q + 1] + \
                        self._key_column(self._root, q + 1, levels[q + 1])
                    self._keep_root_column((q, levels[q], levels[q + 1]), part)
                radix = radices[q] * radices[q + 1]
            else:
                part, radix = self._key_column(self._root, q, levels[q]), radices[q]
            key = part if key is None else key * radix + part
        assert key is not None
        return key

    def _key_column(self, source: EquivalenceClasses, q: int, level: int) -> np.ndarray:
        """Quasi-identifier ``q``'s code at ``level`` for each class of ``source``."""
        low = source.levels[q]
        if low == level:
            return source.keys[:, q]
        if source is not self._root:
            return self.up_map(q, low, level).take(source.keys[:, q])
        column = self._root_columns.get((q, level))
        if column is None:
            column = self.up_map(q, low, level).take(source.keys[:, q])
            self._keep_root_column((q, level), column)
        return column

    def forget_level_columns(self) -> None:
        """Free the root's columns kept for roll-up (they come back when needed)."""
        self._root_columns, self._root_bytes = {}, 0

    def _keep_root_column(self, name: tuple[int, ...], column: np.ndarray) -> None:
        if self._root_bytes + column.nbytes <= LEVEL_COLUMNS_BYTES:
            self._root_columns[name] = column
            self._root_bytes += column.nbytes

    def _summed(self, source: EquivalenceClasses, levels: tuple[int, ...], inverse: np.ndarray,
                n_classes: int, keys: np.ndarray | None,
                packed: PackedKeys | None) -> EquivalenceClasses:
        """Classes of ``levels``: ``source``'s sizes, distributions and sums added up by
        ``inverse`` (source class -> new class)."""
        sizes = np.rint(np.bincount(inverse, weights=source.sizes,
                                    minlength=n_classes)).astype(np.int64)
        distributions = {
            name: _merge_distribution(inverse[d.class_index], d.value, d.count, d.n_values,
                                      n_classes)
            for name, d in source.distributions.items()
        }
        sums = {name: np.bincount(inverse, weights=values, minlength=n_classes)
                for name, values in source.sums.items()}
        self.rollups += 1
        return EquivalenceClasses(levels, keys, sizes, distributions, sums, packed)


def classes_nbytes(classes: EquivalenceClasses) -> int:
    """Memory held by the arrays of ``classes``, in bytes."""
    total = classes.sizes.nbytes
    if classes.keys_decoded:  # packed keys are decoded only when a model reads them
        total += classes.keys.nbytes
    if classes.packed is not None:
        total += classes.packed.values.nbytes
    for d in classes.distributions.values():
        total += d.class_index.nbytes + d.value.nbytes + d.count.nbytes
    total += sum(s.nbytes for s in classes.sums.values())
    return int(total)


def _as_key(levels: Sequence[int]) -> tuple[int, ...]:
    """``levels`` as a cache key (tuples of NumPy integers hash and compare like ints)."""
    return levels if isinstance(levels, tuple) else tuple(int(v) for v in levels)


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
        self._counts = [0] * self.max_entries  # classes per slot, for Python-level choices
        self._bytes = [0] * self.max_entries  # what each slot adds to ``nbytes``
        self._slot: dict[tuple[int, ...], int] = {}
        self._end = 0  # one past the highest slot ever used: lookups scan no further
        self._free: list[int] = []  # freed slots below ``_end`` (a heap: lowest first)
        self._tick = 0
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self._slot)

    def __contains__(self, levels: Sequence[int]) -> bool:
        return _as_key(levels) in self._slot

    def get(self, levels: Sequence[int]) -> EquivalenceClasses | None:
        slot = self._slot.get(_as_key(levels))
        if slot is None:
            return None
        self._touch(slot)
        return self._items[slot]

    def best_source(self, levels: Sequence[int]) -> EquivalenceClasses | None:
        """A cached snapshot below or at ``levels`` with few classes.

        Classes only merge going up, so a direct predecessor has no more classes than
        anything cached below it, and differs from ``levels`` in one attribute (the
        cheapest roll-up): the cached predecessor with the fewest classes is taken. Only
        when none is cached does the whole cache get scanned for the fewest classes.
        """
        if not self._slot:
            return None
        levels = _as_key(levels)
        best, fewest = None, 0
        for q, level in enumerate(levels):
            if not level:
                continue
            slot = self._slot.get(levels[:q] + (level - 1,) + levels[q + 1:])
            if slot is not None and (best is None or self._counts[slot] < fewest):
                best, fewest = slot, self._counts[slot]
        if best is None:
            end = self._end
            below = self._used[:end] > 0
            below &= (self._levels[:, :end] <= np.asarray(levels, dtype=np.int64)[:, None]
                      ).all(axis=0)
            if not below.any():
                return None
            best = int(below.nonzero()[0][np.argmin(self._classes[:end][below])])
        self._touch(best)
        return self._items[best]

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
        if self._free:
            slot = heapq.heappop(self._free)
        else:
            slot, self._end = self._end, self._end + 1
        self._items[slot] = classes
        self._levels[:, slot] = key
        self._classes[slot] = self._counts[slot] = classes.n_classes
        self._pinned[slot] = pinned
        self._slot[key] = slot
        self._bytes[slot] = size
        self.nbytes += size
        self._touch(slot)

    def remeasure(self, classes: EquivalenceClasses) -> None:
        """Account for arrays ``classes`` gained since it was put (a model decoded its
        keys), evicting others if the cache is now over its budget."""
        slot = self._slot.get(tuple(classes.levels))
        if slot is None or self._items[slot] is not classes:
            return
        size = classes_nbytes(classes)
        if size == self._bytes[slot]:
            return
        self.nbytes += size - self._bytes[slot]
        self._bytes[slot] = size
        while self.nbytes > self.max_bytes and self._evict():
            pass

    def clear(self) -> None:
        """Drop every snapshot that is not pinned."""
        for slot in np.flatnonzero((self._used > 0) & ~self._pinned).tolist():
            self._drop(slot)

    def _touch(self, slot: int) -> None:
        self._tick += 1
        self._used[slot] = self._tick

    def _evict(self) -> bool:
        candidates = np.flatnonzero((self._used > 0) & ~self._pinned)
        if len(candidates) == 0:
            return False
        self._drop(int(candidates[np.argmin(self._used[candidates])]))
        return True

    def _drop(self, slot: int) -> None:
        item = self._items[slot]
        assert item is not None
        self.nbytes -= self._bytes[slot]
        del self._slot[tuple(item.levels)]
        self._items[slot] = None
        self._used[slot] = 0
        self._pinned[slot] = False
        heapq.heappush(self._free, slot)
