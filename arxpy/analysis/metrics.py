"""Metrics of the classification analysis and its result object.

Definitions (every record is predicted once, when its fold is held out):

* accuracy: share of records whose predicted class (the most probable one; ties go to
  the first value of ``class_values``: sorted order, or hierarchy order for a
  generalized class attribute) is the true class;
* average error: mean of ``1 - p(true class)`` (ARX's "average error");
* Brier score: mean over records of ``sum_c (p_c - [c is true])^2``, in [0, 2]
  (the multi-class Brier score, as ARX computes it);
* relative accuracy: ``(accuracy - baseline) / (original - baseline)`` (paper 004,
  section V-B, parameter 4). It is 1 when the output-trained classifier is as good as
  the original-trained one and 0 when it is no better than ZeroR; it may leave [0, 1].
  When ``original == baseline`` the classifier learns nothing beyond the majority class
  even from the original data, the ratio is undefined and reported as NaN (``null`` in
  JSON).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from arxpy.analysis.classifiers import ClassifierSpec

#: |original - baseline| below this makes the relative accuracy undefined.
_DEGENERATE = 1e-12
MODELS = ("baseline", "original", "output")
MODEL_LABELS = {"baseline": "Baseline (ZeroR, original data)",
                "original": "Trained on original data", "output": "Trained on output data"}


@dataclass(frozen=True)
class Predictions:
    """Pooled held-out predictions of one model: true codes and class probabilities."""

    labels: np.ndarray  # (n,) true class codes
    proba: np.ndarray  # (n, n_classes) probabilities
    untrained: np.ndarray | None = None  # records whose fold had no training data

    @property
    def predicted(self) -> np.ndarray:
        """Most probable class per record; -1 where no model could be trained."""
        out = np.argmax(self.proba, axis=1)
        if self.untrained is not None:
            out = np.where(self.untrained, -1, out)
        return out

    @property
    def accuracy(self) -> float:
        return float(np.mean(self.predicted == self.labels)) if len(self.labels) else math.nan

    @property
    def average_error(self) -> float:
        truth = self.proba[np.arange(len(self.labels)), self.labels]
        return float(np.mean(1.0 - truth)) if len(self.labels) else math.nan

    @property
    def brier(self) -> float:
        onehot = np.zeros_like(self.proba)
        onehot[np.arange(len(self.labels)), self.labels] = 1.0
        return float(np.mean(np.sum((self.proba - onehot) ** 2, axis=1)))


#: The least gain of the original classifier over ZeroR (a share of records) for which
#: relative accuracy is shown without a caveat.
RELATIVE_ACCURACY_FLOOR = 0.01


def relative_accuracy(accuracy: float, baseline: float, original: float) -> float:
    """``(accuracy - baseline) / (original - baseline)``; NaN when original == baseline."""
    span = original - baseline
    if abs(span) < _DEGENERATE:
        return math.nan
    return (accuracy - baseline) / span


def _none_if_nan(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


_RANGE = re.compile(r"^\s*(<|>=|\[)\s*(-?[\d.]+(?:e[+-]?\d+)?)")


def range_order(values: Sequence[str]) -> list[str]:
    """Class values as people read them: binned ranges (``<10000``, ``[10000, 50000[``,
    ``>=50000``, as :func:`~arxpy.analysis.classification.bin_values` names them) by
    their lower edge, then any other value alphabetically."""
    def key(value: str) -> tuple:
        found = _RANGE.match(str(value))
        if found is None:
            return (1, math.inf, 0, str(value))
        kind, edge = found.groups()
        return (0, float(edge), {"<": 0, "[": 1, ">=": 2}[kind], str(value))
    return sorted(values, key=key)


@dataclass(frozen=True)
class ClassificationPerformance:
    """What one interwoven cross-validation measured (see :mod:`arxpy.analysis.classification`).

    ``summary()``, ``per_class()``, ``roc_curves()`` and ``precision_recall_curves()``
    return pandas tables ready for display and plotting; ``to_dict()`` the JSON report.
    """

    class_attribute: str
    class_values: list[str]
    features: list[str]
    levels: dict[str, int]
    classifier: ClassifierSpec
    folds: np.ndarray  # fold index per record
    baseline: Predictions
    original: Predictions
    output: Predictions
    excluded_from_training: int  # suppressed records not used to train the output model
    positive_class: str | None = None
    notes: list[str] = field(default_factory=list)

    # --- headline figures --------------------------------------------------------------

    @property
    def baseline_accuracy(self) -> float:
        return self.baseline.accuracy

    @property
    def original_accuracy(self) -> float:
        return self.original.accuracy

    @property
    def accuracy(self) -> float:
        return self.output.accuracy

    @property
    def relative_accuracy(self) -> float:
        return relative_accuracy(self.accuracy, self.baseline_accuracy, self.original_accuracy)

    @property
    def relative_accuracy_caveat(self) -> str | None:
        """Why relative accuracy misleads here, if it does: it divides by how much the
        original classifier beats ZeroR, and one percentage point or less is noise."""
        gain = self.original_accuracy - self.baseline_accuracy
        if gain > RELATIVE_ACCURACY_FLOOR:
            return None
        return (f"The classifier trained on the original data is no better than ZeroR "
                f"({100 * self.original_accuracy:.1f} % against "
                f"{100 * self.baseline_accuracy:.1f} %), so relative accuracy means little: "
                "compare the accuracies themselves, or choose features that predict the "
                "target.")

    @property
    def brier(self) -> float:
        return self.output.brier

    @property
    def brier_skill_score(self) -> float:
        """ARX's ``1 - brier(output) / brier(original)`` (0 when equal, negative when worse)."""
        reference = self.original.brier
        return math.nan if reference == 0 else 1.0 - self.brier / reference

    def _model(self, name: str) -> Predictions:
        return {"baseline": self.baseline, "original": self.original, "output": self.output}[name]

    # --- tables ------------------------------------------------------------------------

    def summary(self) -> pd.DataFrame:
        """One row per model: accuracy, average error, Brier score, relative accuracy."""
        rows = []
        for name in MODELS:
            p = self._model(name)
            rows.append({"model": name, "description": MODEL_LABELS[name],
                         "accuracy": p.accuracy, "average_error": p.average_error,
                         "brier": p.brier})
        table = pd.DataFrame(rows).set_index("model")
        table["relative_accuracy"] = [
            relative_accuracy(a, self.baseline_accuracy, self.original_accuracy)
            for a in table["accuracy"]]
        return table

    def per_class(self) -> pd.DataFrame:
        """Precision, recall (sensitivity), F1 and support per model and class value."""
        from sklearn.metrics import precision_recall_fscore_support

        frames = []
        shown = range_order(self.class_values)
        codes = [self.class_values.index(value) for value in shown]
        for name in MODELS:
            p = self._model(name)
            precision, recall, f1, support = precision_recall_fscore_support(
                p.labels, p.predicted, labels=codes, zero_division=0)
            frames.append(pd.DataFrame({
                "model": name, "class": shown, "precision": precision,
                "recall": recall, "f1": f1, "support": support}))
        return pd.concat(frames, ignore_index=True).set_index(["model", "class"])

    def curve_classes(self) -> list[str]:
        """Classes with curves: the positive class if binary, else every class (one-vs-rest)."""
        if len(self.class_values) == 2:
            positive = self.positive_class or sorted(self.class_values)[-1]
            return [positive]
        return range_order(self.class_values)

    def _curve_targets(self):
        """(model, class, truth, score) for every curve that has positives and negatives."""
        for name in ("original", "output"):
            p = self._model(name)
            for value in self.curve_classes():
                code = self.class_values.index(value)
                truth = p.labels == code
                if not truth.all() and truth.any():
                    yield name, value, truth, p.proba[:, code]

    def _curves(self, kind: str) -> pd.DataFrame:
        from sklearn.metrics import precision_recall_curve, roc_curve

        frames = []
        for name, value, truth, score in self._curve_targets():
            if kind == "roc":
                x, y, threshold = roc_curve(truth, score)
                columns = {"fpr": x, "tpr": y, "threshold": threshold}
            else:
                precision, recall, threshold = precision_recall_curve(truth, score)
                # The last point (recall 0, precision 1) has no threshold.
                columns = {"recall": recall, "precision": precision,
                           "threshold": np.r_[threshold, np.inf]}
            frames.append(pd.DataFrame({"model": name, "class": value, **columns}))
        if not frames:
            return pd.DataFrame(columns=["model", "class", "threshold"])
        return pd.concat(frames, ignore_index=True)

    def roc_curves(self) -> pd.DataFrame:
        """ROC points (fpr, tpr) over confidence thresholds, per model and curve class."""
        return self._curves("roc")

    def precision_recall_curves(self) -> pd.DataFrame:
        """Precision-recall points over confidence thresholds, per model and curve class."""
        return self._curves("pr")

    def areas(self) -> pd.DataFrame:
        """Area under the ROC curve and average precision per model and curve class."""
        from sklearn.metrics import average_precision_score, roc_auc_score

        rows = [{"model": name, "class": value, "roc_auc": roc_auc_score(truth, score),
                 "average_precision": average_precision_score(truth, score)}
                for name, value, truth, score in self._curve_targets()]
        return pd.DataFrame(rows, columns=["model", "class", "roc_auc", "average_precision"])

    # --- report ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON report: headline figures, per-model and per-class tables, areas."""
        summary = self.summary()
        per_class = self.per_class().reset_index()
        return {
            "class_attribute": self.class_attribute,
            "class_values": list(self.class_values),
            "features": list(self.features),
            "transformation": dict(self.levels),
            "classifier": self.classifier.to_dict(),
            "folds": int(self.folds.max()) + 1 if len(self.folds) else 0,
            "records": int(len(self.folds)),
            "excluded_from_training": self.excluded_from_training,
            "baseline_accuracy": self.baseline_accuracy,
            "original_accuracy": self.original_accuracy,
            "accuracy": self.accuracy,
            "relative_accuracy": _none_if_nan(self.relative_accuracy),
            "relative_accuracy_caveat": self.relative_accuracy_caveat,
            "brier": self.brier,
            "original_brier": self.original.brier,
            "baseline_brier": self.baseline.brier,
            "average_error": self.output.average_error,
            "original_average_error": self.original.average_error,
            "brier_skill_score": _none_if_nan(self.brier_skill_score),
            "models": {name: {k: _none_if_nan(v) for k, v in row.items() if k != "description"}
                       for name, row in summary.to_dict(orient="index").items()},
            "per_class": per_class.to_dict(orient="records"),
            "areas": self.areas().to_dict(orient="records"),
            "notes": list(self.notes),
        }
