"""Headline figures, per-class table and ROC / precision-recall plots of one
:class:`~arxpy.analysis.metrics.ClassificationPerformance` (display only)."""

from __future__ import annotations

import html

import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from arxpy.analysis.metrics import ClassificationPerformance
from arxpy.gui.utility.common import (
    GREY,
    INPUT_COLOR,
    OUTPUT_COLOR,
    fill_table,
    percent,
    plot_widget,
    read_only_table,
    tint_headers,
)
from arxpy.workflows.utility_jobs import EvaluatedClassification

#: Line styles telling class values apart (colour tells input from output).
DASHES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
          Qt.PenStyle.DashDotLine, Qt.PenStyle.DashDotDotLine)
MODEL_NAMES = {"original": "trained on input", "output": "trained on output"}
MODEL_COLORS = {"original": INPUT_COLOR, "output": OUTPUT_COLOR}
#: How each line style reads in the legends under the plots.
DASH_SAMPLES = ("━━━", "╺ ╺ ╺", "┈┈┈", "━ · ━", "━ ·· ━")

#: (key, title, explanation) of the headline figures.
HEADLINES = (
    ("baseline", "Baseline", "ZeroR: always the most frequent class (input data)"),
    ("original", "Original accuracy", "classifier trained and tested on the input"),
    ("accuracy", "Accuracy", "trained on the output, tested on held-out input records"),
    ("relative", "Relative accuracy", "(accuracy − baseline) / (original − baseline)"),
    ("brier", "Brier score", "output-trained; 0 perfect, 2 worst"),
    ("skill", "Brier skill score", "1 − Brier / input Brier; 0 = as good as input"),
)


def headline_values(performance: ClassificationPerformance) -> dict[str, str]:
    """The headline figures as displayed (accuracies in %, Brier scores to 4 decimals)."""
    skill = performance.brier_skill_score
    return {
        "baseline": percent(performance.baseline_accuracy),
        "original": percent(performance.original_accuracy),
        "accuracy": percent(performance.accuracy),
        "relative": percent(performance.relative_accuracy),
        "brier": f"{performance.brier:.4f}",
        "skill": "—" if skill != skill else f"{skill:+.4f}",
    }


class Headline(QFrame):
    """One figure in large type with its title and a one-line explanation."""

    def __init__(self, title: str, explanation: str, color: str = "#222") -> None:
        super().__init__()
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("Headline { background: #fafafa; border: 1px solid #ddd; "
                           "border-radius: 4px; }")
        self.value = QLabel("—")
        self.value.setStyleSheet(f"font-size: 20pt; font-weight: bold; color: {color}")
        self.explanation = QLabel(explanation)
        self.explanation.setWordWrap(True)
        self.explanation.setStyleSheet("color: #555; font-size: 8pt")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(1)
        layout.addWidget(QLabel(f"<b>{title}</b>"))
        layout.addWidget(self.value)
        layout.addWidget(self.explanation)


class PerformanceView(QWidget):
    """Headline figures, per-class precision/recall/F1, ROC and precision-recall plots."""

    PER_CLASS_COLUMNS = ("Class", "Precision input", "Precision output", "Recall input",
                         "Recall output", "F1 input", "F1 output", "Records")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        colors = {"original": INPUT_COLOR, "accuracy": OUTPUT_COLOR, "baseline": GREY}
        self.headlines = {key: Headline(title, text, colors.get(key, "#222"))
                          for key, title, text in HEADLINES}
        self.per_class = read_only_table(self.PER_CLASS_COLUMNS)
        tint_headers(self.per_class, {c: INPUT_COLOR if c % 2 else OUTPUT_COLOR
                                      for c in range(1, 7)})
        self.roc = plot_widget("ROC curves", "false positive rate", "true positive rate")
        self.pr = plot_widget("Precision–recall curves", "recall", "precision")
        # Legends under the plots, never over the curves they explain.
        self.legends = [QLabel() for _ in (self.roc, self.pr)]
        for label in self.legends:
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setWordWrap(True)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for column, key in enumerate(self.headlines):
            grid.addWidget(self.headlines[key], 0, column)
        grid.addWidget(self.per_class, 1, 0, 1, 6)
        grid.addWidget(self.roc, 2, 0, 1, 3)
        grid.addWidget(self.pr, 2, 3, 1, 3)
        grid.addWidget(self.legends[0], 3, 0, 1, 3)
        grid.addWidget(self.legends[1], 3, 3, 1, 3)
        for column in range(6):
            grid.setColumnStretch(column, 1)
        grid.setRowStretch(1, 2)
        grid.setRowStretch(2, 5)

    def show_performance(self, evaluated: EvaluatedClassification | None) -> None:
        """Show a finished evaluation (None clears); only draws, computes nothing."""
        if evaluated is None:
            # Values and explanations: the Brier score's names the last run's input figure.
            for (_key, _title, explanation), headline in zip(HEADLINES,
                                                             self.headlines.values(),
                                                             strict=True):
                headline.value.setText("—")
                headline.explanation.setText(explanation)
                headline.explanation.setToolTip("")  # a caveat belongs to the last run
            self.per_class.setRowCount(0)
            for widget in (self.roc, self.pr):
                widget.getPlotItem().clear()
            for label in self.legends:
                label.clear()
            return
        performance = evaluated.performance
        for key, text in headline_values(performance).items():
            self.headlines[key].value.setText(text)
        self.headlines["brier"].explanation.setText(
            f"0 perfect, 2 worst; trained on input: {performance.original.brier:.4f}")
        caveat = performance.relative_accuracy_caveat
        relative = self.headlines["relative"]
        relative.explanation.setText(
            "⚠ " + caveat if caveat else dict((k, e) for k, _t, e in HEADLINES)["relative"])
        relative.explanation.setToolTip(caveat or "")
        self._fill_per_class(evaluated.per_class)
        self._curves(self.roc, evaluated.roc, "fpr", "tpr", evaluated, diagonal=True)
        self._curves(self.pr, evaluated.precision_recall, "recall", "precision", evaluated)

    def _fill_per_class(self, table: pd.DataFrame) -> None:
        rows = []
        for value in table.loc["original"].index:
            original, output = table.loc[("original", value)], table.loc[("output", value)]
            rows.append((value, percent(original["precision"], 1), percent(output["precision"], 1),
                         percent(original["recall"], 1), percent(output["recall"], 1),
                         percent(original["f1"], 1), percent(output["f1"], 1),
                         f"{int(original['support']):,}"))
        fill_table(self.per_class, rows, bold_first=True)

    def _curves(self, widget: pg.PlotWidget, table: pd.DataFrame, x: str, y: str,
                evaluated: EvaluatedClassification, diagonal: bool = False) -> None:
        plot = widget.getPlotItem()
        plot.clear()
        entries = []
        if diagonal:
            plot.plot([0, 1], [0, 1], pen=pg.mkPen(GREY, width=1, style=Qt.PenStyle.DotLine))
        areas = evaluated.areas.set_index(["model", "class"])
        area_column = "roc_auc" if diagonal else "average_precision"
        area_name = "AUC" if diagonal else "AP"
        classes = evaluated.performance.curve_classes()
        for (model, value), part in table.groupby(["model", "class"], sort=False):
            dash = classes.index(value) % len(DASHES)
            style = DASHES[dash]
            area = areas.loc[(model, value), area_column] if (model, value) in areas.index \
                else float("nan")
            name = html.escape(f"{MODEL_NAMES[model]}, class {value} ({area_name} {area:.3f})")
            plot.plot(part[x].to_numpy(), part[y].to_numpy(), name=name,
                      pen=pg.mkPen(MODEL_COLORS[model], width=2, style=style))
            entries.append(f"<span style='color:{MODEL_COLORS[model]}'><b>"
                           f"{DASH_SAMPLES[dash]}</b></span> {name}")
        self.legends[0 if widget is self.roc else 1].setText(" &nbsp; ".join(entries))
        plot.setXRange(0, 1, padding=0.02)
        plot.setYRange(0, 1, padding=0.02)
