"""Estimators of the number of population uniques from a sample's class-size histogram.

Each follows ARX's implementation exactly (``ModelPitman``, ``ModelZayatz``, ``ModelSNB`` in
``org.deidentifier.arx.risk``) and returns the estimated number of records that are unique
in the population (NaN when the estimator does not converge). The sufficient statistic
is the histogram ``f_i`` of class sizes; everything is vectorized over distinct sizes, so
the cost grows with the sample size only through sums over ``1..n`` (Pitman's fallback).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from arxpy.jobs import CancelToken
from arxpy.risk.histogram import ClassSizeHistogram
from arxpy.risk.solver import DEFAULT_SOLVER, SolverConfig, find_root

#: ARX casts the population to a Java int for Zayatz's hypergeometric terms.
_JAVA_INT_MAX = 2**31 - 1


def _trigamma(x: np.ndarray | float) -> np.ndarray | float:
    """The trigamma function; negative arguments through the reflection formula.

    scipy's polygamma takes seconds (holding the GIL) for large negative arguments,
    which Pitman's fit meets; psi1(x) = -psi1(1 - x) + pi^2 / sin^2(pi x) is exact and
    fast. The sine uses the distance to the nearest integer, exact in floating point.
    """
    x = np.asarray(x, dtype=np.float64)
    negative = x < 0
    from scipy.special import polygamma  # here: the CLI's start need not import scipy

    value = polygamma(1, np.where(negative, 1.0 - x, x))
    with np.errstate(divide="ignore"):
        reflected = (np.pi / np.sin(np.pi * (x - np.round(x)))) ** 2 - value
    out = np.where(negative, reflected, value)
    return float(out) if out.ndim == 0 else out


# --- Pitman (Hoshino 2001): maximum-likelihood fit of the Pitman sampling formula ----------

@dataclass(frozen=True)
class Estimate:
    """Estimated population uniques (NaN when unavailable) and whether the solver ran
    out of its time budget before finding a root."""

    uniques: float
    stopped_early: bool = False


def pitman(histogram: ClassSizeHistogram, population_size: int,
           config: SolverConfig = DEFAULT_SOLVER, cancel: CancelToken | None = None) -> float:
    """Population uniques under the Pitman model (ARX ``ModelPitman``), NaN if unavailable."""
    return pitman_estimate(histogram, population_size, config, cancel).uniques


def pitman_estimate(histogram: ClassSizeHistogram, population_size: int,
                    config: SolverConfig = DEFAULT_SOLVER,
                    cancel: CancelToken | None = None) -> Estimate:
    """Population uniques under the Pitman model (ARX ``ModelPitman``).

    Solves the likelihood equations for (theta, alpha) with Newton-Raphson from
    Hoshino's moment start; the closed forms (digamma/trigamma) are used first and the
    root is re-checked with the iterative sums, which take over if they disagree. Roots
    outside the model's parameter range (theta >= 0, 0 < alpha < 1) are rejected. The
    estimate is ``Gamma(theta+1) / Gamma(theta+alpha) * N^alpha``.
    """
    sizes, counts = histogram.sizes.astype(float), histogram.counts.astype(float)
    c1 = float(histogram.classes_of_size(1))
    c2 = float(histogram.classes_of_size(2)) or 1.0  # ARX: overestimate when f_2 = 0
    u, n = float(histogram.n_classes), float(histogram.n_records)
    c = c1 * (c1 - 1) / c2
    with np.errstate(all="ignore"):
        t = (n * u * c - c1 * (n - 1) * (2 * u + c)) / (2 * c1 * u + c1 * c - n * c)
        a = (t * (c1 - n) + (n - 1) * c1) / (n * u)
    start = (float(t), float(a))
    multi = sizes != 1

    from scipy.special import psi

    def closed(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t, a = x
        v0 = u - 1.0
        v1, v2 = psi(v0 + t / a + 1.0), _trigamma((a + t + a * v0) / a)
        v3, v4, v5 = _trigamma(t / a + 1.0), psi(t / a + 1.0), a * a
        d1 = (v3 - v2) / v5
        d5 = (a * v1 + t * v2 - a * v4 - t * v3) / (v5 * a)
        d3 = (v5 * v0 - t * t * v2 + t * t * v3 - 2 * a * t * v1 + 2 * a * t * v4) / (v5 * v5)
        o1, o3 = (v1 - v4) / a, (-t * v1 + a * v0 + t * v4) / (a * a)
        o2 = psi(n + t) - psi(t + 1.0)
        d2 = _trigamma(t + 1.0) - _trigamma(n + t)
        k, f = sizes[multi], counts[multi]
        d4 = float(np.sum(f * (_trigamma(1.0 - a) - _trigamma(k - a))))
        o4 = float(np.sum(f * (psi(k - a) - psi(1.0 - a))))
        return (np.array([o1 - o2, o3 - o4]),
                np.array([[d2 - d1, -d5], [-d5, -d3 - d4]]))

    def solve(function):
        return find_root(function, start, config, _theta_nonnegative, cancel, _pitman_valid)

    iterative = _pitman_iterative(histogram)
    outcome = solve(closed)
    if not outcome.found:
        outcome = solve(iterative)
    else:
        with np.errstate(all="ignore"):
            test, _ = iterative(outcome.root)
        if np.isnan(test).any() or np.abs(test).max() > config.accuracy:
            outcome = solve(iterative)
    return Estimate(_pitman_uniques(outcome.root, float(population_size)),
                    outcome.stopped_early)


def _theta_nonnegative(x: np.ndarray) -> bool:
    return bool(x[0] >= 0)


def _pitman_valid(x: np.ndarray) -> bool:
    # Pitman's sampling formula with this estimate needs 0 < alpha < 1 and theta > -alpha;
    # a root outside (e.g. alpha = -2.31) solves the equations but means nothing.
    return bool(x[0] >= 0 and 0 < x[1] < 1)


def _pitman_iterative(histogram: ClassSizeHistogram):
    """The likelihood equations as explicit sums (ARX's fallback for the closed forms)."""
    u, n = histogram.n_classes, histogram.n_records
    i_u = np.arange(1, u, dtype=float)
    i_n = np.arange(1, n, dtype=float)
    multi = histogram.sizes > 1
    k, f = histogram.sizes[multi], histogram.counts[multi].astype(float)
    j = np.arange(1, int(k.max()) if k.size else 1, dtype=float)

    def function(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t, a = x
        inv = 1.0 / (t + i_u * a)
        o1, o3 = inv.sum(), (i_u * inv).sum()
        d1, d5, d3 = (inv * inv).sum(), (i_u * inv * inv).sum(), (i_u * i_u * inv * inv).sum()
        # Sum over j < k of 1/(j - a) and 1/(j - a)^2 for every class size k at once.
        s1 = np.concatenate(([0.0], np.cumsum(1.0 / (j - a))))
        s2 = np.concatenate(([0.0], np.cumsum(1.0 / (j - a) ** 2)))
        o4, d4 = float(np.dot(f, s1[k - 1])), float(np.dot(f, s2[k - 1]))
        inv_n = 1.0 / (t + i_n)
        o2, d2 = inv_n.sum(), (inv_n * inv_n).sum()
        return (np.array([o1 - o2, o3 - o4]),
                np.array([[d2 - d1, -d5], [-d5, -d3 - d4]]))

    return function


def _pitman_uniques(solution: np.ndarray, p: float) -> float:
    from scipy.special import gamma, gammaln

    # numpy scalars overflow to inf (as Java's doubles do) instead of raising.
    t, a, p = np.float64(solution[0]), np.float64(solution[1]), np.float64(p)
    if np.isnan(t) or np.isnan(a) or a == 0:
        return float("nan")
    with np.errstate(all="ignore"):
        by_logs = float(np.exp(gammaln(t + 1.0) - gammaln(t + a)) * p ** a)
        by_gammas = float(gamma(t + 1.0) / gamma(t + a) * p ** a)
    # ARX computes both ways and keeps the larger valid one.
    valid = [v for v in (by_logs, by_gammas) if 0.0 <= v <= p]
    return max(valid) if valid else float("nan")


# --- Zayatz (1991): conditional probability that a sample unique is a population unique ---

def zayatz(histogram: ClassSizeHistogram, population_size: int,
           cancel: CancelToken | None = None) -> float:
    """Population uniques under Zayatz's model (ARX ``ModelZayatz``).

    ``f_1 * P(unique in population | unique in sample) / sampling fraction``, where the
    conditional probability weighs each class size ``i`` by ``f_i / u`` times the
    hypergeometric probability of drawing exactly one of its ``i`` members.
    """
    n = histogram.n_records
    fraction = n / population_size
    big_n = min(population_size, _JAVA_INT_MAX)
    u = float(histogram.n_classes)
    c1 = float(histogram.classes_of_size(1))
    weights = histogram.counts / u * hypergeometric_one(big_n, histogram.sizes, n)
    if cancel is not None:
        cancel.raise_if_cancelled()
    conditional = (c1 / u * hypergeometric_one(big_n, np.array([1]), n)[0]) / weights.sum()
    return float(c1 * conditional / fraction)


def hypergeometric_one(population: int, successes: np.ndarray, draws: int) -> np.ndarray:
    """P(X = 1) for X ~ Hypergeometric(population, successes[k], draws), for every k.

    P = K * n / (N - K + 1) * prod_{j=0}^{K-2} (N - n - j) / (N - j), in log space.
    """
    big_k = np.asarray(successes, dtype=np.int64)
    top = int(big_k.max()) if big_k.size else 1
    j = np.arange(0, max(top - 1, 0), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.log1p(-draws / (population - j))
        terms = np.where(population - draws - j > 0, terms, -np.inf)
        partial = np.concatenate(([0.0], np.cumsum(terms)))
        log_p = (np.log(big_k) + math.log(draws) - np.log(population - big_k + 1.0)
                 + partial[big_k - 1])
        return np.where(big_k <= population, np.exp(log_p), 0.0)


# --- SNB (Chen & Keller-McNulty 1998): slide negative binomial -----------------------------

def snb(histogram: ClassSizeHistogram, population_size: int,
        config: SolverConfig = DEFAULT_SOLVER, cancel: CancelToken | None = None) -> float:
    """Population uniques under the SNB model (ARX ``ModelSNB``), NaN if unavailable."""
    return snb_estimate(histogram, population_size, config, cancel).uniques


def snb_estimate(histogram: ClassSizeHistogram, population_size: int,
                 config: SolverConfig = DEFAULT_SOLVER,
                 cancel: CancelToken | None = None) -> Estimate:
    """Population uniques under the SNB model (ARX ``ModelSNB``): ``K * beta^alpha``.

    ``K`` (non-empty population classes) is Haas and Stokes' Shlosser estimate as ARX
    computes it; (alpha, beta) solve the equations matching ``f_1`` and ``f_2``, by
    Newton-Raphson from (1, 1) with ARX's Jacobian.
    """
    f = histogram.n_records / population_size
    c1 = float(histogram.classes_of_size(1))
    c2 = float(histogram.classes_of_size(2))
    k = _shlosser(histogram, c1, f)
    outcome = find_root(_snb_function(k, f, c1, c2), (1.0, 1.0), config, cancel=cancel)
    a, b = np.float64(outcome.root[0]), np.float64(outcome.root[1])
    with np.errstate(all="ignore"):
        return Estimate(float(k * b ** a), outcome.stopped_early)


def _shlosser(histogram: ClassSizeHistogram, c1: float, f: float) -> float:
    i, fi = histogram.sizes.astype(float), histogram.counts.astype(float)
    f2 = f * f
    with np.errstate(all="ignore"):
        shrunk = (1 - f) ** i * fi
        var1 = float(np.sum(i * f2 * (1 - f2) ** (i - 1) * fi))
        # ARX subtracts 1 once per distinct class size here; kept for parity.
        var2 = float(np.sum(shrunk * (1 + f) ** i - 1))
        var3 = float(np.sum(shrunk))
        var4 = float(np.sum(i * f * (1 - f) ** (i - 1) * fi))
        return float(histogram.n_classes + c1 * (var1 / var2) * (var3 / var4) ** 2)


def _snb_function(k: float, f: float, c1: float, c2: float):
    def function(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = np.float64(x[0]), np.float64(x[1])  # Java semantics: NaN, not complex
        dividend = (1 - f) * (1 - b)
        values = np.array([
            k * f * (b / (1 - dividend)) ** a * (a * dividend / (1 - dividend) + 1) - c1,
            k * a * b ** a * (f * f) * (1 - b) / 2 * (1 - dividend) ** (a + 2)
            * (2 - (1 - a) * dividend) - c2,
        ])
        return values, _snb_jacobian(a, b, k, f)
    return function


def _snb_jacobian(a: np.float64, b: np.float64, k: float, f: float) -> np.ndarray:
    """ARX's Matlab-derived partial derivatives, transcribed term by term."""
    a, b, k, f = (np.float64(v) for v in (a, b, k, f))
    v0 = (b - 1) * (f - 1)
    v1, v2 = v0 - 1, 1 - v0
    v3 = a * v0 / v1 - 1
    v4 = (-b / v1) ** a
    v6, v7 = f ** 2, b ** a
    v8 = v7 * v6 * k
    v9 = a * v8
    v10 = 2 * v2 ** (a + 2)
    v11 = v1 ** 2
    v13, v14, v15, v16 = f * k, f - 1, a - 1, b - 1
    v17 = v15 * v0
    v18 = v6 * k
    v19 = v17 + 2
    v20 = v18 * v19
    x1 = -v13 * np.log(-b / v1) * v3 * v4 - v13 * v4 * v0 / v1
    x2 = (a * v13 * (1 / v1 - b * v14 / v11) * v3 * (-b / v1) ** v15
          - v13 * v4 * (a * v14 / v1 - a * v16 * v14 ** 2 / v11))
    y1 = (v9 * np.log(v2) * v19 * v16 / v10 - v9 * v16 ** 2 * v14 / v10
          - v7 * v20 * v16 / v10 - a * v7 * v18 * np.log(b) * v19 * v16 / v10)
    y2 = (-v9 * v19 / v10 - a ** 2 * b ** v15 * v20 * v16 / v10 - a * v7 * v18 * v17 / v10
          - a * v7 * v20 * (a + 2) * v0 / (2 * v2 ** (a + 3)))
    return np.array([[x1, x2], [y1, y2]])
