"""The generalization engine: configuration, lattice search, results and apply."""

from arxpy.engine.anonymizer import anonymize
from arxpy.engine.apply import apply, parse_transformation
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.result import Result, TransformationState

__all__ = [
    "AnonymizationConfig", "Result", "TransformationState", "anonymize", "apply",
    "parse_transformation",
]
