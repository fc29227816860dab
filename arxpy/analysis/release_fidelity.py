"""Basic statistics, Kaplan-Meier curves and conditional privacy of a synthetic release
(Gal et al. 2014: requirement 2, L154; conditional privacy, L3085-3206).

These compare an original table with an anonymized one of the same columns; pairing for
conditional privacy is by row position, so pass the anonymized rows in the input order
of the records they were generated for (spec §3 [I]).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from arxpy.arrays import count_distinct, distinct

#: Named in every report of conditional privacy (spec §3 [I]).
CONDITIONAL_PRIVACY_ESTIMATOR = "gaussian: h(A|B) = 1/2 log2(2 pi e var(A) (1 - rho(A,B)^2))"


def _numbers(column: pd.Series) -> np.ndarray | None:
    values = pd.to_numeric(column, errors="coerce")
    return None if values.isna().any() or not len(values) else values.to_numpy(np.float64)


def basic_statistics(original: pd.DataFrame, anonymized: pd.DataFrame,
                     columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Per numeric attribute: mean, sum and median before and after, relative change (%);
    per categorical attribute and level: the share before and after (in %)."""
    rows = []
    for name in columns or list(original.columns):
        a, b = _numbers(original[name]), _numbers(anonymized[name])
        if a is not None and b is not None:
            for stat, f in (("mean", np.mean), ("sum", np.sum), ("median", np.median)):
                before, after = float(f(a)), float(f(b))
                rows.append((name, stat, before, after, _relative(before, after)))
            continue
        before = original[name].astype(str).value_counts(normalize=True) * 100
        after = anonymized[name].astype(str).value_counts(normalize=True) * 100
        for level in sorted(set(before.index) | set(after.index)):
            x, y = float(before.get(level, 0.0)), float(after.get(level, 0.0))
            rows.append((name, f"share {level}", x, y, _relative(x, y)))
    return pd.DataFrame(rows, columns=["attribute", "statistic", "original", "anonymized",
                                       "change_pct"])


def _relative(before: float, after: float) -> float:
    if before == 0:
        return 0.0 if after == 0 else math.inf
    return 100.0 * (after - before) / abs(before)


def kaplan_meier(time: np.ndarray, event: np.ndarray) -> pd.DataFrame:
    """The product-limit estimate: survival just after each distinct time, with the
    number at risk and of events there."""
    time = np.asarray(time, dtype=np.float64)
    event = np.asarray(event, dtype=bool)
    times, inverse = distinct(time, return_inverse=True)
    deaths = np.bincount(inverse, weights=event.astype(np.float64), minlength=len(times))
    leaving = np.bincount(inverse, minlength=len(times))
    at_risk = len(time) - np.concatenate([[0], np.cumsum(leaving)[:-1]])
    survival = np.cumprod(1.0 - deaths / at_risk)
    return pd.DataFrame({"time": times, "at_risk": at_risk, "events": deaths.astype(np.int64),
                         "survival": survival})


def kaplan_meier_difference(original: pd.DataFrame, anonymized: pd.DataFrame, time: str,
                            event: str, event_value: str) -> float:
    """Largest absolute difference between the two survival curves over all times."""
    curves = []
    for table in (original, anonymized):
        km = kaplan_meier(pd.to_numeric(table[time]).to_numpy(),
                          table[event].astype(str).to_numpy() == str(event_value))
        curves.append(km)
    grid = np.union1d(curves[0]["time"], curves[1]["time"])
    steps = [_step(c, grid) for c in curves]
    return float(np.abs(steps[0] - steps[1]).max()) if grid.size else 0.0


def _step(curve: pd.DataFrame, grid: np.ndarray) -> np.ndarray:
    position = np.searchsorted(curve["time"].to_numpy(), grid, side="right") - 1
    values = curve["survival"].to_numpy()
    return np.where(position >= 0, values[np.maximum(position, 0)], 1.0)


def conditional_privacy(original: np.ndarray, anonymized: np.ndarray) -> float:
    """Π(A|B) = 2^h(A|B) with the Gaussian estimator (:data:`CONDITIONAL_PRIVACY_ESTIMATOR`);
    ``original[i]`` is paired with ``anonymized[i]``. Larger means more private; 0 when B
    determines A exactly."""
    a = np.asarray(original, dtype=np.float64)
    b = np.asarray(anonymized, dtype=np.float64)
    variance = float(a.var(ddof=1)) if len(a) > 1 else 0.0
    if variance == 0:
        return 0.0
    rho = 0.0 if b.std() == 0 else float(np.corrcoef(a, b)[0, 1])
    remaining = variance * max(0.0, 1.0 - rho * rho)
    if remaining == 0:
        return 0.0
    return float(math.sqrt(2 * math.pi * math.e * remaining))  # 2^(1/2 log2(2πe σ²))


def conditional_privacy_table(original: pd.DataFrame, anonymized: pd.DataFrame
                              ) -> dict[str, float]:
    """Π(A|B) for every numeric, non-binary attribute of the two position-paired tables."""
    out = {}
    for name in original.columns:
        a, b = _numbers(original[name]), _numbers(anonymized[name])
        if a is None or b is None or count_distinct(a) <= 2:
            continue
        out[name] = conditional_privacy(a, b)
    return out
