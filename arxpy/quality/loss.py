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
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param
from arxpy.quality.base import QualityModel
from arxpy.quality.precision import GS_FACTOR
from arxpy.quality.registry import register_quality_model

AGGREGATES = ("sum", "max", "arithmetic_mean", "geometric_mean", "rank")


def _arx_round(value: float) -> float:
    """ARX keeps 10 decimals of each normalized value (``Metric.round``)."""
    return math.floor(value * 1e10) / 1e10


@register_quality_model
class Loss(QualityModel):
    """ARX's Loss metric (lower is better; 0 = no loss, 1 = everything generalized away)."""

    name = "loss"
    label = "Loss"

    params = (
        GS_FACTOR,
        Param("aggregate", "choice", "geometric_mean", choices=AGGREGATES, label="aggregate",
              help="How the per-attribute losses combine into one score"),
    )
    gs_factor: float
    aggregate: str
    # Per-run state, set by prepare() on the run's clone.
    _shares: Sequence[list[np.ndarray]] = ()
    _domain: Sequence[float] = ()
    _weights: Sequence[float] = ()
    _bounds: Sequence[np.ndarray] = ()  # [qi][level] normalized generalization bound
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
        top = max((q.weight for q in data.quasi_identifiers), default=1.0)
        self._weights = [q.weight / top for q in data.quasi_identifiers]
        self._shares, self._domain, self._bounds = [], [], []
        for q in data.quasi_identifiers:
            rows = float(len(q.level_maps[0]))
            shares = [np.bincount(m, minlength=q.domain_size(lv)) / rows
                      for lv, m in enumerate(q.level_maps)]
            counts = q.value_counts.astype(float)
            self._shares.append(shares)
            self._domain.append(rows)
            self._bounds.append(np.array([
                self._normalize(self.g_factor * float(np.dot(counts, s[m])), rows)
                for s, m in zip(shares, q.level_maps, strict=True)
            ]))

    def _normalize(self, total: float, domain: float) -> float:
        low = self.g_factor * self._n / domain
        span = self._n - low
        result = (total - low) / span if span != 0 else 0.0
        return _arx_round(result if result >= 0.0 else 0.0)

    def _require_prepared(self, classes: EquivalenceClasses) -> None:
        if len(self._shares) != len(classes.levels):
            raise RuntimeError("Loss.prepare(data) must be called before scoring.")

    def values(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> list[float]:
        """Normalized loss per quasi-identifier, each in [0, 1]."""
        self._require_prepared(classes)
        sizes = classes.sizes.astype(float)
        out = []
        for q, level in enumerate(classes.levels):
            general = sizes * self._shares[q][level][classes.keys[:, q]]
            if self.s_factor == 1.0:
                lost = sizes
            else:
                lost = general + self.s_factor * (sizes - general)
            total = float(np.where(suppressed, lost, general * self.g_factor).sum())
            out.append(self._normalize(total, self._domain[q]))
        return out

    def bound_values(self, classes: EquivalenceClasses) -> list[float]:
        """Per quasi-identifier generalization loss only: ARX's lower bound components."""
        self._require_prepared(classes)
        sizes = classes.sizes.astype(float)
        return [self._normalize(self.g_factor * float(np.dot(
            sizes, self._shares[q][level][classes.keys[:, q]])), self._domain[q])
            for q, level in enumerate(classes.levels)]

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
        n = len(self._bounds)
        w = self._weights
        if self.aggregate == "geometric_mean":
            result = np.ones(len(levels))
            for q in range(n):
                result *= np.power(self._bounds[q][levels[:, q]] * w[q] + 1.0, 1.0 / n)
            return result - 1.0
        result = np.zeros(len(levels))
        for q in range(n):
            v = self._bounds[q][levels[:, q]]
            if self.aggregate == "sum":
                result += v * w[q]
            elif self.aggregate == "max":
                result = np.maximum(result, v * w[q])
            else:
                result += (v / n) * w[q]
        return result
