"""The Risk perspective's background work, as plain jobs (no Qt).

Each function takes ``progress`` and ``cancel`` keyword arguments like every engine job,
so the perspective runs them through :class:`arxpy.gui.workers.JobWorker` and tests can
call them directly. Output analyses leave suppressed records out, as ARX does.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arxpy.engine.result import Result
from arxpy.jobs import CancelToken, Progress
from arxpy.risk import (
    NO_LIMITS,
    PopulationSetting,
    RiskAnalysis,
    RiskLimits,
    analyze_release,
    analyze_risk,
    population_uniqueness,
    risk_limits,
    sample_risks,
)
from arxpy.risk.hipaa import find_hipaa_identifiers_in_output
from arxpy.workflows.current_release import CurrentRelease


@dataclass(frozen=True)
class RiskOptions:
    """Settings every analysis of the perspective shares."""

    population: PopulationSetting = PopulationSetting()
    threshold: float = 0.2  # record-risk threshold in [0, 1] for "records at risk"
    qi_max_size: int = 3  # largest quasi-identifier combination scored


@dataclass(frozen=True)
class RiskSide:
    """The analysis of one side (input or output) and what it was computed with."""

    analysis: RiskAnalysis
    limits: RiskLimits  # what the output's privacy models guarantee (NO_LIMITS for input)
    levels: tuple[int, ...] | None = None  # the transformation; None for the input
    verdict: str | None = None  # the release's one verdict (its headline); None for input

    def with_threshold(self, threshold: float) -> RiskSide:
        """Records at risk counted above ``threshold`` in [0, 1] (cheap: class sizes only)."""
        risks = sample_risks(self.analysis.histogram, threshold, self.limits)
        return dataclasses.replace(self, analysis=dataclasses.replace(self.analysis,
                                                                      risks=risks))


def input_table(session: Any) -> tuple[pd.DataFrame, list[str]]:
    """The table the input analysis reads and its quasi-identifiers: the one every release
    is made of (:meth:`Session.release_inputs`: pseudonyms, shifted dates), never the
    original identifiers. Raises ConfigurationError when the plan cannot be applied."""
    frame, definition = session.release_inputs()
    return frame, definition.quasi_identifiers


def analyze_input(frame: pd.DataFrame, quasi_identifiers: list[str], options: RiskOptions, *,
                  progress: Progress, cancel: CancelToken) -> RiskSide:
    """Every risk figure of the input over ``quasi_identifiers`` (no privacy guarantees)."""
    population = options.population.model(len(frame))
    analysis = analyze_risk(frame, quasi_identifiers, population=population,
                            threshold=options.threshold, qi_max_size=options.qi_max_size,
                            progress=progress, cancel=cancel)
    return RiskSide(analysis, NO_LIMITS)


def analyze_output(result: Result, levels: tuple[int, ...], options: RiskOptions, *,
                   progress: Progress, cancel: CancelToken) -> RiskSide:
    """Every risk figure of the output of ``levels``, suppressed records left out and the
    estimated risks capped by what the release's verified claims guarantee."""
    current = CurrentRelease(pd.DataFrame(), result.definition, {}, result=result,
                             levels=tuple(levels))
    return analyze_current(current, options, progress=progress, cancel=cancel)


def analyze_current(current: CurrentRelease, options: RiskOptions, *,
                    progress: Progress, cancel: CancelToken) -> RiskSide:
    """:func:`analyze_output` of the current release: the applied transformation's
    output or a method run's release."""
    progress(0.0, "Transforming the data")
    release = current.release()
    cancel.raise_if_cancelled()
    limits = risk_limits(release.verdict.verified_claims)
    population = options.population.model(release.records - release.suppressed_records)
    analysis = analyze_release(release, population=population, threshold=options.threshold,
                               qi_max_size=options.qi_max_size, hipaa=False,
                               progress=lambda f, m: progress(0.05 + 0.95 * f, m),
                               cancel=cancel)
    # The output's HIPAA identifiers are judged by its values, not by attribute names.
    generalized = {name for name, level in (release.transformation or {}).items() if level > 0}
    hipaa = find_hipaa_identifiers_in_output(release.released(), generalized, cancel=cancel)
    analysis = dataclasses.replace(analysis, hipaa=hipaa)
    return RiskSide(analysis, limits, current.levels, release.verdict.headline)


def with_population(side: RiskSide, setting: PopulationSetting, *, progress: Progress,
                    cancel: CancelToken) -> RiskSide:
    """``side`` with population uniqueness re-estimated for ``setting`` (the class sizes
    are kept, so only the estimators run)."""
    analysis = side.analysis
    if analysis.histogram.is_empty:
        return side
    population = setting.model(analysis.records_analyzed)
    estimate = population_uniqueness(analysis.histogram, population, progress=progress,
                                     cancel=cancel)
    return dataclasses.replace(side, analysis=dataclasses.replace(analysis, population=estimate))
