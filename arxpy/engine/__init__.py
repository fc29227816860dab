"""The anonymization engine: configuration, orchestration and results."""

from arxpy.engine.anonymizer import anonymize
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.result import ClassStatistics, Output, Result, TransformationState

__all__ = [
    "AnonymizationConfig", "ClassStatistics", "Output", "Result", "TransformationState",
    "anonymize",
]
