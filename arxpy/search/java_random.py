"""Java's randomness as ARX's genetic algorithm draws it, ported bit for bit.

ARX's deterministic mode seeds ``java.util.Random(0xDEADBEEF)``; with the same draws in
the same order, arxpy's genetic strategy visits ARX's transformations. Ported here:
``java.util.Random`` (the 48-bit linear congruential generator of JDK 17), Java's
``Collections.shuffle(list, rnd)`` and ``Math.round``, and commons-math3 3.6.1's
``EnumeratedDistribution`` (normalized weights, cumulative sums, a binary search).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

_MULTIPLIER = 0x5DEECE66D
_ADDEND = 0xB
_MASK = (1 << 48) - 1
_INT_MAX = (1 << 31) - 1
#: ARX's seed: the int literal 0xDEADBEEF is negative, widened to long with its sign.
ARX_SEED = 0xDEADBEEF - (1 << 32)


class JavaRandom:
    """``java.util.Random``: the same seed gives Java's sequence of draws."""

    def __init__(self, seed: int) -> None:
        self._seed = (seed ^ _MULTIPLIER) & _MASK

    def _next(self, bits: int) -> int:
        """The top ``bits`` (at most 31 here) of the next state: non-negative."""
        self._seed = (self._seed * _MULTIPLIER + _ADDEND) & _MASK
        return self._seed >> (48 - bits)

    def next_int(self, bound: int) -> int:
        """``nextInt(bound)``: uniform in [0, bound), Java's rejection included."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        r = self._next(31)
        m = bound - 1
        if bound & m == 0:  # a power of two: the high bits
            return (bound * r) >> 31
        u = r
        r = u % bound
        while u - r + m > _INT_MAX:  # Java's int overflow: the last, partial block
            u = self._next(31)
            r = u % bound
        return r

    def next_double(self) -> float:
        """``nextDouble()``: 53 random bits in [0, 1)."""
        return ((self._next(26) << 27) + self._next(27)) * 2.0 ** -53


def shuffle(items: list[Any], rnd: JavaRandom) -> None:
    """``Collections.shuffle(list, rnd)`` in place: from the end, swap with a draw below."""
    for i in range(len(items) - 1, 0, -1):
        j = rnd.next_int(i + 1)
        items[i], items[j] = items[j], items[i]


def java_round(value: float) -> int:
    """``Math.round(double)``: halves round up; exact for 0.49999999999999994."""
    floor = math.floor(value)
    return int(floor) + (1 if value - floor >= 0.5 else 0)


class EnumeratedDistribution:
    """commons-math3's ``EnumeratedDistribution(rng, pmf)`` and its ``sample()``.

    ``weights`` must be finite and non-negative with a positive sum (as there).
    """

    def __init__(self, rnd: JavaRandom, items: Sequence[Any], weights: Sequence[float]) -> None:
        total = 0.0
        for weight in weights:  # MathArrays.normalizeArray: a left-to-right sum
            total += weight
        if not total > 0.0:
            raise ValueError("weights must have a positive sum")
        self._rnd, self._items = rnd, list(items)
        self._cumulative: list[float] = []
        running = 0.0
        for weight in weights:
            running += weight * 1.0 / total
            self._cumulative.append(running)

    def sample(self) -> Any:
        value = self._rnd.next_double()
        index = _binary_search(self._cumulative, value)
        if index < 0:
            index = -index - 1
        if index < len(self._cumulative) and value < self._cumulative[index]:
            return self._items[index]
        return self._items[-1]  # commons-math's fallback (rounding, or an exact hit)


def _binary_search(values: Sequence[float], key: float) -> int:
    """``Arrays.binarySearch(double[], double)`` for non-negative values: the index of
    a match (whichever Java's halving meets first), else -(insertion point) - 1."""
    low, high = 0, len(values) - 1
    while low <= high:
        mid = (low + high) >> 1
        if values[mid] < key:
            low = mid + 1
        elif values[mid] > key:
            high = mid - 1
        else:
            return mid
    return -(low + 1)
