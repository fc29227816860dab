"""Interval statistics: ranges of a statistic over every dataset inside per-record intervals.

Given per-record bounds ``lo <= x <= hi`` (an interval-generalised release, Xiang et al.
2014 §3, §6 L175), each function returns the range ``[lo, hi]`` of a statistic over all
values consistent with the intervals, with a flag: ``exact`` (both ends sharp) or
``outer`` (guaranteed to contain the range, possibly wider). The true statistic of the
original data therefore always lies inside. The paper cites, but does not give, these
algorithms; the ones used are those of ``shared/specs/001-interval-generalisation.md``
§2.7, each named in :attr:`IntervalStatistic.algorithm`.

Variances and moments are population ones (divisor n) unless ``ddof=1`` is given.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from arxpy.analysis.interval_extremes import (
    pick_spread,
    pick_third_moment,
    pick_variance,
    spread_max_threshold,
    spread_min,
    spread_value,
    third_moment,
    third_moment_range,
    third_moment_structures,
    threshold_dataset,
    threshold_moments,
    zone_search,
)
from arxpy.arrays import distinct
from arxpy.errors import ConfigurationError

EXACT = "exact"
OUTER = "outer"
#: Vertex combinations an exact enumeration may try before falling back to a bound.
EXACT_LIMIT = 200_000


@dataclass(frozen=True)
class IntervalStatistic:
    """The range ``[lo, hi]`` of one statistic, with its flag and the algorithm used."""

    name: str
    lo: float
    hi: float
    flag: str
    algorithm: str
    #: For ``outer`` ranges: values reached by concrete datasets inside the intervals, so
    #: the true range contains [inner[0], inner[1]] (None where not computed).
    inner: tuple[float, float] | None = None

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def contains(self, value: float, tolerance: float = 1e-9) -> bool:
        scale = tolerance * max(1.0, abs(value))
        return self.lo - scale <= value <= self.hi + scale

    def to_dict(self) -> dict[str, Any]:
        out = {"lo": self.lo, "hi": self.hi, "width": self.width, "flag": self.flag,
               "algorithm": self.algorithm}
        if self.inner is not None:
            out["inner"] = list(self.inner)
        return out


def _with_inner(stat: IntervalStatistic, values: Sequence[float]) -> IntervalStatistic:
    """``stat`` with the inner range spanned by statistics of concrete datasets."""
    finite = [v for v in values if np.isfinite(v)]
    if stat.flag == EXACT or not finite:
        return stat
    # an achievable value lies inside the outer range; clamp rounding at its ends
    inner = (float(np.clip(min(finite), stat.lo, stat.hi)),
             float(np.clip(max(finite), stat.lo, stat.hi)))
    return replace(stat, inner=inner)


def _arrays(lo: Sequence[float], hi: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    lo_a = np.asarray(lo, dtype=float).ravel()
    hi_a = np.asarray(hi, dtype=float).ravel()
    if lo_a.shape != hi_a.shape or lo_a.size == 0:
        raise ConfigurationError("Interval statistics need the same number (> 0) of lower "
                                 "and upper bounds.")
    if not (np.isfinite(lo_a).all() and np.isfinite(hi_a).all()):
        raise ConfigurationError("Interval bounds must be finite numbers.")
    if (lo_a > hi_a).any():
        row = int(np.flatnonzero(lo_a > hi_a)[0])
        raise ConfigurationError(
            f"Record {row + 1} has a lower bound {lo_a[row]:g} above its upper bound "
            f"{hi_a[row]:g}.")
    return lo_a, hi_a


def nested(lo: Sequence[float], hi: Sequence[float]) -> bool:
    """Does a non-degenerate interval lie inside another (closed containment, §2.5)?

    Degenerate intervals are fixed values and identical intervals count once, so the
    output of a one-dimensional box construction does not nest.
    """
    lo_a, hi_a = _arrays(lo, hi)
    keep = lo_a < hi_a
    lo_f, hi_f = lo_a[keep], hi_a[keep]
    order = np.lexsort((-hi_f, lo_f))  # by lo, wider first
    lo_s, hi_s = lo_f[order], hi_f[order]
    first = np.ones(len(lo_s), dtype=bool)  # identical intervals count once
    first[1:] = (lo_s[1:] != lo_s[:-1]) | (hi_s[1:] != hi_s[:-1])
    hi_sorted = hi_s[first]
    if len(hi_sorted) < 2:
        return False
    return bool((np.maximum.accumulate(hi_sorted)[:-1] >= hi_sorted[1:]).any())


# --- monotone statistics (exact) ---------------------------------------------------------

def mean(lo, hi) -> IntervalStatistic:
    lo_a, hi_a = _arrays(lo, hi)
    return IntervalStatistic("mean", float(lo_a.mean()), float(hi_a.mean()), EXACT,
                             "mean of the lower and of the upper bounds")


def quantile(lo, hi, p: float) -> IntervalStatistic:
    """The p-quantile (numpy's linear interpolation), monotone in every value: exact."""
    if not 0 <= p <= 1:
        raise ConfigurationError(f"A quantile needs p between 0 and 1, got {p:g}.")
    lo_a, hi_a = _arrays(lo, hi)
    name = "median" if p == 0.5 else f"q:{p:g}"
    return IntervalStatistic(name, float(np.quantile(lo_a, p)), float(np.quantile(hi_a, p)),
                             EXACT, "quantile of the lower and of the upper bounds")


def _positive(lo_a: np.ndarray, what: str) -> None:
    if (lo_a <= 0).any():
        raise ConfigurationError(
            f"The {what} needs positive values; some lower bounds are zero or negative.")


def geometric_mean(lo, hi) -> IntervalStatistic:
    lo_a, hi_a = _arrays(lo, hi)
    _positive(lo_a, "geometric mean")
    return IntervalStatistic("gmean", float(np.exp(np.log(lo_a).mean())),
                             float(np.exp(np.log(hi_a).mean())), EXACT,
                             "geometric mean of the lower and of the upper bounds")


def harmonic_mean(lo, hi) -> IntervalStatistic:
    lo_a, hi_a = _arrays(lo, hi)
    _positive(lo_a, "harmonic mean")
    return IntervalStatistic("hmean", float(1 / np.mean(1 / lo_a)), float(1 / np.mean(1 / hi_a)),
                             EXACT, "harmonic mean of the lower and of the upper bounds")


def exceedance(lo, hi, threshold: float) -> IntervalStatistic:
    """P(X > threshold): [#{lo > t}, #{hi > t}] / n, exact."""
    lo_a, hi_a = _arrays(lo, hi)
    return IntervalStatistic(f"exceed:{threshold:g}", float(np.mean(lo_a > threshold)),
                             float(np.mean(hi_a > threshold)), EXACT,
                             "share of lower and of upper bounds above the threshold")


@dataclass(frozen=True)
class PBox:
    """Bounds on the empirical distribution function at the points ``t`` (exact pointwise)."""

    t: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    @property
    def width(self) -> float:
        return float((self.upper - self.lower).max())

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t.tolist(), "lo": self.lower.tolist(), "hi": self.upper.tolist(),
                "width": self.width, "flag": EXACT,
                "algorithm": "F_lo(t) = #{hi <= t}/n, F_hi(t) = #{lo <= t}/n"}


def ecdf(lo, hi) -> PBox:
    """The empirical distribution function's p-box at every interval endpoint."""
    lo_a, hi_a = _arrays(lo, hi)
    t = distinct(np.concatenate([lo_a, hi_a]))
    n = len(lo_a)
    lower = np.searchsorted(np.sort(hi_a), t, side="right") / n
    upper = np.searchsorted(np.sort(lo_a), t, side="right") / n
    return PBox(t, lower, upper)


# --- variance ----------------------------------------------------------------------------

def _variance(values: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean((values - values.mean(axis=axis, keepdims=True)) ** 2, axis=axis)


def variance_lower(lo_a: np.ndarray, hi_a: np.ndarray) -> float:
    """Exact smallest population variance (see :func:`variance_minimiser`)."""
    return float(_variance(variance_minimiser(lo_a, hi_a)))


def variance_minimiser(lo_a: np.ndarray, hi_a: np.ndarray) -> np.ndarray:
    """The values of least population variance: x_i = clip(c, lo_i, hi_i), c = mean(x).

    g(c) = mean(clip(c)) − c is non-increasing and piecewise linear, so its root lies
    between the breakpoints where it changes sign; O(n log n).
    """
    n = len(lo_a)
    points = distinct(np.concatenate([lo_a, hi_a]))
    hi_sorted, lo_sorted = np.sort(hi_a), np.sort(lo_a)
    hi_cum = np.concatenate([[0.0], np.cumsum(hi_sorted)])
    lo_cum = np.concatenate([[0.0], np.cumsum(lo_sorted)])

    def clipped_sum_parts(c: np.ndarray):
        below = np.searchsorted(hi_sorted, c, side="right")  # hi_i <= c: sit at hi_i
        above_start = np.searchsorted(lo_sorted, c, side="right")  # lo_i > c: sit at lo_i
        fixed = hi_cum[below] + (lo_cum[-1] - lo_cum[above_start])
        free = n - below - (n - above_start)
        return fixed, free

    fixed, free = clipped_sum_parts(points)
    g = (fixed + free * points) / n - points
    non_negative = np.flatnonzero(g >= 0)
    j = int(non_negative[-1]) if len(non_negative) else 0  # g(min) >= 0 up to rounding
    if g[j] == 0 or j == len(points) - 1:
        c = points[j]
    else:  # root strictly inside (points[j], points[j+1]): constant parts there
        mid = np.array([(points[j] + points[j + 1]) / 2])
        f, m = clipped_sum_parts(mid)
        c = float(f[0] / (n - m[0]))
    return np.clip(c, lo_a, hi_a)


def _distinct_free(lo_a: np.ndarray, hi_a: np.ndarray):
    """Fixed values and the distinct non-degenerate intervals with their multiplicities."""
    free = lo_a < hi_a
    pairs, counts = np.unique(np.column_stack([lo_a[free], hi_a[free]]), axis=0,
                              return_counts=True)
    return lo_a[~free], pairs, counts


def _enumeration_size(counts: np.ndarray) -> float:
    with np.errstate(over="ignore"):  # beyond 1e308 combinations: inf, i.e. too many
        return float(np.prod((counts + 1).astype(float))) if len(counts) else 1.0


def _vertex_moments(fixed: np.ndarray, pairs: np.ndarray, counts: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Sum and sum of squares of every vertex (grouped: how many of each interval at hi)."""
    combos = list(itertools.product(*[range(c + 1) for c in counts]))
    at_hi = np.array(combos, dtype=float).reshape(len(combos), len(counts))
    at_lo = counts - at_hi
    s1 = fixed.sum() + at_hi @ pairs[:, 1] + at_lo @ pairs[:, 0]
    s2 = (fixed ** 2).sum() + at_hi @ pairs[:, 1] ** 2 + at_lo @ pairs[:, 0] ** 2
    return s1, s2


def variance_upper_threshold(lo_a: np.ndarray, hi_a: np.ndarray) -> float:
    """Largest population variance over "first j by midpoint at lo, the rest at hi".

    Exact when the non-degenerate intervals do not nest (spec §2.7; see
    :func:`threshold_moments`); otherwise the value of an achievable vertex, i.e. a lower
    bound on the largest variance.
    """
    n = len(lo_a)
    s1, s2, _ = threshold_moments(lo_a, hi_a)
    return float(max((s2 / n - (s1 / n) ** 2).max(), 0.0))


def threshold_vertex(lo_a: np.ndarray, hi_a: np.ndarray) -> np.ndarray:
    """The vertex that :func:`variance_upper_threshold` found."""
    n = len(lo_a)
    s1, s2, rows = threshold_moments(lo_a, hi_a)
    return threshold_dataset(lo_a, hi_a, rows, int(np.argmax(s2 / n - (s1 / n) ** 2)))


def _candidates(lo_a: np.ndarray, hi_a: np.ndarray) -> list[np.ndarray]:
    """Concrete datasets inside the intervals that push spread and location to extremes."""
    mid = (lo_a + hi_a) / 2
    return [lo_a, hi_a, mid, variance_minimiser(lo_a, hi_a), threshold_vertex(lo_a, hi_a)]


def _searched(lo_a: np.ndarray, hi_a: np.ndarray, pick, value,
              starts: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """The candidates and where the zone local search takes each of them (inner ranges)."""
    starts = _candidates(lo_a, hi_a) if starts is None else starts
    return starts + [zone_search(x, pick, value) for x in starts]


def variance_upper_zones(fixed: np.ndarray, pairs: np.ndarray, counts: np.ndarray, n: int,
                         exact_limit: int) -> float | None:
    """Exact largest population variance by zone enumeration (spec §2.7), or None when
    more than ``exact_limit`` vertex classes would have to be tried.

    At a maximiser (a vertex) with mean E, x_i = lo_i needs a_i <= E and x_i = hi_i needs
    b_i >= E, where a_i = mid_i − w_i/(2n) and b_i = mid_i + w_i/(2n) (flipping x_i would
    not increase the variance). Between consecutive breakpoints a, b only the intervals
    whose [a_i, b_i] covers the zone are free; identical intervals are grouped.
    """
    lo_p, hi_p = pairs[:, 0], pairs[:, 1]
    mid, half = (lo_p + hi_p) / 2, (hi_p - lo_p) / (2 * n)
    a, b = mid - half, mid + half
    edges = distinct(np.concatenate([a, b]))
    zones = np.concatenate([[-np.inf], edges, [np.inf]])
    starts, ends = zones[:-1], zones[1:]
    # free in zone j: b_i >= start_j and a_i <= end_j; forced up: a_i > end_j; down: b_i < start_j
    free = (b[None, :] >= starts[:, None]) & (a[None, :] <= ends[:, None])
    if free.size > 50_000_000:
        return None
    log_sizes = free @ np.log(counts + 1.0)
    if np.exp(log_sizes).sum() > exact_limit:
        return None
    best = -np.inf
    base1, base2 = fixed.sum(), (fixed ** 2).sum()
    for j in range(len(starts)):
        up = a > ends[j]
        down = (b < starts[j]) & ~up
        s1 = base1 + counts[up] @ hi_p[up] + counts[down] @ lo_p[down]
        s2 = base2 + counts[up] @ hi_p[up] ** 2 + counts[down] @ lo_p[down] ** 2
        f = free[j] & ~up & ~down
        z1, z2 = _vertex_moments(np.zeros(0), pairs[f], counts[f])
        best = max(best, float(((s2 + z2) / n - ((s1 + z1) / n) ** 2).max()))
    return best


def variance(lo, hi, ddof: int = 0, exact_limit: int = EXACT_LIMIT) -> IntervalStatistic:
    """Range of the variance (divisor n − ddof).

    Lower end: exact always. Upper end: exact by the threshold scan when the intervals do
    not nest, exact by vertex enumeration (identical intervals grouped) or by zone
    enumeration when either has at most ``exact_limit`` combinations, otherwise the outer
    bound mean(max(hi_i − E_lo, E_hi − lo_i)²).
    """
    lo_a, hi_a = _arrays(lo, hi)
    n = len(lo_a)
    if n - ddof <= 0:
        raise ConfigurationError(f"The variance with ddof={ddof} needs more than {ddof} records.")
    low = variance_lower(lo_a, hi_a)
    fixed, pairs, counts = _distinct_free(lo_a, hi_a)
    if not nested(lo_a, hi_a):
        high, flag, how = variance_upper_threshold(lo_a, hi_a), EXACT, "threshold scan (no nesting)"
    elif _enumeration_size(counts) <= exact_limit:
        s1, s2 = _vertex_moments(fixed, pairs, counts)
        high, flag, how = float((s2 / n - (s1 / n) ** 2).max()), EXACT, "vertex enumeration"
    elif (zoned := variance_upper_zones(fixed, pairs, counts, n, exact_limit)) is not None:
        high, flag, how = zoned, EXACT, "zone enumeration"
    else:
        e_lo, e_hi = lo_a.mean(), hi_a.mean()
        high = float(np.mean(np.maximum(hi_a - e_lo, e_hi - lo_a) ** 2))
        flag, how = OUTER, "outer bound mean(max(hi - E_lo, E_hi - lo)^2)"
    high = max(high, low)
    factor = n / (n - ddof)
    name = "variance" if ddof == 0 else f"variance(ddof={ddof})"
    result = IntervalStatistic(name, low * factor, high * factor, flag,
                             f"lower: clip to the mean root; upper: {how}")
    if flag == EXACT:
        return result
    witnesses = _searched(lo_a, hi_a, pick_variance(lo_a, hi_a), lambda x: float(x.var()))
    return _with_inner(result, [x.var(ddof=ddof) for x in witnesses])


def standard_deviation(lo, hi, ddof: int = 0, exact_limit: int = EXACT_LIMIT
                       ) -> IntervalStatistic:
    v = variance(lo, hi, ddof, exact_limit)
    inner = None if v.inner is None else (math.sqrt(v.inner[0]), math.sqrt(v.inner[1]))
    return IntervalStatistic("sd", math.sqrt(v.lo), math.sqrt(v.hi), v.flag,
                             "square root of the variance range", inner)


def coefficient_of_variation(lo, hi, ddof: int = 0, exact_limit: int = EXACT_LIMIT
                             ) -> IntervalStatistic:
    lo_a, hi_a = _arrays(lo, hi)
    m = mean(lo_a, hi_a)
    if m.lo <= 0:
        raise ConfigurationError("The coefficient of variation needs a positive mean range; "
                                 "the lower end of the mean is zero or negative.")
    s = standard_deviation(lo_a, hi_a, ddof, exact_limit)
    result = IntervalStatistic("cv", s.lo / m.hi, s.hi / m.lo, OUTER, "[SD_lo/E_hi, SD_hi/E_lo]")
    return _with_inner(result, [x.std(ddof=ddof) / x.mean() for x in _candidates(lo_a, hi_a)])


def interquartile_range(lo, hi) -> IntervalStatistic:
    lo_a, hi_a = _arrays(lo, hi)
    q1_lo, q1_hi = np.quantile(lo_a, 0.25), np.quantile(hi_a, 0.25)
    q3_lo, q3_hi = np.quantile(lo_a, 0.75), np.quantile(hi_a, 0.75)
    result = IntervalStatistic("iqr", float(max(0.0, q3_lo - q1_hi)), float(q3_hi - q1_lo), OUTER,
                             "[max(0, Q3_lo - Q1_hi), Q3_hi - Q1_lo]")
    iqr = [np.quantile(x, 0.75) - np.quantile(x, 0.25) for x in _candidates(lo_a, hi_a)]
    return _with_inner(result, iqr)


def default_k0(n: int, level: float) -> float:
    """t_{(1+level)/2, n−1} / √n: the usual factor of a confidence interval on the mean."""
    from scipy.stats import t

    if n < 2:
        raise ConfigurationError("A confidence interval on the mean needs at least 2 records.")
    return float(t.ppf((1 + level) / 2, n - 1) / math.sqrt(n))


def confidence_limits(lo, hi, level: float = 0.95, k0: float | None = None,
                      exact_limit: int = EXACT_LIMIT) -> tuple[IntervalStatistic,
                                                              IntervalStatistic]:
    """Ranges of L = E − k0·√V and U = E + k0·√V (L124), V the sample variance.

    The inner ends (smallest U, largest L) are convex problems solved exactly for any
    intervals (:func:`spread_min`). The outer ends (largest U, smallest L) maximise a
    convex function: exact by the threshold scan without nesting, by grouped vertex
    enumeration within ``exact_limit``; otherwise interval arithmetic (outer), with the
    zone local search's datasets as the inner range.
    """
    if not 0 < level < 1:
        raise ConfigurationError(f"The confidence level must be between 0 and 1, got {level:g}.")
    lo_a, hi_a = _arrays(lo, hi)
    k0 = default_k0(len(lo_a), level) if k0 is None else k0
    if k0 < 0:
        raise ConfigurationError(f"The confidence factor k0 must be 0 or more, got {k0:g}.")
    if len(lo_a) < 2:
        raise ConfigurationError("A confidence interval on the mean needs at least 2 records.")
    near = {sign: spread_min(lo_a, hi_a, sign, k0)[0] for sign in (1.0, -1.0)}
    far, how = _spread_max(lo_a, hi_a, k0, exact_limit)
    flag = EXACT if far is not None else OUTER
    if far is None:  # interval arithmetic on the mean and the sample sd ranges
        m, s = mean(lo_a, hi_a), standard_deviation(lo_a, hi_a, 1, exact_limit)
        far = {1.0: m.hi + k0 * s.hi, -1.0: -(m.lo - k0 * s.hi)}
    how = (f"E -/+ k0*s, k0 = {k0:.4g}, sample V: near ends by one clipped value (exact), "
           f"far ends by {how}")
    lower = IntervalStatistic(f"ci:{level:g}:lower", -far[-1.0], -near[-1.0], flag, how)
    upper = IntervalStatistic(f"ci:{level:g}:upper", near[1.0], far[1.0], flag, how)
    if flag == EXACT:
        return lower, upper
    starts = _candidates(lo_a, hi_a)
    reached = {sign: [spread_value(x, sign, k0) for x in _searched(
        lo_a, hi_a, pick_spread(lo_a, hi_a, sign, k0), lambda x, g=sign: spread_value(x, g, k0),
        starts)] for sign in (1.0, -1.0)}
    return (_with_inner(lower, [-near[-1.0]] + [-v for v in reached[-1.0]]),
            _with_inner(upper, [near[1.0]] + reached[1.0]))


def _spread_max(lo_a: np.ndarray, hi_a: np.ndarray, k0: float, exact_limit: int
                ) -> tuple[dict[float, float] | None, str]:
    """Largest ±E + k0·s for both signs when exactly computable, and how."""
    n = len(lo_a)
    if not nested(lo_a, hi_a):
        return ({sign: spread_max_threshold(lo_a, hi_a, sign, k0)[0] for sign in (1.0, -1.0)},
                "threshold scan (no nesting)")
    fixed, pairs, counts = _distinct_free(lo_a, hi_a)
    if _enumeration_size(counts) > exact_limit:
        return None, "interval arithmetic on E and the sd range"
    s1, s2 = _vertex_moments(fixed, pairs, counts)
    spread = k0 * np.sqrt(np.maximum(s2 - s1 ** 2 / n, 0.0) / (n - 1))
    return ({sign: float((sign * s1 / n + spread).max()) for sign in (1.0, -1.0)},
            "vertex enumeration")


def _square_range(lo_a: np.ndarray, hi_a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-record range of x² over [lo, hi]."""
    top = np.maximum(lo_a ** 2, hi_a ** 2)
    bottom = np.where((lo_a <= 0) & (hi_a >= 0), 0.0, np.minimum(lo_a ** 2, hi_a ** 2))
    return bottom, top


def _product_range(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    products = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return min(products), max(products)


#: Structures the exact O(m²) third-moment scan may evaluate (3·10⁶: about 1-2 s here).
SKEWNESS_LIMIT = 3_000_000


def skewness(lo, hi, exact_limit: int = EXACT_LIMIT, structure_limit: int = SKEWNESS_LIMIT
             ) -> IntervalStatistic:
    """Range of the third central moment mean((x − E)³) (the paper's "skewness", L124).

    Exact without nesting when at most ``structure_limit`` structures are needed
    (:func:`third_moment_range`, O(m²)), and for n ≤ 2 (always 0). Otherwise two outer
    enclosures, intersected: the centred form around c = the mean of midpoints
    (y = x − c, D = E − c, S = mean(y³) − 3·D·mean(y²) + 2·D³, each term enclosed), and
    the mean-value form S(mid) + Σ ∂S/∂x_i(ξ)·[−r_i, r_i] with
    ∂S/∂x_i = 3((ξ_i − E)² − V)/n enclosed over the box (tight for narrow intervals);
    the inner range comes from the zone local search.
    """
    lo_a, hi_a = _arrays(lo, hi)
    if len(lo_a) <= 2:  # x1 − E = −(x2 − E): the third moment vanishes
        return IntervalStatistic("skewness", 0.0, 0.0, EXACT, "n <= 2: always 0")
    if not nested(lo_a, hi_a) and third_moment_structures(lo_a, hi_a) <= structure_limit:
        (low, high), _ = third_moment_range(lo_a, hi_a)
        return IntervalStatistic("skewness", low, high, EXACT,
                                 "KKT structure scan, no nesting, O(n^2) (third central moment, "
                                 "divisor n)")
    centred = _skewness_centred(lo_a, hi_a)
    slope = _skewness_mean_value(lo_a, hi_a, exact_limit)
    low, high = max(centred[0], slope[0]), min(centred[1], slope[1])
    result = IntervalStatistic("skewness", low, high, OUTER,
                             "centred form and mean-value form, intersected (third central "
                             "moment, divisor n)")
    starts = _candidates(lo_a, hi_a)
    witnesses = [x for sign in (1.0, -1.0) for x in _searched(
        lo_a, hi_a, pick_third_moment(lo_a, hi_a, sign), lambda x, g=sign: g * third_moment(x),
        starts)]
    return _with_inner(result, [third_moment(x) for x in witnesses])


def _skewness_centred(lo_a: np.ndarray, hi_a: np.ndarray) -> tuple[float, float]:
    c = float(((lo_a + hi_a) / 2).mean())
    y_lo, y_hi = lo_a - c, hi_a - c
    cube = (float(np.mean(y_lo ** 3)), float(np.mean(y_hi ** 3)))
    sq_lo, sq_hi = _square_range(y_lo, y_hi)
    d = (float(y_lo.mean()), float(y_hi.mean()))
    cross = _product_range(d, (float(sq_lo.mean()), float(sq_hi.mean())))
    return cube[0] - 3 * cross[1] + 2 * d[0] ** 3, cube[1] - 3 * cross[0] + 2 * d[1] ** 3


def _skewness_mean_value(lo_a: np.ndarray, hi_a: np.ndarray, exact_limit: int
                         ) -> tuple[float, float]:
    n = len(lo_a)
    mid, radius = (lo_a + hi_a) / 2, (hi_a - lo_a) / 2
    at_mid = float(np.mean((mid - mid.mean()) ** 3))
    e_lo, e_hi = lo_a.mean(), hi_a.mean()
    sq_lo, sq_hi = _square_range(lo_a - e_hi, hi_a - e_lo)
    v = variance(lo_a, hi_a, 0, exact_limit)
    gradient = 3 / n * np.maximum(np.abs(sq_hi - v.lo), np.abs(sq_lo - v.hi))
    spread = float((gradient * radius).sum())
    return at_mid - spread, at_mid + spread


# --- two attributes ----------------------------------------------------------------------

def covariance(lo_x, hi_x, lo_y, hi_y, ddof: int = 0, exact_limit: int = EXACT_LIMIT
               ) -> IntervalStatistic:
    """Range of cov(x, y) (divisor n − ddof).

    Bilinear, so its extremes lie at vertices: exact by enumeration when the free
    coordinates allow at most ``exact_limit`` vertices; otherwise the centred-form outer
    enclosure mean((x − c_x)(y − c_y)) − (E_x − c_x)(E_y − c_y).
    """
    lx, hx = _arrays(lo_x, hi_x)
    ly, hy = _arrays(lo_y, hi_y)
    if len(lx) != len(ly):
        raise ConfigurationError("Covariance needs the same records for both attributes.")
    n = len(lx)
    if n - ddof <= 0:
        raise ConfigurationError(f"The covariance with ddof={ddof} needs more than {ddof} records.")
    free = int((lx < hx).sum() + (ly < hy).sum())
    if (1 << free) <= exact_limit:  # integers: 2.0 ** free overflows past 1023 coordinates
        low, high = _covariance_vertices(lx, hx, ly, hy)
        flag, how = EXACT, "vertex enumeration"
    else:
        low, high = _covariance_centred(lx, hx, ly, hy)
        flag, how = OUTER, "centred form around the mid-means"
    factor = n / (n - ddof)
    result = IntervalStatistic("cov" if ddof == 0 else f"cov(ddof={ddof})", low * factor,
                               high * factor, flag, how)
    pairs = _covariance_ascent(lx, hx, ly, hy)
    return _with_inner(result, [_cov(x, y) * factor for x, y in pairs])


def _cov(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(x * y) - x.mean() * y.mean())


def _covariance_ascent(lx, hx, ly, hy, rounds: int = 8) -> list[tuple[np.ndarray, np.ndarray]]:
    """Vertices reached by alternating ascent (cov is linear in x for fixed y and vice
    versa), towards the largest and the smallest covariance: achievable datasets."""
    out = []
    for sign in (1.0, -1.0):
        x, y = (lx + hx) / 2, (ly + hy) / 2
        for _ in range(rounds):
            x = np.where(sign * (y - y.mean()) > 0, hx, lx)
            y = np.where(sign * (x - x.mean()) > 0, hy, ly)
        out.append((x, y))
    return out


def _covariance_vertices(lx, hx, ly, hy) -> tuple[float, float]:
    n = len(lx)
    fx, fy = np.flatnonzero(lx < hx), np.flatnonzero(ly < hy)
    m = len(fx) + len(fy)
    bits = ((np.arange(2 ** m)[:, None] >> np.arange(m)) & 1).astype(bool)
    x = np.broadcast_to(lx, (len(bits), n)).copy()
    y = np.broadcast_to(ly, (len(bits), n)).copy()
    x[:, fx] = np.where(bits[:, :len(fx)], hx[fx], lx[fx])
    y[:, fy] = np.where(bits[:, len(fx):], hy[fy], ly[fy])
    cov = (x * y).mean(axis=1) - x.mean(axis=1) * y.mean(axis=1)
    return float(cov.min()), float(cov.max())


def _covariance_centred(lx, hx, ly, hy) -> tuple[float, float]:
    cx, cy = float(((lx + hx) / 2).mean()), float(((ly + hy) / 2).mean())
    ax, bx, ay, by = lx - cx, hx - cx, ly - cy, hy - cy
    products = np.stack([ax * ay, ax * by, bx * ay, bx * by])
    p_lo, p_hi = products.min(axis=0).mean(), products.max(axis=0).mean()
    d = _product_range((float(ax.mean()), float(bx.mean())), (float(ay.mean()), float(by.mean())))
    return float(p_lo - d[1]), float(p_hi - d[0])


def correlation(lo_x, hi_x, lo_y, hi_y, exact_limit: int = EXACT_LIMIT) -> IntervalStatistic:
    """Range of Pearson's r by interval arithmetic on cov / (s_x s_y), clipped to [−1, 1]."""
    cov = covariance(lo_x, hi_x, lo_y, hi_y, 0, exact_limit)
    sx = standard_deviation(lo_x, hi_x, 0, exact_limit)
    sy = standard_deviation(lo_y, hi_y, 0, exact_limit)
    how = "interval arithmetic on cov / (sd_x sd_y)"
    if sx.lo * sy.lo <= 0:
        result = IntervalStatistic("corr", -1.0, 1.0, OUTER, how + " (an sd range reaches 0)")
    else:
        s_lo, s_hi = sx.lo * sy.lo, sx.hi * sy.hi
        ratios = [cov.lo / s_lo, cov.lo / s_hi, cov.hi / s_lo, cov.hi / s_hi]
        result = IntervalStatistic("corr", max(-1.0, min(ratios)), min(1.0, max(ratios)),
                                   OUTER, how)
    lx, hx = _arrays(lo_x, hi_x)
    ly, hy = _arrays(lo_y, hi_y)
    pairs = _covariance_ascent(lx, hx, ly, hy) + [((lx + hx) / 2, (ly + hy) / 2)]
    return _with_inner(result, [_corr(x, y) for x, y in pairs])


def _corr(x: np.ndarray, y: np.ndarray) -> float:
    spread = x.std() * y.std()
    return float(np.clip(_cov(x, y) / spread, -1, 1)) if spread > 0 else float("nan")


# --- requests by name --------------------------------------------------------------------

@dataclass(frozen=True)
class StatisticRequest:
    """One statistic asked for by name: ``kind`` with its ``argument`` over attributes."""

    kind: str
    attributes: tuple[str, ...]
    argument: float | None = None

    @property
    def key(self) -> str:
        arg = "" if self.argument is None else f"{self.argument:g}"
        if self.kind in ("cov", "corr"):
            return f"{self.kind}:{','.join(self.attributes)}"
        base = self.kind if not arg else f"{self.kind}:{arg}"
        return f"{base}:{self.attributes[0]}" if not arg else f"{base}({self.attributes[0]})"


ONE_ATTRIBUTE = ("mean", "variance", "sd", "median", "q", "gmean", "hmean", "cv", "iqr",
                 "skewness", "ci", "exceed", "ecdf")
WITH_ARGUMENT = ("q", "ci", "exceed")
ALIASES = {"var": "variance", "covariance": "cov", "correlation": "corr", "std": "sd"}


def parse_statistics(text: str, attributes: Sequence[str]) -> list[StatisticRequest]:
    """``mean,variance,q:0.9,ci:0.95,exceed:140,cov:A,B,corr:A,B`` as requests.

    One-attribute statistics apply to every attribute given; ``cov``/``corr`` take the
    two attribute names that follow them.
    """
    tokens = [t.strip() for t in text.split(",") if t.strip()]
    requests: list[StatisticRequest] = []
    i = 0
    while i < len(tokens):
        kind, _, arg = tokens[i].partition(":")
        kind = ALIASES.get(kind.lower(), kind.lower())
        if kind in ("cov", "corr"):
            if not arg or i + 1 >= len(tokens):
                raise ConfigurationError(f"Write {kind}:A,B with two attribute names.")
            requests.append(StatisticRequest(kind, (arg, tokens[i + 1])))
            i += 2
            continue
        if kind not in ONE_ATTRIBUTE:
            raise ConfigurationError(
                f"Unknown statistic '{tokens[i]}'; use {', '.join(ONE_ATTRIBUTE)}, cov:A,B or "
                "corr:A,B (q:P, ci:LEVEL and exceed:T take a number).")
        argument = None
        if kind in WITH_ARGUMENT:
            try:
                argument = float(arg)
            except ValueError:
                raise ConfigurationError(
                    f"Statistic '{tokens[i]}' needs a number, e.g. q:0.9, ci:0.95 or "
                    "exceed:140.") from None
        elif arg:
            raise ConfigurationError(f"Statistic '{kind}' takes no ':' argument.")
        requests += [StatisticRequest(kind, (a,), argument) for a in attributes]
        i += 1
    return requests


def compute(request: StatisticRequest, bounds: Mapping[str, tuple[np.ndarray, np.ndarray]],
            ddof: int = 0, exact_limit: int = EXACT_LIMIT, k0: float | None = None
            ) -> list[IntervalStatistic] | PBox:
    """The statistic a request names, on per-attribute bounds ``{A: (lo, hi)}``."""
    for name in request.attributes:
        if name not in bounds:
            raise ConfigurationError(
                f"Statistic '{request.key}' names '{name}', which has no intervals; known: "
                f"{', '.join(bounds)}.")
    pair = [bounds[a] for a in request.attributes]
    lo, hi = pair[0]
    kind, arg = request.kind, request.argument
    single: dict[str, Callable[[], IntervalStatistic]] = {
        "mean": lambda: mean(lo, hi),
        "variance": lambda: variance(lo, hi, ddof, exact_limit),
        "sd": lambda: standard_deviation(lo, hi, ddof, exact_limit),
        "median": lambda: quantile(lo, hi, 0.5),
        "q": lambda: quantile(lo, hi, arg),
        "gmean": lambda: geometric_mean(lo, hi),
        "hmean": lambda: harmonic_mean(lo, hi),
        "cv": lambda: coefficient_of_variation(lo, hi, ddof, exact_limit),
        "iqr": lambda: interquartile_range(lo, hi),
        "skewness": lambda: skewness(lo, hi, exact_limit),
        "exceed": lambda: exceedance(lo, hi, arg),
    }
    if kind == "ecdf":
        return ecdf(lo, hi)
    if kind == "ci":
        return list(confidence_limits(lo, hi, arg, k0, exact_limit))
    if kind == "cov":
        return [covariance(*pair[0], *pair[1], ddof, exact_limit)]
    if kind == "corr":
        return [correlation(*pair[0], *pair[1], exact_limit)]
    return [single[kind]()]


def width_evaluator(attributes: Sequence[str], limits: Mapping[str, float], ddof: int = 0,
                    exact_limit: int = EXACT_LIMIT
                    ) -> Callable[[np.ndarray, np.ndarray], dict[str, float]]:
    """For the utility-constrained mode: ``(lo, hi) (N × n) -> {limit name: width}``.

    Limit names are ``mean:A``, ``variance:A``, ``sd:A``, ``median:A``, ``cov:A,B`` or
    ``corr:A,B`` (as in ``--max-width "mean:A=5,variance:A=10"``).
    """
    col = {a: i for i, a in enumerate(attributes)}
    parsed = {name: _limit_request(name, col) for name in limits}

    def evaluate(lo: np.ndarray, hi: np.ndarray) -> dict[str, float]:
        bounds = {a: (lo[:, i], hi[:, i]) for a, i in col.items()}
        out = {}
        for name, request in parsed.items():
            result = compute(request, bounds, ddof, exact_limit)
            out[name] = float(result[0].width)
        return out

    return evaluate


def _limit_request(name: str, col: Mapping[str, int]) -> StatisticRequest:
    kind, _, rest = name.partition(":")
    kind = ALIASES.get(kind.strip().lower(), kind.strip().lower())
    names = tuple(a.strip() for a in rest.split(",") if a.strip())
    allowed = {"mean": 1, "variance": 1, "sd": 1, "median": 1, "iqr": 1, "skewness": 1,
               "cov": 2, "corr": 2}
    if kind not in allowed or len(names) != allowed[kind]:
        raise ConfigurationError(
            f"Cannot read width limit '{name}'; write mean:A, variance:A, sd:A, median:A, "
            "iqr:A, skewness:A, cov:A,B or corr:A,B.")
    for a in names:
        if a not in col:
            raise ConfigurationError(
                f"Width limit '{name}' names '{a}', which is not among the boxed attributes.")
    return StatisticRequest(kind, names)
