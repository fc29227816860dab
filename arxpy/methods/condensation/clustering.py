"""Grouping records into clusters of at least k (Gal et al. 2014, Alg. 1 steps 1-4 and
Alg. 2 steps 2a-2c). Every function takes the points already scaled (z-scored and
weighted), so plain Euclidean distance is the paper's weighted distance.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arxpy.jobs import CancelToken

#: Rows per chunk when computing point-to-centre distances (bounds memory at ~64 MB).
_CHUNK_CELLS = 8_000_000


def _check(cancel: CancelToken | None) -> None:
    if cancel is not None:
        cancel.raise_if_cancelled()


def seeded_groups(points: np.ndarray, k: int, rng: np.random.Generator,
                  cancel: CancelToken | None = None) -> np.ndarray:
    """Aggarwal & Yu's condensation grouping (Alg. 1 steps 1-4).

    ⌊n/k⌋ times (the paper's "for i = 0 to s" run s times, spec §2.1 [I]): draw a random
    seed among the remaining records and group it with its k-1 nearest remaining records
    (ties broken by row index). Leftovers join the nearest centroid, computed before they
    are added. Returns a group id per record.
    """
    n = points.shape[0]
    s = n // k
    groups = np.full(n, -1, dtype=np.int64)
    remaining = np.arange(n)
    for group in range(s):
        if group % 8 == 0:
            _check(cancel)
        seed = remaining[rng.integers(len(remaining))]
        d = ((points[remaining] - points[seed]) ** 2).sum(axis=1)
        # The seed has distance 0 and the lowest index among its ties comes first only if
        # ties are broken by index: a stable sort over ascending indices does that.
        d[remaining == seed] = -1.0
        chosen = remaining[np.argsort(d, kind="stable")[:k]]
        groups[chosen] = group
        remaining = remaining[groups[remaining] < 0]
    if len(remaining):
        centres = group_centres(points, groups, s)
        groups[remaining] = nearest_centre(points[remaining], centres)
    return groups


def group_centres(points: np.ndarray, groups: np.ndarray, count: int) -> np.ndarray:
    """The mean point of each group among records with a group (>= 0)."""
    member = groups >= 0
    labels, kept = groups[member], points[member]
    sums = np.column_stack([np.bincount(labels, weights=kept[:, j], minlength=count)
                            for j in range(points.shape[1])]) if points.shape[1] else \
        np.zeros((count, 0))
    sizes = np.bincount(labels, minlength=count).astype(np.float64)
    return sums / np.maximum(sizes, 1.0)[:, None]


def nearest_centre(points: np.ndarray, centres: np.ndarray,
                   cancel: CancelToken | None = None) -> np.ndarray:
    """Index of the nearest centre for every point (lowest index on ties), in chunks."""
    out = np.empty(points.shape[0], dtype=np.int64)
    step = max(1, _CHUNK_CELLS // max(1, centres.shape[0]))
    centre_norms = (centres ** 2).sum(axis=1)
    for start in range(0, points.shape[0], step):
        _check(cancel)
        chunk = points[start:start + step]
        d = centre_norms[None, :] - 2.0 * chunk @ centres.T
        out[start:start + step] = d.argmin(axis=1)
    return out


def kmeans(points: np.ndarray, clusters: int, rng: np.random.Generator, max_iter: int = 10,
           restarts: int = 1, cancel: CancelToken | None = None,
           on_iteration: Callable[[float], None] | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd's k-means from random rows (Alg. 2 step 2a; R's default of 10 iterations).

    Returns (labels, centres) of the restart with the least within-cluster sum of squares.
    An empty cluster keeps its previous centre (it is filled in step 2c).
    ``on_iteration(fraction)`` reports the share of the iterations done.
    """
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for restart in range(restarts):
        centres = points[rng.choice(points.shape[0], clusters, replace=False)].copy()
        labels = nearest_centre(points, centres, cancel)
        for iteration in range(max_iter):
            if on_iteration is not None:
                on_iteration((restart * max_iter + iteration) / (restarts * max_iter))
            sizes = np.bincount(labels, minlength=clusters)
            moved = group_centres(points, labels, clusters)
            centres = np.where(sizes[:, None] > 0, moved, centres)
            new = nearest_centre(points, centres, cancel)
            if np.array_equal(new, labels):
                break
            labels = new
        sse = float(((points - centres[labels]) ** 2).sum())
        if best is None or sse < best[0]:
            best = (sse, labels, centres)
    assert best is not None
    return best[1], best[2]


def fill_small_clusters(points: np.ndarray, labels: np.ndarray, centres: np.ndarray, k: int,
                        cancel: CancelToken | None = None) -> tuple[np.ndarray, int]:
    """Alg. 2 step 2c: top up every cluster below k from clusters holding more than k.

    Clusters are filled in ascending order of their k-means size; each takes, one at a
    time, the records nearest its (fixed) k-means centre whose cluster still has more
    than k members (spec §2.2 decision 4). Returns (labels, number of records moved).
    """
    labels = labels.copy()
    sizes = np.bincount(labels, minlength=len(centres))
    moved = 0
    for cluster in np.argsort(sizes, kind="stable"):
        need = k - sizes[cluster]
        if need <= 0:
            continue
        _check(cancel)
        donors = np.flatnonzero(sizes[labels] > k)
        d = ((points[donors] - centres[cluster]) ** 2).sum(axis=1)
        for record in donors[np.argsort(d, kind="stable")]:
            if need == 0:
                break
            source = labels[record]
            if sizes[source] <= k:  # rechecked after every move
                continue
            labels[record] = cluster
            sizes[source] -= 1
            sizes[cluster] += 1
            need -= 1
            moved += 1
    return labels, moved
