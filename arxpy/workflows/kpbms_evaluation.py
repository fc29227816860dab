"""The kPB-MS paper's evaluation of a method's settings (no Qt): the method wired into
:func:`arxpy.analysis.kpbms_evaluation.evaluate_kpbms`, which never imports a method
itself. The GUI's evaluation tab and ``arxpy kpbms-evaluate`` both run it."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from arxpy.analysis.kpbms_evaluation import Anonymized, Anonymizer, KpbmsEvaluation, evaluate_kpbms
from arxpy.data.definition import DataDefinition
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.kpbms import Kpbms, LossLimitError


def kpbms_anonymizer(method: Kpbms, cancel: CancelToken | None = None) -> Anonymizer:
    """(discretized table, k) -> what ``method`` at that k keeps, or None when no
    feature prefix meets its loss limit. The table is discretized already."""
    params = {**method.get_params(), "discretize": "none", "continuous": None}

    def anonymize(table: pd.DataFrame, k: int) -> Anonymized | None:
        at_k = type(method)(**{**params, "k": k})
        try:
            release = at_k.run(table, DataDefinition.for_columns(table.columns), cancel=cancel)
        except LossLimitError:
            return None
        return Anonymized(release.selected_features, ~release.suppressed, release.loss)

    return anonymize


def kpbms_evaluation(method: Kpbms, frame: pd.DataFrame, ks: Sequence[int],
                     classifiers: Sequence[str], folds: int = 10, protocol: str = "paper",
                     trees: int = 500, *, progress: Progress | None = None,
                     cancel: CancelToken | None = None) -> KpbmsEvaluation:
    """The paper's k sweep (spec 003 §4) on ``frame`` (the candidate features and the
    class) with ``method``'s settings: discretization, loss limit, Fisher level, CV-PBCA
    folds and seed."""
    return evaluate_kpbms(frame, method.class_attribute, kpbms_anonymizer(method, cancel),
                          list(ks), list(classifiers), folds=folds, protocol=protocol,
                          seed=method.seed, discretization=method.discretize,
                          bins=method.bins, trees=trees, continuous=method.continuous,
                          progress=progress, cancel=cancel)


def kpbms_evaluation_job(method: Kpbms, data: pd.DataFrame, definition: DataDefinition,
                         ks: Sequence[int], classifiers: Sequence[str], folds: int = 10,
                         protocol: str = "paper", trees: int = 500, *,
                         progress: Progress | None = None,
                         cancel: CancelToken | None = None) -> KpbmsEvaluation:
    """:func:`kpbms_evaluation` of a run: its method's candidate features of ``data``."""
    features = method.candidate_features(data, definition)
    return kpbms_evaluation(method, data[features + [method.class_attribute]], ks,
                            classifiers, folds, protocol, trees, progress=progress,
                            cancel=cancel)
