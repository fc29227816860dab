"""Utility statistics, input versus output: summaries, distributions, contingency tables,
equivalence-class sizes and per-attribute quality (ARX's Utility perspective, headless).

Conventions (stated to the user next to the figures):

* The output's statistics count its *published* records: suppressed records are left
  out (ARX's "number of measures" does the same), identifying attributes are absent.
* Numeric summaries (integer and decimal attributes) use the values themselves on the
  input and, on the output, the rule of :mod:`arxpy.analysis.generalized` (interval
  midpoints for estimates, interval bounds for the bounds of the mean). Quartiles use
  linear interpolation between order statistics (numpy's default, R type 7); the
  standard deviation is the sample one (divisor n - 1).
* Missing-value spellings (``""``, ``NA``, ``?`` ...) count as values in counts,
  distributions and modes, and are left out of numeric summaries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from arxpy.analysis.generalized import read_numeric
from arxpy.data.codes import group_sizes
from arxpy.data.definition import AttributeType, DataDefinition, DataKind
from arxpy.data.types import is_missing
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.release import Release

SUPPRESSED = "*"


def _mode(values: pd.Series) -> str | None:
    if values.empty:
        return None
    counts = values.value_counts(sort=False)
    best = counts.max()
    return str(sorted(counts.index[counts == best])[0])  # ties: first in sorted order


def numeric_summary(values: pd.Series | Sequence[str]) -> dict[str, Any]:
    """Count, min, quartiles, max, mean and sample sd of the numbers ``values`` carry.

    Plain numbers count as themselves and bounded intervals as their midpoints;
    ``basis`` says which occurred. ``mean_low``/``mean_high`` bound the true mean using
    the intervals' bounds (equal to ``mean`` without intervals). ``not_numeric`` counts
    values carrying no number (``*``, masked, open-ended, missing).
    """
    reading = read_numeric(values)
    numeric = reading.numeric
    mid = reading.midpoint[numeric]
    out: dict[str, Any] = {"numeric_values": int(numeric.sum()),
                           "not_numeric": int((~numeric).sum())}
    if mid.size == 0:
        return out | {k: math.nan for k in ("min", "q1", "median", "q3", "max", "mean", "sd",
                                             "mean_low", "mean_high")} | {"basis": "none"}
    q1, median, q3 = np.percentile(mid, [25, 50, 75])
    out.update(
        min=float(mid.min()), q1=float(q1), median=float(median), q3=float(q3),
        max=float(mid.max()), mean=float(mid.mean()),
        sd=float(mid.std(ddof=1)) if mid.size > 1 else math.nan,
        mean_low=float(reading.low[numeric].mean()),
        mean_high=float(reading.high[numeric].mean()),
        basis="interval midpoints" if reading.interval[numeric].any() else "values",
    )
    return out


def attribute_summary(values: pd.Series, kind: DataKind) -> dict[str, Any]:
    """ARX's summary of one attribute: count, missing, distinct values, mode, numbers."""
    out: dict[str, Any] = {
        "count": int(len(values)),
        "missing": int(is_missing(values).sum()) if len(values) else 0,
        "distinct": int(values.nunique()),
        "mode": _mode(values),
    }
    if kind in (DataKind.INTEGER, DataKind.DECIMAL):
        usable = values[~is_missing(values)] if len(values) else values
        out.update(numeric_summary(usable))
    return out


def frequencies(values: pd.Series) -> pd.DataFrame:
    """Each distinct value with its count and share of ``values`` (in [0, 1]), by count."""
    counts = values.value_counts(sort=True)
    total = max(int(counts.sum()), 1)
    return pd.DataFrame({"value": counts.index.astype(str), "count": counts.to_numpy(),
                         "share": counts.to_numpy() / total})


def contingency(first: pd.Series, second: pd.Series) -> pd.DataFrame:
    """Counts of each (first value, second value) pair: rows ``first``, columns ``second``."""
    return pd.crosstab(first.rename(first.name), second.rename(second.name))


def class_size_distribution(frame: pd.DataFrame, quasi_identifiers: Sequence[str]) -> pd.DataFrame:
    """Equivalence classes (records equal in every quasi-identifier) by size.

    One row per class size: how many classes have that size and how many records they
    hold. ``frame`` should hold the published records only.
    """
    if frame.empty or not quasi_identifiers:
        return pd.DataFrame({"size": [], "classes": [], "records": []}, dtype=np.int64)
    sizes = group_sizes(frame, quasi_identifiers)
    size, classes = np.unique(sizes, return_counts=True)
    return pd.DataFrame({"size": size, "classes": classes, "records": size * classes})


def entropy_loss(original: pd.Series, output: pd.Series, suppressed: np.ndarray) -> float:
    """Column-wise non-uniform entropy loss in [0, 1] (0 unchanged, 1 all information lost).

    A published record loses ``-log2(f(v) / f(g))`` bits, ``f(v)`` the input frequency
    of its original value and ``f(g)`` the input frequency of all original values
    published under its output value ``g``; a suppressed record loses ``-log2 f(v)`` (as
    if generalized to ``*``). The sum is divided by that of suppressing every record,
    ``-sum log2 f(v)``. An attribute with a single input value scores 0.
    """
    codes, _ = pd.factorize(original.to_numpy(dtype=object))
    groups, _ = pd.factorize(output.to_numpy(dtype=object))
    n = len(codes)
    if n == 0:
        return 0.0
    share = np.bincount(codes) / n
    worst = -np.log2(share[codes]).sum()
    if worst == 0:
        return 0.0
    published = ~np.asarray(suppressed, dtype=bool)
    pairs = np.unique(np.column_stack([groups[published], codes[published]]), axis=0)
    group_share = np.bincount(pairs[:, 0], weights=share[pairs[:, 1]],
                              minlength=int(groups.max()) + 1)
    f_group = np.where(published, group_share[groups], 1.0)
    return float(-np.log2(share[codes] / f_group).sum() / worst)


def granularity_loss(original: pd.Series, hierarchy: Hierarchy, level: int,
                     suppressed: np.ndarray) -> float:
    """ARX's Loss for one attribute as a mean over records, in [0, 1].

    A record costs ``(share - 1/d) / (1 - 1/d)`` where ``share`` is the fraction of the
    hierarchy's ``d`` rows under its generalized label; a suppressed record costs 1.
    """
    level_labels = hierarchy.level(level)
    d = len(level_labels)
    if d <= 1:
        return 0.0
    leaves = pd.Series(level_labels).value_counts()
    share_of = {row[0]: leaves[row[level]] / d for row in hierarchy.rows}
    share = original.map(share_of).to_numpy(dtype=float)
    cost = np.where(suppressed, 1.0, (share - 1.0 / d) / (1.0 - 1.0 / d))
    return float(np.nanmean(cost)) if len(cost) else 0.0


@dataclass
class UtilityStatistics:
    """Input versus output statistics of one transformation (ARX's Utility perspective).

    ``summary()`` holds one row per attribute and side; ``frequencies``,
    ``contingency`` compute on demand; ``class_sizes`` and ``quality`` are tables.
    """

    input: pd.DataFrame  # the original table
    output: pd.DataFrame  # the output table, same rows as ``input``
    definition: DataDefinition
    suppressed: np.ndarray  # per row of ``input``
    input_summary: pd.DataFrame
    output_summary: pd.DataFrame
    class_sizes: pd.DataFrame  # of the output's published records
    quality: pd.DataFrame  # per quasi-identifier
    notes: list[str] = field(default_factory=list)

    def summary(self) -> pd.DataFrame:
        """Input and output summaries side by side: columns (side, statistic)."""
        return pd.concat({"input": self.input_summary, "output": self.output_summary}, axis=1)

    def published(self) -> pd.DataFrame:
        """The output's records that are not suppressed."""
        return self.output.loc[~self.suppressed]

    def _side(self, side: str) -> pd.DataFrame:
        if side not in ("input", "output"):
            raise ConfigurationError(f"Unknown side '{side}'; use input or output.")
        return self.input if side == "input" else self.published()

    def frequencies(self, attribute: str, side: str = "output") -> pd.DataFrame:
        """Distribution of one attribute's values on one side (output: published records)."""
        frame = self._side(side)
        if attribute not in frame.columns:
            raise ConfigurationError(f"Attribute '{attribute}' is not in the {side} data.")
        return frequencies(frame[attribute])

    def contingency(self, first: str, second: str, side: str = "output") -> pd.DataFrame:
        """Two-attribute contingency table on one side (output: published records)."""
        frame = self._side(side)
        for name in (first, second):
            if name not in frame.columns:
                raise ConfigurationError(f"Attribute '{name}' is not in the {side} data.")
        return contingency(frame[first], frame[second])


def _quality_table(frame: pd.DataFrame, output: pd.DataFrame, qis: list[str],
                   suppressed: np.ndarray, hierarchies: Mapping[str, Hierarchy],
                   levels: Mapping[str, int]) -> pd.DataFrame:
    rows = []
    for name in qis:
        hierarchy, level = hierarchies.get(name), levels.get(name)
        top = hierarchy.height - 1 if hierarchy is not None else None
        rows.append({
            "attribute": name,
            "level": level,
            "generalization_intensity": (level / top) if level is not None and top else
            (0.0 if level == 0 else math.nan),
            "missing_share": float(np.mean(suppressed | (output[name] == SUPPRESSED)))
            if len(suppressed) else 0.0,
            "entropy_loss": entropy_loss(frame[name], output[name], suppressed),
            "granularity_loss": granularity_loss(frame[name], hierarchy, level, suppressed)
            if hierarchy is not None and level is not None else math.nan,
        })
    columns = ["attribute", "level", "generalization_intensity", "missing_share",
               "entropy_loss", "granularity_loss"]
    return pd.DataFrame(rows, columns=columns).set_index("attribute")


def utility_statistics(
    frame: pd.DataFrame,
    output: pd.DataFrame,
    definition: DataDefinition,
    suppressed: np.ndarray | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    levels: Mapping[str, int] | None = None,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> UtilityStatistics:
    """Input-versus-output statistics of one output table (a job).

    ``output`` has the rows of ``frame`` in the same order (as ``Release.table``, with
    suppressed rows kept); ``suppressed`` flags its suppressed rows (None:
    none). ``hierarchies`` and ``levels`` enable the granularity loss and generalization
    intensity per quasi-identifier.
    """
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    if len(output) != len(frame):
        raise ConfigurationError(
            f"The output has {len(output)} rows but the input {len(frame)}; keep suppressed "
            "rows in the output (remove_suppressed=False) so rows correspond.")
    suppressed = np.zeros(len(frame), bool) if suppressed is None else np.asarray(suppressed)
    names = [a for a in definition.names if a in output.columns]
    published = output.loc[~suppressed]
    rows_in, rows_out = {}, {}
    for i, name in enumerate(names):
        cancel.raise_if_cancelled()
        report(i / (len(names) + 1), f"Summarising '{name}'")
        kind = definition[name].data_type.kind
        rows_in[name] = attribute_summary(frame[name], kind)
        rows_out[name] = attribute_summary(published[name], kind)
    cancel.raise_if_cancelled()
    report(len(names) / (len(names) + 1), "Equivalence classes and quality")
    qis = [a for a in definition.of_type(AttributeType.QUASI_IDENTIFYING) if a in output.columns]
    result = UtilityStatistics(
        input=frame, output=output, definition=definition, suppressed=suppressed,
        input_summary=pd.DataFrame.from_dict(rows_in, orient="index"),
        output_summary=pd.DataFrame.from_dict(rows_out, orient="index"),
        class_sizes=class_size_distribution(published, qis),
        quality=_quality_table(frame, output, qis, suppressed, hierarchies or {}, levels or {}),
        notes=["Output statistics count published records only; suppressed records are "
               "left out.",
               "Numeric output statistics use interval midpoints; mean_low/mean_high bound "
               "the mean by the intervals' bounds."],
    )
    report(1.0, "Statistics computed")
    return result


def release_statistics(frame: pd.DataFrame, release: Release, *,
                       progress: Progress | None = None,
                       cancel: CancelToken | None = None) -> UtilityStatistics:
    """Input-versus-output statistics of a release of ``frame`` (a job)."""
    return utility_statistics(frame, release.table, release.definition, release.suppressed,
                              release.hierarchies, release.transformation, progress=progress,
                              cancel=cancel)
