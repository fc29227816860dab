"""Sample uniqueness and population uniqueness, with Dankar et al.'s choice of estimator.

As ARX's ``RiskModelSampleUniqueness`` and ``RiskModelPopulationUniqueness``: sample
uniqueness is the fraction of records alone in their class; population uniqueness is the
estimated number of population uniques over the population size under the Pitman, Zayatz
and SNB models, and Dankar's decision rule picks among them: for a sampling fraction of at
most 10% Pitman (Zayatz if Pitman fails), otherwise the smaller of Zayatz and SNB (Zayatz
if SNB fails). An estimate that fails (NaN) or is exactly 0 counts as unavailable and is
reported as 0, as ARX does; with no sample uniques every estimate is 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.risk.estimators import pitman, pitman_estimate, snb, snb_estimate, zayatz
from arxpy.risk.histogram import ClassSizeHistogram
from arxpy.risk.population import PopulationModel
from arxpy.risk.solver import DEFAULT_SOLVER, SolverConfig

ESTIMATORS = ("pitman", "zayatz", "snb", "dankar")
#: Dankar et al. use Pitman's model up to this sampling fraction.
DANKAR_PITMAN_LIMIT = 0.1


def sample_uniqueness(histogram: ClassSizeHistogram) -> float:
    """Fraction of (unsuppressed) records whose class has size 1, in [0, 1]; 0 if empty."""
    if histogram.is_empty:
        return 0.0
    return histogram.classes_of_size(1) / histogram.n_records


@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated population uniqueness (fraction of the population that is unique).

    ``uniques`` holds the estimated numbers of population uniques per estimator (NaN when
    it failed); the fractions are those over ``population_size``, 0 when unavailable.
    ``dankar_model`` names the estimator Dankar's rule chose (``"none"`` without uniques).
    ``stopped_early`` names the estimators whose solver ran out of its time budget.
    """

    population_size: int
    sample_size: int
    uniques: dict[str, float]
    dankar_model: str
    stopped_early: tuple[str, ...] = field(default=())

    @property
    def sampling_fraction(self) -> float:
        return self.sample_size / self.population_size

    def available(self, estimator: str) -> bool:
        """Did ``estimator`` give a usable (non-NaN, non-zero) estimate, or are there no uniques?"""
        value = self.uniques[estimator]
        return self.dankar_model == "none" or (not math.isnan(value) and value != 0.0)

    def fraction(self, estimator: str) -> float:
        """Estimated fraction of the population that is unique, 0 if unavailable."""
        value = self.uniques[estimator]
        return 0.0 if math.isnan(value) else value / self.population_size

    @property
    def pitman(self) -> float:
        return self.fraction("pitman")

    @property
    def zayatz(self) -> float:
        return self.fraction("zayatz")

    @property
    def snb(self) -> float:
        return self.fraction("snb")

    @property
    def dankar(self) -> float:
        return self.fraction("dankar")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: self.fraction(name) for name in ESTIMATORS}
        out.update(
            dankar_model=self.dankar_model,
            population_size=self.population_size,
            sampling_fraction=self.sampling_fraction,
            available={name: self.available(name) for name in ESTIMATORS},
            stopped_early=list(self.stopped_early),
        )
        return out


def _valid(value: float) -> bool:
    return not math.isnan(value) and value != 0.0


def dankar_choice(fraction: float, estimates: dict[str, float],
                  zayatz_fallback: bool = True) -> tuple[str, float]:
    """Dankar et al.'s rule over estimated uniques: (chosen estimator, its estimate)."""
    if fraction <= DANKAR_PITMAN_LIMIT:
        if _valid(estimates["pitman"]):
            return "pitman", estimates["pitman"]
        if zayatz_fallback:
            return "zayatz", estimates["zayatz"]
        return "pitman", float("nan")
    if _valid(estimates["snb"]):
        if estimates["zayatz"] < estimates["snb"]:
            return "zayatz", estimates["zayatz"]
        return "snb", estimates["snb"]
    return "zayatz", estimates["zayatz"]


def estimate_uniques(histogram: ClassSizeHistogram, population_size: int, estimator: str,
                     solver: SolverConfig = DEFAULT_SOLVER, zayatz_fallback: bool = True,
                     cancel: CancelToken | None = None) -> float:
    """Estimated population uniques under one estimator, computing only what it needs.

    Returns 0 when there are no sample uniques and NaN when the estimate is unavailable.
    ``zayatz_fallback=False`` is the variant ARX's privacy model uses for Dankar's rule.
    """
    if estimator not in ESTIMATORS:
        raise ConfigurationError(
            f"Unknown estimator '{estimator}'; use one of {', '.join(ESTIMATORS)}.")
    if histogram.classes_of_size(1) == 0:
        return 0.0
    cache: dict[str, float] = {}

    def get(name: str) -> float:
        if name not in cache:
            if name == "zayatz":
                cache[name] = zayatz(histogram, population_size, cancel)
            elif name == "pitman":
                cache[name] = pitman(histogram, population_size, solver, cancel)
            else:
                cache[name] = snb(histogram, population_size, solver, cancel)
        return cache[name]

    if estimator != "dankar":
        value = get(estimator)
    elif histogram.n_records / population_size <= DANKAR_PITMAN_LIMIT:
        value = get("pitman")
        if not _valid(value):
            value = get("zayatz") if zayatz_fallback else float("nan")
    elif _valid(get("snb")):
        value = get("zayatz") if get("zayatz") < get("snb") else get("snb")
    else:
        value = get("zayatz")
    return value if _valid(value) else float("nan")


def population_uniqueness(
    histogram: ClassSizeHistogram,
    population: PopulationModel,
    solver: SolverConfig = DEFAULT_SOLVER,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> PopulationUniqueness:
    """Estimate population uniqueness with every estimator (a job: progress and cancel).

    Raises :class:`~arxpy.errors.ConfigurationError` if the sample is larger than the
    population; stops within one solver iteration of ``cancel.cancel()``.
    """
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    n = histogram.n_records
    population.check_sample(n)
    if histogram.classes_of_size(1) == 0:
        report(1.0, "No sample uniques")
        return PopulationUniqueness(population.size, n, dict.fromkeys(ESTIMATORS, 0.0), "none")
    size = population.size
    report(0.0, "Zayatz estimate")
    estimates = {"zayatz": zayatz(histogram, size, cancel)}
    report(0.5, "Pitman estimate")
    solved = {"pitman": pitman_estimate(histogram, size, solver, cancel)}
    report(0.75, "SNB estimate")
    solved["snb"] = snb_estimate(histogram, size, solver, cancel)
    estimates.update((name, estimate.uniques) for name, estimate in solved.items())
    stopped = tuple(name for name, estimate in solved.items() if estimate.stopped_early)
    model, value = dankar_choice(n / size, estimates)
    if model in stopped:
        stopped += ("dankar",)
    estimates["dankar"] = value if _valid(value) else float("nan")
    for name in ("pitman", "zayatz", "snb"):
        if not _valid(estimates[name]):
            estimates[name] = float("nan")
    report(1.0, "Population uniqueness estimated")
    return PopulationUniqueness(size, n, estimates, model, stopped)
