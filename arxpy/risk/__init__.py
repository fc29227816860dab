"""Re-identification risk analysis with ARX's definitions, headless.

* :func:`analyze_risk` runs everything on one table and returns a :class:`RiskAnalysis`;
* :mod:`~arxpy.risk.sample`: prosecutor, journalist and marketer risks, risk distribution;
* :mod:`~arxpy.risk.uniqueness`: sample uniqueness; population uniqueness (Pitman, Zayatz,
  SNB, Dankar) given a :class:`PopulationModel`;
* :mod:`~arxpy.risk.quasi_identifiers`: distinction and separation of QI combinations;
* :mod:`~arxpy.risk.hipaa`: HIPAA Safe Harbor identifier detection.
"""

from arxpy.risk.hipaa import HipaaAnalysis, HipaaMatch, find_hipaa_identifiers
from arxpy.risk.histogram import ClassSizeHistogram, RecordClasses, group_records
from arxpy.risk.population import POPULATION_KINDS, REGIONS, PopulationModel, PopulationSetting
from arxpy.risk.quasi_identifiers import (
    QuasiIdentifierAnalysis,
    QuasiIdentifierRisk,
    analyze_quasi_identifiers,
)
from arxpy.risk.sample import (
    NO_LIMITS,
    AttackerRisk,
    RiskDistribution,
    RiskLimits,
    SampleRisks,
    record_risks,
    risk_distribution,
    risk_limits,
    sample_risks,
)
from arxpy.risk.solver import SolverConfig
from arxpy.risk.summary import RiskAnalysis, analyze_release, analyze_risk
from arxpy.risk.uniqueness import PopulationUniqueness, population_uniqueness, sample_uniqueness

__all__ = [
    "NO_LIMITS",
    "REGIONS",
    "AttackerRisk",
    "ClassSizeHistogram",
    "HipaaAnalysis",
    "HipaaMatch",
    "POPULATION_KINDS",
    "PopulationModel",
    "PopulationSetting",
    "PopulationUniqueness",
    "QuasiIdentifierAnalysis",
    "QuasiIdentifierRisk",
    "RecordClasses",
    "RiskAnalysis",
    "RiskDistribution",
    "RiskLimits",
    "SampleRisks",
    "SolverConfig",
    "analyze_quasi_identifiers",
    "analyze_release",
    "analyze_risk",
    "find_hipaa_identifiers",
    "group_records",
    "population_uniqueness",
    "record_risks",
    "risk_distribution",
    "risk_limits",
    "sample_risks",
    "sample_uniqueness",
]
