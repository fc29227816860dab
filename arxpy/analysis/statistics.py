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

from arxpy.analysis.generalized import NumericReading, read_numeric
from arxpy.arrays import distinct
from arxpy.data.codes import group_codes
from arxpy.data.definition import AttributeType, DataDefinition, DataKind
from arxpy.data.types import is_missing
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.release import Release

SUPPRESSED = "*"
#: Distinct values read (as numbers, as missing-value spellings) between two looks at
#: the cancel token: reading is Python per value, a few microseconds each.
_CHUNK = 5_000


def _factorized(values: pd.Series | Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Codes (0..distinct-1) of ``values`` and the distinct values, as the grouping in
    :mod:`arxpy.data.codes` numbers them (a NaN is a value of its own)."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object), sort=False,
                                  use_na_sentinel=False)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def _in_chunks(read: Any, uniques: np.ndarray, cancel: CancelToken) -> list[Any]:
    """``read`` applied to slices of ``uniques``, looking at ``cancel`` before each."""
    parts = []
    for start in range(0, max(len(uniques), 1), _CHUNK):
        cancel.raise_if_cancelled()
        parts.append(read(uniques[start:start + _CHUNK]))
    return parts


def _missing_flags(uniques: np.ndarray, cancel: CancelToken) -> np.ndarray:
    return np.concatenate(_in_chunks(is_missing, uniques, cancel)).astype(bool)


def _reading(uniques: np.ndarray, cancel: CancelToken) -> NumericReading:
    parts = _in_chunks(read_numeric, uniques, cancel)
    return NumericReading(*(np.concatenate([getattr(p, name) for p in parts])
                            for name in ("low", "high", "interval")))


def _mode(uniques: np.ndarray, counts: np.ndarray) -> str | None:
    if not counts.any():
        return None
    return min(str(v) for v in uniques[counts == counts.max()])  # ties: first in order


def numeric_summary(values: pd.Series | Sequence[str]) -> dict[str, Any]:
    """Count, min, quartiles, max, mean and sample sd of the numbers ``values`` carry.

    Plain numbers count as themselves and bounded intervals as their midpoints;
    ``basis`` says which occurred. ``mean_low``/``mean_high`` bound the true mean using
    the intervals' bounds (equal to ``mean`` without intervals). ``not_numeric`` counts
    values carrying no number (``*``, masked, open-ended, missing).
    """
    return _numeric_figures(read_numeric(values))


def _numeric_figures(reading: NumericReading) -> dict[str, Any]:
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


def attribute_summary(values: pd.Series, kind: DataKind,
                      cancel: CancelToken | None = None) -> dict[str, Any]:
    """ARX's summary of one attribute: count, missing, distinct values, mode, numbers."""
    return _summary(*_factorized(values), kind, cancel or CancelToken())


def _summary(codes: np.ndarray, uniques: np.ndarray, kind: DataKind,
             cancel: CancelToken) -> dict[str, Any]:
    """:func:`attribute_summary` of the values ``uniques[codes]``: each distinct value
    is read once, in slices between looks at ``cancel``."""
    counts = np.bincount(codes, minlength=len(uniques))
    missing = _missing_flags(uniques, cancel)
    out: dict[str, Any] = {
        "count": int(len(codes)),
        "missing": int(counts[missing].sum()),
        "distinct": int(np.count_nonzero(counts)),
        "mode": _mode(uniques, counts),
    }
    if kind in (DataKind.INTEGER, DataKind.DECIMAL):
        reading = _reading(uniques, cancel)
        usable = codes[~missing[codes]]
        out.update(_numeric_figures(NumericReading(
            reading.low[usable], reading.high[usable], reading.interval[usable])))
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


def class_size_distribution(frame: pd.DataFrame, quasi_identifiers: Sequence[str], *,
                            cancel: CancelToken | None = None) -> pd.DataFrame:
    """Equivalence classes (records equal in every quasi-identifier) by size.

    One row per class size: how many classes have that size and how many records they
    hold. ``frame`` should hold the published records only. ``cancel`` is looked at
    between columns.
    """
    if frame.empty or not quasi_identifiers:
        return _size_table(np.zeros(0, dtype=np.int64))
    codes = _Codes(frame, cancel or CancelToken())
    return _size_table(_group_sizes([codes[q][0] for q in quasi_identifiers], cancel))


def _size_table(sizes: np.ndarray) -> pd.DataFrame:
    if not len(sizes):
        return pd.DataFrame({"size": [], "classes": [], "records": []}, dtype=np.int64)
    size, classes = distinct(np.asarray(sizes).ravel(), return_counts=True)
    return pd.DataFrame({"size": size, "classes": classes, "records": size * classes})


def entropy_loss(original: pd.Series, output: pd.Series, suppressed: np.ndarray) -> float:
    """Column-wise non-uniform entropy loss in [0, 1] (0 unchanged, 1 all information lost).

    A published record loses ``-log2(f(v) / f(g))`` bits, ``f(v)`` the input frequency
    of its original value and ``f(g)`` the input frequency of all original values
    published under its output value ``g``; a suppressed record loses ``-log2 f(v)`` (as
    if generalized to ``*``). The sum is divided by that of suppressing every record,
    ``-sum log2 f(v)``. An attribute with a single input value scores 0.
    """
    return _entropy_loss(_factorized(original)[0], _factorized(output)[0], suppressed)


def _entropy_loss(codes: np.ndarray, groups: np.ndarray, suppressed: np.ndarray) -> float:
    """:func:`entropy_loss` of original value codes and output value codes."""
    n = len(codes)
    if n == 0:
        return 0.0
    share = np.bincount(codes) / n
    worst = -np.log2(share[codes]).sum()
    if worst == 0:
        return 0.0
    published = ~np.asarray(suppressed, dtype=bool)
    # Distinct (output value, original value) pairs as one int64 key each (< n**2).
    radix = int(codes.max()) + 1
    pairs = distinct(groups[published] * radix + codes[published])
    group_share = np.bincount(pairs // radix, weights=share[pairs % radix],
                              minlength=int(groups.max()) + 1)
    f_group = np.where(published, group_share[groups], 1.0)
    return float(-np.log2(share[codes] / f_group).sum() / worst)


def granularity_loss(original: pd.Series, hierarchy: Hierarchy, level: int,
                     suppressed: np.ndarray) -> float:
    """ARX's Loss for one attribute as a mean over records, in [0, 1].

    A record costs ``(share - 1/d) / (1 - 1/d)`` where ``share`` is the fraction of the
    hierarchy's ``d`` rows under its generalized label; a suppressed record costs 1.
    """
    codes, uniques = _factorized(original)
    return _granularity_loss(codes, uniques, hierarchy, level, suppressed)


def _granularity_loss(codes: np.ndarray, uniques: np.ndarray, hierarchy: Hierarchy,
                      level: int | np.ndarray, suppressed: np.ndarray) -> float:
    """:func:`granularity_loss` of the original values ``uniques[codes]``; ``level`` is
    one level for every record or one per record (local recoding)."""
    levels = np.where(suppressed, -1, level)
    cost = record_granularity_costs(codes, uniques, hierarchy, levels)
    return float(np.nanmean(cost)) if len(cost) else 0.0


def record_granularity_costs(codes: np.ndarray, uniques: np.ndarray, hierarchy: Hierarchy,
                             levels: np.ndarray) -> np.ndarray:
    """Per record, ARX's Loss of its value ``uniques[codes]`` at its level (``levels``, -1
    for a suppressed record, which costs 1): ``(share - 1/d) / (1 - 1/d)``; NaN for a
    value the hierarchy lacks."""
    d = len(hierarchy.rows)
    if d <= 1:
        return np.where(levels >= 0, 0.0, 1.0)
    return (record_shares(codes, uniques, hierarchy, levels) - 1.0 / d) / (1.0 - 1.0 / d)


def record_shares(codes: np.ndarray, uniques: np.ndarray, hierarchy: Hierarchy,
                  levels: np.ndarray) -> np.ndarray:
    """Per record, the share of the hierarchy's rows under its value ``uniques[codes]`` at
    its level (``levels``; -1 for a suppressed record, share 1); NaN for a value the
    hierarchy lacks."""
    d = len(hierarchy.rows)
    share = np.ones(len(codes))
    for level in np.unique(levels[levels >= 0]):
        leaves = pd.Series(hierarchy.level(int(level))).value_counts()
        share_of = {row[0]: leaves[row[level]] / d for row in hierarchy.rows}
        of_value = np.array([share_of.get(v, np.nan) for v in uniques], dtype=float)
        rows = levels == level
        share[rows] = of_value[codes[rows]]
    return share


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


class _Codes:
    """Each column of a table factorized once, on first use, between looks at the token:
    summaries, classes and losses all read the codes."""

    def __init__(self, frame: pd.DataFrame, cancel: CancelToken) -> None:
        self._frame, self._cancel = frame, cancel
        self._codes: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def __getitem__(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        if name not in self._codes:
            self._cancel.raise_if_cancelled()
            self._codes[name] = _factorized(self._frame[name])
            self._cancel.raise_if_cancelled()
        return self._codes[name]


def _quality_row(name: str, original: tuple[np.ndarray, np.ndarray],
                 output: tuple[np.ndarray, np.ndarray], suppressed: np.ndarray,
                 hierarchy: Hierarchy | None, level: int | np.ndarray | None,
                 cancel: CancelToken) -> dict[str, Any]:
    top = hierarchy.height - 1 if hierarchy is not None else None
    granularity = _granularity_loss(*original, hierarchy, level, suppressed) \
        if hierarchy is not None and level is not None else math.nan
    if isinstance(level, np.ndarray):  # local recoding: the released records' mean level
        level = float(level[~suppressed].mean()) if (~suppressed).any() else math.nan
    (codes, _), (groups, labels) = original, output
    starred = (labels == SUPPRESSED)[groups] if len(groups) else np.zeros(0, bool)
    entropy = _entropy_loss(codes, groups, suppressed)
    cancel.raise_if_cancelled()
    return {
        "attribute": name,
        "level": level,
        "generalization_intensity": (level / top) if level is not None and top else
        (0.0 if level == 0 else math.nan),
        "missing_share": float(np.mean(suppressed | starred)) if len(suppressed) else 0.0,
        "entropy_loss": entropy,
        "granularity_loss": granularity,
    }


_QUALITY_COLUMNS = ["attribute", "level", "generalization_intensity", "missing_share",
                    "entropy_loss", "granularity_loss"]


def utility_statistics(
    frame: pd.DataFrame,
    output: pd.DataFrame,
    definition: DataDefinition,
    suppressed: np.ndarray | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    levels: Mapping[str, int | np.ndarray] | None = None,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> UtilityStatistics:
    """Input-versus-output statistics of one output table (a job).

    ``output`` has the rows of ``frame`` in the same order (as ``Release.table``, with
    suppressed rows kept); ``suppressed`` flags its suppressed rows (None:
    none). ``hierarchies`` and ``levels`` enable the granularity loss and generalization
    intensity per quasi-identifier (a level per record for local recoding, whose
    ``level`` column then shows the released records' mean). Each column is read once,
    in steps that look at ``cancel`` (a cancel stops it within 200 ms on 400,000 records).
    """
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    if len(output) != len(frame):
        raise ConfigurationError(
            f"The output has {len(output)} rows but the input {len(frame)}; keep suppressed "
            "rows in the output (remove_suppressed=False) so rows correspond.")
    suppressed = np.zeros(len(frame), bool) if suppressed is None else np.asarray(suppressed)
    published = np.flatnonzero(~suppressed)
    names = [a for a in definition.names if a in output.columns]
    qis = [a for a in definition.of_type(AttributeType.QUASI_IDENTIFYING) if a in output.columns]
    steps = len(names) + len(qis) + 1
    originals, outputs = _Codes(frame, cancel), _Codes(output, cancel)
    rows_in, rows_out = {}, {}
    for i, name in enumerate(names):
        report(i / steps, f"Summarising '{name}'")
        kind = definition[name].data_type.kind
        rows_in[name] = _summary(*originals[name], kind, cancel)
        codes, uniques = outputs[name]
        rows_out[name] = _summary(codes[published], uniques, kind, cancel)
    report(len(names) / steps, "Equivalence classes")
    class_sizes = _size_table(_group_sizes([outputs[q][0][published] for q in qis], cancel))
    quality = []
    for i, name in enumerate(qis):
        report((len(names) + 1 + i) / steps, f"Quality of '{name}'")
        quality.append(_quality_row(name, originals[name], outputs[name], suppressed,
                                    (hierarchies or {}).get(name), (levels or {}).get(name),
                                    cancel))
    cancel.raise_if_cancelled()
    result = UtilityStatistics(
        input=frame, output=output, definition=definition, suppressed=suppressed,
        input_summary=pd.DataFrame.from_dict(rows_in, orient="index"),
        output_summary=pd.DataFrame.from_dict(rows_out, orient="index"),
        class_sizes=class_sizes,
        quality=pd.DataFrame(quality, columns=_QUALITY_COLUMNS).set_index("attribute"),
        notes=["Output statistics count published records only; suppressed records are "
               "left out.",
               "Numeric output statistics use interval midpoints; mean_low/mean_high bound "
               "the mean by the intervals' bounds."],
    )
    report(1.0, "Statistics computed")
    return result


def _group_sizes(columns: list[np.ndarray], cancel: CancelToken) -> np.ndarray:
    """Sizes of the groups of rows equal in every code column (none without rows)."""
    if not columns or not len(columns[0]):
        return np.zeros(0, dtype=np.int64)
    inverse, n_groups = group_codes(columns, cancel)
    return np.bincount(inverse, minlength=n_groups).astype(np.int64)


def release_statistics(frame: pd.DataFrame, release: Release, *,
                       progress: Progress | None = None,
                       cancel: CancelToken | None = None) -> UtilityStatistics:
    """Input-versus-output statistics of a release of ``frame`` (a job)."""
    return utility_statistics(frame, release.table, release.definition, release.suppressed,
                              release.hierarchies, release_levels(release), progress=progress,
                              cancel=cancel)


def release_levels(release: Release) -> Mapping[str, int | np.ndarray] | None:
    """The level of each quasi-identifier: one for every record, or (local recoding) one
    per record, -1 where suppressed; None for releases without levels."""
    if release.passes is None or release.transformation is None:
        return release.transformation
    per_record = release.passes.levels_of_records()
    return {name: per_record[:, j] for j, name in enumerate(release.transformation)}
