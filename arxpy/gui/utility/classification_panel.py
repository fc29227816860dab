"""Classification panel: configure, run interwoven cross-validation in the background,
show how a classifier trained on the output compares with one trained on the input."""

from __future__ import annotations

import html

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.metrics import ClassificationPerformance
from arxpy.errors import ArxpyError
from arxpy.gui.utility.classification_config import ClassificationForm
from arxpy.gui.utility.common import note
from arxpy.gui.utility.curves import PerformanceView
from arxpy.gui.utility.overview import ClassificationOverview
from arxpy.gui.utility.runner import JobControls
from arxpy.gui.workers import JobWorker
from arxpy.workflows.utility_jobs import (
    Applied,
    EvaluatedClassification,
    not_classifiable,
    run_classification,
)

METHOD = ("Interwoven k-fold cross-validation (Prasser et al.): the same random folds for "
          "every model; each fold is predicted by classifiers trained on the other folds' "
          "input records and on their output records (suppressed records left out), always "
          "tested on the held-out <i>input</i> records with their features generalized as "
          "in the output.")


class ClassificationPanel(QWidget):
    """The classification form and Run/Cancel on the left, the results on the right."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.applied: Applied | None = None
        self.performance: ClassificationPerformance | None = None
        self.evaluated: EvaluatedClassification | None = None
        self.form = ClassificationForm()
        self.controls = JobControls("Run classification")
        self.controls.run_requested.connect(self.run)
        self.controls.finished.connect(self._finished)
        self.heading = QLabel("Choose a class attribute and features, then run.")
        self.heading.setWordWrap(True)
        self.results = PerformanceView()
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(self.form)
        left_layout.addWidget(self.controls)
        left_layout.addWidget(note(METHOD))
        left_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(left)
        scroll.setWidgetResizable(True)
        scroll.setFixedWidth(350)
        detailed = QWidget()
        right = QVBoxLayout(detailed)
        right.setContentsMargins(0, 0, 0, 0)
        right.addWidget(self.heading)
        right.addWidget(self.results, 1)
        # ARX's overview of every target beside the detailed view of one.
        self.overview = ClassificationOverview()
        self.overview.controls.run_requested.connect(self.run_overview)
        self.views = QTabWidget()
        self.views.addTab(detailed, "Detailed (one target)")
        self.views.addTab(self.overview, "Overview (every target)")
        layout = QHBoxLayout(self)
        layout.addWidget(scroll)
        layout.addWidget(self.views, 1)

    def set_applied(self, applied: Applied | None) -> None:
        """The input and applied transformation to evaluate; clears stale results."""
        changed_data = (applied is None or self.applied is None
                        or applied.frame is not self.applied.frame
                        or applied.definition is not self.applied.definition)
        self.applied = applied
        if changed_data:
            self.form.set_data(applied.frame if applied else None,
                               applied.definition if applied else None)
        self.controls.reset()  # a running job or "Done." belong to what was shown before
        self.overview.set_applied(applied)
        self._show(None)
        self.controls.run_button.setEnabled(applied is not None)
        reason = not_classifiable(applied) if applied is not None else None
        if reason:
            for controls in (self.controls, self.overview.controls):
                controls.run_button.setEnabled(False)
                controls.set_status(reason)

    def run_overview(self) -> JobWorker | None:
        """Every candidate target with this form's classifier, folds and seed."""
        try:
            classifier = self.form.classifier_spec()
        except ArxpyError as exc:
            self.overview.controls.set_status(str(exc), error=True)
            return None
        return self.overview.run(classifier, self.form.folds.value(), self.form.seed.value())

    def run(self) -> JobWorker | None:
        """Start the analysis with the form's settings; None (and a message) if unusable."""
        if self.applied is None:
            self.controls.set_status("Anonymize first: there is no output to evaluate.", True)
            return None
        try:
            config = self.form.config()
            bins = self.form.class_bins()
        except ArxpyError as exc:
            self.controls.set_status(str(exc), error=True)
            return None
        return self.controls.start(run_classification, applied=self.applied, config=config,
                                   bins=bins)

    def _finished(self, evaluated: EvaluatedClassification) -> None:
        self._show(evaluated)

    def _show(self, evaluated: EvaluatedClassification | None) -> None:
        performance = evaluated.performance if evaluated is not None else None
        self.evaluated, self.performance = evaluated, performance
        self.results.show_performance(evaluated)
        if performance is None:
            self.heading.setText("Choose a class attribute and features, then run.")
            return
        levels = html.escape(", ".join(f"{name} {level}"
                                       for name, level in performance.levels.items()),
                             quote=False)
        source = (f"output of transformation {levels or 'none'}" if not performance.notes
                  else html.escape(" ".join(performance.notes)))
        classes = html.escape(", ".join(performance.class_values))
        folds = int(performance.folds.max()) + 1
        self.heading.setText(
            f"<b>{performance.classifier.label}</b> predicting "
            f"<b>{html.escape(performance.class_attribute, quote=False)}</b> ({classes}) "
            f"from {len(performance.features)} features, {folds}-fold "
            f"cross-validation over {len(performance.folds):,} records; {source} "
            f"{performance.excluded_from_training:,} suppressed records left out of training.")
