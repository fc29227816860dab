"""Roll-up's grouping: the compiled kernel where it was built, numpy otherwise.

Roll-up spends most of its time numbering the distinct keys of the source's classes at
the new levels and adding up their sizes, and, for tracked attributes, summing the
(class, value) pairs of their distributions. numpy needs about ten passes for each
(mark, list, look up, count); the optional C extension ``arxpy.lattice._kernels`` does
them in two or three, several times faster at the sizes roll-up works on. It is built
when arxpy is installed with a C compiler at hand (``optional`` in ``setup.py``: without
one the install still succeeds), and both paths give identical arrays in identical
order, so results never depend on which one ran (``tests/test_lattice_kernels.py``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from arxpy.lattice.encoding import weighted_counts

try:
    from arxpy.lattice import _kernels
except ImportError:  # no compiler when arxpy was installed: the numpy path serves
    _kernels = None

#: Use the compiled kernel when it is there (``ARXPY_NUMPY_KERNELS=1`` turns it off, to
#: compare the two paths or rule the kernel out).
USE_COMPILED = _kernels is not None and not os.environ.get("ARXPY_NUMPY_KERNELS")


#: The kernel numbers classes in int32 and its dense table has at most 4 entries per key.
_COMPILED_MAX_KEYS = 1 << 29

#: Widest value domain whose pairs the kernel sums (its accumulator: 8 bytes a value).
_COMPILED_MAX_VALUES = 1 << 24


def compiled_available() -> bool:
    """Was the compiled kernel built for this installation?"""
    return _kernels is not None


def dense_keys(span: int, n: int) -> bool:
    """Are keys below ``span`` numbered through a table of ``span`` entries (ascending
    order) rather than hashed (order of first appearance)?"""
    return span <= max(4 * n, 1 << 16)


def group_keys(key: np.ndarray, span: int, weights: np.ndarray | None = None,
               low: np.ndarray | None = None, place: int = 1, dense: bool | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each key's group index, the distinct keys, and the summed ``weights`` per group
    (the count of keys when None), for exact int64 keys in [0, ``span``): ``key``, or
    ``key * place + low`` when ``low`` is given (not written out by the kernel).

    Distinct keys come in ascending order when ``dense`` (by default
    ``dense_keys(span, len(key))``; a table of ``span`` entries), else in order of first
    appearance.
    """
    n = len(key)
    if dense is None:
        dense = dense_keys(span, n)
    if USE_COMPILED and 0 < n < _COMPILED_MAX_KEYS:
        return _grouped_compiled(key, span, weights, low, place, dense)
    if low is not None:
        key = key * place + low
    inverse, distinct = _group_numpy(key, span, dense)
    return inverse, distinct, weighted_counts(inverse, weights, len(distinct))


def group_beside(key: np.ndarray, n: int, span: int, sizes: np.ndarray, people: np.ndarray,
                 low: np.ndarray | None = None, place: int = 1
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Group the exact int64 keys in [0, ``span``) (``key``, or ``key * place + low``) of
    ``n`` classes (of ``sizes`` records) followed by population classes without records,
    each key weighing ``people``: each class key's group, every group's key and people,
    and the class groups' sizes.

    The m groups holding a class key come first, numbered as :func:`group_keys` numbers
    the class keys alone (ascending where ``dense_keys(span, n)``, else by first
    appearance); the other groups follow by first appearance. One kernel pass where
    compiled, else a hashed grouping and a sort of the class groups.
    """
    total, dense = len(key), dense_keys(span, n)
    if USE_COMPILED and 0 < total < _COMPILED_MAX_KEYS:
        # Roll-ups from the root group tens of thousands of keys into a span of a few
        # thousand: a table of the span, in cache, then beats hashing.
        table = span if dense_keys(span, total) else 0
        return _beside_compiled(key, n, table, dense, sizes, people, low, place)
    inverse, distinct, summed = group_keys(key, span, people, low, place, dense=False)
    of_classes = inverse[:n]
    m = int(of_classes.max()) + 1 if n else 0
    if dense:
        order = np.argsort(distinct[:m])
        rank = np.empty(m, dtype=np.int64)
        rank[order] = np.arange(m, dtype=np.int64)
        of_classes = rank[of_classes]
        distinct = np.concatenate((distinct[order], distinct[m:]))
        summed = np.concatenate((summed[order], summed[m:]))
    # Sums of integers below 2**53 are exact in float64.
    class_sizes = np.bincount(of_classes, weights=sizes, minlength=m).astype(np.int64)
    return of_classes, distinct, summed, class_sizes


def _beside_compiled(key: np.ndarray, n: int, table: int, dense: bool, sizes: np.ndarray,
                     people: np.ndarray, low: np.ndarray | None, place: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    assert _kernels is not None
    total = len(key)
    inverse, distinct, summed = (np.empty(total, dtype=np.int64) for _ in range(3))
    class_sizes = np.empty(n, dtype=np.int64)
    m, groups = _kernels.group_beside(
        np.ascontiguousarray(key, dtype=np.int64), n, table, dense,
        np.ascontiguousarray(sizes, dtype=np.int64), np.ascontiguousarray(people, dtype=np.int64),
        inverse, distinct, summed, class_sizes,
        None if low is None else np.ascontiguousarray(low, dtype=np.int64), int(place))
    if groups < total:  # hold only what the classes need
        distinct, summed = distinct[:groups].copy(), summed[:groups].copy()
    return inverse[:n], distinct, summed, class_sizes[:m]


def rewrite_keys(key: np.ndarray, place: int, old_radices: Sequence[int],
                 new_radices: Sequence[int], maps: Sequence[np.ndarray | None]
                 ) -> np.ndarray | None:
    """Packed keys with a run of digits generalized, by the compiled kernel; None where
    it is not used (the caller's numpy path serves).

    key = (above * span(old_radices) + middle) * place + below; the middle's digits
    (``old_radices``, most significant first) become ``maps[j][digit]`` (unchanged for
    None) in ``new_radices``.
    """
    if not (USE_COMPILED and 0 < len(key) and len(old_radices) <= 64):
        return None
    assert _kernels is not None
    out = np.empty(len(key), dtype=np.int64)
    _kernels.rewrite(np.ascontiguousarray(key, dtype=np.int64), int(place), tuple(old_radices),
                     tuple(new_radices), tuple(maps), out)
    return out


def pack_columns(columns: Sequence[np.ndarray], radices: Sequence[int]) -> np.ndarray | None:
    """The mixed-radix number of ``columns`` (``radices[j]`` column j's radix, the first
    unused; their product must fit an int64) by the compiled kernel in one pass; None
    where it is not used (the caller's numpy path serves)."""
    if not (USE_COMPILED and len(columns[0]) and len(columns) <= 64):
        return None
    assert _kernels is not None
    out = np.empty(len(columns[0]), dtype=np.int64)
    _kernels.pack(tuple(np.ascontiguousarray(c, dtype=np.int64) for c in columns),
                  tuple(int(r) for r in radices), out)
    return out


def digit_sums(key: np.ndarray, radices: Sequence[int], tables: Sequence[np.ndarray]
               ) -> np.ndarray | None:
    """tables[0][d0] + tables[1][d1] + ... for each packed key (digits d0, d1, ... in
    ``radices``, the first most significant), added in that order, by the compiled kernel
    in one pass without the key matrix; None where it is not used (the caller's numpy
    path serves, with the same sums to the bit)."""
    if not (USE_COMPILED and 0 < len(key) and 0 < len(radices) <= 64):
        return None
    assert _kernels is not None
    out = np.empty(len(key), dtype=np.float64)
    _kernels.digit_sums(np.ascontiguousarray(key, dtype=np.int64), tuple(int(r) for r in radices),
                        tuple(np.ascontiguousarray(t, dtype=np.float64) for t in tables), out)
    return out


def _grouped_compiled(key: np.ndarray, span: int, weights: np.ndarray | None,
                      low: np.ndarray | None, place: int, dense: bool
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    assert _kernels is not None
    n = len(key)
    key = np.ascontiguousarray(key, dtype=np.int64)
    if low is not None:
        low = np.ascontiguousarray(low, dtype=np.int64)
    if weights is not None:
        weights = np.ascontiguousarray(weights, dtype=np.int64)
    inverse = np.empty(n, dtype=np.int64)
    distinct = np.empty(n, dtype=np.int64)
    sizes = np.empty(n, dtype=np.int64)
    m = _kernels.group(key, int(span) if dense else 0, weights, inverse,
                       distinct, sizes, low, int(place))
    if m < n:  # hold only what the classes need
        distinct, sizes = distinct[:m].copy(), sizes[:m].copy()
    return inverse, distinct, sizes


def _group_numpy(key: np.ndarray, span: int, dense: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`group_keys` without the sums, in numpy."""
    if dense:
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


def sum_pairs(class_index: np.ndarray, value: np.ndarray, count: np.ndarray | None,
              width: int, n_classes: int, inverse: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(class, value, count) of the distinct pairs (``inverse[class_index]`` or
    ``class_index``, ``value``), counts summed (ones when ``count`` is None), by class
    then value, pairs summing to zero left out; None where the compiled kernel is not
    used (the caller's numpy path serves). Counts must not be negative.

    The kernel keeps one accumulator entry per value, so very wide domains (more than
    ``_COMPILED_MAX_VALUES``) take the numpy path.
    """
    n = len(value)
    if not (USE_COMPILED and 0 < n < _COMPILED_MAX_KEYS and n_classes < _COMPILED_MAX_KEYS
            and width <= _COMPILED_MAX_VALUES):
        return None
    assert _kernels is not None
    arrays = [np.ascontiguousarray(a, dtype=np.int64) if a is not None else None
              for a in (class_index, inverse, value, count)]
    out = [np.empty(n + 1, dtype=np.int64) for _ in range(3)]  # written without branches
    m = _kernels.sum_pairs(*arrays, int(width), int(n_classes), *out)
    return tuple(a[:m].copy() for a in out)  # type: ignore[return-value]


def stable_argsort(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of int64 ``keys`` (equal keys in input order):
    by the compiled kernel (a bucket and radix sort, several times faster on the
    shuffle's 10^7 hashed keys, without the GIL) where it was built, else by numpy."""
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    if not (USE_COMPILED and len(keys)):
        return np.argsort(keys, kind="stable")
    assert _kernels is not None
    order = np.empty(len(keys), dtype=np.int64)
    _kernels.argsort(keys, order)
    return order


# -- the identifier treatments' passes over a write's chunks (issue 32) -----------------
# DuckDB's threads call them side by side: the compiled ones release the GIL.


def first_seen(words: np.ndarray) -> np.ndarray | None:
    """Whether each 64-bit word (any dtype of 8 bytes) is the first with its value, None
    when every one is (the common case: counted, not marked)."""
    words = np.ascontiguousarray(words).view(np.int64)
    if USE_COMPILED and hasattr(_kernels, "first_seen"):
        first = np.empty(len(words), dtype=np.uint8)
        repeats = _kernels.first_seen(words, first)
        return first.view(bool) if repeats else None
    # grouping numbers the words in order of first appearance (a span beyond 4n
    # hashes), so a row that raises the running maximum is a first
    numbers, distinct_words, _ = group_keys(words, 2**63 - 1)
    if len(distinct_words) == len(words):
        return None
    highest = np.maximum.accumulate(numbers)
    first = np.ones(len(words), dtype=bool)
    np.greater(highest[1:], highest[:-1], out=first[1:])
    return first


def unsure_texts(offsets: np.ndarray, data: np.ndarray, longest: int) -> np.ndarray:
    """Which texts (an Arrow string array's ``offsets`` into its ``data`` bytes, UTF-8)
    could be a spelling of at most ``longest`` characters between spaces: empty, starting
    or ending outside printable ASCII, or short (``longest`` bytes; four times as many
    beyond ASCII, a character taking up to 4 bytes). The others are surely none."""
    if USE_COMPILED and hasattr(_kernels, "unsure_texts"):
        unsure = np.empty(len(offsets) - 1, dtype=np.uint8)
        _kernels.unsure_texts(np.ascontiguousarray(offsets, dtype=np.int64),
                              data if len(data) else b"", int(longest), unsure)
        return unsure.view(bool)
    # lowering never shortens a value; beyond ASCII a character takes up to 4 bytes
    if data[offsets[0]:offsets[-1]].max(initial=0) >= 0x80:
        longest *= 4
    starts, ends = offsets[:-1], offsets[1:]
    unsure = ends - starts <= longest
    long = np.flatnonzero(~unsure)
    for ends_at in (starts[long], ends[long] - 1):  # 0x21-0x7e: no space, no control
        unsure[long] |= data[ends_at] - np.uint8(0x21) > np.uint8(0x7E - 0x21)
    return unsure
