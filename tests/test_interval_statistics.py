"""Interval statistics (spec 001 §2.7, §4.6-4.7): enclosure of the true value, exact
flags against brute force over endpoint vectors, inclusion isotonicity, golden values."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arxpy.analysis import interval_statistics as S
from arxpy.errors import ConfigurationError
from arxpy.methods import IntervalGeneralisation

FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def _intervals(draw_values, draw_widths):
    lo = np.asarray(draw_values, dtype=float)
    hi = lo + np.asarray(draw_widths, dtype=float)
    return lo, hi


small_boxes = st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-20, 40), min_size=n, max_size=n),
    st.lists(st.sampled_from([0, 0, 1, 2, 5, 9]), min_size=n, max_size=n)))


def _vertices(lo, hi):
    return np.array([np.where(bits, hi, lo) for bits in itertools.product([0, 1],
                                                                          repeat=len(lo))])


def _truth_functions(ddof=0):
    return {
        "mean": lambda x: x.mean(),
        "variance": lambda x: x.var(ddof=ddof),
        "sd": lambda x: x.std(ddof=ddof),
        "median": np.median,
        "q:0.9": lambda x: np.quantile(x, 0.9),
        "iqr": lambda x: np.quantile(x, 0.75) - np.quantile(x, 0.25),
        "skewness": lambda x: np.mean((x - x.mean()) ** 3),
        "exceed:10": lambda x: np.mean(x > 10),
    }


def _ranges(lo, hi, ddof=0):
    return {
        "mean": S.mean(lo, hi), "variance": S.variance(lo, hi, ddof),
        "sd": S.standard_deviation(lo, hi, ddof), "median": S.quantile(lo, hi, 0.5),
        "q:0.9": S.quantile(lo, hi, 0.9), "iqr": S.interquartile_range(lo, hi),
        "skewness": S.skewness(lo, hi), "exceed:10": S.exceedance(lo, hi, 10),
    }


@FAST
@given(data=small_boxes, ddof=st.sampled_from([0, 1]), seed=st.integers(0, 1000))
def test_every_dataset_inside_the_boxes_lies_inside_the_ranges(data, ddof, seed):
    lo, hi = _intervals(*data)
    rng = np.random.default_rng(seed)
    ranges = _ranges(lo, hi, ddof)
    points = np.vstack([rng.uniform(lo, hi, (60, len(lo))),
                        np.where(rng.integers(0, 2, (60, len(lo))) == 1, hi, lo)])
    for name, truth in _truth_functions(ddof).items():
        for x in points:
            assert ranges[name].contains(truth(x)), (name, ranges[name], truth(x))


@FAST
@given(data=small_boxes)
def test_exact_flags_match_brute_force_over_vertices(data):
    lo, hi = _intervals(*data)
    x = _vertices(lo, hi)
    checks = {"mean": x.mean(axis=1), "variance": x.var(axis=1),
              "median": np.median(x, axis=1), "q:0.9": np.quantile(x, 0.9, axis=1),
              "exceed:10": (x > 10).mean(axis=1)}
    ranges = _ranges(lo, hi)
    for name, values in checks.items():
        if ranges[name].flag == S.EXACT:
            assert ranges[name].hi == pytest.approx(values.max(), abs=1e-9), name
            if name != "variance":  # monotone: the lower end is the all-lower vertex
                assert ranges[name].lo == pytest.approx(values.min(), abs=1e-9), name
    # the lower end of the variance is a minimum over the whole box, not over vertices:
    # check it against a fine grid of the convex problem's KKT point instead
    low = S.variance(lo, hi).lo
    c_grid = np.linspace(lo.min(), hi.max(), 4001)
    clipped = np.clip(c_grid[:, None], lo, hi)
    assert low <= clipped.var(axis=1).min() + 1e-9


@FAST
@given(data=small_boxes)
def test_variance_lower_end_is_attained_and_minimal(data):
    from scipy.optimize import minimize

    lo, hi = _intervals(*data)
    low = S.variance(lo, hi).lo
    best = minimize(lambda x: x.var(), (lo + hi) / 2, bounds=list(zip(lo, hi, strict=True)),
                    method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-12})
    assert low <= best.fun + 1e-9
    assert low >= best.fun - 1e-5


@FAST
@given(n=st.integers(2, 14), seed=st.integers(0, 10_000))
def test_variance_upper_end_exact_without_nesting(n, seed):
    rng = np.random.default_rng(seed)
    lo = np.sort(rng.integers(0, 30, n)).astype(float)
    hi = np.maximum(np.sort(lo + rng.integers(0, 8, n)), lo)  # same order: no nesting
    result = S.variance(lo, hi)
    brute = _vertices(lo, hi).var(axis=1)
    if not S.nested(lo, hi):
        assert result.flag == S.EXACT
    if result.flag == S.EXACT:
        assert result.hi == pytest.approx(brute.max(), abs=1e-9)
    assert result.hi >= brute.max() - 1e-9


@FAST
@given(x=small_boxes, y=small_boxes)
def test_covariance_exact_for_small_n_and_enclosing_otherwise(x, y):
    lo_x, hi_x = _intervals(*x)
    lo_y, hi_y = _intervals(*y)
    n = min(len(lo_x), len(lo_y), 6)
    lo_x, hi_x, lo_y, hi_y = lo_x[:n], hi_x[:n], lo_y[:n], hi_y[:n]
    vx, vy = _vertices(lo_x, hi_x), _vertices(lo_y, hi_y)
    cov = ((vx[:, None, :] * vy[None]).mean(-1) - vx.mean(1)[:, None] * vy.mean(1)[None])
    exact = S.covariance(lo_x, hi_x, lo_y, hi_y)
    assert exact.flag == S.EXACT
    assert exact.lo == pytest.approx(cov.min(), abs=1e-9)
    assert exact.hi == pytest.approx(cov.max(), abs=1e-9)
    outer = S.covariance(lo_x, hi_x, lo_y, hi_y, exact_limit=0)
    assert outer.flag == S.OUTER
    assert outer.lo <= cov.min() + 1e-9 and outer.hi >= cov.max() - 1e-9
    corr = S.correlation(lo_x, hi_x, lo_y, hi_y)
    sx, sy = vx.std(axis=1), vy.std(axis=1)
    ok = (sx[:, None] > 0) & (sy[None] > 0)
    r = np.where(ok, cov / np.where(ok, sx[:, None] * sy[None], 1), 0)
    assert (corr.lo <= r[ok] + 1e-9).all() and (r[ok] <= corr.hi + 1e-9).all()


@FAST
@given(data=small_boxes, seed=st.integers(0, 1000))
def test_widening_a_box_never_shrinks_a_range(data, seed):
    lo, hi = _intervals(*data)
    rng = np.random.default_rng(seed)
    wider_lo = lo - rng.integers(0, 3, len(lo)) * rng.integers(0, 2, len(lo))
    wider_hi = hi + rng.integers(0, 3, len(lo)) * rng.integers(0, 2, len(lo))
    narrow, wide = _ranges(lo, hi), _ranges(wider_lo, wider_hi)
    for name in ("mean", "variance", "sd", "median", "q:0.9", "iqr", "exceed:10"):
        assert wide[name].lo <= narrow[name].lo + 1e-9, name
        assert wide[name].hi >= narrow[name].hi - 1e-9, name


def test_golden_values():
    lo, hi = np.array([0.0, 2.0]), np.array([1.0, 3.0])
    assert (S.mean(lo, hi).lo, S.mean(lo, hi).hi) == (1.0, 2.0)
    v = S.variance(lo, hi)  # closest 1 and 2: 0.25; farthest 0 and 3: 2.25
    assert (v.lo, v.hi, v.flag) == (pytest.approx(0.25), pytest.approx(2.25), S.EXACT)
    v1 = S.variance(lo, hi, ddof=1)
    assert (v1.lo, v1.hi) == (pytest.approx(0.5), pytest.approx(4.5))
    overlap = S.variance(np.array([0.0, 1.0]), np.array([2.0, 3.0]))
    assert overlap.lo == 0.0 and overlap.hi == pytest.approx(2.25)
    g = S.geometric_mean(np.array([1.0, 4.0]), np.array([4.0, 9.0]))
    assert (g.lo, g.hi) == (pytest.approx(2.0), pytest.approx(6.0))
    e = S.exceedance(np.array([1.0, 5.0, 9.0]), np.array([6.0, 5.0, 12.0]), 5)
    assert (e.lo, e.hi) == (pytest.approx(1 / 3), pytest.approx(2 / 3))
    box = S.ecdf(np.array([1.0, 3.0]), np.array([2.0, 4.0]))
    assert list(box.t) == [1, 2, 3, 4]
    assert list(box.lower) == [0, 0.5, 0.5, 1] and list(box.upper) == [0.5, 0.5, 1, 1]
    # x fixed at (0, 1), y_i in [0, 1]: cov = (y_2 - y_1) / 4
    c = S.covariance(np.array([0.0, 1.0]), np.array([0.0, 1.0]), np.array([0.0, 0.0]),
                     np.array([1.0, 1.0]))
    assert (c.lo, c.hi, c.flag) == (-0.25, 0.25, S.EXACT)


def test_nesting_detection():
    assert not S.nested([1, 3, 5], [3, 5, 7])       # touching
    assert not S.nested([1, 3, 3], [3, 3, 5])       # degenerate at an endpoint
    assert not S.nested([1, 1], [3, 3])             # identical intervals
    assert S.nested([1, 2], [5, 4])                 # inside
    assert S.nested([1, 1], [5, 4])                 # shared endpoint, still inside


def test_statistics_of_a_box_release_contain_the_truth():
    # Spec §4.6 on a 2-D release (per-attribute intervals nest there).
    rng = np.random.default_rng(4)
    x = np.round(rng.multivariate_normal([140, 80], [[900, 200], [200, 300]], 120))
    frame = pd.DataFrame(x, columns=["a", "b"]).astype(int).astype(str)
    boxes = IntervalGeneralisation(attributes=["a", "b"], k=4, statistic="variance:a").boxes(
        frame)
    lo, hi = boxes.record_lo(), boxes.record_hi()
    bounds = {"a": (lo[:, 0], hi[:, 0]), "b": (lo[:, 1], hi[:, 1])}
    requests = S.parse_statistics(
        "mean,variance,sd,median,q:0.9,gmean,hmean,cv,iqr,skewness,ci:0.95,exceed:140,"
        "cov:a,b,corr:a,b", ["a", "b"])
    truth_of = {
        "mean": np.mean, "variance": np.var, "sd": np.std, "median": np.median,
        "q": lambda v: np.quantile(v, 0.9), "gmean": lambda v: np.exp(np.log(v).mean()),
        "hmean": lambda v: 1 / np.mean(1 / v), "cv": lambda v: v.std() / v.mean(),
        "iqr": lambda v: np.quantile(v, 0.75) - np.quantile(v, 0.25),
        "skewness": lambda v: np.mean((v - v.mean()) ** 3),
        "exceed": lambda v: np.mean(v > 140),
    }
    col = {"a": 0, "b": 1}
    checked = 0
    for request in requests:
        results = S.compute(request, bounds)
        v = x[:, col[request.attributes[0]]]
        if request.kind == "ci":
            k0 = S.default_k0(len(v), 0.95)
            lower, upper = results
            assert lower.contains(v.mean() - k0 * v.std(ddof=1))
            assert upper.contains(v.mean() + k0 * v.std(ddof=1))
        elif request.kind == "cov":
            assert results[0].contains(np.cov(x[:, 0], x[:, 1], ddof=0)[0, 1])
        elif request.kind == "corr":
            assert results[0].contains(np.corrcoef(x[:, 0], x[:, 1])[0, 1])
        else:
            assert results[0].contains(truth_of[request.kind](v)), request
        checked += 1
    assert checked == len(requests) == 2 * 12 + 2


def test_clear_errors():
    with pytest.raises(ConfigurationError, match="positive"):
        S.geometric_mean([-1.0, 2.0], [1.0, 3.0])
    with pytest.raises(ConfigurationError, match="lower bound 3 above its upper bound 2"):
        S.mean([3.0], [2.0])
    with pytest.raises(ConfigurationError, match="Unknown statistic 'mode'"):
        S.parse_statistics("mean,mode", ["a"])
    with pytest.raises(ConfigurationError, match="q:0.9"):
        S.parse_statistics("q", ["a"])
    with pytest.raises(ConfigurationError, match="width limit"):
        S.width_evaluator(["a"], {"mode:a": 1.0})


@FAST
@given(data=small_boxes)
def test_zone_enumeration_is_exact_on_nested_intervals(data):
    lo, hi = _intervals(*data)
    fixed, pairs, counts = S._distinct_free(lo, hi)
    zoned = S.variance_upper_zones(fixed, pairs, counts, len(lo), 10**9)
    assert zoned == pytest.approx(_vertices(lo, hi).var(axis=1).max(), abs=1e-9)


def test_nested_release_gets_an_exact_variance_by_zones():
    # 120 nested intervals: too many vertex classes to enumerate, few per zone
    rng = np.random.default_rng(6)
    centre = rng.normal(100, 30, 120)
    lo = np.round(centre - rng.integers(0, 20, 120))
    hi = np.round(centre + rng.integers(0, 20, 120))
    assert S.nested(lo, hi)
    result = S.variance(lo, hi, exact_limit=200_000)
    assert result.flag == S.EXACT and "zone" in result.algorithm
    outer = S.variance(lo, hi, exact_limit=0)
    assert outer.flag == S.OUTER and outer.hi >= result.hi
    # an achievable vertex reaches the exact upper end's neighbourhood from below
    assert S.variance_upper_threshold(lo, hi) <= result.hi + 1e-9


@FAST
@given(x=small_boxes, y=small_boxes)
def test_inner_ranges_lie_inside_the_true_ranges(x, y):
    lo_x, hi_x = _intervals(*x)
    lo_y, hi_y = _intervals(*y)
    n = min(len(lo_x), len(lo_y), 6)
    lo_x, hi_x, lo_y, hi_y = lo_x[:n], hi_x[:n], lo_y[:n], hi_y[:n]
    vx, vy = _vertices(lo_x, hi_x), _vertices(lo_y, hi_y)
    outer_var = S.variance(lo_x, hi_x, exact_limit=0)
    if outer_var.inner is not None:  # true range: [exact lower end, largest vertex]
        assert outer_var.inner[0] >= S.variance(lo_x, hi_x).lo - 1e-9
        assert outer_var.inner[1] <= vx.var(axis=1).max() + 1e-9
    cov = ((vx[:, None, :] * vy[None]).mean(-1) - vx.mean(1)[:, None] * vy.mean(1)[None])
    outer_cov = S.covariance(lo_x, hi_x, lo_y, hi_y, exact_limit=0)
    assert outer_cov.inner is not None
    assert cov.min() - 1e-9 <= outer_cov.inner[0] <= outer_cov.inner[1] <= cov.max() + 1e-9
    assert outer_cov.lo <= outer_cov.inner[0] and outer_cov.inner[1] <= outer_cov.hi


@FAST
@given(seed=st.integers(0, 10_000), n=st.integers(4, 50), k=st.integers(2, 5),
       statistic=st.sampled_from(["uniform", "mean:a", "variance:b", "covariance:a,b"]))
def test_true_statistics_of_random_releases_lie_inside(seed, n, k, statistic):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(100, 25, (n, 2))).clip(1)
    frame = pd.DataFrame(x, columns=["a", "b"]).astype(int).astype(str)
    boxes = IntervalGeneralisation(attributes=["a", "b"], k=min(k, n),
                                   statistic=statistic).boxes(frame)
    lo, hi = boxes.record_lo(), boxes.record_hi()
    a, b = x[:, 0], x[:, 1]
    checks = [
        (S.mean(lo[:, 0], hi[:, 0]), a.mean()),
        (S.variance(lo[:, 0], hi[:, 0]), a.var()),
        (S.variance(lo[:, 1], hi[:, 1], ddof=1), b.var(ddof=1)),
        (S.quantile(lo[:, 1], hi[:, 1], 0.9), np.quantile(b, 0.9)),
        (S.geometric_mean(lo[:, 0], hi[:, 0]), np.exp(np.log(a).mean())),
        (S.harmonic_mean(lo[:, 0], hi[:, 0]), 1 / np.mean(1 / a)),
        (S.interquartile_range(lo[:, 0], hi[:, 0]),
         np.quantile(a, 0.75) - np.quantile(a, 0.25)),
        (S.skewness(lo[:, 1], hi[:, 1]), np.mean((b - b.mean()) ** 3)),
        (S.covariance(lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1]), np.cov(a, b, ddof=0)[0, 1]),
        (S.coefficient_of_variation(lo[:, 0], hi[:, 0]), a.std() / a.mean()),
    ]
    if a.std() > 0 and b.std() > 0:
        checks.append((S.correlation(lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1]),
                       np.corrcoef(a, b)[0, 1]))
    for result, truth in checks:
        assert result.contains(truth), (result, truth)
        if result.inner is not None:
            assert result.lo <= result.inner[0] <= result.inner[1] <= result.hi
