"""Sample-based re-identification risks under the prosecutor, journalist and marketer models.

Definitions of ARX (``RiskModelSampleRisks``, ``RiskModelSampleSummary``, after El Emam,
"Guide to the De-Identification of Personal Health Information"), over the records that
are not suppressed. A record in a class of size ``s`` has risk ``1/s``.

* highest risk = 1 / smallest class size; records affected = records in smallest classes;
* average risk (success rate) = number of classes / number of records;
* records at risk = fraction of records whose risk is strictly above the threshold;
* estimated prosecutor/journalist risk = min(highest risk, the limit the privacy models of
  an anonymous output guarantee), estimated marketer risk = min(average risk, its limit).

Without a population table (ARX's behaviour when none is given) the journalist's
population classes are the sample classes, so journalist figures equal the prosecutor's.
An empty sample (everything suppressed) has every risk 0, as in ARX.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.risk.histogram import ClassSizeHistogram, RecordClasses

#: Upper bounds (inclusive) of ARX's record-risk histogram (RiskModelSampleRiskDistribution).
RISK_BIN_UPPER = np.array([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.02, 0.03, 0.04, 0.05,
                           0.06, 0.07, 0.08, 0.09, 0.1, 0.125, 0.143, 0.167, 0.2, 0.25,
                           0.334, 0.5, 1.0])
RISK_BIN_LOWER = np.concatenate(([0.0], RISK_BIN_UPPER[:-1]))


@dataclass(frozen=True)
class RiskLimits:
    """Highest risks the privacy models of an anonymous output guarantee (1 = none)."""

    prosecutor: float = 1.0
    journalist: float = 1.0
    marketer: float = 1.0


#: No privacy model guarantees anything (the input, or a non-anonymous output).
NO_LIMITS = RiskLimits()


def risk_limits(models: Iterable[Any]) -> RiskLimits:
    """The limits ARX derives from privacy models (``getRiskThreshold*``), minimum over all.

    k-anonymity and the prosecutor-risk model give 1/k for all three attacker models;
    l-diversity variants 1/ceil(l) (each class holds at least l records); average risk
    and population uniqueness limit the marketer risk by their threshold.
    """
    prosecutor = journalist = marketer = 1.0
    for model in models:
        kind = getattr(model, "kind", "")
        size = None
        if kind in ("k-anonymity", "prosecutor-risk"):
            size = int(model.k)
        elif "l-diversity" in kind and hasattr(model, "l"):
            size = math.ceil(float(model.l))
        if size:
            prosecutor, journalist = min(prosecutor, 1 / size), min(journalist, 1 / size)
            marketer = min(marketer, 1 / size)
        elif kind in ("average-risk", "population-uniqueness"):
            marketer = min(marketer, float(model.threshold))
    return RiskLimits(prosecutor, journalist, marketer)


@dataclass(frozen=True)
class AttackerRisk:
    """Risks under one attacker model; every figure is in [0, 1]."""

    highest: float  # highest risk of any record
    records_at_highest: float  # fraction of records with the highest risk
    average: float  # average risk = success rate
    estimated: float  # ARX's estimated risk for this attacker model
    records_above_threshold: float  # fraction of records with risk > threshold

    def to_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SampleRisks:
    """Prosecutor, journalist and marketer risks of one sample."""

    threshold: float
    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer_average: float
    marketer_estimated: float
    lowest: float  # lowest risk of any record
    records_at_lowest: float  # fraction of records with the lowest risk

    def to_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "prosecutor": self.prosecutor.to_dict(),
            "journalist": self.journalist.to_dict(),
            "marketer": {"average": self.marketer_average, "estimated": self.marketer_estimated},
            "lowest": self.lowest,
            "records_at_lowest": self.records_at_lowest,
        }


def check_threshold(threshold: float) -> float:
    """A record-risk threshold must be a number in [0, 1]."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) \
            or math.isnan(threshold) or not 0.0 <= threshold <= 1.0:
        raise ConfigurationError(
            f"The risk threshold is a probability in [0, 1] (e.g. 0.2), got {threshold!r}."
        )
    return float(threshold)


def sample_risks(histogram: ClassSizeHistogram, threshold: float = 0.2,
                 limits: RiskLimits = NO_LIMITS) -> SampleRisks:
    """Sample risks of ``histogram`` with records at risk counted above ``threshold``."""
    threshold = check_threshold(threshold)
    if histogram.is_empty:
        zero = AttackerRisk(0.0, 0.0, 0.0, 0.0, 0.0)
        return SampleRisks(threshold, zero, zero, 0.0, 0.0, 0.0, 0.0)
    sizes, counts = histogram.sizes, histogram.counts
    n = histogram.n_records
    highest = 1.0 / sizes[0]
    at_highest = float(sizes[0] * counts[0]) / n
    average = histogram.n_classes / n
    risky = 1.0 / sizes > threshold
    above = float(np.dot(sizes[risky], counts[risky])) / n
    prosecutor = AttackerRisk(highest, at_highest, average, min(highest, limits.prosecutor),
                              above)
    journalist = AttackerRisk(highest, at_highest, average, min(highest, limits.journalist),
                              above)
    return SampleRisks(threshold, prosecutor, journalist, average,
                       min(average, limits.marketer), 1.0 / sizes[-1],
                       float(sizes[-1] * counts[-1]) / n)


def record_risks(classes: RecordClasses) -> np.ndarray:
    """Prosecutor risk of each record (1 / its class size); NaN for suppressed records."""
    sizes = classes.record_sizes().astype(float)
    with np.errstate(divide="ignore"):
        return np.where(sizes > 0, 1.0 / np.where(sizes > 0, sizes, 1.0), np.nan)


@dataclass(frozen=True)
class RiskDistribution:
    """Fraction of records per risk interval (lower, upper], ARX's bins."""

    lower: np.ndarray
    upper: np.ndarray
    fraction: np.ndarray

    @property
    def cumulative(self) -> np.ndarray:
        return np.cumsum(self.fraction)

    def to_dict(self) -> dict[str, list[float]]:
        return {"lower": self.lower.tolist(), "upper": self.upper.tolist(),
                "fraction": self.fraction.tolist(), "cumulative": self.cumulative.tolist()}


def risk_distribution(histogram: ClassSizeHistogram) -> RiskDistribution:
    """Distribution of record risks over ARX's intervals; fractions sum to 1 (0 if empty)."""
    fraction = np.zeros(RISK_BIN_UPPER.size)
    if not histogram.is_empty:
        risk = 1.0 / histogram.sizes
        # ARX: Arrays.binarySearch over the upper bounds, i.e. the first upper >= risk.
        index = np.searchsorted(RISK_BIN_UPPER, risk, side="left")
        np.add.at(fraction, index, histogram.sizes * histogram.counts / histogram.n_records)
    return RiskDistribution(RISK_BIN_LOWER.copy(), RISK_BIN_UPPER.copy(), fraction)
