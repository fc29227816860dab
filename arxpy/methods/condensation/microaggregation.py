"""Microaggregation baselines: TFRP (Chang, Li & Huang 2007, as read in spec §2.5 [I]) and
MDAV (Domingo-Ferrer & Mateo-Sanz 2002; an arxpy extra, not in Gal et al.).

Both group records into groups of at least k on the scaled points; the method then
replaces every attribute by its group mean (see :func:`group_means`).
"""

from __future__ import annotations

import numpy as np

from arxpy.arrays import distinct
from arxpy.jobs import CancelToken
from arxpy.methods.condensation.clustering import group_centres


def _check(cancel: CancelToken | None) -> None:
    if cancel is not None:
        cancel.raise_if_cancelled()


def _nearest(points: np.ndarray, remaining: np.ndarray, anchor: np.ndarray, k: int
             ) -> np.ndarray:
    """The k remaining records nearest ``anchor`` (ties by row index)."""
    d = ((points[remaining] - anchor) ** 2).sum(axis=1)
    return remaining[np.argsort(d, kind="stable")[:k]]


def _farthest(points: np.ndarray, remaining: np.ndarray, anchor: np.ndarray) -> int:
    d = ((points[remaining] - anchor) ** 2).sum(axis=1)
    return int(remaining[int(d.argmax())])


def mdav_groups(points: np.ndarray, k: int, cancel: CancelToken | None = None) -> np.ndarray:
    """MDAV: repeatedly group the record farthest from the centroid, then the record
    farthest from that one, each with its k-1 nearest; the last 2k-1 or fewer form one or
    two groups. Every group has at least k records (n >= k)."""
    n = points.shape[0]
    groups = np.full(n, -1, dtype=np.int64)
    remaining = np.arange(n)
    group = 0

    def take(members: np.ndarray) -> None:
        nonlocal remaining, group
        groups[members] = group
        group += 1
        remaining = remaining[groups[remaining] < 0]

    while len(remaining) >= 3 * k:
        _check(cancel)
        centroid = points[remaining].mean(axis=0)
        r = _farthest(points, remaining, centroid)
        take(_nearest(points, remaining, points[r], k))
        s = _farthest(points, remaining, points[r])
        take(_nearest(points, remaining, points[s], k))
    if len(remaining) >= 2 * k:
        centroid = points[remaining].mean(axis=0)
        r = _farthest(points, remaining, centroid)
        take(_nearest(points, remaining, points[r], k))
    if len(remaining):
        take(remaining)
    return groups


def tfrp_groups(points: np.ndarray, k: int, cancel: CancelToken | None = None) -> np.ndarray:
    """TFRP's two phases as read in spec §2.5 [I].

    Phase 1: two fixed reference points (per-attribute minima and maxima); alternately,
    the unassigned record nearest the reference point starts a group with its k-1 nearest
    unassigned records, until fewer than 2k remain, which form the last group.
    Phase 2: a group is dissolved when moving its records to their nearest other groups
    lowers the total within-group sum of squares (increments counted per record).
    """
    n = points.shape[0]
    groups = np.full(n, -1, dtype=np.int64)
    references = (points.min(axis=0), points.max(axis=0))
    distances = [((points - r) ** 2).sum(axis=1) for r in references]  # computed once
    remaining = np.arange(n)
    group = 0
    while len(remaining) >= 2 * k:
        if group % 8 == 0:
            _check(cancel)
        d = distances[group % 2][remaining]
        start = int(remaining[int(d.argmin())])
        members = _nearest(points, remaining, points[start], k)
        groups[members] = group
        group += 1
        remaining = remaining[groups[remaining] < 0]
    if len(remaining):
        groups[remaining] = group
        group += 1
    return _dissolve(points, groups, group, cancel)


def _dissolve(points: np.ndarray, groups: np.ndarray, count: int,
              cancel: CancelToken | None) -> np.ndarray:
    groups = groups.copy()
    alive = np.ones(count, dtype=bool)
    for g in range(count):
        _check(cancel)
        if alive.sum() <= 1:
            break
        centres = group_centres(points, groups, count)
        sizes = np.bincount(groups, minlength=count).astype(np.float64)
        members = np.flatnonzero(groups == g)
        own = ((points[members] - centres[g]) ** 2).sum()
        others = np.flatnonzero(alive & (np.arange(count) != g))
        d = ((points[members][:, None, :] - centres[others][None, :, :]) ** 2).sum(axis=2)
        # Adding x to a group of size m with centre c raises its SSE by m/(m+1)·|x-c|².
        cost = d * (sizes[others] / (sizes[others] + 1.0))[None, :]
        target = cost.argmin(axis=1)
        if cost[np.arange(len(members)), target].sum() < own:
            groups[members] = others[target]
            alive[g] = False
    _, relabelled = distinct(np.asarray(groups).ravel(), return_inverse=True)
    return relabelled.astype(np.int64)


def group_means(matrix: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Every record replaced by its group's mean (microaggregation's masking)."""
    count = int(groups.max()) + 1
    return group_centres(matrix, groups, count)[groups]
