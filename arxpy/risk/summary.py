"""All risk analyses of one table in one job, with a result object holding a summary table.

:func:`analyze_risk` groups the records over the quasi-identifiers once and derives every
figure from that (sample risks, risk distribution, sample and population uniqueness),
then scores the quasi-identifier combinations and looks for HIPAA identifiers. The
returned :class:`RiskAnalysis` has ``summary()`` (a pandas table, like a statsmodels or
lifelines result) and ``to_dict()`` (the JSON report of ``arxpy risk``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.release import Release
from arxpy.risk.hipaa import HipaaAnalysis, find_hipaa_identifiers
from arxpy.risk.histogram import ClassSizeHistogram, RecordClasses, group_records
from arxpy.risk.population import PopulationModel
from arxpy.risk.quasi_identifiers import QuasiIdentifierAnalysis, analyze_quasi_identifiers
from arxpy.risk.sample import (
    NO_LIMITS,
    RiskDistribution,
    RiskLimits,
    SampleRisks,
    record_risks,
    risk_distribution,
    risk_limits,
    sample_risks,
)
from arxpy.risk.solver import DEFAULT_SOLVER, SolverConfig
from arxpy.risk.uniqueness import PopulationUniqueness, population_uniqueness, sample_uniqueness

#: ARX's default population for risk estimates.
DEFAULT_REGION = "usa"
#: Combinations up to this many attributes are scored unless the caller says otherwise.
DEFAULT_QI_MAX_SIZE = 3


@dataclass(frozen=True)
class RiskAnalysis:
    """Re-identification risks of one table (input or output of a transformation)."""

    records: int  # rows in the table
    quasi_identifiers: tuple[str, ...]
    classes: RecordClasses
    histogram: ClassSizeHistogram
    sample_uniqueness: float
    risks: SampleRisks
    distribution: RiskDistribution
    population: PopulationUniqueness | None
    quasi_identifier_analysis: QuasiIdentifierAnalysis | None = None
    hipaa: HipaaAnalysis | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def records_analyzed(self) -> int:
        """Records that are not suppressed (the ones every figure is about)."""
        return self.histogram.n_records

    def record_risks(self) -> np.ndarray:
        """Prosecutor risk per row (NaN for suppressed rows), in the table's row order."""
        return record_risks(self.classes)

    def summary(self) -> pd.DataFrame:
        """Every headline figure, indexed by (section, measure), one ``value`` column."""
        r = self.risks
        rows: list[tuple[str, str, float]] = [
            ("data", "records", self.records),
            ("data", "records analyzed (not suppressed)", self.records_analyzed),
            ("data", "equivalence classes", self.histogram.n_classes),
            ("uniqueness", "sample uniqueness", self.sample_uniqueness),
        ]
        for name, risk in (("prosecutor", r.prosecutor), ("journalist", r.journalist)):
            rows += [
                (name, "highest risk", risk.highest),
                (name, "records affected by highest risk", risk.records_at_highest),
                (name, "average risk", risk.average),
                (name, "estimated risk", risk.estimated),
                (name, f"records with risk above {r.threshold:g}", risk.records_above_threshold),
            ]
        rows += [("marketer", "average risk", r.marketer_average),
                 ("marketer", "estimated risk", r.marketer_estimated)]
        if self.population is not None:
            p = self.population
            rows += [("population", "population size", p.population_size),
                     ("population", "sampling fraction", p.sampling_fraction)]
            rows += [("uniqueness", f"population uniqueness ({name})", p.fraction(name))
                     for name in ("pitman", "zayatz", "snb", "dankar")]
            rows += [("uniqueness", f"stopped early ({name}; 1 = time budget spent)", 1.0)
                     for name in p.stopped_early]
        table = pd.DataFrame(rows, columns=["section", "measure", "value"])
        return table.set_index(["section", "measure"])

    def to_dict(self) -> dict[str, Any]:
        """The JSON report: plain numbers, lists and dictionaries."""
        r = self.risks
        out: dict[str, Any] = {
            "records": self.records,
            "records_analyzed": self.records_analyzed,
            "suppressed_records": self.records - self.records_analyzed,
            "quasi_identifiers": list(self.quasi_identifiers),
            "equivalence_classes": self.histogram.n_classes,
            "threshold": r.threshold,
            "sample_uniqueness": self.sample_uniqueness,
            "prosecutor": r.prosecutor.to_dict(),
            "journalist": r.journalist.to_dict(),
            "marketer": {"average": r.marketer_average, "estimated": r.marketer_estimated},
            "fraction_above_threshold": r.prosecutor.records_above_threshold,
            "lowest_risk": r.lowest,
            "records_at_lowest": r.records_at_lowest,
            "population_uniqueness": None if self.population is None
            else self.population.to_dict(),
            "risk_distribution": self.distribution.to_dict(),
            "class_sizes": self.histogram.to_dict(),
        }
        if self.quasi_identifier_analysis is not None:
            out["quasi_identifier_analysis"] = self.quasi_identifier_analysis.to_list()
        if self.hipaa is not None:
            out["hipaa"] = self.hipaa.to_list()
        out.update(self.notes)
        return out


def analyze_risk(
    frame: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    *,
    population: PopulationModel | None = None,
    threshold: float = 0.2,
    suppressed: np.ndarray | None = None,
    limits: RiskLimits = NO_LIMITS,
    qi_max_size: int | None = DEFAULT_QI_MAX_SIZE,
    hipaa: bool = True,
    hipaa_threshold: float = 0.8,
    solver: SolverConfig = DEFAULT_SOLVER,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> RiskAnalysis:
    """Run every risk analysis on ``frame`` over ``quasi_identifiers`` (a job).

    ``population`` defaults to ARX's default (USA, 317,238,626 people); ``threshold`` in
    [0, 1] is the record-risk threshold for "records at risk"; ``suppressed`` marks rows
    left out (as ARX leaves suppressed records out of risk analyses); ``limits`` are the
    risk limits an anonymous output's privacy models guarantee (see
    :func:`~arxpy.risk.sample.risk_limits`); ``qi_max_size`` bounds the combinations
    scored (None: all, 0: skip). ``cancel.cancel()`` stops it promptly with
    :class:`~arxpy.errors.CancelledError`.
    """
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    qis = [c for c in frame.columns if c in set(quasi_identifiers)]
    if not quasi_identifiers:
        raise ConfigurationError("Name at least one quasi-identifier to analyse risks over.")
    report(0.0, "Grouping records")
    classes = group_records(frame, quasi_identifiers, suppressed, cancel)
    histogram = classes.histogram
    risks = sample_risks(histogram, threshold, limits)
    population = population or PopulationModel.from_region(DEFAULT_REGION)
    uniqueness = None
    if not histogram.is_empty:
        uniqueness = population_uniqueness(
            histogram, population, solver, cancel=cancel,
            progress=lambda f, m: report(0.1 + 0.3 * f, m))
    qi_analysis = None
    if qi_max_size is None or qi_max_size > 0:
        qi_analysis = analyze_quasi_identifiers(
            frame, qis, qi_max_size, suppressed, cancel=cancel,
            progress=lambda f, m: report(0.4 + 0.5 * f, m))
    hipaa_analysis = None
    if hipaa:
        hipaa_analysis = find_hipaa_identifiers(
            frame, hipaa_threshold, cancel=cancel, progress=lambda f, m: report(0.9 + 0.1 * f, m))
    cancel.raise_if_cancelled()  # a cancelled analysis returns nothing, even at its end
    report(1.0, "Done")
    return RiskAnalysis(len(frame), tuple(qis), classes, histogram, sample_uniqueness(histogram),
                        risks, risk_distribution(histogram), uniqueness, qi_analysis,
                        hipaa_analysis)


def analyze_release(release: Release, **options: Any) -> RiskAnalysis:
    """Every risk analysis of a release (a job): its released records over its
    quasi-identifiers, estimated risks capped by what its claims guarantee if it is
    anonymous. ``options`` are those of :func:`analyze_risk`, except population: a
    ``population`` of None is ARX's default; give a PopulationModel sized for
    ``release.records - release.suppressed_records`` sampled records where it matters.
    """
    limits = risk_limits(release.verdict.verified_claims)
    return analyze_risk(release.table, release.quasi_identifiers, suppressed=release.suppressed,
                        limits=limits, **options)
