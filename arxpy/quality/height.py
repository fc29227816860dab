"""Height: the (weighted) sum of generalization levels.

ARX: ``org.deidentifier.arx.metric.v2.MetricMDHeight`` (``Metric.createHeightMetric()``,
aggregate function SUM). Independent of the data and of suppression, so the score is
its own lower bound and grows with every generalization step.
"""

from __future__ import annotations

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.quality.base import QualityModel
from arxpy.quality.precision import arx_weights, require_prepared
from arxpy.quality.registry import register_quality_model


@register_quality_model
class Height(QualityModel):
    """``sum_j w_j * level_j`` with ARX's weights (divided by the largest weight)."""

    name = "height"
    label = "Height"
    description = ("The sum of the generalization levels chosen for the quasi-identifiers (lower "
                   "is better).")
    _weights: np.ndarray | None = None  # set by prepare() on the run's clone

    def prepare(self, data: EncodedData) -> None:
        self._weights = arx_weights(data)

    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        require_prepared(self, self._weights)
        return float(np.dot(np.asarray(classes.levels, dtype=float), self._weights))

    def lower_bound(self, classes: EquivalenceClasses) -> float:
        return self.score(classes, np.zeros(classes.n_classes, dtype=bool))

    def lower_bounds_for_levels(self, levels: np.ndarray) -> np.ndarray:
        """The score of each row of an (n, n_qi) level matrix (it is its own bound)."""
        require_prepared(self, self._weights)
        return np.asarray(levels, dtype=float) @ self._weights
