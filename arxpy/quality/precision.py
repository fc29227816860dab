"""Precision (Sweeney 2002) as ARX computes it, plus helpers shared by ARX's models.

ARX: ``org.deidentifier.arx.metric.v2.MetricMDNMPrecision`` (default of
``Metric.createPrecisionMetric()``) and its monotonic variant ``MetricMDPrecision``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param
from arxpy.quality.base import QualityModel
from arxpy.quality.microaggregated import aggregated_domains, aggregated_losses, aggregated_weights
from arxpy.quality.registry import register_quality_model


def arx_weights(data: EncodedData, aggregated: bool = False) -> np.ndarray:
    """Attribute weights per quasi-identifier divided by the largest, as ARX does.

    ARX (``AbstractMetricMultiDimensional.initializeInternal``) scales weights so the
    largest is 1; all weights equal gives 1 each. Result in (0, 1]. ``aggregated`` appends
    the attributes microaggregated outside the lattice (models that count them).
    """
    weights = np.array([q.weight for q in data.quasi_identifiers]
                       + (aggregated_weights(data) if aggregated else []), dtype=float)
    top = weights.max(initial=0.0)
    return np.ones_like(weights) if top <= 0 else weights / top


#: ARX's generalization/suppression factor, shared by the models that weigh both.
GS_FACTOR = Param("gs_factor", "float", 0.5, low=0, high=1, label="gs-factor",
                  help="Weight of suppression against generalization: 0 ignores suppression, "
                       "1 ignores generalization, 0.5 weighs both equally")
#: ARX's monotonic variant of a model, which ignores suppression.
MONOTONIC = Param("monotonic", "bool", False,
                  help="Ignore suppression (ARX's monotonic variant of the model)")


def gs_factors(gs_factor: float) -> tuple[float, float]:
    """ARX's (generalization factor, suppression factor) for a gs-factor in [0, 1].

    0.5 (ARX's default) weighs both as 1; 0 ignores suppression, 1 ignores
    generalization (``Metric`` constructor in ARX).
    """
    check_gs_factor(gs_factor)
    suppression = 2.0 * gs_factor if gs_factor < 0.5 else 1.0
    generalization = 1.0 if gs_factor <= 0.5 else 1.0 - 2.0 * (gs_factor - 0.5)
    return generalization, suppression


def check_gs_factor(gs_factor: float) -> None:
    """Raise a ConfigurationError unless 0 <= gs_factor <= 1."""
    if not 0.0 <= gs_factor <= 1.0:
        raise ConfigurationError(
            f"The generalization/suppression factor must be between 0 and 1, got {gs_factor}; "
            "use 0.5 to weigh generalization and suppression equally."
        )


def require_prepared(model: QualityModel, value: object) -> None:
    """Raise if ``prepare`` has not run (a programming error, not a user error)."""
    if value is None:
        raise RuntimeError(f"{type(model).__name__}.prepare(data) must be called before scoring.")


@register_quality_model
class Precision(QualityModel):
    """ARX's precision: per attribute level/height, suppressed records count as height.

    Per quasi-identifier j with generalization level l_j and hierarchy height h_j
    (number of levels minus one): ``(kept * l_j/h_j * g + suppressed * s) / n``;
    the score is ARX's weighted arithmetic mean ``sum_j w_j * value_j / d`` with
    weights divided by the largest weight. Range [0, 1] (at gs-factor 0.5).
    ``monotonic=True`` is ARX's ``MetricMDPrecision``: suppression is ignored.
    Attributes microaggregated outside the lattice add their dimension
    (:mod:`arxpy.quality.microaggregated`), except in the monotonic variant, as in ARX.
    """

    name = "precision"
    label = "Precision"
    description = ("The generalization level of each value relative to the height of its "
                   "hierarchy, averaged over values (0 no loss, 1 everything generalized away).")
    params = (GS_FACTOR, MONOTONIC)
    gs_factor: float
    monotonic: bool
    # Per-run state, set by prepare() on the run's clone.
    _heights: np.ndarray | None = None
    _weights: np.ndarray = np.ones(0)
    _aggregated: Sequence[tuple[str, float]] = ()
    _n_records = 0

    def prepare(self, data: EncodedData) -> None:
        self._heights = np.array([q.height - 1 for q in data.quasi_identifiers], dtype=float)
        # ARX's monotonic variant cannot handle microaggregation: it leaves them out.
        self._weights = arx_weights(data, aggregated=not self.monotonic)
        self._aggregated = [] if self.monotonic else aggregated_domains(data)
        self._n_records = data.n_records

    def _level_shares(self, levels: np.ndarray | tuple[int, ...]) -> np.ndarray:
        """level / height per attribute (last axis), 0 for one-level hierarchies as in ARX."""
        require_prepared(self, self._heights)
        assert self._heights is not None
        safe = np.where(self._heights == 0, 1.0, self._heights)
        return np.where(self._heights == 0, 0.0, np.asarray(levels, dtype=float) / safe)

    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        g, s = gs_factors(self.gs_factor)
        shares = self._level_shares(classes.levels)
        if self.monotonic:
            return float(self._aggregate(self._with_aggregated(shares * g)))
        suppressed = np.asarray(suppressed, dtype=bool)
        n_suppressed = float(classes.sizes[suppressed].sum())
        n_kept = float(classes.sizes.sum()) - n_suppressed
        per_attribute = (n_kept * shares * g + n_suppressed * s) / self._n_records
        aggregated = aggregated_losses(classes, suppressed, self._aggregated, g, s,
                                       floored=False)
        return float(self._aggregate(np.concatenate([per_attribute, aggregated])))

    def _with_aggregated(self, per_attribute: np.ndarray) -> np.ndarray:
        """Per-attribute values (last axis) with 0 for each aggregated attribute."""
        zeros = np.zeros((*per_attribute.shape[:-1], len(self._aggregated)))
        return np.concatenate([per_attribute, zeros], axis=-1)

    def lower_bound(self, classes: EquivalenceClasses) -> float:
        """ARX's bound ``l_j/h_j * g`` per attribute, capped by ``s`` so it stays sound.

        The cap only matters for gs-factors below 0.5, where ARX's own bound could
        exceed the score of a transformation that suppresses fully generalized records.
        """
        return float(self.lower_bounds_for_levels(np.asarray([classes.levels]))[0])

    def lower_bounds_for_levels(self, levels: np.ndarray) -> np.ndarray:
        """:meth:`lower_bound` for each row of an (n, n_qi) level matrix."""
        g, s = gs_factors(self.gs_factor)
        shares = self._level_shares(levels) * g
        return self._aggregate(self._with_aggregated(
            shares if self.monotonic else np.minimum(shares, s)))

    def _aggregate(self, per_attribute: np.ndarray) -> Any:
        """ARX's ILMultiDimensionalArithmeticMean over the last axis: sum of w * v / d."""
        d = max(per_attribute.shape[-1], 1)
        return np.sum(per_attribute / d * self._weights, axis=-1)
