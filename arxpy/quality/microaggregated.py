"""The loss of quasi-identifiers microaggregated outside the lattice, as ARX counts it.

ARX's models able to handle microaggregation (``isAbleToHandleMicroaggregation``: Loss and
Precision here) give each such attribute a dimension of its own
(``AbstractMetricMultiDimensional``, ``MetricMDNMLoss``, ``MetricMDNMPrecision``): a class
loses ``size x distinct values in the class / distinct values in the input``
(``DistributionAggregateFunction.getInformationLoss``), a kept class times the
generalization factor, a suppressed one all its records at suppression factor 1 (else
``share + s x (size - share)``), summed and divided by the records. Models that cannot
handle it leave the attribute out, as ARX does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData


def aggregated_domains(data: EncodedData) -> list[tuple[str, float]]:
    """(name, distinct values in the input) of each attribute aggregated outside the lattice."""
    return [(name, float(len(data.tracked[name].values))) for name in data.aggregated]


def aggregated_weights(data: EncodedData) -> list[float]:
    """The aggregated attributes' weights, to be normalized with the quasi-identifiers'."""
    return [data.tracked[name].weight for name in data.aggregated]


def distinct_shares(classes: EquivalenceClasses, domains: Sequence[tuple[str, float]]
                    ) -> list[np.ndarray]:
    """Per aggregated attribute, each class's distinct values over the input's."""
    return [classes.distributions[name].distinct_per_class(classes.n_classes) / domain
            for name, domain in domains]


def aggregated_losses(classes: EquivalenceClasses, suppressed: np.ndarray,
                      domains: Sequence[tuple[str, float]], g: float, s: float,
                      floored: bool = True) -> list[float]:
    """Each aggregated attribute's loss in [0, 1]; ``floored`` to 10 decimals as ARX's Loss
    rounds (its Precision does not)."""
    sizes = classes.sizes.astype(float)
    suppressed = np.asarray(suppressed, dtype=bool)
    out = []
    for share in distinct_shares(classes, domains):
        lost = sizes * share
        kept = g * lost[~suppressed].sum()
        gone = sizes[suppressed].sum() if s == 1.0 else \
            (lost + s * (sizes - lost))[suppressed].sum()
        total = max((kept + gone) / classes.n_records, 0.0) if classes.n_records else 0.0
        out.append(math.floor(total * 1e10) / 1e10 if floored else total)
    return out
