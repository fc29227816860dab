"""The Utility perspective's background work, as plain jobs (no Qt).

Each function takes ``progress`` and ``cancel`` keyword arguments like every engine job,
so the GUI runs them through :class:`arxpy.gui.workers.JobWorker` and tests can call
them directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from arxpy.analysis.classification import (
    ClassificationConfig,
    ClassificationTask,
    bin_values,
    evaluate_release,
    evaluation_unavailable,
)
from arxpy.analysis.classifiers import run_cancellable
from arxpy.analysis.metrics import ClassificationPerformance
from arxpy.analysis.statistics import (
    UtilityStatistics,
    class_size_distribution,
    release_statistics,
)
from arxpy.analysis.study import StudyResult, classification_study
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress
from arxpy.workflows.current_release import CurrentRelease

#: What the views compare: the input, and the current release (the applied
#: transformation or a method run).
Applied = CurrentRelease


STUDY_NEEDS_LATTICE = ("The study searches the generalization lattice; it applies to the "
                       "lattice search's result, not to a method run. Show the lattice "
                       "search in Explore to use it.")



def not_classifiable(applied: Applied) -> str | None:
    """Why classification performance cannot evaluate ``applied`` (None: it can: every
    release whose rows are records, not a set-valued document)."""
    return None if applied.is_lattice else evaluation_unavailable(applied.run.release)


@dataclass(frozen=True)
class StatisticsBundle:
    """Input-versus-output statistics plus the input's equivalence-class sizes."""

    statistics: UtilityStatistics
    input_class_sizes: pd.DataFrame
    levels: tuple[int, ...] | None  # None for a method run's release
    anonymous: bool  # the release's verdict (arxpy.release.verdict)
    headline: str = ""  # the verdict's sentence, as every other view prints it


def compute_statistics(applied: Applied, *, progress: Progress,
                       cancel: CancelToken) -> StatisticsBundle:
    """Statistics of the applied transformation (output with suppressed rows kept)."""
    progress(0.0, "Transforming the data")
    release = applied.release()
    cancel.raise_if_cancelled()
    statistics = release_statistics(applied.frame, release,
                                    progress=lambda f, m: progress(0.05 + 0.9 * f, m),
                                    cancel=cancel)
    qis = [q for q in release.quasi_identifiers if q in applied.frame.columns]
    input_sizes = class_size_distribution(applied.frame, qis, cancel=cancel)
    progress(1.0, "Statistics computed")
    verdict = release.verdict
    return StatisticsBundle(statistics, input_sizes, applied.levels, verdict.anonymous,
                            verdict.headline)


def with_class_bins(frame: pd.DataFrame, class_attribute: str,
                    bins: Sequence[float] | None) -> pd.DataFrame:
    """``frame`` with the class attribute binned at ``bins`` (unchanged without bins)."""
    if not bins:
        return frame
    binned = frame.copy(deep=False)
    binned[class_attribute] = bin_values(frame[class_attribute], bins)
    return binned


@dataclass(frozen=True)
class EvaluatedClassification:
    """A classification result with its display tables computed (off the GUI thread:
    curves and per-class metrics of 40,000 records take a few hundred ms)."""

    performance: ClassificationPerformance
    per_class: pd.DataFrame
    roc: pd.DataFrame
    precision_recall: pd.DataFrame
    areas: pd.DataFrame


def run_classification(applied: Applied, config: ClassificationConfig,
                       bins: Sequence[float] | None, *, progress: Progress,
                       cancel: CancelToken) -> EvaluatedClassification:
    """Interwoven cross-validation of the applied transformation (suppressed records
    left out of training), the class attribute binned at ``bins`` if given."""
    frame = with_class_bins(applied.frame, config.class_attribute, bins)
    task = ClassificationTask(frame, applied.definition, applied.hierarchies, config,
                              cancel=cancel)
    performance = evaluate_release(task, applied.release(), class_edges=bins,
                                   progress=lambda f, m: progress(0.95 * f, m), cancel=cancel)
    progress(0.95, "Computing curves")
    tables = [run_cancellable(table, cancel) for table in (
        performance.per_class, performance.roc_curves, performance.precision_recall_curves,
        performance.areas)]
    return EvaluatedClassification(performance, *tables)


def run_study(applied: Applied, config: ClassificationConfig, bins: Sequence[float] | None,
              time_limit: float | None, *, progress: Progress,
              cancel: CancelToken) -> StudyResult:
    """Study mode over the lattice of the last anonymization's privacy settings."""
    if applied.result is None:
        raise ConfigurationError(STUDY_NEEDS_LATTICE)
    frame = with_class_bins(applied.frame, config.class_attribute, bins)
    return classification_study(frame, applied.definition, applied.hierarchies,
                                applied.result.config, config, time_limit,
                                progress=progress, cancel=cancel)
