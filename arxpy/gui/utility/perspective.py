"""The Utility perspective: what de-identification cost, input next to output.

It observes the application state; when the applied transformation changes it computes
the statistics in the background (about a second for 40,000 records) and hands them to
the tabs. Classification and study runs start on the user's request.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy.gui.perspectives import placeholder
from arxpy.gui.state import AppState
from arxpy.gui.utility.classes_view import ClassesView
from arxpy.gui.utility.classification_panel import ClassificationPanel
from arxpy.gui.utility.common import legend_row
from arxpy.gui.utility.contingency_view import ContingencyView
from arxpy.gui.utility.data_view import DataTablesView
from arxpy.gui.utility.distribution_view import DistributionView
from arxpy.gui.utility.study_panel import StudyPanel
from arxpy.gui.utility.summary_view import SummaryView
from arxpy.gui.workers import JobProgressBar, JobWorker, ViewJob
from arxpy.workflows.utility_jobs import Applied, StatisticsBundle, compute_statistics


class UtilityPerspective(QWidget):
    """Summary, distribution, contingency, classes and quality, classification, study."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.applied: Applied | None = None
        self.bundle: StatisticsBundle | None = None
        self.job = ViewJob(self)  # the statistics of the current release
        self.job.progress.connect(lambda percent, _message: self.progress.setValue(percent))
        self.job.busy.connect(lambda busy: self.progress.setVisible(busy))
        self.job.finished.connect(self._statistics_done)
        self.job.failed.connect(self._statistics_failed)
        self.summary = SummaryView()
        self.distribution = DistributionView()
        self.contingency = ContingencyView()
        self.classes = ClassesView()
        self.classification = ClassificationPanel()
        self.study = StudyPanel(self.classification.form)
        self.data_tables = DataTablesView()
        self.tabs = QTabWidget()
        for widget, title in ((self.summary, "Summary statistics"),
                              (self.distribution, "Distribution"),
                              (self.contingency, "Contingency"),
                              (self.classes, "Classes and quality"),
                              (self.classification, "Classification performance"),
                              (self.study, "Quality models vs. accuracy"),
                              (self.data_tables, "Data")):
            self.tabs.addTab(widget, title)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.progress = JobProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.progress)
        top.addWidget(legend_row())
        content = QWidget()
        inner = QVBoxLayout(content)
        inner.setContentsMargins(8, 8, 8, 8)
        inner.addLayout(top)
        inner.addWidget(self.tabs, 1)
        self.stack = QStackedWidget()
        self.stack.addWidget(placeholder("Utility"))
        self.stack.addWidget(content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self._pending = False  # statistics wait until the perspective is shown
        state.result_changed.connect(self.refresh)
        state.transformation_changed.connect(self.refresh)
        state.release_changed.connect(self.refresh)
        state.project_changed.connect(self.refresh)
        self.refresh()

    def _current(self) -> Applied | None:
        return self.state.current_release()

    def refresh(self) -> None:
        """Follow the state: recompute when the current release changed."""
        applied = self._current()
        old = self.applied
        if applied is not None and old is not None and applied.key == old.key:
            return
        self.applied = applied
        self.stack.setCurrentIndex(0 if applied is None else 1)
        self.classification.set_applied(applied)
        self.study.set_applied(applied)
        self.data_tables.set_applied(applied)
        self._set_bundle(None)
        self.job.forget()
        if applied is None:
            self.heading.setText("")
            return
        self._describe(applied)
        # Computed when shown: a background job competes with the other views for the GIL.
        self._pending = True
        if self.isVisible():
            self._start_statistics()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._pending:
            self._start_statistics()

    def _start_statistics(self) -> None:
        self._pending = False
        self.progress.setValue(0)
        self.job.start(compute_statistics, applied=self.applied)

    @property
    def worker(self) -> JobWorker | None:
        return self.job.worker

    def _describe(self, applied: Applied, bundle: StatisticsBundle | None = None) -> None:
        """Name the current release; with statistics, its anonymity and suppression."""
        if applied.is_lattice:
            levels = ", ".join(f"{html.escape(name, quote=False)} {level}"
                               for name, level in applied.level_map.items())
            text = f"<b>Applied transformation</b> [{levels}]"
        else:
            text = f"<b>Method run</b> {html.escape(applied.label, quote=False)}"
        if bundle is not None:
            suppressed = int(bundle.statistics.suppressed.sum())
            verdict = html.escape(bundle.headline, quote=False)
            if not bundle.anonymous:
                verdict = f"<span style='color:#b00020'>{verdict}</span>"
            text += (f" — {verdict} {suppressed:,} of {len(applied.frame):,} records "
                     "suppressed.")
        self.heading.setText(text)

    def _statistics_done(self, bundle: StatisticsBundle) -> None:
        self._describe(self.applied, bundle)
        self._set_bundle(bundle)

    def _statistics_failed(self, message: str) -> None:
        self.heading.setText("<span style='color:#b00020'>Statistics failed: "
                             f"{html.escape(message, quote=False)}</span>")

    def _set_bundle(self, bundle: StatisticsBundle | None) -> None:
        self.bundle = bundle
        statistics = bundle.statistics if bundle is not None else None
        self.summary.set_statistics(statistics)
        self.distribution.set_statistics(statistics)
        self.contingency.set_statistics(statistics)
        self.classes.set_bundle(bundle)
