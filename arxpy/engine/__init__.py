"""The anonymization engine: jobs, configuration, orchestration and results."""

from arxpy.engine.anonymizer import anonymize
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.jobs import CancelToken, Job, JobRunner, run_job
from arxpy.engine.result import ClassStatistics, Output, Result, TransformationState

__all__ = [
    "AnonymizationConfig", "CancelToken", "ClassStatistics", "Job", "JobRunner", "Output",
    "Result", "TransformationState", "anonymize", "run_job",
]
