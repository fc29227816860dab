"""Exact third central moment and confidence limits on interval data, and inner ranges.

The oracles here are written independently of ``arxpy.analysis.interval_extremes``:
enumeration of every lower / upper / interior choice per record (with the interior
records at one common value, as the first- and second-order conditions require), a
generic optimiser for the convex ends, and samples inside the boxes. The true range of a
continuous statistic over a box is an interval, so an inner range inside it is attained
by a feasible dataset.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arxpy.analysis import interval_extremes as X
from arxpy.analysis import interval_statistics as S
from arxpy.data.definition import DataDefinition
from arxpy.methods import IntervalGeneralisation
from arxpy.methods.interval_boxes import parse_interval

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def third(x):
    return np.mean((x - x.mean(axis=-1, keepdims=True)) ** 3, axis=-1)


def spread(x, sign, k0):
    return sign * x.mean(axis=-1) + k0 * x.std(axis=-1, ddof=1)


def brute_third_moment(lo, hi):
    """(min, max) of mean((x − E)³) over every lower/upper/interior choice (n ≥ 3)."""
    n, low, high = len(lo), np.inf, -np.inf
    for choice in itertools.product(range(3), repeat=n):
        choice = np.array(choice)
        free = choice == 2
        x = np.where(choice == 1, hi, lo).astype(float)
        if not free.any():
            low, high = min(low, third(x)), max(high, third(x))
            continue
        a, b = lo[free].max(), hi[free].min()
        if a > b:
            continue
        ys = [a, b]
        if b > a:  # S along the common value is a cubic: interpolate, add its critical points
            grid = np.linspace(a, b, 4)
            values = [third(np.where(free, y, x)) for y in grid]
            cubic = np.polynomial.Polynomial.fit(grid, values, 3)
            ys += [r.real for r in cubic.deriv().roots() if abs(r.imag) < 1e-9 and a <= r.real <= b]
        for y in ys:
            value = third(np.where(free, y, x))
            low, high = min(low, value), max(high, value)
    return low, high


def vertices(lo, hi):
    return np.array([np.where(bits, hi, lo) for bits in itertools.product([0, 1], repeat=len(lo))])


def unnested(n_range=(3, 7)):
    """Sorted lower and upper bounds (so usually no nesting), ties and points included."""
    return st.integers(*n_range).flatmap(lambda n: st.tuples(
        st.lists(st.integers(-15, 30), min_size=n, max_size=n),
        st.lists(st.sampled_from([0, 1, 2, 3, 7, 12]), min_size=n, max_size=n)))


def _bounds(data):
    lo = np.sort(np.asarray(data[0], dtype=float))
    hi = np.maximum(np.sort(lo + np.asarray(data[1], dtype=float)), lo)
    return lo, hi


def _inside(x, lo, hi):
    return bool(((x >= lo - 1e-9) & (x <= hi + 1e-9)).all())


@FAST
@given(data=unnested(), seed=st.integers(0, 1000))
def test_third_moment_without_nesting_is_exact_attained_and_encloses(data, seed):
    lo, hi = _bounds(data)
    if S.nested(lo, hi):
        return
    result = S.skewness(lo, hi)
    assert result.flag == S.EXACT
    low, high = brute_third_moment(lo, hi)
    assert result.lo == pytest.approx(low, abs=1e-7)
    assert result.hi == pytest.approx(high, abs=1e-7)
    (w_lo, w_hi), (x_lo, x_hi) = X.third_moment_range(lo, hi)
    assert _inside(x_lo, lo, hi) and _inside(x_hi, lo, hi)  # attained by datasets
    assert third(x_lo) == pytest.approx(w_lo, abs=1e-9) and third(x_hi) == pytest.approx(w_hi)
    rng = np.random.default_rng(seed)
    samples = np.vstack([rng.uniform(lo, hi, (300, len(lo))), vertices(lo, hi)])
    assert (third(samples) >= result.lo - 1e-9).all() and (third(samples) <= result.hi + 1e-9).all()


@FAST
@given(data=unnested((3, 6)), widths=st.lists(st.sampled_from([0, 4, 9]), min_size=6,
                                               max_size=6))
def test_third_moment_with_nesting_is_outer_with_an_inner_range_inside_the_truth(data, widths):
    lo, hi = _bounds(data)
    hi = hi + np.asarray(widths[:len(lo)], dtype=float)[::-1]  # wider early: nesting likely
    result = S.skewness(lo, hi)
    low, high = brute_third_moment(lo, hi)
    if result.flag == S.EXACT:
        assert not S.nested(lo, hi)
        assert (result.lo, result.hi) == pytest.approx((low, high), abs=1e-7)
        return
    assert result.lo <= low + 1e-9 and high <= result.hi + 1e-9
    assert result.inner is not None
    assert result.lo <= result.inner[0] <= result.inner[1] <= result.hi
    assert low - 1e-9 <= result.inner[0] and result.inner[1] <= high + 1e-9


def test_small_samples_have_no_third_moment():
    result = S.skewness([0.0, 5.0], [1.0, 9.0])
    assert (result.lo, result.hi, result.flag) == (0.0, 0.0, S.EXACT)


def test_the_exact_scan_respects_its_limit():
    lo = np.arange(40.0)
    hi = lo + 3
    assert S.skewness(lo, hi).flag == S.EXACT
    limited = S.skewness(lo, hi, structure_limit=10)
    assert limited.flag == S.OUTER and limited.inner is not None
    exact = S.skewness(lo, hi)
    assert limited.lo <= exact.lo and exact.hi <= limited.hi
    assert exact.lo - 1e-9 <= limited.inner[0] <= limited.inner[1] <= exact.hi + 1e-9


@FAST
@given(data=unnested((2, 8)), k0=st.floats(0.0, 3.0), seed=st.integers(0, 1000))
def test_confidence_limits_without_nesting_are_exact(data, k0, seed):
    from scipy.optimize import minimize

    lo, hi = _bounds(data)
    if S.nested(lo, hi):
        return
    lower, upper = S.confidence_limits(lo, hi, k0=k0)
    assert lower.flag == upper.flag == S.EXACT
    v = vertices(lo, hi)  # far ends: maxima of convex functions, at vertices
    assert upper.hi == pytest.approx(spread(v, 1, k0).max(), abs=1e-9)
    assert lower.lo == pytest.approx(v.mean(axis=1).min() if k0 == 0 else
                                     -spread(v, -1, k0).max(), abs=1e-9)
    rng = np.random.default_rng(seed)
    samples = np.vstack([rng.uniform(lo, hi, (300, len(lo))), v])
    for sign, near in ((1.0, upper.lo), (-1.0, -lower.hi)):  # near ends: convex minima
        value, x = X.spread_min(lo, hi, sign, k0)
        assert _inside(x, lo, hi) and value == pytest.approx(near)
        best = minimize(lambda z, g=sign: spread(z, g, k0), (lo + hi) / 2,
                        bounds=list(zip(lo, hi, strict=True)), method="L-BFGS-B")
        assert near <= best.fun + 1e-7
        assert near <= spread(samples, sign, k0).min() + 1e-9
    u, ell = spread(samples, 1, k0), -spread(samples, -1, k0)
    assert (u >= upper.lo - 1e-9).all() and (u <= upper.hi + 1e-9).all()
    assert (ell >= lower.lo - 1e-9).all() and (ell <= lower.hi + 1e-9).all()


def test_confidence_limits_with_nesting():
    lo = np.array([0.0, 2.0, 3.0, 1.0, 6.0, 4.0])
    hi = np.array([10.0, 3.0, 4.0, 9.0, 7.0, 8.0])
    assert S.nested(lo, hi)
    v = vertices(lo, hi)
    k0 = 0.8
    lower, upper = S.confidence_limits(lo, hi, k0=k0)  # 2^6 vertices: enumerated
    assert upper.flag == S.EXACT
    assert upper.hi == pytest.approx(spread(v, 1, k0).max())
    assert lower.lo == pytest.approx(-spread(v, -1, k0).max())
    lower_o, upper_o = S.confidence_limits(lo, hi, k0=k0, exact_limit=1)
    assert upper_o.flag == lower_o.flag == S.OUTER
    for outer, exact in ((lower_o, lower), (upper_o, upper)):
        assert outer.lo <= exact.lo + 1e-9 and exact.hi <= outer.hi + 1e-9
        assert exact.lo - 1e-9 <= outer.inner[0] <= outer.inner[1] <= exact.hi + 1e-9
    # the zone local search reaches the enumerated far ends on this input
    assert upper_o.inner[1] == pytest.approx(upper.hi)
    assert lower_o.inner[0] == pytest.approx(lower.lo)


@FAST
@given(data=unnested((2, 7)), widths=st.lists(st.sampled_from([0, 4, 9]), min_size=7,
                                               max_size=7), k0=st.floats(0.1, 2.5))
def test_confidence_limits_with_nesting_are_exact_by_enumeration_or_enclose(data, widths, k0):
    lo, hi = _bounds(data)
    hi = hi + np.asarray(widths[:len(lo)], dtype=float)[::-1]
    v = vertices(lo, hi)
    truth_upper = (spread(v, 1, k0).max(), -spread(v, -1, k0).max())  # far ends
    for limit in (S.EXACT_LIMIT, 1):
        lower, upper = S.confidence_limits(lo, hi, k0=k0, exact_limit=limit)
        if upper.flag == S.EXACT:
            assert upper.hi == pytest.approx(truth_upper[0], abs=1e-9)
            assert lower.lo == pytest.approx(truth_upper[1], abs=1e-9)
        else:
            assert upper.hi >= truth_upper[0] - 1e-9 and lower.lo <= truth_upper[1] + 1e-9
            assert upper.lo <= upper.inner[0] <= upper.inner[1] <= truth_upper[0] + 1e-9
            assert truth_upper[1] - 1e-9 <= lower.inner[0] <= lower.inner[1] <= lower.hi
        assert (spread(v, 1, k0) >= upper.lo - 1e-9).all()  # near ends: below every vertex


def test_negative_k0_is_refused():
    from arxpy.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="k0"):
        S.confidence_limits([0.0, 1.0], [1.0, 2.0], k0=-1)


@FAST
@given(data=unnested((3, 8)), extra=st.lists(st.sampled_from([0, 5, 15]), min_size=8,
                                              max_size=8))
def test_zone_search_gives_attained_inner_ranges(data, extra):
    lo, hi = _bounds(data)
    hi = hi + np.asarray(extra[:len(lo)], dtype=float)
    v = vertices(lo, hi).var(axis=1)
    for sign in (1.0, -1.0):
        start = (lo + hi) / 2
        x = X.zone_search(start, X.pick_third_moment(lo, hi, sign),
                          lambda z, g=sign: g * third(z))
        assert _inside(x, lo, hi) and sign * third(x) >= sign * third(start) - 1e-9
        y = X.zone_search(start, X.pick_spread(lo, hi, sign, 1.0),
                          lambda z, g=sign: float(spread(z, g, 1.0)))
        assert _inside(y, lo, hi) and spread(y, sign, 1.0) >= spread(start, sign, 1.0) - 1e-9
    z = X.zone_search(lo.copy(), X.pick_variance(lo, hi), lambda w: float(w.var()))
    assert _inside(z, lo, hi) and lo.var() - 1e-9 <= z.var() <= v.max() + 1e-9
    outer = S.variance(lo, hi, exact_limit=0)
    if outer.flag == S.OUTER:
        assert outer.lo <= outer.inner[0] <= outer.inner[1] <= outer.hi
        assert outer.inner[1] <= v.max() + 1e-9


def test_exact_third_moment_of_a_one_dimensional_release():
    rng = np.random.default_rng(3)
    values = np.round(rng.normal(139.3, 32.9, 120))
    frame = pd.DataFrame({"bp": [f"{v:g}" for v in values]})
    release = IntervalGeneralisation(attributes=["bp"], k=4).run(
        frame, DataDefinition.for_columns(frame.columns))
    lo, hi = np.array([parse_interval(cell) for cell in release.table["bp"]]).T
    result = S.skewness(lo, hi)
    assert result.flag == S.EXACT  # 1-D boxes do not nest
    assert result.lo <= third(values) <= result.hi
    outer = S.skewness(lo, hi, structure_limit=0)
    assert outer.lo <= result.lo and result.hi <= outer.hi
    assert result.width < outer.width
    lower, upper = S.confidence_limits(lo, hi, 0.95)
    k0 = S.default_k0(len(values), 0.95)
    assert lower.flag == upper.flag == S.EXACT
    assert lower.contains(values.mean() - k0 * values.std(ddof=1))
    assert upper.contains(values.mean() + k0 * values.std(ddof=1))


def test_a_stationary_point_rounded_below_an_endpoint_does_not_win():
    # Found by the property test above: the closed form put a stationary point next to
    # x = (27, 27, 27) 1e-8 below it, though its dataset's value is 4e-9 above -27.
    lo, hi = np.array([20.0, 20.0, 27.0]), np.array([27.0, 27.0, 29.0])
    value, x = X.spread_min(lo, hi, -1.0, 1.0)
    assert value == -27.0 and list(x) == [27.0, 27.0, 27.0]
    assert value == min(spread(vertices(lo, hi), -1.0, 1.0).min(), value)

