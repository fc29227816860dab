"""Non-uniform entropy as ARX computes it.

ARX: ``org.deidentifier.arx.metric.v2.MetricMDNUNMEntropy`` (default of
``Metric.createEntropyMetric()``, its computation in ``MetricMDNUNMEntropyPrecomputed``
and ``MetricMDNUEntropyPrecomputed``). Per quasi-identifier, every record costs
``-log2(freq of its original value / freq of its generalized value)`` (frequencies in
the input). Suppressed records additionally cost ``-log2(c_u / S)`` where ``S`` is the
number of suppressed records and ``c_u`` how many of them share the record's
generalized value. Attributes are summed with ARX's normalized weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData, QuasiIdentifier
from arxpy.quality.base import QualityModel
from arxpy.quality.precision import (
    GS_FACTOR,
    MONOTONIC,
    arx_weights,
    gs_factors,
    require_prepared,
)
from arxpy.quality.registry import register_quality_model

# ARX keeps 10 decimal digits of every per-attribute value (Metric.round).
_ROUNDING = 1e10


def generalization_entropy(qi: QuasiIdentifier) -> np.ndarray:
    """Bits lost by generalizing ``qi`` to each level, over all records (>= 0, per level).

    ``-sum_v a_v * log2(a_v / b_l(v))`` with ``a_v`` the count of original value ``v``
    and ``b_l(v)`` the count of records sharing ``v``'s label at level ``l``.
    """
    a = qi.value_counts.astype(float)
    present = a > 0
    out = np.zeros(qi.height)
    for level, level_map in enumerate(qi.level_maps):
        level_map = np.asarray(level_map)
        b = np.bincount(level_map, weights=a, minlength=qi.domain_size(level))
        ratio = a[present] / b[level_map[present]]
        out[level] = -float(np.sum(a[present] * np.log2(ratio)))
    return out


@register_quality_model
class NonUniformEntropy(QualityModel):
    """ARX's non-uniform entropy in bits (weighted sum over quasi-identifiers, >= 0).

    ``monotonic=True`` is ARX's ``MetricMDNUEntropy``: suppression is ignored.
    """

    name = "entropy"
    label = "Non-uniform entropy"
    description = ("The information lost when a value is replaced by its generalization, "
                   "measured in bits per record (non-uniform entropy; lower is better).")
    params = (GS_FACTOR, MONOTONIC)
    gs_factor: float
    monotonic: bool
    # Per-run state, set by prepare() on the run's clone.
    _by_level: list[np.ndarray] | None = None
    _weights: np.ndarray = np.ones(0)

    def prepare(self, data: EncodedData) -> None:
        self._by_level = [generalization_entropy(q) for q in data.quasi_identifiers]
        self._weights = arx_weights(data)

    def _generalization_part(self, levels: np.ndarray) -> np.ndarray:
        """Per attribute (last axis) bits lost to generalization at ``levels``, times g."""
        require_prepared(self, self._by_level)
        assert self._by_level is not None
        g, _ = gs_factors(self.gs_factor)
        levels = np.asarray(levels, dtype=np.int64)
        parts = [table[levels[..., j]] for j, table in enumerate(self._by_level)]
        return np.stack(parts, axis=-1) * g

    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        per_attribute = self._generalization_part(np.asarray(classes.levels))
        suppressed = np.asarray(suppressed, dtype=bool)
        if not self.monotonic and suppressed.any():
            _, s = gs_factors(self.gs_factor)
            per_attribute = per_attribute + s * _suppression_entropy(classes, suppressed)
        return float(self._aggregate(per_attribute))

    def lower_bound(self, classes: EquivalenceClasses) -> float:
        """The generalization part alone: it grows with generalization, suppression adds."""
        return float(self.lower_bounds_for_levels(np.asarray([classes.levels]))[0])

    def lower_bounds_for_levels(self, levels: np.ndarray) -> np.ndarray:
        """:meth:`lower_bound` for each row of an (n, n_qi) level matrix."""
        return self._aggregate(self._generalization_part(levels))

    def _aggregate(self, per_attribute: np.ndarray) -> Any:
        """Weighted sum over the last axis of the values floored to ARX's 10 decimals."""
        rounded = np.floor(per_attribute * _ROUNDING) / _ROUNDING
        return rounded @ self._weights


def _suppression_entropy(classes: EquivalenceClasses, suppressed: np.ndarray) -> np.ndarray:
    """Per attribute ``-sum_u c_u log2(c_u / S)`` over the suppressed records' values.

    One weighted bincount over every attribute's codes (each attribute's codes offset
    past the previous attribute's), not one per attribute: this runs per check.
    """
    keys = classes.keys_of(suppressed)
    sizes = classes.sizes[suppressed].astype(float)
    total = float(sizes.sum())
    n_qi = keys.shape[1]
    if not len(keys):
        return np.zeros(n_qi)
    widths = keys.max(axis=0) + 1
    offsets = np.concatenate(([0], np.cumsum(widths)[:-1]))
    counts = np.bincount((keys + offsets).ravel(order="F"), weights=np.tile(sizes, n_qi),
                         minlength=int(widths.sum()))
    owner = np.repeat(np.arange(n_qi), widths)
    present = counts > 0
    terms = counts[present] * np.log2(counts[present] / total)
    return -np.bincount(owner[present], weights=terms, minlength=n_qi)
