"""Population uniqueness at most x under a chosen estimator (ARX ``PopulationUniqueness``).

The model judges the output as a whole: the estimated fraction of the population that is
unique, computed from the kept classes with the Pitman, Zayatz, SNB or Dankar estimator
(:mod:`arxpy.risk.uniqueness`), must be above 0 and at most ``threshold``, or 0 with no
sample uniques (ARX does not trust an estimate of 0 otherwise: it means the estimator
failed). For Dankar's rule the Zayatz fallback is off, as in ARX's criterion. As in ARX
the model is not monotonic with suppression, and monotonic without suppression only for
Zayatz. ``enforce`` reproduces ARX's enforcement, step by step: its binary search over
how many of the smallest classes to suppress (:mod:`arxpy.privacy.enforcement`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param
from arxpy.privacy.base import OutputRiskModel
from arxpy.privacy.registry import register_privacy_model
from arxpy.risk.histogram import ClassSizeHistogram
from arxpy.risk.population import REGIONS, PopulationModel, PopulationSetting
from arxpy.risk.uniqueness import ESTIMATORS, estimate_uniques


@register_privacy_model
class PopulationUniqueness(OutputRiskModel):
    """Estimated population uniqueness of the released records is at most ``threshold``.

    Give the population as ``population_size`` (people) or ``region`` (an ARX preset such
    as ``"usa"``); ``estimator`` is one of pitman, zayatz, snb, dankar (default).
    """

    kind = "population-uniqueness"
    label = "Population uniqueness"
    description = ("The estimated share of the population that is unique in the output stays "
                   "below the threshold.")
    params = (
        Param("threshold", "float", suggested=0.01, low=0, high=1, low_open=True, high_open=True,
              help="Largest estimated share of the population that is unique (e.g. 0.01 "
                   "for 1%)"),
        Param("estimator", "choice", "dankar", choices=ESTIMATORS, label="estimator",
              help="How population uniques are estimated from the sample"),
        Param("population_size", "int", None, low=1, optional=True, unit="people",
              label="population size", help="People in the population (instead of a region)"),
        Param("region", "choice", None, choices=tuple(sorted(REGIONS)), optional=True,
              help="The population the data were sampled from (or give its size)"),
    )
    monotonic_with_suppression = False
    monotonic_without_suppression = False
    threshold: float
    estimator: str
    population_size: int | None
    region: str | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # ARX: RiskBasedCriterion(false, model == ZAYATZ, threshold)
        self.monotonic_without_suppression = self.estimator == "zayatz"  # type: ignore[misc]

    def check_together(self) -> None:
        if (self.population_size is None) == (self.region is None):
            raise ConfigurationError(
                "population-uniqueness: give the population either as a size "
                "(population_size) or as a region preset (region), not both and not neither.")

    @property
    def population(self) -> PopulationModel:
        """The population the data were sampled from."""
        setting = PopulationSetting("region", self.region) if self.region is not None else \
            PopulationSetting("size", self.population_size)  # type: ignore[arg-type]
        return setting.model(1)

    def validate(self, data: EncodedData) -> None:
        self.population.check_sample(data.n_records)

    def fulfilled_by(self, class_sizes: np.ndarray) -> bool:
        """Does a release with these (kept) class sizes meet the model?"""
        histogram = ClassSizeHistogram.from_class_sizes(class_sizes)
        if histogram.is_empty:
            return True  # everything suppressed
        value = estimate_uniques(histogram, self.population.size, self.estimator,
                                 zayatz_fallback=False)
        fraction = 0.0 if math.isnan(value) else value / self.population.size
        if fraction > 0.0:
            return fraction <= self.threshold
        return histogram.classes_of_size(1) == 0

    def describe(self) -> str:
        return (f"population uniqueness at most {self.threshold:g} ({self.estimator}, "
                f"population {self.population.size:,})")
