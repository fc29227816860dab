"""ARX's classification overview: every candidate target attribute at once.

For each attribute that can be predicted (few distinct values, or a number binned at its
tertiles) one interwoven cross-validation with every other non-identifying attribute as
a feature gives the baseline (ZeroR), original and anonymized accuracy. The table shows
them with bars, beside the detailed view of one target.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from PySide6.QtWidgets import QLabel, QTableWidgetItem, QVBoxLayout, QWidget

from arxpy.analysis.classification import (
    MAX_CLASS_VALUES,
    ClassificationConfig,
    ClassificationTask,
    ClassifierSpec,
    evaluate_release,
)
from arxpy.data.definition import AttributeType, DataKind
from arxpy.errors import ArxpyError
from arxpy.gui.plain_text import tooltip
from arxpy.gui.risk.common import SIDE_ROLE, VALUE_ROLE, read_only_table
from arxpy.gui.utility.classification_config import suggested_bins
from arxpy.gui.utility.runner import JobControls
from arxpy.jobs import CancelToken, Progress
from arxpy.workflows.utility_jobs import Applied, with_class_bins

COLUMNS = ["Target attribute", "Baseline (ZeroR)", "Original", "Anonymized", "Relative"]


@dataclass(frozen=True)
class TargetAccuracy:
    attribute: str
    baseline: float
    original: float
    anonymized: float
    relative: float
    note: str = ""


def candidate_targets(applied: Applied) -> list[tuple[str, list[float] | None]]:
    """Attributes a classifier can predict, with class bins for numeric ones; a
    quasi-identifier generalized to a single value in the output has nothing to predict."""
    out = []
    levels = applied.level_map
    for attribute in applied.definition:
        if attribute.type is AttributeType.IDENTIFYING:
            continue
        if attribute.name in levels and \
                levels[attribute.name] >= applied.hierarchies[attribute.name].height - 1:
            continue  # every output value is the hierarchy's top: accuracy would be 100 %
        values = applied.frame[attribute.name]
        numeric = attribute.data_type.kind in (DataKind.INTEGER, DataKind.DECIMAL)
        bins = suggested_bins(values) if numeric else ""
        if bins and attribute.type is not AttributeType.QUASI_IDENTIFYING:
            out.append((attribute.name, [float(b) for b in bins.split(",")]))
        elif 2 <= values.nunique() <= MAX_CLASS_VALUES:
            out.append((attribute.name, None))
    return out


def run_overview(applied: Applied, classifier: ClassifierSpec, folds: int, seed: int, *,
                 progress: Progress, cancel: CancelToken) -> list[TargetAccuracy]:
    """Baseline, original and anonymized accuracy of every candidate target (a job)."""
    targets = candidate_targets(applied)
    rows = []
    for index, (name, bins) in enumerate(targets):
        cancel.raise_if_cancelled()
        progress(index / max(len(targets), 1), f"Predicting {name} ({index + 1} of "
                                               f"{len(targets)})")
        config = ClassificationConfig(name, None, classifier, folds=folds, seed=seed)
        frame = with_class_bins(applied.frame, name, bins)
        try:
            task = ClassificationTask(frame, applied.definition, applied.hierarchies, config)
            performance = evaluate_release(task, applied.release(), class_edges=bins,
                                           cancel=cancel)
        except ArxpyError as exc:
            nan = float("nan")
            rows.append(TargetAccuracy(name, nan, nan, nan, nan, str(exc)))
            continue
        rows.append(TargetAccuracy(name, performance.baseline_accuracy,
                                   performance.original_accuracy, performance.accuracy,
                                   performance.relative_accuracy,
                                   "binned at " + ", ".join(f"{b:g}" for b in bins)
                                   if bins else ""))
    progress(1.0, "Overview finished")
    return rows


class ClassificationOverview(QWidget):
    """Run button, progress, and the table of every target's accuracies with bars."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.applied: Applied | None = None
        self.rows: list[TargetAccuracy] = []
        self.settings: tuple[ClassifierSpec, int, int] = (ClassifierSpec(), 3, 0)
        self.controls = JobControls("Run overview of all targets")
        self.controls.finished.connect(self._show)  # the panel starts runs (its settings)
        self.table = read_only_table(COLUMNS, bars=True)
        explanation = QLabel("One cross-validation per attribute a classifier can predict, "
                             "every other non-identifying attribute as a feature, with the "
                             "classifier, folds and seed chosen on the left. Bars: accuracy "
                             "(input blue, output orange). Relative: the anonymized "
                             "accuracy's share of what the original gains over ZeroR.")
        explanation.setWordWrap(True)
        explanation.setStyleSheet("color: #555")
        layout = QVBoxLayout(self)
        layout.addWidget(self.controls)
        layout.addWidget(self.table, 1)
        layout.addWidget(explanation)

    def set_applied(self, applied: Applied | None) -> None:
        self.applied = applied
        self.controls.reset()
        self._show([])
        self.controls.run_button.setEnabled(applied is not None)

    def run(self, classifier: ClassifierSpec, folds: int, seed: int):
        """Start the overview with the classifier, folds and seed of the detailed view."""
        if self.applied is None:
            return None
        self.settings = (classifier, folds, seed)
        return self.controls.start(run_overview, applied=self.applied, classifier=classifier,
                                   folds=folds, seed=seed)

    def _show(self, rows: list[TargetAccuracy]) -> None:
        self.rows = list(rows)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            name = QTableWidgetItem(row.attribute)
            name.setToolTip(tooltip(row.note or row.attribute))
            self.table.setItem(r, 0, name)
            for c, (value, side) in enumerate(((row.baseline, "input"),
                                               (row.original, "input"),
                                               (row.anonymized, "output"),
                                               (row.relative, "output")), start=1):
                text = "—" if pd.isna(value) else f"{round(100 * value, 1) + 0.0:.1f} %"
                item = QTableWidgetItem(text)
                item.setData(VALUE_ROLE, None if pd.isna(value) else float(value))
                item.setData(SIDE_ROLE, side)
                self.table.setItem(r, c, item)
