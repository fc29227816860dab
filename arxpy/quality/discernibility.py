"""Discernibility (DM) as ARX computes it.

ARX: ``org.deidentifier.arx.metric.v2.MetricSDNMDiscernability`` (default of
``Metric.createDiscernabilityMetric()``): a kept class of size |E| costs |E|^2, every
suppressed record costs n (the number of records), so a suppressed class costs n*|E|.
``monotonic=True`` is ARX's DM* (``MetricSDDiscernability``): suppression is ignored.
"""

from __future__ import annotations

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.quality.base import QualityModel
from arxpy.quality.precision import MONOTONIC, require_prepared
from arxpy.quality.registry import register_quality_model


@register_quality_model
class Discernibility(QualityModel):
    """Sum of squared class sizes, n per suppressed record; range [n, n^2]."""

    name = "dm"
    label = "Discernibility"
    description = ("Each record is charged the size of its class; suppressed records are charged "
                   "the whole table (lower is better).")
    params = (MONOTONIC,)
    monotonic: bool
    _n_records: int | None = None  # set by prepare() on the run's clone

    def prepare(self, data: EncodedData) -> None:
        self._n_records = data.n_records

    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        require_prepared(self, self._n_records)
        if self.monotonic:
            return _sum_of_squares(classes.sizes)
        # In integers (exact; the float sum it replaces was exact below 2**53 too): the
        # kept classes' squares, n per suppressed record.
        sizes = np.asarray(classes.sizes, dtype=np.int64)
        outside = sizes * np.asarray(suppressed, dtype=bool)
        kept_squares = int(sizes.dot(sizes)) - int(outside.dot(outside))
        return float(kept_squares + self._n_records * int(outside.sum()))

    def lower_bound(self, classes: EquivalenceClasses) -> float:
        """DM* (sum of squared sizes): merging classes and suppressing only add to it."""
        return _sum_of_squares(classes.sizes)


def _sum_of_squares(sizes: np.ndarray) -> float:
    # Exact in int64 (n**2 fits) and free of BLAS: np.dot on floats may start threads,
    # which cost more than the sum on a busy machine; on integers it is one plain loop.
    sizes = np.asarray(sizes, dtype=np.int64)
    return float(sizes.dot(sizes))
