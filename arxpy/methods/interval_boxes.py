"""Interval generalisation: k-anonymous boxes shaped for a target statistic.

Xiang, O'Rawe, Kreinovich, Hajagos & Ferson (2014), "Protecting patient privacy while
preserving medical information for research", REC'2014, §5 (L128-169), as specified in
``shared/specs/001-interval-generalisation.md``. Each record's numeric attributes become
a box (one interval per attribute) that at least k records share; the box is built
around a seed with the asymmetric distance d(p, q) = max_i a_i(p)·|x_i(p) − x_i(q)|,
where a_i = |∂C/∂x_i| of the target statistic C at the box centre (L144-153).

With no statistic in mind the default target is ``standardized`` (a_i = 1/SD_i, distances
in standard deviations), so no attribute's boxes are wide merely because its unit is
small; ``uniform`` (a_i = 1, raw units) stays available by name.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from arxpy.arrays import distinct
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.data.roles import NUMERIC
from arxpy.errors import ConfigurationError
from arxpy.formatting import plain
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.methods.base import Method
from arxpy.methods.registry import register_method
from arxpy.params import Param
from arxpy.release import Claim, Release, table_sha256

ORDERS = ("input", "sorted", "random")
MERGES = ("leftover", "seed", "widen")
NEIGHBOURS = ("auto", "kd-tree", "exact")
#: Targets whose gradient does not depend on the point (KD-tree path is valid).
CONSTANT_TARGETS = ("standardized", "uniform", "mean", "weights")
#: Targets that name no attribute.
_WHOLE_TABLE_TARGETS = ("standardized", "uniform")
#: How often the loops look at the cancel token (iterations).
_CHECK_EVERY = 256

if TYPE_CHECKING:
    from scipy.spatial import cKDTree


def _kd_tree(points: np.ndarray) -> cKDTree:
    """scipy's k-d tree of ``points`` (scipy.spatial imported here: a tenth of a second
    that a run without interval boxes need not pay at start-up)."""
    from scipy.spatial import cKDTree

    return cKDTree(points)


# --- target statistic -------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """The statistic the boxes are shaped for: ``kind`` over ``attributes`` (or weights)."""

    kind: str
    attributes: tuple[str, ...] = ()
    weights: Mapping[str, float] | None = None

    @property
    def constant(self) -> bool:
        return self.kind in CONSTANT_TARGETS

    def text(self) -> str:
        if self.kind in _WHOLE_TABLE_TARGETS:
            return self.kind
        if self.kind == "weights":
            return "weights:" + ",".join(f"{a}={w:g}" for a, w in self.weights.items())
        return f"{self.kind}:{','.join(self.attributes)}"


def parse_target(text: str) -> Target:
    """``standardized``, ``uniform``, ``mean:A``, ``variance:A``, ``covariance:A,B``,
    ``correlation:A,B`` or ``weights:A=1,B=2`` as a :class:`Target`; ConfigurationError
    says what to write."""
    text = text.strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    names = tuple(a.strip() for a in rest.split(",") if a.strip())
    wanted = {"standardized": 0, "uniform": 0, "mean": 1, "variance": 1, "covariance": 2,
              "correlation": 2}
    if kind in wanted:
        if len(names) != wanted[kind]:
            raise ConfigurationError(
                f"Cannot read statistic '{text}': {kind} takes {wanted[kind]} attribute(s), "
                "e.g. mean:A, variance:A, covariance:A,B, correlation:A,B, standardized or "
                "uniform.")
        if len(set(names)) != len(names):
            raise ConfigurationError(f"Statistic '{text}' needs two different attributes.")
        return Target(kind, names)
    if kind == "weights":
        weights: dict[str, float] = {}
        for item in names:
            name, sep, value = item.partition("=")
            try:
                weight = float(value)
            except ValueError:
                weight = float("nan")
            if not sep or not name.strip() or not np.isfinite(weight) or weight < 0:
                raise ConfigurationError(
                    f"Cannot read weight '{item}' in '{text}'; write weights:A=1,B=2 with "
                    "non-negative numbers.")
            weights[name.strip()] = weight
        if not weights or max(weights.values()) <= 0:
            raise ConfigurationError(f"Statistic '{text}' needs at least one positive weight.")
        return Target("weights", tuple(weights), weights)
    raise ConfigurationError(
        f"Unknown statistic '{text}'; use standardized, uniform, mean:A, variance:A, "
        "covariance:A,B, correlation:A,B or weights:A=1,B=2.")


def gradients(values: np.ndarray, attributes: Sequence[str], target: Target,
              eps: float) -> np.ndarray:
    """a_i(x) = |∂C/∂x_i| per record and attribute (N × n), floored at ε·max a (spec §2.2).

    Population moments; the common 1/N factor is dropped (it changes no ranking). The
    floor uses the largest gradient over all records and attributes, so a record where
    every gradient vanishes (at the mean, for a variance) ranks its neighbours by plain
    Chebyshev distance instead of tying with everything.
    """
    n_records, n_attrs = values.shape
    col = {a: i for i, a in enumerate(attributes)}
    for name in target.attributes:
        if name not in col:
            raise ConfigurationError(
                f"The statistic names '{name}', which is not among the boxed attributes "
                f"({', '.join(attributes)}); add it to the attributes.")
    a = np.zeros((n_records, n_attrs))
    centred = values - values.mean(axis=0)
    if target.kind == "standardized":
        s = values.std(axis=0)
        a[:] = 1.0 / np.where(s > 0, s, 1.0)  # a constant attribute: any weight ranks alike
    elif target.kind == "uniform":
        a[:] = 1.0
    elif target.kind == "weights":
        for name, weight in target.weights.items():
            a[:, col[name]] = weight
    elif target.kind == "mean":
        a[:, col[target.attributes[0]]] = 1.0
    elif target.kind == "variance":
        j = col[target.attributes[0]]
        a[:, j] = 2.0 * np.abs(centred[:, j])
    elif target.kind == "covariance":
        i, j = (col[name] for name in target.attributes)
        a[:, i] = np.abs(centred[:, j])
        a[:, j] = np.abs(centred[:, i])
    else:  # correlation: r = cov / (s_i s_j)
        i, j = (col[name] for name in target.attributes)
        s = values.std(axis=0)
        if s[i] == 0 or s[j] == 0:
            raise ConfigurationError(
                "Correlation is undefined for a constant attribute; target another statistic.")
        r = float(np.mean(centred[:, i] * centred[:, j]) / (s[i] * s[j]))
        a[:, i] = np.abs(centred[:, j] / (s[i] * s[j]) - r * centred[:, i] / s[i] ** 2)
        a[:, j] = np.abs(centred[:, i] / (s[i] * s[j]) - r * centred[:, j] / s[j] ** 2)
    top = float(a.max())
    if top <= 0:  # e.g. a variance target on a constant attribute: rank uniformly
        return np.ones_like(a)
    return np.maximum(a, eps * top)


# --- neighbours --------------------------------------------------------------------------

def _ranked(candidates: np.ndarray, distances: np.ndarray, own: int, k: int) -> np.ndarray:
    """The first ``k`` candidates by (distance, not own, row index): ties go to lower rows."""
    order = np.lexsort((candidates, candidates != own, distances))
    return candidates[order[:k]]


def _greedy_distance(points: np.ndarray, query: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """d(q, ·) of the greedy pass: max_i a_i(q)·|x_i(q) − x_i(·)| (L144-153)."""
    return np.abs(points * scale - query * scale).max(axis=-1)


def _merge_distance(points: np.ndarray, query: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """d(q, seed) of the leftover merge, a at the leftover (spec §2.4)."""
    return (np.abs(points - query) * scale).max(axis=-1)


Distance = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _scan(points: np.ndarray, query: np.ndarray, scale: np.ndarray, own: int, k: int,
          distance: Distance) -> np.ndarray:
    """The k points nearest to ``query`` by a full scan, O(N), ties to lower rows."""
    distances = distance(points, query, scale)
    kth = np.partition(distances, k - 1)[k - 1]
    candidates = np.flatnonzero(distances <= kth)
    return _ranked(candidates, distances[candidates], own, k)


class _KdNeighbours:
    """k nearest under a constant weighted Chebyshev distance, from a KD-tree (p = ∞).

    Gives the same neighbours as a full scan (:func:`_scan`) (same distances bit for bit,
    same tie rule): rows whose k-th distance is tied are re-ranked from a ball query.
    """

    def __init__(self, scaled: np.ndarray, k: int) -> None:
        self.scaled = scaled
        self.k = k
        self.tree = _kd_tree(scaled)

    def batch(self, queries: np.ndarray, own: np.ndarray | None) -> _NeighbourBatch:
        """The k nearest points to each query row; tied rows are re-ranked on demand."""
        k = self.k
        dist, idx = self.tree.query(queries, k=k, p=np.inf)
        dist = dist.reshape(len(queries), k)
        idx = idx.reshape(len(queries), k)
        radius = dist[:, -1] * (1 + 1e-9) + 1e-300  # inclusive, robust to rounding
        counts = self.tree.query_ball_point(queries, r=radius, p=np.inf, return_length=True)
        redo = counts > k
        if own is not None:
            redo |= idx[:, 0] != own
        return _NeighbourBatch(self, queries, own, idx, radius, redo)


@dataclass
class _NeighbourBatch:
    """k-NN of many query rows; rows with ties at the k-th distance are re-ranked only
    when asked for (with tie-heavy data most rows are never needed: they are boxed)."""

    kd: _KdNeighbours
    queries: np.ndarray
    own: np.ndarray | None
    idx: np.ndarray
    radius: np.ndarray
    redo: np.ndarray
    evaluations: int = 0

    def row(self, i: int) -> np.ndarray:
        if self.redo[i]:
            tree, query = self.kd.tree, self.queries[i]
            cand = np.asarray(tree.query_ball_point(query, r=self.radius[i], p=np.inf),
                              dtype=np.int64)
            self.evaluations += len(cand)
            d = np.abs(self.kd.scaled[cand] - query).max(axis=1)
            own = -1 if self.own is None else int(self.own[i])
            self.idx[i] = _ranked(cand, d, own, self.kd.k)
            self.redo[i] = False
        return self.idx[i]

    def all(self) -> np.ndarray:
        for i in np.flatnonzero(self.redo):
            self.row(int(i))
        return self.idx


#: Gradients within a factor 2**_BUCKET_BITS of each other share one KD-tree.
_BUCKET_BITS = 2
#: Tree candidates per wanted neighbour, and the most a row may ask for before it falls
#: back to a ball query (ties at the k-th distance need them all).
_CANDIDATES_PER_NEIGHBOUR = 4
_MAX_CANDIDATES = 4096
#: A bucket with fewer queries scans for each one when (and if) it is needed: cheaper
#: than building a tree over every point.
_TREE_MIN_QUERIES = 32
#: Query rows handled between cancel checks, and candidate pairs held at once.
_CHUNK = 1 << 14
_CANDIDATE_BUDGET = 1 << 19


def gradient_buckets(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's bucket and the power-of-two weights w ≤ a of every bucket.

    Powers of two scale values without rounding, and a/w < 2**_BUCKET_BITS keeps each
    bucket's tree distance within that factor of the exact one.
    """
    exponent = np.frexp(a)[1] - 1  # 2**exponent ≤ a < 2**(exponent + 1)
    level = np.floor_divide(exponent, _BUCKET_BITS)
    level -= level.min(axis=0)
    code = np.zeros(len(a), dtype=np.int64)
    for column in level.T:
        code = code * (int(column.max()) + 1) + column
    _, first, bucket = distinct(code, return_index=True, return_inverse=True)
    weights = np.ldexp(1.0, ((np.frexp(a[first])[1] - 1) // _BUCKET_BITS) * _BUCKET_BITS)
    return bucket, np.where(a[first] > 0, weights, 0.0)


class _GradientNeighbours:
    """k nearest under d(q, ·) = max_i a_i(q)·|x_i(q) − x_i(·)| with a depending on the
    query (variance, covariance, correlation targets), without an O(N) scan per query.

    Queries whose gradients share a bucket share power-of-two weights w ≤ a(q), so under
    the Chebyshev distance of x·w (one KD-tree per bucket) no point is farther than under
    d(q, ·). The k-th exact distance D among the tree's nearest candidates therefore
    bounds the neighbourhood: every point within D of q lies within D in the tree, hence
    among the candidates when D is below the farthest candidate's tree distance (else
    more candidates, then a ball query of radius D, collect it). Ranking them by the
    exact distance and the row-index tie rule gives the full scan's answer bit for bit.
    Sparse buckets scan, on demand; without ``trees`` every query does (the reference).
    ``evaluations`` counts exact distance evaluations.
    """

    def __init__(self, points: np.ndarray, queries: np.ndarray, a: np.ndarray, k: int,
                 own: np.ndarray | None, distance: Distance,
                 cancel: CancelToken | None = None, *, trees: bool = True) -> None:
        self.points, self.queries, self.a, self.k = points, queries, a, k
        self.own = np.full(len(queries), -1, dtype=np.int64) if own is None else own
        self.distance, self.cancel = distance, cancel
        self.idx = np.zeros((len(queries), k), dtype=np.int64)
        self.pending = np.full(len(queries), not trees)  # scanned when asked for
        self.evaluations = 0
        if trees:
            self._search_buckets()

    def _search_buckets(self) -> None:
        points, k, cancel = self.points, self.k, self.cancel
        bucket, weights = gradient_buckets(self.a)
        rows_of = np.split(np.argsort(bucket, kind="stable"),
                           np.cumsum(np.bincount(bucket))[:-1])
        for rows, w in zip(rows_of, weights, strict=True):
            _check(cancel)
            if len(rows) < _TREE_MIN_QUERIES and len(points) > _TREE_MIN_QUERIES:
                self.pending[rows] = True
                continue
            tree = _kd_tree(points * w)
            for start in range(0, len(rows), _CHUNK):
                _check(cancel)
                self._from_tree(tree, w, rows[start:start + _CHUNK],
                                _CANDIDATES_PER_NEIGHBOUR * k)

    def _from_tree(self, tree: cKDTree, w: np.ndarray, rows: np.ndarray,
                   wanted: int) -> None:
        """Neighbours of ``rows`` from their ``wanted`` nearest in the tree; rows whose
        bound reaches past the farthest candidate ask for four times as many."""
        wanted = min(len(self.points), wanted)
        piece = max(1, _CANDIDATE_BUDGET // wanted)
        for start in range(0, len(rows), piece):
            part = rows[start:start + piece]
            tree_d, cand = tree.query(self.queries[part] * w, k=wanted, p=np.inf)
            cand = cand.reshape(len(part), wanted)
            exact = self.distance(self.points[cand], self.queries[part][:, None, :],
                                  self.a[part][:, None, :])
            self.evaluations += exact.size
            order = np.lexsort((cand, cand != self.own[part][:, None], exact))[:, :self.k]
            self.idx[part] = np.take_along_axis(cand, order, axis=1)
            if wanted == len(self.points):
                continue  # every point was a candidate
            kth = np.take_along_axis(exact, order[:, -1:], axis=1)[:, 0]
            bound = self._bound(part, kth)
            short = bound >= tree_d.reshape(len(part), wanted)[:, -1]
            if wanted < _MAX_CANDIDATES:
                self._from_tree(tree, w, part[short], 4 * wanted)
                continue
            for row, radius in zip(part[short], bound[short], strict=True):
                self._from_ball(tree, w, int(row), radius)

    def _bound(self, rows: np.ndarray, kth: np.ndarray) -> np.ndarray:
        """The k-th exact distance widened by far more than both distances' rounding."""
        magnitude = np.abs(self.queries[rows] * self.a[rows]).max(axis=1)
        return kth + 1e-12 * (kth + magnitude) + 1e-300

    def _from_ball(self, tree: cKDTree, w: np.ndarray, row: int, radius: float) -> None:
        cand = np.asarray(tree.query_ball_point(self.queries[row] * w, r=radius, p=np.inf),
                          dtype=np.int64)
        exact = self.distance(self.points[cand], self.queries[row], self.a[row])
        self.evaluations += len(cand)
        self.idx[row] = _ranked(cand, exact, int(self.own[row]), self.k)

    def row(self, i: int) -> np.ndarray:
        if self.pending[i]:  # an O(N) scan: look at the token before every one
            _check(self.cancel)
            self.idx[i] = _scan(self.points, self.queries[i], self.a[i], int(self.own[i]),
                                self.k, self.distance)
            self.evaluations += len(self.points)
            self.pending[i] = False
        return self.idx[i]

    def all(self) -> np.ndarray:
        for i in np.flatnonzero(self.pending):
            self.row(int(i))
        return self.idx


# --- boxes -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Boxes:
    """Boxes of one run: ``lo``/``hi`` per box and attribute, ``box`` per record."""

    lo: np.ndarray
    hi: np.ndarray
    box: np.ndarray
    seeds: np.ndarray
    #: Records merged into an existing box after the greedy pass (spec §2.4).
    leftovers: int
    #: Records per box when the greedy pass created it (k each).
    created_sizes: np.ndarray
    #: Exact distances computed by the neighbour searches (KD-tree queries not counted):
    #: about N·k for the tree searches, N²/k for full scans.
    distance_evaluations: int = 0

    @property
    def sizes(self) -> np.ndarray:
        return np.bincount(self.box, minlength=len(self.lo))

    def record_lo(self) -> np.ndarray:
        return self.lo[self.box]

    def record_hi(self) -> np.ndarray:
        return self.hi[self.box]


def processing_order(values: np.ndarray, order: str, seed: int | None) -> np.ndarray:
    """Rows in the order the greedy pass visits them (the paper leaves it open, §2.3)."""
    n = len(values)
    if order == "input":
        return np.arange(n)
    if order == "sorted":  # lexicographic, first attribute primary, ties by row
        return np.lexsort([np.arange(n), *[values[:, i] for i in range(values.shape[1])][::-1]])
    return np.random.default_rng(seed).permutation(n)


def build_boxes(values: np.ndarray, a: np.ndarray, k: int, *, constant: bool,
                order: str = "input", merge: str = "leftover", seed: int | None = None,
                neighbours: str = "auto", progress: Progress | None = None,
                cancel: CancelToken | None = None) -> Boxes:
    """The greedy boxes (L155-161) and the leftover merge (L163-167) on N × n ``values``.

    ``a`` holds the floored gradients per record (N × n); ``constant`` says they do not
    depend on the record, which allows the KD-tree unless ``neighbours="exact"``.
    """
    n = len(values)
    if not 1 <= k <= n:
        raise ConfigurationError(f"k = {k} needs at least {k} records; the data has {n}.")
    report = ThrottledProgress(progress)
    use_tree = constant and neighbours != "exact"
    kd = _KdNeighbours(values * a[0], k) if use_tree else None
    box = np.full(n, -1, dtype=np.int64)
    seeds: list[int] = []
    visit = processing_order(values, order, seed)
    report(0.0, "finding neighbours")
    nn_of = _neighbours_in_order(values, a, k, visit, kd, neighbours, cancel)
    for step, p in enumerate(visit):
        if step % _CHECK_EVERY == 0:  # report first: a cancel from the report counts now
            report(0.8 * step / n, "building boxes")
            _check(cancel)
        if box[p] >= 0:
            continue
        members = nn_of.row(step)
        if (box[members] >= 0).any():
            continue  # p stays a leftover for now (L161)
        box[members] = len(seeds)
        seeds.append(int(p))
    seeds_arr = np.asarray(seeds, dtype=np.int64)
    lo, hi = _extents(values, box, len(seeds))
    created = np.bincount(box[box >= 0], minlength=len(seeds))
    left = np.flatnonzero(box < 0)  # ascending row order (spec §2.4)
    report(0.8, "merging leftovers")
    merged = _merge_leftovers(values, a, box, lo, hi, seeds_arr, left, merge, kd,
                              neighbours, cancel)
    _check(cancel)  # a job cancelled meanwhile returns nothing
    report(1.0, "boxes done")
    return Boxes(lo, hi, box, seeds_arr, int(len(left)), created,
                 nn_of.evaluations + merged)


def _check(cancel: CancelToken | None) -> None:
    if cancel is not None:
        cancel.raise_if_cancelled()


#: A neighbour search in visiting order: ``row(i)``, ``all()`` and ``evaluations``.
Neighbours = _NeighbourBatch | _GradientNeighbours


def _neighbours_in_order(values: np.ndarray, a: np.ndarray, k: int, visit: np.ndarray,
                         kd: _KdNeighbours | None, neighbours: str,
                         cancel: CancelToken | None) -> Neighbours:
    """k nearest of every record in visiting order (they do not depend on the boxes)."""
    if kd is not None:
        return kd.batch(kd.scaled[visit], own=visit)
    return _GradientNeighbours(values, values[visit], a[visit], k, visit, _greedy_distance,
                               cancel, trees=neighbours != "exact")


def _extents(values: np.ndarray, box: np.ndarray, n_boxes: int) -> tuple[np.ndarray, np.ndarray]:
    n_attrs = values.shape[1]
    lo = np.full((n_boxes, n_attrs), np.inf)
    hi = np.full((n_boxes, n_attrs), -np.inf)
    member = box >= 0
    for i in range(n_attrs):
        np.minimum.at(lo[:, i], box[member], values[member, i])
        np.maximum.at(hi[:, i], box[member], values[member, i])
    return lo, hi


def _merge_leftovers(values: np.ndarray, a: np.ndarray, box: np.ndarray, lo: np.ndarray,
                     hi: np.ndarray, seeds: np.ndarray, left: np.ndarray, merge: str,
                     kd: _KdNeighbours | None, neighbours: str,
                     cancel: CancelToken | None) -> int:
    """Merge each leftover into one box and widen it (in place, L163-167, spec §2.4);
    returns the number of exact distance evaluations."""
    if not len(left):
        return 0
    if merge == "widen":
        counts = np.bincount(box[box >= 0], minlength=len(seeds)).astype(float)
        for step, q in enumerate(left):
            if step % 16 == 0:  # O(boxes) per leftover
                _check(cancel)
            growth = np.maximum(lo - values[q], 0) + np.maximum(values[q] - hi, 0)
            cost = (growth * a[q]).sum(axis=1) * counts
            if values.shape[1] == 1:  # 1D: never widen across another box (§2.3, L138)
                cost[~_adjacent_boxes(lo[:, 0], hi[:, 0], values[q, 0])] = np.inf
            b = int(np.argmin(cost))  # ties: lowest box id
            _widen(lo, hi, b, values[q])
            counts[b] += 1
            box[q] = b
        return len(left) * len(seeds)
    # leftover and seed rules compare against fixed seeds, so targets are found up front
    evaluations = 0
    if kd is not None:  # constant a: both rules are the same weighted Chebyshev distance
        seed_kd = _KdNeighbours(kd.scaled[seeds], 1)
        target = seed_kd.batch(kd.scaled[left], own=None).all()[:, 0]
    elif merge == "leftover":  # a at the leftover: the greedy pass's search, over seeds
        nearest = _GradientNeighbours(values[seeds], values[left], a[left], 1, None,
                                      _merge_distance, cancel, trees=neighbours != "exact")
        target = nearest.all()[:, 0]  # ties: lowest box id
        evaluations = nearest.evaluations
    elif neighbours == "exact":  # the paper's literal rule, a at each seed
        target = np.empty(len(left), dtype=np.int64)
        seed_values, seed_a = values[seeds], a[seeds]
        for step, q in enumerate(left):
            if step % 16 == 0:  # O(boxes) per leftover
                _check(cancel)
            d = (np.abs(seed_values - values[q]) * seed_a).max(axis=1)
            target[step] = int(np.argmin(d))  # ties: lowest box id
        evaluations = len(left) * len(seeds)
    else:
        target, evaluations = _nearest_seed_by_seed_gradients(values[seeds], a[seeds],
                                                               values[left], cancel)
    for q, b in zip(left, target, strict=True):
        _widen(lo, hi, int(b), values[q])
        box[q] = b
    return evaluations


def _nearest_seed_by_seed_gradients(seed_values: np.ndarray, seed_a: np.ndarray,
                                    queries: np.ndarray,
                                    cancel: CancelToken | None) -> tuple[np.ndarray, int]:
    """The paper's literal merge, d(seed, q) with a at each seed: the nearest seed within
    each bucket of seed gradients (a KD-tree on x·w, w ≤ a, never overestimates the
    distance), then the nearest over the buckets; ties to the lowest box id, as a full
    scan per leftover gives. A bucket whose nearest tree distance exceeds the best exact
    distance found in any bucket is skipped for that leftover (a bucket is a slab of
    similar gradients, far from most leftovers). Returns the box per leftover and the
    number of exact evaluations."""
    every = np.arange(len(queries))
    best = np.full(len(queries), np.inf)
    target = np.full(len(queries), -1, dtype=np.int64)
    bucket, weights = gradient_buckets(seed_a)
    members_of = np.split(np.argsort(bucket, kind="stable"),
                          np.cumsum(np.bincount(bucket))[:-1])
    searches = []
    for members, w in zip(members_of, weights, strict=True):
        _check(cancel)
        search = _BucketNearest(_kd_tree(seed_values[members] * w), seed_values[members],
                                seed_a[members], w, queries)
        search.find(every, 1, complete=False)  # an upper bound from every bucket
        _keep_nearest(best, target, search, members, every)
        searches.append(search)
    for search, members in zip(searches, members_of, strict=True):
        _check(cancel)
        near = search.tree.query(queries * search.w, k=1, p=np.inf)[0]
        rows = np.flatnonzero(near <= best * (1 + 1e-12) + 1e-300)
        search.find(rows, _CANDIDATES_PER_NEIGHBOUR)
        _keep_nearest(best, target, search, members, rows)
    return target, sum(search.evaluations for search in searches)


def _keep_nearest(best: np.ndarray, target: np.ndarray, search: _BucketNearest,
                  members: np.ndarray, rows: np.ndarray) -> None:
    """Keep the bucket's nearest seed where it is nearer (equal: the lower box id)."""
    d, ids = search.best[rows], members[search.index[rows]]
    closer = (d < best[rows]) | ((d == best[rows]) & (ids < target[rows]))
    best[rows[closer]], target[rows[closer]] = d[closer], ids[closer]


@dataclass
class _BucketNearest:
    """The nearest point of one gradient bucket per query: the tree's nearest candidates,
    four times as many for rows whose best exact distance reaches past the farthest
    candidate's tree distance, at last a ball query."""

    tree: cKDTree
    points: np.ndarray
    a: np.ndarray
    w: np.ndarray
    queries: np.ndarray
    evaluations: int = 0

    def __post_init__(self) -> None:
        self.best = np.empty(len(self.queries))
        self.index = np.empty(len(self.queries), dtype=np.int64)

    def find(self, rows: np.ndarray, wanted: int, *, complete: bool = True) -> None:
        """``complete=False`` only ranks the ``wanted`` candidates (an upper bound)."""
        wanted = min(len(self.points), wanted)
        piece = max(1, _CANDIDATE_BUDGET // wanted)
        for start in range(0, len(rows), piece):
            part = rows[start:start + piece]
            tree_d, cand = self.tree.query(self.queries[part] * self.w, k=wanted, p=np.inf)
            cand, tree_d = cand.reshape(len(part), wanted), tree_d.reshape(len(part), wanted)
            exact = self._distances(cand, self.queries[part][:, None, :])
            first = np.lexsort((cand, exact))[:, :1]
            self.best[part] = np.take_along_axis(exact, first, axis=1)[:, 0]
            self.index[part] = np.take_along_axis(cand, first, axis=1)[:, 0]
            if wanted == len(self.points) or not complete:
                continue
            # both distances round the same |point − query| once: a relative margin
            short = part[self._radius(part) >= tree_d[:, -1]]
            if wanted < _MAX_CANDIDATES:
                self.find(short, 4 * wanted)
                continue
            for row in short:
                ball = np.asarray(self.tree.query_ball_point(
                    self.queries[row] * self.w, r=self._radius(row), p=np.inf), dtype=np.int64)
                exact = self._distances(ball, self.queries[row])
                order = np.lexsort((ball, exact))[0]
                self.best[row], self.index[row] = exact[order], ball[order]

    def _distances(self, cand: np.ndarray, query: np.ndarray) -> np.ndarray:
        self.evaluations += cand.size
        return (np.abs(self.points[cand] - query) * self.a[cand]).max(axis=-1)

    def _radius(self, rows: np.ndarray | int) -> np.ndarray:
        return self.best[rows] * (1 + 1e-12) + 1e-300


def _adjacent_boxes(lo: np.ndarray, hi: np.ndarray, x: float) -> np.ndarray:
    """In 1D, the boxes containing ``x`` and the nearest box on each side of it: widening
    any other box would swallow those in between, and 1D boxes must not overlap. (The
    count-weighted cost of ``merge=widen`` could otherwise prefer a far, small box.)"""
    inside = (lo <= x) & (x <= hi)
    left, right = hi < x, lo > x
    nearest_left = left & (hi == hi[left].max()) if left.any() else left
    nearest_right = right & (lo == lo[right].min()) if right.any() else right
    return inside | nearest_left | nearest_right


def _widen(lo: np.ndarray, hi: np.ndarray, b: int, point: np.ndarray) -> None:
    np.minimum(lo[b], point, out=lo[b])
    np.maximum(hi[b], point, out=hi[b])


# --- table and release ------------------------------------------------------------------

def numeric_columns(data: pd.DataFrame, attributes: Sequence[str]) -> np.ndarray:
    """The attributes as an N × n float array; ConfigurationError names a bad value."""
    columns = []
    for name in attributes:
        if name not in data.columns:
            raise ConfigurationError(
                f"Attribute '{name}' is not in the data; its columns are "
                f"{', '.join(map(str, data.columns))}.")
        parsed = pd.to_numeric(data[name], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(parsed)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ConfigurationError(
                f"Attribute '{name}' must be numeric for interval generalisation; row "
                f"{row + 1} holds {data[name].iloc[row]!r}. Choose numeric attributes or "
                "clean the value.")
        columns.append(parsed)
    return np.column_stack(columns) if columns else np.zeros((len(data), 0))


def format_interval(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Cells ``"[lo, hi]"`` (the release's format for a generalized value); each
    distinct endpoint is formatted once."""
    values, at = distinct(np.concatenate([lo, hi]), return_inverse=True)
    text = [plain(v) for v in values]
    return np.array([f"[{text[a]}, {text[b]}]" for a, b in zip(at[:len(lo)], at[len(lo):],
                                                                 strict=True)], dtype=object)


def parse_interval(cell: str) -> tuple[float, float]:
    """``"[lo, hi]"`` back to numbers (inverse of :func:`format_interval`)."""
    text = cell.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ConfigurationError(f"Cannot read interval {cell!r}; expected '[lo, hi]'.")
    left, sep, right = text[1:-1].partition(",")
    try:
        return float(left), float(right)
    except ValueError:
        raise ConfigurationError(f"Cannot read interval {cell!r}; expected '[lo, hi]'.") \
            from None


@register_method
class IntervalGeneralisation(Method):
    """k-anonymous boxes shaped for a target statistic (Xiang et al. 2014)."""

    name = "intervals"
    label = "Interval generalisation"
    description = ("Replaces numeric quasi-identifiers by boxes (one interval per attribute) that "
                   "at least k records share, shaped to keep a chosen statistic narrow; interval "
                   "statistics of the release contain the true values.")
    guidance = ("Choose it for numeric quasi-identifiers when analysts can work with intervals: "
                "interval statistics of the release are guaranteed to contain the true "
                "statistics.")
    reference = ("Xiang, O'Rawe, Kreinovich, Hajagos & Ferson (2014), Protecting patient "
                 "privacy while preserving medical information for research, REC'2014")
    params = (
        Param("attributes", "attributes", label="attributes",
              help="numeric attributes to replace by intervals", step="§5 L128",
              data_types=NUMERIC),
        Param("k", "int", 5, low=2, label="k", help="records sharing every box",
              step="§5 L155"),
        Param("statistic", "text", "standardized", label="target statistic",
              help="standardized (a_i = 1/SD_i, scale-free), uniform (a_i = 1, raw "
              "units), mean:A, variance:A, covariance:A,B, correlation:A,B or "
              "weights:A=1,B=2 (a_i = |dC/dx_i| at the box centre)", step="§5 L130-153"),
        Param("order", "choice", "input", choices=ORDERS, label="processing order",
              help="order in which records seed boxes (unspecified in the paper)",
              step="§5 L155-161"),
        Param("merge", "choice", "leftover", choices=MERGES, label="merge rule",
              help="leftover: distance seen from the leftover (default); seed: the paper's "
              "literal rule; widen: least weighted widening", step="§5 L163-167"),
        Param("eps", "float", 1e-6, low=0.0, high=1.0, low_open=True, label="gradient floor",
              help="a_i is at least eps times the largest gradient", step="spec §2.2"),
        Param("seed", "int", None, optional=True, low=0, label="seed",
              help="random seed of the random processing order"),
        Param("neighbours", "choice", "auto", choices=NEIGHBOURS, label="neighbour search",
              help="auto: KD-trees (one per gradient bucket for point-dependent "
              "gradients), O(N log N); exact: a full O(N) scan per box seed, O(N^2)",
              step="§5 L169"),
    )

    def check_together(self) -> None:
        target = parse_target(self.statistic)
        if len(set(self.attributes)) != len(self.attributes) or not self.attributes:
            raise ConfigurationError(
                "Interval generalisation needs one or more different attributes.")
        missing = [a for a in target.attributes if a not in self.attributes]
        if missing:
            raise ConfigurationError(
                f"The statistic '{self.statistic}' names {', '.join(missing)}, which is not "
                "among the attributes; add it to the attributes.")
        if self.neighbours == "kd-tree" and not target.constant:
            raise ConfigurationError(
                f"The KD-tree needs constant gradients, but '{self.statistic}' has "
                "point-dependent ones; use neighbours auto or exact.")

    @property
    def target(self) -> Target:
        return parse_target(self.statistic)

    def boxes(self, data: pd.DataFrame, *, progress: Progress | None = None,
              cancel: CancelToken | None = None) -> Boxes:
        """The boxes for ``data`` (records in input order)."""
        values = numeric_columns(data, self.attributes)
        target = self.target
        a = gradients(values, self.attributes, target, self.eps)
        return build_boxes(values, a, self.k, constant=target.constant, order=self.order,
                           merge=self.merge, seed=self.seed, neighbours=self.neighbours,
                           progress=progress, cancel=cancel)

    def run(self, data: pd.DataFrame, definition: DataDefinition, *,
            hierarchies: Mapping[str, Hierarchy] | None = None,
            progress: Progress | None = None, cancel: CancelToken | None = None) -> Release:
        started = time.perf_counter()
        self._check_definition(data, definition)
        boxes = self.boxes(data, progress=progress, cancel=cancel)
        release = self.release_from_boxes(data, definition, boxes, started)
        if cancel is not None:  # cancelled while the release was built: return nothing
            cancel.raise_if_cancelled()
        return release

    def _check_definition(self, data: pd.DataFrame, definition: DataDefinition) -> None:
        definition.check_columns(data.columns)
        for name in self.attributes:
            if name in definition and definition[name].type is AttributeType.IDENTIFYING:
                raise ConfigurationError(
                    f"Attribute '{name}' is identifying and is removed from releases; "
                    "box quasi-identifiers instead.")

    def release_from_boxes(self, data: pd.DataFrame, definition: DataDefinition,
                           boxes: Boxes, started: float) -> Release:
        """The release of ``boxes``: each boxed attribute as ``"[lo, hi]"`` cells."""
        self._check_definition(data, definition)
        table = data.drop(columns=definition.identifying)
        released = definition
        for i, name in enumerate(self.attributes):  # one text per box, shared by members
            table[name] = format_interval(boxes.lo[:, i], boxes.hi[:, i])[boxes.box]
            released = released.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
        claim = Claim("k-anonymity", {"k": self.k}, tuple(self.attributes),
                      f"every box over {', '.join(self.attributes)} holds at least "
                      f"{self.k} records", min_class_size=self.k)
        return Release(
            table=table, suppressed=np.zeros(len(data), dtype=bool), definition=released,
            method=self.name, parameters=self.get_params(), claims=(claim,),
            input_sha256=table_sha256(data), groups=boxes.box.copy(), seed=self.seed,
            elapsed_seconds=time.perf_counter() - started)


def gradient_rule(target: Target) -> str:
    """The gradient a_i = |dC/dx_i| the target uses, in words (for forms and reports)."""
    rules = {
        "standardized": "a_i = 1/SD_i for every attribute (Chebyshev distance in standard "
                        "deviations, so no unit makes an attribute's boxes wider)",
        "uniform": "a_i = 1 for every attribute (plain Chebyshev distance in raw units)",
        "weights": "a_i = the given weight (constant)",
        "mean": "a_A = 1, other attributes floored at eps*max(a): they get wide intervals",
        "variance": "a_A(x) = 2|x_A - E_A| at the box centre; other attributes floored",
        "covariance": "a_A(x) = |x_B - E_B|, a_B(x) = |x_A - E_A|; other attributes floored",
        "correlation": "a_A(x) = |(x_B-E_B)/(s_A s_B) - r (x_A-E_A)/s_A^2| and symmetrically; "
                       "other attributes floored",
    }
    return f"{target.text()}: {rules[target.kind]}"


# --- utility-constrained mode ------------------------------------------------------------

#: Widths of the requested statistics on a box release: ``(lo, hi) -> {name: width}``,
#: where ``lo``/``hi`` are per-record bounds (N × n). The analysis layer supplies it
#: (``arxpy.analysis.interval_statistics.width_evaluator``): methods do not import analysis.
WidthEvaluator = Callable[[np.ndarray, np.ndarray], Mapping[str, float]]


@dataclass(frozen=True)
class KSweep:
    """Widths of the limited statistics for every k tried, and the largest feasible k."""

    limits: Mapping[str, float]
    widths: Mapping[int, Mapping[str, float]]
    best_k: int | None

    @property
    def releasable(self) -> bool:
        return self.best_k is not None

    def to_dict(self) -> dict[str, Any]:
        return {"limits": dict(self.limits), "best_k": self.best_k,
                "releasable": self.releasable,
                "widths": {str(k): dict(w) for k, w in self.widths.items()}}


def largest_feasible_k(method: IntervalGeneralisation, data: pd.DataFrame,
                       limits: Mapping[str, float], evaluate: WidthEvaluator, k_max: int, *,
                       progress: Progress | None = None,
                       cancel: CancelToken | None = None) -> KSweep:
    """The largest k in 2..k_max whose every width is within its limit (spec §2.6).

    Widths are not monotone in k for this greedy, so every k is evaluated; ``best_k`` is
    None ("not releasable at these limits") when no k qualifies.
    """
    if k_max < 2:
        raise ConfigurationError(f"k-max must be at least 2, got {k_max}.")
    top = min(k_max, len(data))
    report = ThrottledProgress(progress)
    widths: dict[int, dict[str, float]] = {}
    best = None
    for k in range(2, top + 1):
        _check(cancel)
        report((k - 2) / max(top - 1, 1), f"k = {k}")
        run = type(method)(**{**method.get_params(), "k": k})
        boxes = run.boxes(data, cancel=cancel)
        widths[k] = dict(evaluate(boxes.record_lo(), boxes.record_hi()))
        if all(widths[k][name] <= limit for name, limit in limits.items()):
            best = k
    return KSweep(dict(limits), widths, best)
