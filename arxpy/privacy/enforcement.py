"""How ARX suppresses further classes for a model that judges the output as a whole.

ARX's risk-based criteria (``RiskBasedCriterion.enforce``) sort the classes not yet
suppressed by size, equal sizes by each class's own information loss under the
configured quality model and then by the class's first row
(``HashGroupifyDistribution``'s comparator), and binary-search how many of the first
ones to suppress (``suppressWhileNotFulfilledBinary``, reproduced step by step below,
Java's integer division included). Whether a model is met depends only on the sizes of
the classes kept, so the number suppressed is found on sizes alone; the order among
equal sizes is asked for only when it decides which classes go.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses

#: Picks among classes of one size as ARX does (own information loss, then first row):
#: given the classes, the indices of some of them and how many are needed, returns the
#: first that many of those indices in ARX's order.
TieOrder = Callable[[EquivalenceClasses, np.ndarray, int], np.ndarray]

_FULFILLED, _NOT_FULFILLED, _ABORT = range(3)


def _java_half(value: int) -> int:
    """``value / 2`` in Java: truncated towards zero (``(0 + -1) / 2`` is 0)."""
    return int(value / 2)


def arx_prefix(sizes: np.ndarray, budget: int, fulfilled: Callable[[np.ndarray], bool]) -> int:
    """How many of the classes (``sizes`` ascending) ARX's binary search suppresses.

    ``fulfilled(kept_sizes)`` judges the classes left; a state that fails while more than
    ``budget`` records are suppressed ends the search (ARX's ``State.ABORT``), leaving
    what is suppressed then (the transformation is not anonymous either way).
    """
    n = len(sizes)
    if n == 0:
        return 0
    removed = np.concatenate(([0], np.cumsum(sizes)))

    def state(prefix: int) -> int:
        if fulfilled(sizes[prefix:]):
            return _FULFILLED
        return _ABORT if removed[prefix] > budget else _NOT_FULFILLED

    low, high = 0, n - 1
    mid = _java_half(low + high)
    prefix, result = mid + 1, _ABORT
    while low <= high:
        result = state(prefix)
        if result == _ABORT:
            break
        if result == _FULFILLED:
            high = mid - 1
            mid = _java_half(low + high)
            prefix = min(prefix, mid + 1)  # un-suppress from mid + 1 on
        else:
            low = mid + 1
            mid = _java_half(low + high)
            prefix = max(prefix, mid + 1)  # suppress low..mid
    # Here prefix == mid + 1 (each step keeps it so); ARX finally checks mid + 1.
    if result != _ABORT and state(prefix) == _NOT_FULFILLED and mid + 1 < n:
        prefix = mid + 2
    return prefix


def suppress_smallest(classes: EquivalenceClasses, kept: np.ndarray, budget: int,
                      fulfilled: Callable[[np.ndarray], bool],
                      order: TieOrder | None = None) -> np.ndarray:
    """The classes still kept after ARX's enforcement of a dataset-level model.

    ``kept`` marks the classes not suppressed yet; at most
    ``budget`` more records may go. ``order`` ranks classes of equal size (None: by
    index). Returns a new mask; ``kept`` itself when the model is met already.
    """
    kept = np.asarray(kept, dtype=bool)
    sizes = classes.sizes
    if fulfilled(sizes[kept]):
        return kept
    candidates = np.flatnonzero(kept)
    candidates = candidates[np.argsort(sizes[candidates], kind="stable")]
    prefix = arx_prefix(sizes[candidates], budget, fulfilled)
    chosen = candidates[:prefix]
    # Which classes of the boundary size go matters only to an output that meets the
    # model within the budget (only anonymous transformations are scored and released).
    met = int(sizes[chosen].sum()) <= budget and fulfilled(sizes[candidates[prefix:]])
    if order is not None and met and 0 < prefix < len(candidates):
        boundary = sizes[candidates[prefix - 1]]
        if sizes[candidates[prefix]] == boundary:  # the boundary size is split: who goes?
            tied = candidates[sizes[candidates] == boundary]
            smaller = candidates[: int(np.searchsorted(sizes[candidates], boundary))]
            chosen = np.concatenate((smaller, order(classes, tied, prefix - len(smaller))))
    out = kept.copy()
    out[chosen] = False
    return out
