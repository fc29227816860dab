"""Study panel (paper 004, Fig. 4): relative accuracy of the lattice's anonymous
transformations against each quality model's score, with each model's choice marked."""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.study import MIN_RHO_POINTS, STUDY_MODELS, StudyResult
from arxpy.errors import ArxpyError
from arxpy.gui.utility.classification_config import ClassificationForm
from arxpy.gui.utility.common import (
    GREEN,
    OUTPUT_COLOR,
    fill_table,
    note,
    percent,
    plot_widget,
    read_only_table,
)
from arxpy.gui.utility.runner import JobControls
from arxpy.gui.workers import JobWorker
from arxpy.workflows.utility_jobs import STUDY_NEEDS_LATTICE, Applied, run_study

#: Transformations are neither input nor output, so not blue: a neutral dark grey.
POINT_COLOR = "#555555"
#: The scatter plots' symbols, explained once for all four plots.
SYMBOLS = (f"<span style='color:{POINT_COLOR}'>●</span> anonymous transformation &nbsp; "
           f"<span style='color:{OUTPUT_COLOR}; font-size: 13pt'>★</span> model's choice "
           f"&nbsp; <span style='color:{GREEN}'>◆</span> best")
MODEL_TITLES = {"loss": "Loss", "entropy": "Non-uniform entropy", "kl": "KL divergence",
                "classification": "Classification"}


class StudyPanel(QWidget):
    """Time budget, Run/Cancel and a per-model table on the left; four scatter plots."""

    def __init__(self, form: ClassificationForm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = form
        self.applied: Applied | None = None
        self.study: StudyResult | None = None
        self.time_limit = QDoubleSpinBox()
        self.time_limit.setRange(5, 24 * 3600)
        self.time_limit.setDecimals(0)
        self.time_limit.setSuffix(" s")
        self.time_limit.setValue(60)
        self.controls = JobControls("Run study")
        self.controls.run_requested.connect(self.run)
        self.controls.finished.connect(self._show)
        self.table = read_only_table(["Quality model", "Its choice", "Relative\naccuracy",
                                      "Spearman ρ"])
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.plots = {model: plot_widget(MODEL_TITLES[model], "score (lower is better)",
                                         "relative accuracy") for model in STUDY_MODELS}
        self.layout_panels()

    def layout_panels(self) -> None:
        form = QFormLayout()
        form.addRow("Time budget", self.time_limit)
        left = QVBoxLayout()
        left.addWidget(note(
            "Scores every transformation of the lattice under the last anonymization's "
            "privacy models and suppression limit with four quality models, then measures "
            "the relative accuracy of the anonymous ones with the <b>Classification tab's "
            "settings</b>. Each model's choice is evaluated first; under the time budget the "
            "rest is a random sample, and the result says so."))
        left.addLayout(form)
        left.addWidget(self.controls)
        left.addWidget(self.heading)
        left.addWidget(self.table, 1)
        left.addWidget(QLabel(SYMBOLS))
        left.addWidget(note("ρ: Spearman's rank correlation of score and relative accuracy. "
                            "Lower scores are better, so a model that tracks accuracy has a "
                            "strongly negative ρ."))
        holder = QWidget()
        holder.setLayout(left)
        holder.setFixedWidth(440)
        grid = QGridLayout()
        for i, model in enumerate(STUDY_MODELS):
            grid.addWidget(self.plots[model], i // 2, i % 2)
        layout = QHBoxLayout(self)
        layout.addWidget(holder)
        layout.addLayout(grid, 1)

    def set_applied(self, applied: Applied | None) -> None:
        """A new result invalidates the study (its privacy settings may differ)."""
        if applied is not None and self.applied is not None and applied.is_lattice \
                and applied.result is self.applied.result:
            self.applied = applied
            return
        self.applied = applied
        self.controls.reset()  # a running study or "Done." belong to the previous result
        self._show(None)
        if applied is not None and not applied.is_lattice:
            self.controls.run_button.setEnabled(False)
            self.controls.set_status(STUDY_NEEDS_LATTICE)

    def run(self) -> JobWorker | None:
        if self.applied is None:
            self.controls.set_status("Anonymize first: the study uses its privacy settings.",
                                     True)
            return None
        try:
            config, bins = self.form.config(), self.form.class_bins()
        except ArxpyError as exc:
            self.controls.set_status(str(exc), error=True)
            return None
        return self.controls.start(run_study, applied=self.applied, config=config, bins=bins,
                                   time_limit=float(self.time_limit.value()))

    def _show(self, study: StudyResult | None) -> None:
        self.study = study
        for model, widget in self.plots.items():
            plot = widget.getPlotItem()
            plot.clear()
            # Titles name the last study's ρ: a new one (or none) starts from the plain title.
            plot.setTitle(MODEL_TITLES[model], color="#222", size="10pt")
            plot.enableAutoRange()
        if study is None:
            self.table.setRowCount(0)
            self.heading.setText("")
            return
        evaluated = int(study.table["evaluated"].sum())
        sampled = " (a sample: time budget reached)" if study.sampled else ""
        self.heading.setText(
            f"{evaluated:,} of {len(study.table):,} anonymous transformations evaluated"
            f"{sampled}, lattice of {study.lattice_size:,}, {study.elapsed_seconds:.0f} s. "
            f"Baseline {percent(study.baseline_accuracy)}, original accuracy "
            f"{percent(study.original_accuracy)}; best relative accuracy measured "
            f"<b>{percent(study.best_relative_accuracy)}</b>.")
        if study.notes:
            self.heading.setText(self.heading.text() + "<br>" + "<br>".join(
                html.escape(note) for note in study.notes))
        summary = study.summary()
        rows = [(MODEL_TITLES[model], ",".join(map(str, row["chosen_transformation"])),
                 percent(row["chosen_relative_accuracy"]), rho_text(row["spearman"], evaluated))
                for model, row in summary.iterrows()]
        fill_table(self.table, rows, bold_first=True)
        for model in STUDY_MODELS:
            self._scatter(model, study, summary.loc[model])

    def _scatter(self, model: str, study: StudyResult, row) -> None:
        plot = self.plots[model].getPlotItem()
        data = study.scatter_data(model).dropna()
        rho = row["spearman"]
        evaluated = int(study.table["evaluated"].sum())
        plot.setTitle(f"{MODEL_TITLES[model]} — Spearman ρ {rho_text(rho, evaluated, 2)}",
                      color="#222", size="10pt")
        plot.addItem(pg.ScatterPlotItem(
            data["score"].to_numpy(), data["relative_accuracy"].to_numpy(), size=5,
            pen=None, brush=pg.mkBrush(POINT_COLOR + "90")))
        chosen = study._row(row["chosen_transformation"])
        plot.addItem(pg.ScatterPlotItem(
            [float(chosen[model])], [float(chosen["relative_accuracy"])], size=16, symbol="star",
            pen=pg.mkPen("#333"), brush=pg.mkBrush(OUTPUT_COLOR)))
        best = study.best_transformation
        if best is not None:
            top = study._row(best)
            plot.addItem(pg.ScatterPlotItem(
                [float(top[model])], [float(top["relative_accuracy"])], size=11, symbol="d",
                pen=pg.mkPen("#333"), brush=pg.mkBrush(GREEN)))
        if len(data):
            values = data["relative_accuracy"].to_numpy()
            plot.setYRange(float(np.nanmin(values)) - 0.05, float(np.nanmax(values)) + 0.05)


def rho_text(rho: float, evaluated: int, digits: int = 3) -> str:
    """Spearman's rho, or why there is none (too few points, or no variation)."""
    if not math.isnan(rho):
        return f"{rho:.{digits}f}"
    if evaluated < MIN_RHO_POINTS:
        return f"not given: {evaluated} points, needs {MIN_RHO_POINTS}"
    return "not given: no variation"
