"""Exact two-sided Fisher test on a 2 x c table (Freeman-Halton for c > 2).

p is the sum of the probabilities of every table with the observed margins whose
probability is at most the observed table's, with R's relative tolerance 1e-7
(spec 003 §2.3, decision G11). SciPy >= 1.15 answers tables larger than 2 x 2 with a
Monte Carlo estimate that changes from call to call; this is exact and deterministic.

Under fixed margins the first row x is multivariate hypergeometric:
P(x) = prod_j C(c_j, x_j) / C(N, r). The tables are walked column by column as a
network (Mehta & Patel): a partial table is a node (columns done, first-row sum s,
log numerator L). A node whose most probable completion is already at most the
observed probability adds its whole subtree at once (Vandermonde: the completions sum
to C(rest, r - s)); a node whose least probable completion is above it adds nothing.
Only the rest is expanded, and nodes with equal (s, L) merge.

With many large columns even the unsettled nodes run into the millions (the exact
test is then as expensive as in R, whose FEXACT stops with a workspace error).
:func:`fisher_2xc` caps the nodes and beyond the cap estimates p from draws of the
multivariate hypergeometric distribution with a seed taken from the table, so the
same table always gets the same p; its result says which of the two was used.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Tables within this relative distance of the observed probability count as "as
#: extreme" (R's fisher.test and SciPy use the same 1 + 1e-7).
RELATIVE_TOLERANCE = 1e-7


def _log_choose(n: np.ndarray | int, k: np.ndarray | int) -> np.ndarray:
    from scipy.special import gammaln  # here: the CLI's start need not import scipy

    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _best_completions(columns: np.ndarray) -> list[np.ndarray]:
    """best[j][m]: the largest sum_i log C(c_i, x_i) over columns j.. with sum x_i = m.

    log C(c, x) is concave in x, so the best allocation takes the largest increments
    log((c - x + 1) / x) first; merging the increments of the columns gives it for all m.
    """
    best = [np.zeros(1)]
    increments = np.zeros(0)
    for c in columns[::-1]:
        x = np.arange(1, c + 1, dtype=float)
        increments = np.sort(np.concatenate([increments, np.log((c - x + 1) / x)]))[::-1]
        best.append(np.concatenate([[0.0], np.cumsum(increments)]))
    return best[::-1]


#: Unsettled nodes allowed per column before :func:`fisher_2xc` estimates instead.
MAX_NODES = 200_000
#: Draws of the estimate beyond the cap (standard error <= 0.0016 at p = 0.05).
DRAWS = 20_000


class _TooLarge(Exception):
    """The exact walk would exceed its node budget."""


@dataclass(frozen=True)
class FisherResult:
    """A Fisher test's p and how it was obtained (``exact`` False: seeded estimate)."""

    pvalue: float
    exact: bool = True


def fisher_2xc(table: np.ndarray | list, max_nodes: int = MAX_NODES,
               draws: int = DRAWS) -> FisherResult:
    """Exact p when the walk stays within ``max_nodes``, else a reproducible estimate."""
    try:
        return FisherResult(fisher_exact_2xc(table, max_nodes=max_nodes), True)
    except _TooLarge:
        return FisherResult(_estimate(np.asarray(table, dtype=np.int64), draws), False)


def fisher_exact_2xc(table: np.ndarray | list, max_nodes: int | None = None) -> float:
    """Two-sided exact p of a 2 x c contingency table of non-negative counts.

    All-zero columns are dropped; a table with an all-zero row or a single non-zero
    column has p = 1.
    """
    table = np.asarray(table, dtype=np.int64)
    if table.ndim != 2 or table.shape[0] != 2 or (table < 0).any():
        raise ValueError("fisher_exact_2xc needs a 2 x c table of non-negative counts")
    table = table[:, table.sum(axis=0) > 0]
    rows = table.sum(axis=1)
    if table.shape[1] < 2 or rows.min() == 0:
        return 1.0
    first = int(np.argmin(rows))  # enumerate the smaller row: fewer partial sums
    observed = table[first]
    columns = table.sum(axis=0)
    r = int(rows[first])
    log_denominator = float(_log_choose(int(columns.sum()), r))
    threshold = float(_log_choose(columns, observed).sum()) + np.log1p(RELATIVE_TOLERANCE)
    return min(1.0, _network_p(columns, r, threshold, log_denominator, max_nodes))


def _estimate(table: np.ndarray, draws: int) -> float:
    """Share of first rows drawn under the null at most as probable as the observed one
    (+1 in numerator and denominator, so p > 0); the seed is the table itself."""
    table = table[:, table.sum(axis=0) > 0]
    columns = table.sum(axis=0)
    seed = np.random.SeedSequence([int(v) for v in table.ravel()])
    rows = np.random.default_rng(seed).multivariate_hypergeometric(
        columns, int(table[0].sum()), size=draws)
    logs = _log_choose(columns[None, :], rows).sum(axis=1)
    threshold = float(_log_choose(columns, table[0]).sum()) + np.log1p(RELATIVE_TOLERANCE)
    return float((np.count_nonzero(logs <= threshold) + 1) / (draws + 1))


def _network_p(columns: np.ndarray, r: int, threshold: float, log_denominator: float,
               max_nodes: int | None = None) -> float:
    """Probability of the tables with log numerator <= ``threshold``.

    Small columns are walked first; the two largest are settled in closed form
    (:func:`_last_two`), so the walk never enumerates their values.
    """
    columns = np.sort(columns)
    walked, (a, b) = columns[:-2], columns[-2:]
    best = _best_completions(columns)
    rest = np.concatenate([np.cumsum(columns[::-1])[::-1], [0]])  # column total from j on
    sums = np.zeros(1, dtype=np.int64)
    logs = np.zeros(1)
    weights = np.ones(1)
    p = 0.0
    for j, c in enumerate(walked):
        if max_nodes is not None and np.sum(np.minimum(c, r - sums) + 1) > max_nodes:
            raise _TooLarge
        sums, logs, weights = _expand(sums, logs, weights, int(c), r, int(rest[j + 1]))
        need = r - sums
        top = logs + best[j + 1][need]
        settled = top <= threshold
        if settled.any():  # every completion is as extreme: add the whole subtree
            completions = _log_choose(rest[j + 1], need[settled])
            p += float(np.sum(weights[settled] *
                              np.exp(logs[settled] + completions - log_denominator)))
        # Completions add log C >= 0, so a node already above the threshold stays above.
        keep = ~settled & (logs <= threshold)
        sums, logs, weights = _merge(sums[keep], logs[keep], weights[keep])
    return p + _last_two(sums, logs, weights, int(a), int(b), r, threshold, log_denominator)


def _last_two(sums: np.ndarray, logs: np.ndarray, weights: np.ndarray, a: int, b: int,
              r: int, threshold: float, log_denominator: float) -> float:
    """Mass of the completions by two columns (a, b) that stay at or below the threshold.

    With m = r - s left, f(x) = log C(a, x) + log C(b, m - x) is concave in x, so the
    completions above the threshold form one interval around the mode; the rest are
    the two hypergeometric tails outside it.
    """
    if not len(sums):
        return 0.0
    m = r - sums
    low, high = np.maximum(0, m - b), np.minimum(a, m)
    mode = np.clip((m + 1) * (a + 1) // (a + b + 2), low, high)

    def above(x: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):  # bisection probes past the range are unused
            return logs + _log_choose(a, x) + _log_choose(b, m - x) > threshold

    peak = above(mode)
    first = _first_true(low, mode, lambda x: above(x))  # f rises up to the mode
    last = _first_true(mode, high + 1, lambda x: ~above(x)) - 1  # and falls after it
    first, last = np.where(peak, first, mode + 1), np.where(peak, last, mode)
    # P(X < first) + P(X > last) for X ~ Hypergeometric(a + b, a, m).
    from scipy.stats import hypergeom  # scipy.stats takes a second to import

    distribution = hypergeom(a + b, a, m)
    tails = distribution.cdf(first - 1) + distribution.sf(last)
    log_all = _log_choose(a + b, m)
    return float(np.sum(weights * tails * np.exp(logs + log_all - log_denominator)))


def _first_true(low: np.ndarray, high: np.ndarray, test) -> np.ndarray:
    """Per element, the smallest x in [low, high] with test(x) true (test monotone;
    ``high`` when none in [low, high) is), by a vectorized bisection."""
    low, high = low.copy(), high.copy()
    while True:
        open_ = low < high
        if not open_.any():
            return low
        middle = (low + high) // 2
        hit = test(middle)
        high = np.where(open_ & hit, middle, high)
        low = np.where(open_ & ~hit, middle + 1, low)


def _expand(sums: np.ndarray, logs: np.ndarray, weights: np.ndarray, c: int, r: int,
            rest_after: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every feasible value x of the next column appended to every node."""
    low = np.maximum(0, r - sums - rest_after)
    high = np.minimum(c, r - sums)
    counts = np.maximum(high - low + 1, 0)
    parent = np.repeat(np.arange(len(sums)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    x = low[parent] + offsets
    return sums[parent] + x, logs[parent] + _log_choose(c, x), weights[parent]


def _merge(sums: np.ndarray, logs: np.ndarray, weights: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes with the same partial sum and (to 1e-12 relative) the same log merge."""
    if len(sums) < 2:
        return sums, logs, weights
    rounded = np.round(logs * 1e12 / max(1.0, float(np.abs(logs).max()))).astype(np.int64)
    frame_keys = np.stack([sums, rounded], axis=1)
    unique, first, inverse = np.unique(frame_keys, axis=0, return_index=True,
                                       return_inverse=True)
    merged = np.bincount(inverse.ravel(), weights=weights, minlength=len(unique))
    return unique[:, 0], logs[first], merged
