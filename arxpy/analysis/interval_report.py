"""What the interval-generalisation result views show, computed without Qt (Xiang et
al. 2014; spec ``001-interval-generalisation.md`` §6).

A release of the ``intervals`` method holds each boxed attribute as ``"[lo, hi]"`` cells
and the box of each record in ``groups``. From those alone this module derives the
per-record bounds, the box sizes, leftovers, unchanged values and nesting, the interval
statistics with (for the data holder) the true value, and a sweep of widths against k.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.analysis.interval_statistics import (
    PBox,
    compute,
    nested,
    parse_statistics,
    width_evaluator,
)
from arxpy.arrays import distinct
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress, ThrottledProgress

Bounds = dict[str, tuple[np.ndarray, np.ndarray]]


def release_bounds(table: pd.DataFrame, attributes: Sequence[str]) -> Bounds:
    """Per attribute, the lower and upper bound of every record from ``"[lo, hi]"`` cells."""
    out: Bounds = {}
    for name in attributes:
        if name not in table.columns:
            raise ConfigurationError(f"The release has no attribute '{name}'.")
        # Records share their box's cell: parse each distinct cell once.
        codes, distinct = pd.factorize(table[name].astype(str), sort=False)
        cells = pd.Series(distinct, dtype=object).str.strip()
        parts = cells.str.removeprefix("[").str.removesuffix("]").str.split(",", n=1,
                                                                              expand=True)
        if parts.shape[1] != 2:
            raise ConfigurationError(f"'{name}' holds no '[lo, hi]' intervals.")
        lo = pd.to_numeric(parts[0], errors="coerce").to_numpy(np.float64)
        hi = pd.to_numeric(parts[1], errors="coerce").to_numpy(np.float64)
        bad = ~(np.isfinite(lo) & np.isfinite(hi)) | ~cells.str.startswith("[").to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad[codes])[0])
            raise ConfigurationError(
                f"Cannot read interval {cells.iloc[codes[row]]!r} of '{name}' in row "
                f"{row + 1}; expected '[lo, hi]'.")
        lo, hi = lo[codes], hi[codes]
        out[name] = (lo, hi)
    return out


@dataclass(frozen=True)
class IntervalSummary:
    """Boxes, leftovers, unchanged values and nesting of one release."""

    k: int
    records: int
    #: Records per box (box ids 0..B-1).
    box_sizes: np.ndarray
    #: Records merged into a box after the greedy pass: every box was created with k.
    leftovers: int
    #: Per attribute: records whose interval is a single value [v, v].
    unchanged: Mapping[str, int]
    #: Per attribute: does a non-degenerate interval lie inside another?
    nesting: Mapping[str, bool]
    #: Per attribute: mean interval width over records.
    mean_width: Mapping[str, float]

    @property
    def boxes(self) -> int:
        return len(self.box_sizes)

    @property
    def min_box_size(self) -> int:
        return int(self.box_sizes.min()) if len(self.box_sizes) else 0

    def size_histogram(self) -> pd.Series:
        """Number of boxes per box size, ascending."""
        sizes, counts = distinct(np.asarray(self.box_sizes).ravel(), return_counts=True)
        return pd.Series(counts, index=sizes, name="boxes")


def interval_summary(bounds: Bounds, groups: np.ndarray, k: int) -> IntervalSummary:
    """Summary of a box release from its bounds and its box id per record."""
    groups = np.asarray(groups, dtype=np.int64)
    sizes = np.bincount(groups) if len(groups) else np.zeros(0, dtype=np.int64)
    sizes = sizes[sizes > 0]
    return IntervalSummary(
        k=k, records=len(groups), box_sizes=sizes,
        leftovers=int(len(groups) - k * len(sizes)),
        unchanged={a: int((lo == hi).sum()) for a, (lo, hi) in bounds.items()},
        nesting={a: nested(lo, hi) for a, (lo, hi) in bounds.items()},
        mean_width={a: float(np.mean(hi - lo)) for a, (lo, hi) in bounds.items()})


def default_statistics(attributes: Sequence[str]) -> str:
    """The statistics the panel starts with: central, spread, and the pair if any."""
    text = "mean,median,variance,sd,iqr"
    if len(attributes) >= 2:
        text += f",cov:{attributes[0]},{attributes[1]},corr:{attributes[0]},{attributes[1]}"
    return text


STATISTIC_COLUMNS = ["statistic", "lo", "hi", "width", "relative_width", "flag",
                     "algorithm", "true", "inside"]


def statistics_table(bounds: Bounds, statistics: str,
                     original: Mapping[str, np.ndarray] | None = None, ddof: int = 0, *,
                     cancel: CancelToken | None = None) -> pd.DataFrame:
    """One row per statistic named in ``statistics`` (as ``arxpy interval-stats``):
    its range, width, width relative to the true value (or to the range's magnitude
    without ``original``), flag and algorithm; with the original values (the data
    holder's view) also the true value and whether the range contains it (a job:
    ``cancel`` is honoured between statistics)."""
    requests = parse_statistics(statistics, list(bounds))
    points = None if original is None else \
        {a: (np.asarray(v, float), np.asarray(v, float)) for a, v in original.items()}
    rows = []
    for request in requests:
        if cancel is not None:  # exact enumerations can take seconds each
            cancel.raise_if_cancelled()
        result = compute(request, bounds, ddof)
        truth = None if points is None else compute(request, points, ddof)
        if isinstance(result, PBox):
            rows.append((f"ecdf({request.attributes[0]})", np.nan, np.nan, result.width,
                         np.nan, "exact", "p-box at every endpoint (width: largest gap)",
                         np.nan, None))
            continue
        for i, stat in enumerate(result):
            true = np.nan if truth is None else float(truth[i].lo)
            rows.append(_statistic_row(request.attributes, stat, true))
    return pd.DataFrame(rows, columns=STATISTIC_COLUMNS)


def _statistic_row(attributes: Sequence[str], stat, true: float) -> tuple:
    scale = abs(true) if np.isfinite(true) and true != 0 else max(abs(stat.lo), abs(stat.hi))
    relative = stat.width / scale if scale > 0 else np.nan
    inside = None if not np.isfinite(true) else bool(stat.contains(true))
    return (f"{stat.name}({','.join(attributes)})", stat.lo, stat.hi, stat.width, relative,
            stat.flag, stat.algorithm, true, inside)


#: Widths the k sweep follows by default, per attribute.
SWEEP_STATISTICS = ("mean", "sd")

#: k -> per-record (lo, hi), each N × attributes, for the boxes built with that k.
BoxesForK = Callable[[int], tuple[np.ndarray, np.ndarray]]


def width_sweep(boxes_for_k: BoxesForK, attributes: Sequence[str], ks: Sequence[int],
                statistics: Sequence[str] = SWEEP_STATISTICS, ddof: int = 0, *,
                extra: Sequence[str] = (), progress: Progress | None = None,
                cancel: CancelToken | None = None) -> pd.DataFrame:
    """Widths of ``statistics`` of every attribute, and of the statistics named in
    ``extra`` (``variance:A``, ``cov:A,B``, any width-limit name), for each k (a job),
    to help choose k.

    Widths are not monotone in k for the greedy construction, so every k is built.
    Returns a long table: k, statistic, attribute (``A,B`` for a pair), width.
    """
    if not ks:
        raise ConfigurationError("Give at least one k for the sweep.")
    names = {f"{s}:{a}": (s, a) for s in statistics for a in attributes}
    for name in extra:
        kind, _, over = name.partition(":")
        names[name] = (kind, over)
    evaluate = width_evaluator(attributes, {name: np.inf for name in names}, ddof)
    report = ThrottledProgress(progress)
    rows = []
    for i, k in enumerate(ks):
        if cancel is not None:
            cancel.raise_if_cancelled()
        report(i / len(ks), f"k = {k}")
        lo, hi = boxes_for_k(k)
        for name, width in evaluate(lo, hi).items():
            rows.append((k, *names[name], width))
    report(1.0, "Done")
    return pd.DataFrame(rows, columns=["k", "statistic", "attribute", "width"])


def parse_width_limits(text: str) -> dict[str, float]:
    """``"mean:A=5, variance:A=10, cov:A,B=3"`` as ``{"mean:A": 5.0, ...}`` (the syntax of
    ``arxpy intervals --max-width``); empty text gives no limits."""
    limits: dict[str, float] = {}
    pending: list[str] = []
    for token in (t.strip() for t in text.split(",")):
        pending.append(token)
        if "=" not in token:
            continue
        name, _, value = ",".join(pending).rpartition("=")
        pending = []
        try:
            limit = float(value)
        except ValueError:
            limit = float("nan")
        if not name.strip() or not np.isfinite(limit) or limit < 0:
            raise ConfigurationError(
                f"Cannot read the width limit '{name}={value}'; write for example "
                "mean:A=5, variance:A=10 with non-negative numbers.")
        limits[name.strip()] = limit
    if any(pending):
        raise ConfigurationError(
            f"Cannot read the width limits '{text}'; give each statistic a limit, for "
            "example mean:A=5, variance:A=10.")
    return limits


def largest_within(sweep: pd.DataFrame, limits: Mapping[str, float]) -> int | None:
    """The largest k of a sweep whose every limited width is within its limit (None:
    not releasable at these limits). Widths are not monotone in k: every k counts."""
    if sweep.empty:
        return None
    names = sweep["statistic"] + ":" + sweep["attribute"]
    best = None
    for k, rows in sweep.assign(name=names).groupby("k"):
        widths = dict(zip(rows["name"], rows["width"], strict=True))
        if all(name in widths and widths[name] <= limit for name, limit in limits.items()):
            best = int(k)
    return best
