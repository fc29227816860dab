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
    evaluate_release,
    make_folds,
)
from arxpy.analysis.classifiers import ClassifierSpec
from arxpy.analysis.compare import compare_releases
from arxpy.analysis.metrics import ClassificationPerformance, Predictions, relative_accuracy
from arxpy.analysis.statistics import UtilityStatistics, release_statistics, utility_statistics
from arxpy.analysis.study import StudyResult, classification_study

__all__ = [
    "ClassificationConfig", "ClassificationPerformance", "ClassificationTask",
    "ClassifierSpec", "CrossValidation", "Predictions", "StudyResult", "UtilityStatistics",
    "bin_values", "classification_study", "compare_releases", "evaluate_classification",
    "evaluate_release", "make_folds", "relative_accuracy", "release_statistics",
    "utility_statistics",
]
