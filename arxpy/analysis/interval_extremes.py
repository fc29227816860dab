"""Extremes of moment statistics over interval data, with the datasets that attain them.

The algorithms behind the exact third central moment and confidence limits of
:mod:`arxpy.analysis.interval_statistics` (Xiang et al. 2014, L124 defines both; the paper
cites but does not give algorithms for the no-nesting case, spec 001 §2.7), and the zone
local search that gives ``outer`` results their inner ranges. Every function returns the
dataset it found (a witness inside the intervals), so a bound is attained by
construction and a test can recompute it.

Under *no nesting* the non-degenerate intervals sorted by lower bound are also sorted by
upper bound (closed containment counts as nesting), which is what the threshold
structures below rely on. Degenerate intervals ``[v, v]`` are fixed values throughout.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arxpy.arrays import distinct

#: Rows x columns evaluated at once by the O(m²) structure scans (memory bound).
_CHUNK_CELLS = 2_000_000


def third_moment(x: np.ndarray) -> float:
    """mean((x − E)³): the paper's "skewness" (L124), divisor n."""
    return float(np.mean((x - x.mean()) ** 3))


def _free_sorted(lo: np.ndarray, hi: np.ndarray):
    """Rows of the non-degenerate intervals sorted by (lo, hi), and the fixed rows."""
    free = np.flatnonzero(lo < hi)
    rows = free[np.lexsort((hi[free], lo[free]))]
    return rows, np.flatnonzero(lo == hi)


#: Relative rounding of spread_min's closed forms, and how many candidates within it are
#: judged on their datasets.
_ROUNDING = 1e-6
_NEAR_CANDIDATES = 16


def _prefix(values: np.ndarray, power: int) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(values ** power)])


# --- third central moment, no nesting -------------------------------------------------

def third_moment_structures(lo: np.ndarray, hi: np.ndarray) -> int:
    """How many structures :func:`third_moment_max` evaluates (about 1.5·m², m free rows)."""
    rows, _ = _free_sorted(lo, hi)
    m = len(rows)
    i1, i2 = _zone_blocks(lo[rows], hi[rows])[2:]
    return (m + 1) * (m + 2) // 2 + int(np.sum(np.where(i2 > i1, m - i1, 0)))


def _zone_blocks(l_s: np.ndarray, u_s: np.ndarray):
    """Zones [p, q] between consecutive endpoints; records u ≤ p come first (i1 of them),
    records with l ≤ p (i2 of them) contain the open zone from i1 on."""
    points = distinct(np.concatenate([l_s, u_s]))
    p, q = points[:-1], points[1:]
    i1 = np.searchsorted(u_s, p, side="right")
    i2 = np.searchsorted(l_s, p, side="right")
    return p, q, i1, i2


def third_moment_max(lo: np.ndarray, hi: np.ndarray) -> tuple[float, np.ndarray]:
    """Largest third central moment over intervals that do not nest, and its dataset.

    Karush-Kuhn-Tucker conditions (∂S/∂x_i = 3((x_i − E)² − V)/n; an interior x_i at a
    maximum sits at a = E − √V, the second-order condition for n ≥ 3): intervals below a
    sit at their upper end, inside [a, b = E + √V] at their lower end, above b at the
    upper end; those straddling a sit at a, those containing b are undecided. With no
    nesting this gives, in sorted order, the pattern
    ``upper^i1 · a^(j−i1) · lower^(i3−j) · upper^(m−i3)``: every vertex pattern (i1, i3),
    and for each zone of a between consecutive endpoints (which fixes i1 and j) every
    i3, with a chosen exactly as the best root of a cubic on the zone: O(m²). Checked
    against enumeration of every lower/upper/interior choice in the tests.
    """
    n = len(lo)
    centre = float(((lo + hi) / 2).mean())  # S is shift invariant: centring keeps digits
    l_c, u_c = lo - centre, hi - centre
    rows, fixed = _free_sorted(l_c, u_c)
    l_s, u_s = l_c[rows], u_c[rows]
    m = len(rows)
    base = [float(np.sum(l_c[fixed] ** k)) for k in (1, 2, 3)]
    low = [_prefix(l_s, k) for k in (1, 2, 3)]
    up = [_prefix(u_s, k) for k in (1, 2, 3)]
    best = (-np.inf, None)
    i3 = np.arange(m + 1)

    def sums(first, free_end, capped: bool):
        """Moment sums of: upper before ``first`` (rows), lower from ``free_end`` (or from
        i3 when ``capped`` and i3 < free_end) to i3, upper from i3 (columns); the free
        block [first, free_end) is left out. Built from 1-D terms by broadcasting."""
        out = []
        for k in range(3):
            columns = (low[k] - up[k] + base[k] + up[k][m])[None, :]
            start = low[k][free_end]
            if capped:
                start = np.where(free_end <= i3[None, :], start, low[k][None, :])
            out.append(up[k][first] + columns - start)
        return out

    chunk = max(1, _CHUNK_CELLS // (m + 1))
    for start in range(0, m + 1, chunk):  # vertex patterns: no record at a
        i1 = np.arange(start, min(m + 1, start + chunk))[:, None]
        a1, a2, a3 = (s / n for s in sums(i1, i1, False))
        value = np.where(i3[None, :] >= i1, a3 - 3 * a1 * a2 + 2 * a1 ** 3, -np.inf)
        r, c = np.unravel_index(int(np.argmax(value)), value.shape)
        if value[r, c] > best[0]:
            best = (float(value[r, c]), (int(i1[r, 0]), int(i1[r, 0]), int(c), 0.0))
    p, q, z_i1, z_i2 = _zone_blocks(l_s, u_s)
    zones = np.flatnonzero(z_i2 > z_i1)
    for start in range(0, len(zones), chunk):
        z = zones[start:start + chunk]
        i1, i2 = z_i1[z][:, None], z_i2[z][:, None]
        row, col = np.nonzero(i3[None, :] > i1)  # the cells with a free block
        a1, a2, a3 = (s[row, col] / n for s in sums(i1, i2, True))
        j = np.minimum(i2[row, 0], col)  # the free block ends at i2 or at the upper tail
        c = (j - i1[row, 0]) / n  # share of records at the common value y
        coefficients = (c * (1 - c) * (1 - 2 * c), -3 * a1 * c * (1 - 2 * c),
                        3 * c * (2 * a1 ** 2 - a2), a3 - 3 * a1 * a2 + 2 * a1 ** 3)
        y, value = _best_on_zone(coefficients, p[z][row], q[z][row])
        at = int(np.argmax(value))
        if value[at] > best[0]:
            best = (float(value[at]), (int(i1[row[at], 0]), int(j[at]), int(col[at]),
                                       float(y[at])))
    first, free_end, down_end, y = best[1]
    x = l_c.copy()
    x[rows[:first]] = u_s[:first]
    x[rows[first:free_end]] = y
    x[rows[max(down_end, free_end):]] = u_s[max(down_end, free_end):]
    x += centre
    return third_moment(x), x


def _best_on_zone(coefficients, p: np.ndarray, q: np.ndarray):
    """Largest C3·y³ + C2·y² + C1·y + C0 over y in [p, q], elementwise: endpoints and the
    real roots of the derivative that fall inside."""
    c3, c2, c1, c0 = coefficients

    def at(y):
        return ((c3 * y + c2) * y + c1) * y + c0

    best_y = np.broadcast_to(p, c0.shape).astype(float)
    best = at(best_y)
    qa, qb = 3 * c3, 2 * c2
    with np.errstate(all="ignore"):
        root = np.sqrt(np.maximum(qb ** 2 - 4 * qa * c1, 0.0))
        real = qb ** 2 - 4 * qa * c1 >= 0
        linear = np.abs(qa) <= 1e-12 * (np.abs(qb) + np.abs(c1) + 1e-300)
        candidates = [np.broadcast_to(q, c0.shape),
                      np.where(linear, -c1 / qb, (-qb + root) / (2 * qa)),
                      np.where(linear, np.nan, (-qb - root) / (2 * qa))]
    for y in candidates:
        inside = np.isfinite(y) & (y >= p) & (y <= q) & (real | linear)
        y_safe = np.where(inside, y, p)
        value = np.where(inside, at(y_safe), -np.inf)
        better = value > best
        best_y, best = np.where(better, y_safe, best_y), np.where(better, value, best)
    return best_y, best


def third_moment_range(lo: np.ndarray, hi: np.ndarray
                       ) -> tuple[tuple[float, float], tuple[np.ndarray, np.ndarray]]:
    """Exact (min, max) of the third central moment without nesting, and their datasets;
    the minimum is the maximum of the reflected intervals [−hi, −lo], negated."""
    top, x_top = third_moment_max(lo, hi)
    bottom, x_bottom = third_moment_max(-hi, -lo)
    return (-bottom, top), (-x_bottom, x_top)


# --- confidence limits E ± k0·s ---------------------------------------------------------

def spread_value(x: np.ndarray, sign: float, k0: float) -> float:
    """sign·E + k0·s with s the sample standard deviation (U for sign +1, −L for −1)."""
    return float(sign * x.mean() + k0 * x.std(ddof=1))


def spread_min(lo: np.ndarray, hi: np.ndarray, sign: float, k0: float
               ) -> tuple[float, np.ndarray]:
    """Smallest sign·E + k0·s over the intervals (any nesting), and its dataset.

    Convex, so the Karush-Kuhn-Tucker point is the minimum; it has the form
    x_i = clip(t, lo_i, hi_i) (∂/∂x_i = sign/n + k0(x_i − E)/((n−1)s) vanishes at one
    common value). Between consecutive endpoints the free records share t and the
    objective is sign·(A + m t)/n + k0·√(q(t)/(n−1)) with q quadratic: its stationary
    point is solved in closed form; endpoints are candidates too. O(n log n).
    """
    n = len(lo)
    centre = float(((lo + hi) / 2).mean())
    l_c, u_c = lo - centre, hi - centre
    points = distinct(np.concatenate([l_c, u_c]))
    lo_sorted, hi_sorted = np.sort(l_c), np.sort(u_c)
    lo_cum = [_prefix(lo_sorted, k) for k in (1, 2)]
    hi_cum = [_prefix(hi_sorted, k) for k in (1, 2)]
    # on [points[j], points[j+1]]: hi <= points[j] sit at hi, lo >= points[j+1] at lo
    at_hi = np.searchsorted(hi_sorted, points[:-1], side="right")
    at_lo = np.searchsorted(lo_sorted, points[1:], side="left")
    a1 = hi_cum[0][at_hi] + lo_cum[0][-1] - lo_cum[0][at_lo]
    a2 = hi_cum[1][at_hi] + lo_cum[1][-1] - lo_cum[1][at_lo]
    m = (at_lo - at_hi).astype(float)
    alpha, beta, gamma = m * (n - m) / n, -2 * a1 * m / n, a2 - a1 ** 2 / n
    kappa = k0 / np.sqrt(n - 1)
    with np.errstate(all="ignore"):
        rho = sign * m / (n * kappa)
        delta = np.maximum(4 * alpha * gamma - beta ** 2, 0.0)
        q_star = delta / (4 * (alpha - rho ** 2))
        t = (-beta - 2 * rho * np.sqrt(q_star)) / (2 * alpha)
        inside = (alpha > rho ** 2) & np.isfinite(t) & (t > points[:-1]) & (t < points[1:])
    # candidates: every endpoint (moments from sorted sums) and the interior stationary points
    p_hi = np.searchsorted(hi_sorted, points, side="right")  # hi <= t: at hi
    p_lo = np.searchsorted(lo_sorted, points, side="right")  # lo > t: at lo
    p_a1 = hi_cum[0][p_hi] + lo_cum[0][-1] - lo_cum[0][p_lo]
    p_a2 = hi_cum[1][p_hi] + lo_cum[1][-1] - lo_cum[1][p_lo]
    grid = np.concatenate([points, t[inside]])
    s_m = np.concatenate([p_lo - p_hi, m[inside]]).astype(float)
    s1 = np.concatenate([p_a1, a1[inside]]) + s_m * grid
    s2 = np.concatenate([p_a2, a2[inside]]) + s_m * grid ** 2
    values = sign * s1 / n + kappa * np.sqrt(np.maximum(s2 - s1 ** 2 / n, 0.0))
    # The closed forms round: a stationary point next to an endpoint (q nearly 0) came
    # out 1e-8 below the endpoint it does not beat (-2.00000001 against -2; its dataset
    # gives -1.99999999). The candidates within rounding of the least are judged on
    # their datasets instead (a handful, so still O(n log n)).
    near = np.flatnonzero(values <= values.min() + _ROUNDING * max(1.0, abs(values.min())))
    near = near[np.argsort(values[near], kind="stable")][:_NEAR_CANDIDATES]
    datasets = [np.clip(grid[i], l_c, u_c) + centre for i in near]
    return min(((spread_value(x, sign, k0), x) for x in datasets), key=lambda pair: pair[0])


def threshold_moments(lo: np.ndarray, hi: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sum and sum of squares of "free intervals j' < j by midpoint at lo, the rest at
    hi" for j = 0..m, and the free rows in midpoint order.

    Without nesting these vertices hold the maximum of every g(Σx, Σx²) that is convex in
    x and increasing in Σx² (variance, E + k0·s, −E + k0·s): a maximiser also maximises
    Σx² at its own Σx, and swapping values or moving mass between two sorted intervals
    shows that only a threshold pattern can do so.
    """
    free = np.flatnonzero(lo < hi)
    fixed = lo[lo == hi]
    rows = free[np.argsort((lo[free] + hi[free]) / 2, kind="stable")]
    lo_f, hi_f = lo[rows], hi[rows]
    s1 = fixed.sum() + _prefix(lo_f, 1) + np.concatenate([np.cumsum(hi_f[::-1])[::-1], [0.0]])
    s2 = ((fixed ** 2).sum() + _prefix(lo_f, 2)
          + np.concatenate([np.cumsum((hi_f ** 2)[::-1])[::-1], [0.0]]))
    return s1, s2, rows


def threshold_dataset(lo: np.ndarray, hi: np.ndarray, rows: np.ndarray, j: int) -> np.ndarray:
    """The vertex of :func:`threshold_moments` number ``j``."""
    x = hi.copy()
    x[rows[:j]] = lo[rows[:j]]
    return x


def spread_max_threshold(lo: np.ndarray, hi: np.ndarray, sign: float, k0: float
                         ) -> tuple[float, np.ndarray]:
    """Largest sign·E + k0·s by the threshold scan: exact without nesting, otherwise the
    value of an attained vertex (a lower bound on the largest)."""
    n = len(lo)
    s1, s2, rows = threshold_moments(lo, hi)
    spread = np.sqrt(np.maximum(s2 - s1 ** 2 / n, 0.0) / (n - 1))
    j = int(np.argmax(sign * s1 / n + k0 * spread))
    x = threshold_dataset(lo, hi, rows, j)
    return spread_value(x, sign, k0), x


# --- zone local search (inner ranges) ---------------------------------------------------

def zone_search(start: np.ndarray, pick: Callable[[np.ndarray], np.ndarray],
                value: Callable[[np.ndarray], float], rounds: int = 30) -> np.ndarray:
    """From ``start``, move every record at once to the best value of its interval under
    the statistic's first-order model at the current moments (``pick``: the records fall
    into zones around E, E ± √V), while ``value`` improves; returns the best dataset."""
    x, best = start, value(start)
    for _ in range(rounds):
        y = pick(x)
        v = value(y)
        if not v > best + 1e-12 * max(1.0, abs(best)):
            break
        x, best = y, v
    return x


def pick_third_moment(lo: np.ndarray, hi: np.ndarray, sign: float
                      ) -> Callable[[np.ndarray], np.ndarray]:
    """Each record's best of lo, hi and E ∓ √V (clipped) for sign·S, where
    ∂S/∂x_i = 3((x_i − E)² − V)/n integrates to ((x − E)³ − 3V·x)/n at frozen E, V."""
    def pick(x: np.ndarray) -> np.ndarray:
        e, v = x.mean(), x.var()
        turn = np.clip(e - sign * np.sqrt(v), lo, hi)
        options = np.stack([lo, hi, turn])
        gain = sign * ((options - e) ** 3 - 3 * v * options)
        return np.take_along_axis(options, np.argmax(gain, axis=0)[None], 0)[0]
    return pick


def pick_spread(lo: np.ndarray, hi: np.ndarray, sign: float, k0: float
                ) -> Callable[[np.ndarray], np.ndarray]:
    """Each record's endpoint of larger sign·x/n + k0·(x − E)²/(2(n−1)s) (the first-order
    model of sign·E + k0·s at frozen E, s; convex in x, so an endpoint)."""
    n = len(lo)

    def pick(x: np.ndarray) -> np.ndarray:
        e, s = x.mean(), max(x.std(ddof=1), 1e-300)
        def gain(v):
            return sign * v / n + k0 * (v - e) ** 2 / (2 * (n - 1) * s)
        return np.where(gain(hi) >= gain(lo), hi, lo)
    return pick


def pick_variance(lo: np.ndarray, hi: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Each record's endpoint farther from the current mean (larger (x − E)²)."""
    def pick(x: np.ndarray) -> np.ndarray:
        e = x.mean()
        return np.where(np.abs(hi - e) >= np.abs(lo - e), hi, lo)
    return pick
