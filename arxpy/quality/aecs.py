"""Average equivalence class size (AECS) as ARX computes it.

ARX: ``org.deidentifier.arx.metric.v2.MetricSDAECS`` (``Metric.createAECSMetric()``),
after LeFevre et al., Mondrian multidimensional k-anonymity (2006), not normalized
by k. All suppressed records together count as one extra class.
"""

from __future__ import annotations

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.quality.base import QualityModel
from arxpy.quality.precision import GS_FACTOR, gs_factors, require_prepared
from arxpy.quality.registry import register_quality_model


@register_quality_model
class AverageClassSize(QualityModel):
    """``n / (kept classes * a + [any suppressed] * b)``; range [1, n] at gs-factor 0.5.

    ARX swaps its factors here on purpose: ``a`` is ARX's suppression factor and ``b``
    its generalization factor (both 1 at the default gs-factor 0.5).
    """

    name = "aecs"
    label = "Average equivalence class size"
    description = ("The average number of records per equivalence class (lower is better).")
    params = (GS_FACTOR,)
    gs_factor: float
    _n_records: int | None = None  # set by prepare() on the run's clone

    def prepare(self, data: EncodedData) -> None:
        self._n_records = data.n_records

    def _factors(self) -> tuple[float, float]:
        generalization, suppression = gs_factors(self.gs_factor)
        return suppression, generalization  # swapped as in MetricSDAECS

    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        require_prepared(self, self._n_records)
        per_class, extra = self._factors()
        suppressed = np.asarray(suppressed, dtype=bool)
        groups = float(np.count_nonzero(~suppressed)) * per_class
        if suppressed.any():
            groups += extra
        return _ratio(float(self._n_records), groups)

    def lower_bound(self, classes: EquivalenceClasses) -> float:
        """ARX's bound ``n / (classes * a)``, made sound for gs-factors below 0.5.

        Generalizing never adds classes, and suppression trades at least one class for
        the one extra group; that trade can only lower the count when ``b <= a``.
        """
        require_prepared(self, self._n_records)
        per_class, extra = self._factors()
        groups = classes.n_classes * per_class
        if extra > per_class:
            groups = classes.n_classes * per_class + extra
        return _ratio(float(self._n_records), groups)


def _ratio(records: float, groups: float) -> float:
    # Java's double division, which ARX relies on, gives +inf for zero groups.
    return records / groups if groups > 0 else float("inf")
