"""arxpy: a desktop de-identification workbench for health data in the style of ARX.

The public API for scripts (see docs/api.md): load data and hierarchies, define the
attributes, choose a method and its models, run it, and analyse, compare and export
the :class:`Release` it returns. Names load on first use, so ``import arxpy`` stays
cheap and the command line starts fast.
"""

from __future__ import annotations

import importlib
from typing import Any

from arxpy._version import __version__

#: Public name -> the module that defines it.
_EXPORTS = {
    # data and definitions
    "read_csv": "arxpy.data", "read_excel": "arxpy.data", "read_sqlite": "arxpy.data",
    "export_table": "arxpy.data", "AttributeDefinition": "arxpy.data",
    "AttributeType": "arxpy.data", "DataDefinition": "arxpy.data", "DataKind": "arxpy.data",
    "DataType": "arxpy.data",
    # hierarchies
    "Hierarchy": "arxpy.hierarchy", "read_hierarchy": "arxpy.hierarchy",
    "write_hierarchy": "arxpy.hierarchy", "IntervalBuilder": "arxpy.hierarchy",
    "OrderingBuilder": "arxpy.hierarchy", "MaskingBuilder": "arxpy.hierarchy",
    "DateBuilder": "arxpy.hierarchy", "FlatBuilder": "arxpy.hierarchy",
    # privacy and quality models
    "KAnonymity": "arxpy.privacy", "DistinctLDiversity": "arxpy.privacy",
    "EntropyLDiversity": "arxpy.privacy", "RecursiveCLDiversity": "arxpy.privacy",
    "TCloseness": "arxpy.privacy", "DeltaDisclosure": "arxpy.privacy",
    "BasicBetaLikeness": "arxpy.privacy", "EnhancedBetaLikeness": "arxpy.privacy",
    "AverageRisk": "arxpy.privacy", "ProsecutorRisk": "arxpy.privacy",
    "PopulationUniqueness": "arxpy.privacy", "KMap": "arxpy.privacy",
    "SampleUniqueness": "arxpy.privacy", "DeltaPresence": "arxpy.privacy",
    "Loss": "arxpy.quality",
    "Discernibility": "arxpy.quality", "AverageClassSize": "arxpy.quality",
    "NonUniformEntropy": "arxpy.quality", "Precision": "arxpy.quality",
    "Height": "arxpy.quality", "KLDivergence": "arxpy.quality",
    "Classification": "arxpy.quality",
    # methods, the engine and releases
    "Method": "arxpy.methods", "Generalization": "arxpy.methods",
    "run_method": "arxpy.methods", "method_names": "arxpy.methods",
    "AnonymizationConfig": "arxpy.engine", "anonymize": "arxpy.engine",
    "apply": "arxpy.engine", "Result": "arxpy.engine", "Release": "arxpy.release",
    "Claim": "arxpy.release", "export_release": "arxpy.engine.export",
    "write_report": "arxpy.engine.export", "write_release_report": "arxpy.engine.export",
    # recipes, replay and certificates (issue 35)
    "Recipe": "arxpy.recipes", "build_recipe": "arxpy.recipes", "replay": "arxpy.recipes",
    # linked tables (issue 32)
    "LinkedTables": "arxpy.workflows.linked_tables",
    "EventAggregate": "arxpy.workflows.linked_tables",
    "anonymize_linked": "arxpy.workflows.linked_release",
    "release_linked": "arxpy.workflows.linked_release",
    "generate_linked_example": "arxpy.linked_example",
    "apply_preset": "arxpy.presets",
    # analyses
    "analyze_risk": "arxpy.risk", "analyze_release": "arxpy.risk",
    "PopulationModel": "arxpy.risk", "release_statistics": "arxpy.analysis",
    "utility_statistics": "arxpy.analysis", "ClassificationConfig": "arxpy.analysis",
    "ClassificationTask": "arxpy.analysis", "ClassifierSpec": "arxpy.analysis",
    "evaluate_release": "arxpy.analysis", "classification_study": "arxpy.analysis",
    "compare_releases": "arxpy.analysis",
    # projects, jobs, errors
    "Project": "arxpy.project", "example_project": "arxpy.example",
    "CancelToken": "arxpy.jobs", "run_job": "arxpy.jobs", "ArxpyError": "arxpy.errors",
    "ConfigurationError": "arxpy.errors",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'arxpy' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
