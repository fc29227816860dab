"""Utility analyses (headless jobs): statistics, classifier performance and study mode.

Every analysis is a job: it takes ``progress`` and ``cancel`` keyword arguments
(:mod:`arxpy.jobs`) and returns a result object with pandas tables
(``summary()`` and friends) and plotting-ready data. See ``docs/utility.md``.
"""

from arxpy.analysis.classification import (
    ClassificationConfig,
    ClassificationTask,
    CrossValidation,
    bin_values,
    evaluate_classification,
    make_folds,
)
from arxpy.analysis.classifiers import ClassifierSpec
from arxpy.analysis.metrics import ClassificationPerformance, Predictions, relative_accuracy
from arxpy.analysis.statistics import UtilityStatistics, utility_statistics
from arxpy.analysis.study import StudyResult, classification_study
from arxpy.analysis.transform import AppliedTransformation, apply_transformation, parse_levels

__all__ = [
    "AppliedTransformation", "ClassificationConfig", "ClassificationPerformance",
    "ClassificationTask", "ClassifierSpec", "CrossValidation", "Predictions", "StudyResult",
    "UtilityStatistics", "apply_transformation", "bin_values", "classification_study",
    "evaluate_classification", "make_folds", "parse_levels", "relative_accuracy",
    "utility_statistics",
]
