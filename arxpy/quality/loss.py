"""Loss: the share of the attribute domain a generalized value covers, as in ARX.

ARX: ``org.deidentifier.arx.metric.v2.MetricMDNMLoss`` with the aggregates of
``ILMultiDimensional{Sum,Max,ArithmeticMean,GeometricMean,Rank}``. Per quasi-identifier
``j`` with hierarchy of ``d_j`` rows (leaves) and ``n`` records:

* a record in a kept class contributes ``g * share`` where ``share`` is the fraction of
  the hierarchy's rows whose label at the transformation's level equals the record's
  generalized value (1/d_j at level 0, 1 at ``*``);
* a record in a suppressed class contributes ``1`` when ``s == 1``, otherwise
  ``share + s * (1 - share)``;
* the sum ``L_j`` is normalized as ``(L_j - g*n/d_j) / (n - g*n/d_j)``, clamped at 0 and
  floored to 10 decimals (ARX's ``Metric.round``).

The gs-factor ``f`` in [0, 1] sets ``s = 2f if f < 0.5 else 1`` and
``g = 1 if f <= 0.5 else 1 - 2(f - 0.5)``; the default 0.5 weighs generalization and
suppression equally. Attribute weights are divided by the largest weight. The raw score
is the aggregate over attributes; for ``rank`` the search orders by the weighted values
sorted in descending order (lexicographically) and the reported raw score is their
unweighted geometric mean, which ARX uses to place a rank result between minimum and
maximum. The lower bound is ARX's: the generalization part alone, over all records.

Shares are held as integer row counts, so each attribute's sum over the classes is exact
until one final division (and a score with nothing suppressed equals its bound exactly).

A quasi-identifier microaggregated outside the lattice is one more dimension, as in
ARX's ``MetricMDNMLoss`` (:mod:`arxpy.quality.microaggregated`); its lower bound is 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param
from arxpy.quality.base import QualityModel
from arxpy.quality.microaggregated import (
    aggregated_domains,
    aggregated_losses,
    aggregated_weights,
    distinct_shares,
)
from arxpy.quality.precision import GS_FACTOR
from arxpy.quality.registry import register_quality_model

AGGREGATES = ("sum", "max", "arithmetic_mean", "geometric_mean", "rank")


@register_quality_model
class Loss(QualityModel):
    """ARX's Loss metric (lower is better; 0 = no loss, 1 = everything generalized away)."""

    name = "loss"
    label = "Loss"
    description = ("The share of each attribute's domain that a generalized value covers, "
                   "suppressed records counting as fully lost (0 no loss, 1 everything "
                   "generalized away).")

    params = (
        GS_FACTOR,
        Param("aggregate", "choice", "geometric_mean", choices=AGGREGATES, label="aggregate",
              help="How the per-attribute losses combine into one score"),
    )
    gs_factor: float
    aggregate: str
    # Per-run state, set by prepare() on the run's clone.
    _row_counts = np.zeros(0, dtype=np.int64)  # hierarchy rows under each generalized value
    _starts: Sequence[Sequence[int]] = ()  # [qi][level]: where its values start above
    _level_rows: Sequence[Sequence[int]] = ()  # [qi][level]: sum of rows over all records
    _domain = np.zeros(0)  # [qi] hierarchy rows (leaves), float
    _low = np.zeros(0)  # [qi] loss of the bottom: g * n / domain
    _span = np.zeros(0)  # [qi] n - low (1 where that is 0)
    _flat = np.zeros(0, dtype=bool)  # [qi] n == low: the loss is 0 at every level
    _weights: Sequence[float] = ()
    _bounds: Sequence[np.ndarray] = ()  # [qi][level] normalized generalization bound
    _aggregated: Sequence[tuple[str, float]] = ()  # microaggregated: (name, distinct values)
    _n = 0.0

    @property
    def s_factor(self) -> float:
        """ARX's suppression factor for the gs-factor."""
        return 2.0 * self.gs_factor if self.gs_factor < 0.5 else 1.0

    @property
    def g_factor(self) -> float:
        """ARX's generalization factor for the gs-factor."""
        return 1.0 if self.gs_factor <= 0.5 else 1.0 - 2.0 * (self.gs_factor - 0.5)

    def prepare(self, data: EncodedData) -> None:
        self._n = float(data.n_records)
        qis = data.quasi_identifiers
        self._aggregated = aggregated_domains(data)
        weights = [q.weight for q in qis] + aggregated_weights(data)
        top = max(weights, default=1.0)
        self._weights = [w / top for w in weights]
        # A value's share of the domain is (its hierarchy rows) / (all rows): keeping the
        # integer row counts makes every sum of shares exact up to one final division.
        tables: list[np.ndarray] = []
        starts: list[list[int]] = []
        for q in qis:
            starts.append([])
            for level, codes in enumerate(q.level_maps):
                starts[-1].append(sum(t.size for t in tables))
                tables.append(np.bincount(codes, minlength=q.domain_size(level)))
        self._row_counts = np.concatenate(tables or [np.zeros(0)]).astype(np.int64)
        self._starts = starts
        self._domain = np.array([float(len(q.level_maps[0])) for q in qis])
        self._low = self.g_factor * self._n / self._domain
        span = self._n - self._low
        self._flat = span == 0
        self._span = np.where(self._flat, 1.0, span)
        # Every record generalized to each level: the sum a score starts from, and with
        # nothing suppressed the level's bound.
        self._level_rows = [
            [int(np.dot(q.value_counts, self._row_counts[starts[i][level] + codes]))
             for level, codes in enumerate(q.level_maps)]
            for i, q in enumerate(qis)]
        general = np.zeros((len(qis), max((len(s) for s in starts), default=0)))
        for i, totals in enumerate(self._level_rows):
            general[i, :len(totals)] = totals
        bounds = self._normalized(self.g_factor * general.T / self._domain).T
        self._bounds = [bounds[i, :len(q.level_maps)] for i, q in enumerate(qis)]

    def _normalized(self, total: np.ndarray) -> np.ndarray:
        """ARX's normalization of per-attribute loss sums (last axis: quasi-identifiers),
        clamped at 0 and floored to 10 decimals (ARX's ``Metric.round``)."""
        result = (total - self._low) / self._span
        if self._flat.any():
            result = np.where(self._flat, 0.0, result)
        return np.floor(np.maximum(result, 0.0) * 1e10) / 1e10

    def _require_prepared(self, classes: EquivalenceClasses) -> None:
        if len(self._domain) != len(classes.levels) or classes.n_records != self._n:
            raise RuntimeError("Loss.prepare(data) must be called, on the data of these "
                               "classes, before scoring.")

    def _all_rows(self, levels: Sequence[int]) -> np.ndarray:
        """Per quasi-identifier, size x rows summed over every record at ``levels`` (int64)."""
        return np.array([self._level_rows[q][level] for q, level in enumerate(levels)],
                        dtype=np.int64)

    def values(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> list[float]:
        """Normalized loss per quasi-identifier, each in [0, 1]."""
        self._require_prepared(classes)
        # Exact int64 sums of size x rows: over all records, known from prepare(), and
        # over the kept or the suppressed classes, whichever are fewer (the other side is
        # the difference). Kept records lose g * share; suppressed ones
        # share + s * (1 - share), which is 1 at s = 1.
        suppressed = np.asarray(suppressed, dtype=bool)
        everything = self._all_rows(classes.levels)
        n_suppressed = int(np.count_nonzero(suppressed))
        if not n_suppressed:  # most anonymous checks: the generalization alone, as the bound
            return self._normalized(self.g_factor * everything / self._domain).tolist() + \
                self._aggregated_values(classes, suppressed)
        few = n_suppressed * 2 <= classes.n_classes
        picked = (suppressed if few else ~suppressed).nonzero()[0]
        sizes = classes.sizes[picked]
        starts = np.array([self._starts[q][level] for q, level in enumerate(classes.levels)],
                          dtype=np.int64)
        summed = sizes @ self._row_counts[classes.keys_of(picked) + starts]
        lost = summed if few else everything - summed
        n_lost = int(sizes.sum()) if few else classes.n_records - int(sizes.sum())
        loss = self.g_factor * (everything - lost)
        s = self.s_factor
        if s < 1.0:
            loss = loss + (1.0 - s) * lost
        total = loss / self._domain + s * float(n_lost)
        return self._normalized(total).tolist() + self._aggregated_values(classes, suppressed)

    def _aggregated_values(self, classes: EquivalenceClasses, suppressed: np.ndarray
                           ) -> list[float]:
        if not self._aggregated:
            return []
        return aggregated_losses(classes, suppressed, self._aggregated, self.g_factor,
                                 self.s_factor)

    def bound_values(self, classes: EquivalenceClasses) -> list[float]:
        """Per quasi-identifier generalization loss only: ARX's lower bound components."""
        self._require_prepared(classes)
        general = self.g_factor * self._all_rows(classes.levels)
        # ARX computes no bound for aggregated attributes: 0 underestimates safely.
        return self._normalized(general / self._domain).tolist() + [0.0] * len(self._aggregated)

    def aggregate_values(self, values: list[float]) -> tuple[float, tuple[float, ...]]:
        """ARX's aggregate of per-attribute values: raw score and ordering key."""
        w, n = self._weights, len(values)
        if self.aggregate == "rank":
            key = tuple(sorted((v * wi for v, wi in zip(values, w, strict=True)), reverse=True))
            mean = 1.0
            for v in values:
                mean *= math.pow(v + 1.0, 1.0 / n)
            return mean - 1.0, key
        if self.aggregate == "geometric_mean":
            # ARX 3.9 weighs before adding 1: (v*w + 1). Weighing (v + 1) instead would let
            # a small weight push the product below 1 and the score below 0.
            result = 1.0
            for v, wi in zip(values, w, strict=True):
                result *= math.pow(v * wi + 1.0, 1.0 / n)
            result -= 1.0
        elif self.aggregate == "sum":
            result = 0.0
            for v, wi in zip(values, w, strict=True):
                result += v * wi
            if not math.isfinite(result):
                result = np.finfo(float).max
        elif self.aggregate == "max":
            result = 0.0
            for v, wi in zip(values, w, strict=True):
                result = max(result, v * wi)
        else:  # arithmetic_mean
            result = 0.0
            for v, wi in zip(values, w, strict=True):
                result += (v / n) * wi
        return result, (result,)

    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        return self.evaluate(classes, suppressed)[0]

    def class_losses(self, classes: EquivalenceClasses, which: np.ndarray) -> np.ndarray:
        """ARX's ``MetricMDNMLoss.getInformationLossInternal(node, entry)``: per attribute
        size x share (not normalized, no gs-factor), aggregated with the weights in
        :meth:`aggregate_values`' order of operations, for many classes at once."""
        self._require_prepared(classes)
        which = np.asarray(which, dtype=np.int64)
        starts = np.array([self._starts[q][level] for q, level in enumerate(classes.levels)],
                          dtype=np.int64)
        shares = self._row_counts[classes.keys_of(which) + starts] / self._domain
        if self._aggregated:
            extra = np.column_stack([s[which] for s in distinct_shares(classes,
                                                                       self._aggregated)])
            shares = np.hstack([shares.reshape(len(which), -1), extra])
        values = classes.sizes[which, None] * shares
        weighted = values * np.asarray(self._weights)
        n = values.shape[1]
        if self.aggregate == "rank":
            return -np.sort(-weighted, axis=1)
        result = np.ones(len(which)) if self.aggregate == "geometric_mean" else \
            np.zeros(len(which))
        for j in range(n):
            if self.aggregate == "geometric_mean":
                result *= np.power(weighted[:, j] + 1.0, 1.0 / n)
            elif self.aggregate == "sum":
                result += weighted[:, j]
            elif self.aggregate == "max":
                result = np.maximum(result, weighted[:, j])
            else:  # arithmetic_mean: (v / n) * w
                result += values[:, j] / n * self._weights[j]
        if self.aggregate == "geometric_mean":
            result -= 1.0
        elif self.aggregate == "sum":
            result[~np.isfinite(result)] = np.finfo(float).max
        return result[:, None]

    def evaluate(
        self, classes: EquivalenceClasses, suppressed: np.ndarray
    ) -> tuple[float, tuple[float, ...]]:
        if not classes.levels:
            return 0.0, (0.0,)
        return self.aggregate_values(self.values(classes, np.asarray(suppressed, dtype=bool)))

    def lower_bound(self, classes: EquivalenceClasses) -> float:
        if not classes.levels:
            return 0.0
        return self.aggregate_values(self.bound_values(classes))[0]

    def lower_bound_key(self, classes: EquivalenceClasses) -> tuple[float, ...]:
        if not classes.levels:
            return (0.0,)
        return self.aggregate_values(self.bound_values(classes))[1]

    def lower_bounds_for_levels(self, levels: np.ndarray) -> np.ndarray | None:
        # The generalization part is additive over records, so it needs no grouping.
        if self.aggregate == "rank" or not self._bounds:
            return None
        levels = np.asarray(levels, dtype=np.int64)
        n = len(self._bounds) + len(self._aggregated)  # aggregated bounds are 0
        w = self._weights
        if self.aggregate == "geometric_mean":
            result = np.ones(len(levels))
            for q in range(len(self._bounds)):
                # Each level's factor once (the same values as per node, to the bit).
                result *= np.power(self._bounds[q] * w[q] + 1.0, 1.0 / n)[levels[:, q]]
            return result - 1.0
        result = np.zeros(len(levels))
        for q in range(len(self._bounds)):
            v = self._bounds[q][levels[:, q]]
            if self.aggregate == "sum":
                result += v * w[q]
            elif self.aggregate == "max":
                result = np.maximum(result, v * w[q])
            else:
                result += (v / n) * w[q]
        return result
