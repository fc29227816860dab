"""Grouping records into equivalence classes, and roll-up (steps 3 and 4 of the core loop).

Grouping from the records costs one pass over every record. Roll-up computes the
classes of a transformation from the classes of any transformation below it: each
class key is mapped up level by level with a precomputed code map, equal keys are
merged, and sizes and the sparse per-class distributions are summed. That costs a
pass over the *classes*, which are usually far fewer than the records. Keys travel
packed, one exact mixed-radix int64 per class, so roll-up rewrites only the digits of
the attributes whose level changes, and the key matrix is decoded only for models that
read it. Numbering keys, adding up sizes, summing distributions and rewriting digits
go through :mod:`arxpy.lattice.kernels` (compiled where built, else numpy). A bounded
:class:`SnapshotCache` keeps checked transformations as roll-up sources.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.data.codes import KEY_LIMIT, combine_codes, decode_codes
from arxpy.lattice.classes import (
    Distribution,
    EquivalenceClasses,
    PackedKeys,
    PopulationClasses,
)
from arxpy.lattice.encoding import EncodedData, weighted_counts
from arxpy.lattice.kernels import group_beside, group_keys, pack_columns, rewrite_keys, sum_pairs


@dataclass(frozen=True)
class _Grouped:
    """The result of merging rows with equal keys."""

    inverse: np.ndarray  # row -> class index
    sizes: np.ndarray  # the rows' weights summed per class (int64)
    packed: PackedKeys | None  # the classes' exact keys, when they fit one int64
    keys: np.ndarray | None = None  # (n_classes, n_qi) codes, when not packed

    @property
    def n_classes(self) -> int:
        return len(self.sizes)


def _span(radices: Sequence[int]) -> int:
    """Number of possible keys (a Python int: it may exceed int64)."""
    return math.prod(map(int, radices))


def _merge(columns: Sequence[np.ndarray], radices: Sequence[int],
           weights: np.ndarray | None) -> _Grouped:
    """Merge rows whose codes agree in every column (row i weighing ``weights[i]``)."""
    if not columns:
        raise ValueError("grouping needs at least one quasi-identifier")
    key, exact = combine_codes(columns, radices)
    if exact:
        inverse, distinct, sizes = group_keys(key, _span(radices), weights)
        return _Grouped(inverse, sizes, PackedKeys(distinct, tuple(radices)))
    inverse, uniques = pd.factorize(key, sort=False)
    inverse = inverse.astype(np.int64)
    # Any member represents its class: all members share the codes.
    member = np.empty(len(uniques), dtype=np.int64)
    member[inverse] = np.arange(len(key), dtype=np.int64)
    keys = np.asfortranarray(np.column_stack([c[member] for c in columns]))
    return _Grouped(inverse, weighted_counts(inverse, weights, len(uniques)), None, keys)


def _first_of(wanted: np.ndarray, held: np.ndarray, first: np.ndarray) -> np.ndarray:
    """For each key in ``wanted``, the least ``first`` among the entries ``held`` with it."""
    # A hash lookup: several times faster than np.isin or a binary search here.
    found = np.flatnonzero(pd.Index(wanted).get_indexer(held) >= 0)
    order = found[np.lexsort((first[found], held[found]))]
    keys = held[order]  # sorted, so each key's first entry holds its least ``first``
    head = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))[:len(keys)])
    return first[order[head]][np.searchsorted(keys[head], wanted)]


def dense_enough(cells: int, entries: int) -> bool:
    """Is a table of ``cells`` cleared and summed faster than ``entries`` hashed?"""
    return cells <= max(8 * entries, 1 << 18)


def _merge_distribution(class_index: np.ndarray, value: np.ndarray, count: np.ndarray | None,
                        n_values: int, n_classes: int,
                        inverse: np.ndarray | None = None) -> Distribution:
    """Sum counts of equal (class, value) pairs; result sorted by class, then value.

    With ``inverse``, pair i belongs to class ``inverse[class_index[i]]`` (a roll-up).
    """
    width = max(n_values, 1)
    summed_pairs = sum_pairs(class_index, value, count, width, n_classes, inverse)
    if summed_pairs is not None:
        owner, values, counts = summed_pairs
        return Distribution(class_index=owner, value=values, count=counts, n_values=n_values)
    if inverse is not None:
        class_index = inverse[class_index]
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
    order = order[summed[order] > 0]  # records of weight 0 hold no value
    uniques = np.asarray(uniques, dtype=np.int64)[order]
    owner = uniques // width
    return Distribution(
        class_index=owner,
        value=uniques - owner * width,
        count=summed[order].astype(np.int64, copy=False),
        n_values=n_values,
    )


#: Memory for the roll-up root's key columns at other levels and the keys of runs of
#: them (:class:`_KeptKeys`).
LEVEL_COLUMNS_BYTES = 64 << 20


class Grouper:
    """Computes equivalence classes of transformations for one encoded table.

    ``tracked`` names the tracked attributes whose distributions the classes carry;
    ``populations`` names population tables whose classes they carry, each as its
    distinct rows (per quasi-identifier, level-0 codes) and the people of each row.
    """

    def __init__(self, data: EncodedData, tracked: Sequence[str] = (),
                 record_sums: Mapping[str, np.ndarray] | None = None,
                 populations: Mapping[str, tuple[Sequence[np.ndarray], np.ndarray]]
                 | None = None) -> None:
        self.data = data
        self.tracked = [data.tracked[name] for name in dict.fromkeys(tracked)]
        #: Per-row values whose per-class sums the classes carry (a histogram row's
        #: value covers all the records it stands for).
        self.record_sums = dict(record_sums or {})
        self.populations = dict(populations or {})
        self._up: dict[tuple[int, int, int], np.ndarray] = {}
        #: The last classes grouped from the records (the search's bottom, its usual
        #: roll-up root) and their key columns mapped up to other levels, kept while they
        #: fit ``LEVEL_COLUMNS_BYTES``: rolling up from the root then takes no lookups.
        self._root: EquivalenceClasses | None = None
        self._root_keys: _KeptKeys | None = None
        #: The first row of each of the root's classes (see :meth:`first_rows`).
        self._root_first = np.zeros(0, dtype=np.int64)
        #: Bytes the kept columns and keys of the root's tables hold, together.
        self.level_columns_bytes = 0
        #: Number of transformations computed by roll-up.
        self.rollups = 0

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

    def first_rows(self, classes: EquivalenceClasses, which: np.ndarray) -> np.ndarray:
        """The first row of each of the classes ``which`` (indices): ARX's representative
        of a class, its smallest row (rows standing for no record, weight 0, skipped).

        Finds the roll-up root's classes (else the rows) whose key at ``classes.levels``
        is one of theirs: a pass over the root's classes, for the calls that need it.
        """
        which = np.asarray(which, dtype=np.int64)
        levels = classes.levels
        radices = self.radices(levels)
        root = self._root
        if root is not None and all(a <= b for a, b in zip(root.levels, levels, strict=True)):
            first = self._root_first
            kept = self._kept_root_keys()
            n = root.n_classes
            if classes.packed is not None and _span(radices) < KEY_LIMIT:
                high, place, low = kept.key(levels, radices)  # kept halves: cheap
                held = high[:n] if low is None else high[:n] * place + low[:n]
                return _first_of(classes.packed.values[which], held, first)
            codes = [kept.column(q, level)[:n] for q, level in enumerate(levels)]
        else:
            codes, first = self.record_codes(levels), self._row_numbers()
        keys = classes.keys_of(which)
        columns = [np.concatenate((keys[:, q], column)) for q, column in enumerate(codes)]
        joint, _ = combine_codes(columns, radices)  # one numbering for both
        return _first_of(joint[: len(which)], joint[len(which):], first)

    def _row_numbers(self) -> np.ndarray:
        """Each row's number, past the end for rows standing for no record."""
        n = len(self.data.quasi_identifiers[0].codes)
        rows = np.arange(n, dtype=np.int64)
        if self.data.weights is not None:
            rows[self.data.weights == 0] = n
        return rows

    def group_records(self, levels: Sequence[int]) -> tuple[EquivalenceClasses, np.ndarray]:
        """Classes of ``levels`` from the records, and each record's class index (each
        histogram row's, when the data are weighted)."""
        levels = tuple(int(v) for v in levels)
        weights = self.data.weights  # histogram rows count their records
        merged = _merge(self.record_codes(levels), self.radices(levels), weights)
        sizes = merged.sizes
        distributions = {
            t.name: _merge_distribution(merged.inverse, t.codes, weights, len(t.values),
                                        merged.n_classes)
            for t in self.tracked
        }
        sums = {name: np.bincount(merged.inverse, weights=values, minlength=merged.n_classes)
                for name, values in self.record_sums.items()}
        # Decoded once here: grouping from the records is rare (the bottom, mostly), and a
        # source's key columns make rolling up many attributes at once cheaper.
        keys = merged.keys if merged.packed is None else merged.packed.decode()
        populations = {} if merged.packed is None else \
            self._group_populations(levels, merged.packed)
        classes = EquivalenceClasses(levels, keys, sizes, distributions, sums, merged.packed,
                                     populations)
        self.forget_level_columns()
        self._root = classes
        rows = self._row_numbers()
        self._root_first = np.full(merged.n_classes, len(rows), dtype=np.int64)
        np.minimum.at(self._root_first, merged.inverse, rows)
        return classes, merged.inverse

    def _group_populations(self, levels: tuple[int, ...], classes: PackedKeys
                           ) -> dict[str, PopulationClasses]:
        """The population tables' counts for the classes ``classes`` at ``levels``, from
        their rows; none when the keys do not fit one int64 (models then look them up)."""
        radices = self.radices(levels)
        out = {}
        for name, (rows, people) in self.populations.items():
            columns = [q.level_maps[level][r] for q, level, r in
                       zip(self.data.quasi_identifiers, levels, rows, strict=True)]
            key, exact = combine_codes(columns, radices)
            if not exact:
                return {}
            zero = np.zeros(len(classes.values), dtype=np.int64)
            counted = _beside(classes, zero, key, people)
            # The root is rolled up from many times: keep its joint arrays (see _joint).
            out[name] = dataclasses.replace(counted, joint=_joint(counted, classes))
        return out

    def _rolled_populations(self, source: EquivalenceClasses, levels: tuple[int, ...],
                            inverse: np.ndarray, classes: PackedKeys | None
                            ) -> dict[str, PopulationClasses]:
        """``source``'s population counts rolled up to the classes ``classes`` (``inverse``:
        source class -> class): people summed, the uncovered keys' digits rewritten (for
        more than one table; one rolls up with the classes, :meth:`_grouped_beside`)."""
        if classes is None or source.packed is None:
            return {}
        changed = [q for q, (a, b) in enumerate(zip(source.levels, levels, strict=True))
                   if a != b]
        out = {}
        for name, population in source.populations.items():
            people = np.rint(np.bincount(inverse, weights=population.people,
                                         minlength=len(classes.values))).astype(np.int64)
            uncovered, _ = self._rewrite_digits(
                PackedKeys(population.uncovered, source.packed.radices), source.levels,
                levels, changed)
            out[name] = _beside(classes, people, uncovered, population.uncovered_people)
        return out

    def roll_up(self, source: EquivalenceClasses, levels: Sequence[int]) -> EquivalenceClasses:
        """Classes of ``levels`` from those of ``source`` (``source.levels <= levels``)."""
        levels, low = _as_key(levels), source.levels
        changed = [q for q, (a, b) in enumerate(zip(low, levels, strict=True)) if a != b]
        if any(low[q] > levels[q] for q in changed):
            raise ValueError(f"cannot roll up from {low} to {levels}")
        # Rewriting a digit costs about six array operations, recombining the key columns
        # two per attribute: with columns at hand and many changes, recombine.
        if source.packed is None or (source.keys_decoded and 6 * len(changed) > 2 * len(levels)):
            return self._roll_up_columns(source, levels)
        carried = _one_population(source)
        if carried is not None:
            # One rewrite and one grouping for the classes and the population classes
            # without records (per roll-up, two of each cost about three times one).
            both = PackedKeys(_joint(carried[1], source.packed)[0], source.packed.radices)
            key, radices = self._rewrite_digits(both, low, levels, changed)
            return self._grouped_beside(source, levels, radices, carried, key)
        key, radices = self._rewrite_digits(source.packed, low, levels, changed)
        inverse, distinct, sizes = group_keys(key, _span(radices), source.sizes)
        return self._summed(source, levels, inverse, sizes, None, PackedKeys(distinct, radices))

    def _grouped_beside(self, source: EquivalenceClasses, levels: tuple[int, ...],
                        radices: Sequence[int], carried: tuple[str, PopulationClasses],
                        key: np.ndarray, low: np.ndarray | None = None, place: int = 1
                        ) -> EquivalenceClasses:
        """Classes of ``levels`` with their one population table's counts, from one
        grouping of ``source``'s class keys at ``levels`` followed by the keys of its
        population classes without records (``key``, or ``key * place + low``).

        The classes come numbered as grouping their keys alone numbers them: hashed, the
        class keys (first) are numbered by first appearance before any population key;
        where their own grouping would be dense, they are then listed ascending."""
        name, population = carried
        assert source.packed is not None
        everyone = _joint(population, source.packed)[1]
        of_classes, distinct, people, sizes = group_beside(
            key, source.n_classes, _span(radices), source.sizes, everyone, low, place)
        m = len(sizes)
        counted = PopulationClasses(people[:m], distinct[m:], people[m:], (distinct, people))
        return self._summed(source, levels, of_classes, sizes, None,
                            PackedKeys(distinct[:m], tuple(radices)), {name: counted})

    def _rewrite_digits(self, packed: PackedKeys, low: tuple[int, ...], high: tuple[int, ...],
                        changed: list[int]) -> tuple[np.ndarray, tuple[int, ...]]:
        """``packed``'s keys (at levels ``low``) re-expressed at levels ``high``.

        key = (above * span(first..last) + middle) * place + below, where first..last are
        the first and last of the quasi-identifiers whose level changes (``changed``,
        ascending): ``above`` and ``below`` keep their
        digits, the middle is taken apart digit by digit, its changed digits are mapped
        up and it is reassembled in the new radices: in one pass by the compiled kernel
        where built, else in numpy (where a floor division by a scalar, a multiply and a
        subtract cost less than one divmod).
        """
        key = packed.values
        if not changed:
            return key, packed.radices
        first, last = changed[0], changed[-1]
        place = _span(packed.radices[last + 1:])
        radices = list(packed.radices)
        maps: list[np.ndarray | None] = []
        for q in range(first, last + 1):
            if low[q] != high[q]:
                maps.append(self.up_map(q, low[q], high[q]))
                radices[q] = self.data.quasi_identifiers[q].domain_size(high[q])
            else:
                maps.append(None)
        rewritten = rewrite_keys(key, place, packed.radices[first:last + 1],
                                 radices[first:last + 1], maps)
        if rewritten is not None:
            return rewritten, tuple(radices)
        below = None
        if place > 1:
            head = key // place
            below = key - head * place
            key = head
        digits: dict[int, np.ndarray] = {}
        for q in range(last, first, -1):
            head = key // packed.radices[q]
            digits[q] = key - head * packed.radices[q]
            key = head
        if first > 0:
            head = key // packed.radices[first]
            digits[first] = key - head * packed.radices[first]
            key = head
        else:  # nothing above the first attribute
            digits[first], key = key, None
        for q, up in zip(range(first, last + 1), maps, strict=True):
            digit = digits[q] if up is None else up.take(digits[q])
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
            high, place, low = self._kept_root_keys().key(levels, radices)
            carried = _one_population(source)
            if carried is not None:  # the kept keys hold its classes without records too
                return self._grouped_beside(source, levels, radices, carried, high, low, place)
            inverse, distinct, sizes = group_keys(high, _span(radices), source.sizes, low, place)
            return self._summed(source, levels, inverse, sizes, None,
                                PackedKeys(distinct, tuple(radices)))
        columns = [self._key_column(source, q, level) for q, level in enumerate(levels)]
        merged = _merge(columns, radices, source.sizes)
        return self._summed(source, levels, merged.inverse, merged.sizes, merged.keys,
                            merged.packed)

    def _key_column(self, source: EquivalenceClasses, q: int, level: int) -> np.ndarray:
        """Quasi-identifier ``q``'s code at ``level`` for each class of ``source``."""
        if source is self._root:
            return self._kept_root_keys().column(q, level)[:source.n_classes]
        low = source.levels[q]
        if low == level:
            return source.keys[:, q]
        return self.up_map(q, low, level).take(source.keys[:, q])

    def _kept_root_keys(self) -> _KeptKeys:
        """The root's kept keys: its classes', then (with one population table) those of
        the population's classes without records, rolled up together."""
        root = self._root
        assert root is not None
        if self._root_keys is None:
            codes = root.keys
            carried = _one_population(root)
            if carried is not None:
                assert root.packed is not None
                codes = np.asfortranarray(np.concatenate(
                    (codes, decode_codes(carried[1].uncovered, root.packed.radices))))
            self._root_keys = _KeptKeys(self, codes, root.levels)
        return self._root_keys

    def forget_level_columns(self) -> None:
        """Free the root's columns kept for roll-up (they come back when needed)."""
        self._root_keys = None
        self.level_columns_bytes = 0

    def may_keep(self, nbytes: int) -> bool:
        """Is there room for ``nbytes`` more of kept root columns? Takes it if so."""
        if self.level_columns_bytes + nbytes > LEVEL_COLUMNS_BYTES:
            return False
        self.level_columns_bytes += nbytes
        return True

    def _summed(self, source: EquivalenceClasses, levels: tuple[int, ...], inverse: np.ndarray,
                sizes: np.ndarray, keys: np.ndarray | None, packed: PackedKeys | None,
                populations: dict[str, PopulationClasses] | None = None
                ) -> EquivalenceClasses:
        """Classes of ``levels`` (of ``sizes``, summed already): ``source``'s
        distributions and sums added up by ``inverse`` (source class -> new class), and
        its populations unless given."""
        n_classes = len(sizes)
        distributions = {
            name: _merge_distribution(d.class_index, d.value, d.count, d.n_values, n_classes,
                                      inverse)
            for name, d in source.distributions.items()
        }
        sums = {name: np.bincount(inverse, weights=values, minlength=n_classes)
                for name, values in source.sums.items()}
        self.rollups += 1
        if populations is None:
            populations = self._rolled_populations(source, levels, inverse, packed)
        return EquivalenceClasses(levels, keys, sizes, distributions, sums, packed, populations)


class _KeptKeys:
    """Keys at the root's levels (the root's classes, followed by its one population
    table's classes without records), with their columns mapped up to other levels and the
    keys of runs of them kept while the grouper's ``LEVEL_COLUMNS_BYTES`` allow.

    Keys at other levels come as (high, place, low), key = high * place + low: high and
    low are the keys of the first and second half of the quasi-identifiers, each kept
    once built and built the same way from its own halves. A search's roll-ups from the
    root share few distinct halves (adult-dm's 575 share 151 first and 52 second halves),
    so most combine two kept arrays (in the grouping kernel, without writing the key out).
    """

    def __init__(self, grouper: Grouper, codes: np.ndarray, levels: tuple[int, ...]) -> None:
        self._grouper = grouper
        self._codes = codes  # (rows, n_qi) codes at ``levels``
        self._levels = levels
        self._kept: dict[tuple[int, ...], np.ndarray] = {}

    def column(self, q: int, level: int) -> np.ndarray:
        """Quasi-identifier ``q``'s code at ``level`` for each row."""
        if self._levels[q] == level:
            return self._codes[:, q]
        column = self._kept.get((q, level))
        if column is None:
            column = self._grouper.up_map(q, self._levels[q], level).take(self._codes[:, q])
            self._keep((q, level), column)
        return column

    def key(self, levels: tuple[int, ...], radices: Sequence[int]
            ) -> tuple[np.ndarray, int, np.ndarray | None]:
        """The rows' exact key at ``levels`` (whose span fits an int64) as (high, place,
        low): key = high * place + low (or high, when low is None)."""
        if len(levels) == 1:
            return self._part(0, 1, levels, radices), 1, None
        middle = (len(levels) + 1) // 2
        return (self._part(0, middle, levels, radices), _span(radices[middle:]),
                self._part(middle, len(levels), levels, radices))

    def _part(self, first: int, last: int, levels: tuple[int, ...],
              radices: Sequence[int]) -> np.ndarray:
        """The rows' key over quasi-identifiers ``first``..``last - 1``."""
        if last - first == 1:
            return self.column(first, levels[first])
        name = (first, last) + levels[first:last]
        part = self._kept.get(name)
        if part is None:
            part = pack_columns([self.column(q, levels[q]) for q in range(first, last)],
                                radices[first:last])
            if part is None:  # numpy: from the halves, kept too
                middle = (first + last + 1) // 2
                part = self._part(first, middle, levels, radices) * \
                    _span(radices[middle:last]) + self._part(middle, last, levels, radices)
            self._keep(name, part)
        return part

    def _keep(self, name: tuple[int, ...], array: np.ndarray) -> None:
        if self._grouper.may_keep(array.nbytes):
            self._kept[name] = array


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
    total += sum(d.nbytes for d in classes.derived.values())
    total += sum(p.people.nbytes + p.uncovered.nbytes + p.uncovered_people.nbytes
                 for p in classes.populations.values())
    return int(total)


def _one_population(classes: EquivalenceClasses) -> tuple[str, PopulationClasses] | None:
    """The population table ``classes`` carry, when there is exactly one and their keys
    are packed: it then rolls up with them in one grouping."""
    if len(classes.populations) != 1 or classes.packed is None:
        return None
    return next(iter(classes.populations.items()))


def _joint(population: PopulationClasses, classes: PackedKeys
           ) -> tuple[np.ndarray, np.ndarray]:
    """The keys of ``classes`` followed by the population's classes without records, and
    their people likewise: kept by the roll-up that made them, else concatenated."""
    if population.joint is not None:
        return population.joint
    return (np.concatenate((classes.values, population.uncovered)),
            np.concatenate((population.people, population.uncovered_people)))


def _beside(classes: PackedKeys, people: np.ndarray, others: np.ndarray,
            others_people: np.ndarray) -> PopulationClasses:
    """Population counts of ``classes`` (``people`` each already) once the population
    classes with keys ``others`` (``others_people`` each) are merged in: those equal to
    a class add to its people, the rest stay uncovered. One grouping, no lookup."""
    if not len(others):
        return PopulationClasses(people, others, others_people)
    n = len(classes.values)
    inverse, distinct, summed = group_keys(np.concatenate((classes.values, others)),
                                           _span(classes.radices),
                                           np.concatenate((people, others_people)))
    of_classes = inverse[:n]
    uncovered = np.ones(len(distinct), dtype=bool)
    uncovered[of_classes] = False
    return PopulationClasses(summed[of_classes], distinct[uncovered], summed[uncovered])


def _as_key(levels: Sequence[int]) -> tuple[int, ...]:
    """``levels`` as a cache key (tuples of NumPy integers hash and compare like ints)."""
    return levels if isinstance(levels, tuple) else tuple(int(v) for v in levels)


_HIGH_BITS = np.uint64(0x8080808080808080)
_NO_SNAPSHOT = np.iinfo(np.int64).max


def _level_words(levels: tuple[int, ...]) -> tuple[np.uint64, ...]:
    """``levels`` (each below 128) packed one byte each, eight to a word."""
    raw = bytes(levels)
    if len(raw) <= 8:
        return (np.uint64(int.from_bytes(raw, "little")),)
    return tuple(np.uint64(int.from_bytes(raw[i:i + 8], "little"))
                 for i in range(0, len(raw), 8))


class SnapshotCache:
    """Bounded LRU cache of equivalence classes, used as roll-up sources.

    Holds at most ``max_bytes`` of arrays and ``max_entries`` snapshots; pinned
    snapshots (the search's bottom) are never evicted.
    """

    def __init__(self, n_qi: int, max_bytes: int = 256 << 20, max_entries: int = 4096) -> None:
        self.max_bytes = int(max_bytes)
        self.max_entries = int(max_entries)
        #: Each slot's levels, eight to a word, one byte each, while every level is below
        #: 128 (``_bytewise``): a scan for the snapshots below a transformation then
        #: compares eight attributes per operation. Else one column of ``_levels`` each.
        self._levels = np.zeros((n_qi, self.max_entries), dtype=np.int64)
        self._level_words = np.zeros(((n_qi + 7) // 8, self.max_entries), dtype=np.uint64)
        self._bytewise = True
        #: Classes per slot; free slots hold more than any snapshot (``_NO_SNAPSHOT``), so
        #: the fewest classes below a transformation are never a free slot's.
        self._classes = np.full(self.max_entries, _NO_SNAPSHOT, dtype=np.int64)
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
        probe = list(levels)
        for q, level in enumerate(levels):
            if not level:
                continue
            probe[q] = level - 1
            slot = self._slot.get(tuple(probe))
            probe[q] = level
            if slot is not None and (best is None or self._counts[slot] < fewest):
                best, fewest = slot, self._counts[slot]
        if best is None:
            end = self._end
            if self._bytewise:
                # Every cached level is below 0x80: a larger target level compares as 0x7F.
                target = levels if max(levels) < 0x80 else tuple(min(v, 0x7F) for v in levels)
                below = None
                for word, cached in zip(_level_words(target), self._level_words[:, :end],
                                        strict=True):
                    # Per byte, (target | 0x80) - cached keeps its high bit exactly when
                    # cached <= target; bytes below 0x80 borrow nothing from their neighbours.
                    fits = ((word | _HIGH_BITS) - cached) & _HIGH_BITS == _HIGH_BITS
                    below = fits if below is None else below & fits
            else:
                below = (self._levels[:, :end] <= np.asarray(levels, dtype=np.int64)[:, None]
                         ).all(axis=0)
            # The first of the fewest classes below (free slots hold _NO_SNAPSHOT).
            classes = np.where(below, self._classes[:end], _NO_SNAPSHOT)
            best = int(classes.argmin())
            if classes[best] == _NO_SNAPSHOT:
                return None
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
        if self._bytewise and max(key, default=0) >= 0x80:
            self._bytewise = False
            self._fill_levels()
        if self._bytewise:
            for row, word in enumerate(_level_words(key)):
                self._level_words[row, slot] = word
        else:
            self._levels[:, slot] = key
        self._classes[slot] = self._counts[slot] = classes.n_classes
        self._pinned[slot] = pinned
        self._slot[key] = slot
        self._bytes[slot] = size
        self.nbytes += size
        self._touch(slot)

    def _fill_levels(self) -> None:
        """Write every held snapshot's levels into ``_levels`` (kept only once the byte
        words cannot hold them)."""
        for slot in (self._used[:self._end] > 0).nonzero()[0].tolist():
            item = self._items[slot]
            assert item is not None
            self._levels[:, slot] = item.levels

    def remeasure(self, classes: EquivalenceClasses) -> None:
        """Account for arrays ``classes`` gained since it was put (a model decoded its
        keys or kept a derived array), evicting others if the cache is now over its budget."""
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
        self._classes[slot] = _NO_SNAPSHOT
        self._used[slot] = 0
        self._pinned[slot] = False
        heapq.heappush(self._free, slot)
