"""Compare's charts: the compared releases overlaid, one colour per release (display only).

Classes by size, records by re-identification risk, information loss per attribute and
the classifiers' ROC curves, drawn from a :class:`~arxpy.workflows.compare.Comparison`
(computed on a worker). Under each chart a caption names every release in its colour,
and says why a release is not drawn where the figure does not apply to it.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from arxpy.analysis.release_utility import DEVIATION_ERROR, ENTROPY_LOSS, MEAN_ERROR
from arxpy.gui.utility.common import GREY, plot_widget
from arxpy.workflows.compare import Comparison, Distribution

#: Okabe-Ito colours, one per compared release (in Compare's column order).
RELEASE_COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                  "#F0E442", "#000000")
#: Measures of the loss chart: (column of attribute_losses, the axis's words).
LOSS_MEASURES = ((ENTROPY_LOSS, "entropy loss (0 none, 1 all)"),
                 (MEAN_ERROR, "relative error of the mean"),
                 (DEVIATION_ERROR, "relative error of the standard deviation"))


def color_of(index: int) -> str:
    return RELEASE_COLORS[index % len(RELEASE_COLORS)]


def letter_of(index: int) -> str:
    """Compare's short name of its ``index``-th release: A, B, ... (then A2, B2, ...)."""
    return chr(ord("A") + index % 26) + (str(index // 26 + 1) if index >= 26 else "")


def short_reason(reason: str, limit: int = 90) -> str:
    """The first clause of a "does not apply: ..." sentence, for a caption."""
    for prefix in ("does not apply: ", "not applicable: "):
        reason = reason.removeprefix(prefix)
    for stop in ("; ", ", so ", " ("):
        reason = reason.split(stop)[0]
    return reason if len(reason) <= limit else reason[:limit - 1].rstrip() + "…"


class ComparisonCharts(QWidget):
    """Four charts side by side under one legend (letter, colour and name of each
    release), each with its caption below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison: Comparison | None = None
        self.sizes = plot_widget("Classes by size", "records in the class", "% of classes")
        self.risks = plot_widget("Records by risk", "re-identification risk (1 / class size)",
                                 "% of records")
        self.loss = plot_widget("Loss per attribute")
        self.roc = plot_widget("ROC curves", "false positive rate", "true positive rate")
        self.measure = QComboBox()
        for column, words in LOSS_MEASURES:
            self.measure.addItem(words, column)
        self.measure.setToolTip("Which loss the bars of 'Loss per attribute' show")
        self.roc_class = QComboBox()
        self.roc_class.setToolTip("The class whose ROC curves are drawn (one against the "
                                  "rest), for the classifier trained on each release")
        self.measure.currentIndexChanged.connect(lambda _i: self._draw_loss())
        self.roc_class.currentIndexChanged.connect(lambda _i: self._draw_roc())
        self.captions = {widget: _caption() for widget in (self.sizes, self.risks, self.loss,
                                                           self.roc)}
        self.legend = _caption()
        # One row above the charts: the legend, then the two charts' choices.
        top = QHBoxLayout()
        top.addWidget(self.legend, 1)
        for words, chooser in (("Loss:", self.measure), ("ROC class:", self.roc_class)):
            top.addWidget(QLabel(words))
            top.addWidget(chooser)
        grid = QGridLayout()
        for index, widget in enumerate(self.captions):
            grid.addWidget(widget, 0, index)
            grid.addWidget(self.captions[widget], 1, index, Qt.AlignmentFlag.AlignTop)
            grid.setColumnStretch(index, 1)
            widget.setMinimumSize(200, 130)
            widget.getPlotItem().getAxis("bottom").setStyle(tickFont=QFont(self.font().family(),
                                                                          8))
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(top)
        outer.addLayout(grid, 1)

    def show_comparison(self, comparison: Comparison | None) -> None:
        """Draw ``comparison`` (None clears every chart and caption)."""
        self.comparison = comparison
        self.legend.setText(" &nbsp; ".join(
            f"<span style='color:{color_of(i)}'>■</span> <b>{letter_of(i)}</b> "
            f"{html.escape(name)}" for i, name in enumerate(self._names())))
        self._draw_distribution(self.sizes, "class_sizes")
        self._draw_distribution(self.risks, "record_risks")
        self._fill_classes()
        self._draw_loss()
        self._draw_roc()

    # --- drawing --------------------------------------------------------------------------

    def _names(self) -> list[str]:
        return [] if self.comparison is None else [str(c) for c in
                                                   self.comparison.table.columns]

    def _draw_distribution(self, widget: pg.PlotWidget, which: str) -> None:
        plot = widget.getPlotItem()
        plot.clear()
        entries = []
        labels: tuple[str, ...] = ()
        for index, name in enumerate(self._names()):
            shown = getattr(self.comparison, which)[name]
            if isinstance(shown, str):
                entries.append(_entry(index, name, shown))
                continue
            labels = shown.labels
            x = np.arange(len(shown.labels), dtype=float)
            plot.plot(x, 100 * shown.shares, pen=pg.mkPen(color_of(index), width=2),
                      symbol="o", symbolSize=6, symbolBrush=color_of(index),
                      symbolPen=None)
            entries.append(_entry(index, name, _peak(shown)))
        plot.getAxis("bottom").setTicks([list(enumerate(labels))] if labels else None)
        if labels:  # room for the end labels, which pyqtgraph drops when they stick out
            plot.setXRange(-0.6, len(labels) - 0.4, padding=0)
            plot.setYRange(0, 100, padding=0.02)
        self._caption(widget, entries)

    def _draw_loss(self) -> None:
        plot = self.loss.getPlotItem()
        plot.clear()
        column = self.measure.currentData()
        plot.setLabel("bottom", self.measure.currentText())
        tables = {} if self.comparison is None else self.comparison.attribute_losses
        names = self._names()
        attributes = list(dict.fromkeys(
            a for t in tables.values() if isinstance(t, pd.DataFrame)
            for a in t.index if not np.isnan(t.loc[a, column])))
        height = 0.8 / max(len(names), 1)
        entries = []
        for index, name in enumerate(names):
            table = tables.get(name)
            values = _column(table, column, attributes)
            if values is None or np.all(np.isnan(values)):
                why = table if isinstance(table, str) else (table.attrs.get("why", {}).get(
                    column, f"no attribute it releases has a {self.measure.currentText()}"))
                entries.append(_entry(index, name, why if isinstance(why, str) else
                                      f"does not apply: {why}"))
                continue
            y = np.arange(len(attributes)) - 0.4 + height * (index + 0.5)
            kept = ~np.isnan(values)
            plot.addItem(pg.BarGraphItem(x0=0, y=y[kept], width=values[kept],
                                         height=height * 0.9, brush=color_of(index),
                                         pen=pg.mkPen(None)))
            entries.append(_entry(index, name, f"mean {np.nanmean(values):.3f}"))
        plot.getAxis("left").setTicks([list(enumerate(attributes))] if attributes else None)
        plot.invertY(True)  # the first attribute on top, as in the table
        if attributes:
            plot.setYRange(-0.5, len(attributes) - 0.5, padding=0)
            if column == ENTROPY_LOSS:
                plot.setXRange(0, 1, padding=0.02)
            else:  # relative errors have no upper bound
                plot.enableAutoRange(axis="x")
        self._caption(self.loss, entries)

    def _fill_classes(self) -> None:
        classes = []
        for roc in (self.comparison.roc.values() if self.comparison else ()):
            if isinstance(roc, pd.DataFrame):
                classes += [c for c in roc["class"].unique() if c not in classes]
        self.roc_class.blockSignals(True)
        self.roc_class.clear()
        for value in classes:
            self.roc_class.addItem(str(value), value)
        self.roc_class.blockSignals(False)
        self.roc_class.setEnabled(len(classes) > 1)

    def _draw_roc(self) -> None:
        plot = self.roc.getPlotItem()
        plot.clear()
        plot.setXRange(0, 1, padding=0.02)
        plot.setYRange(0, 1, padding=0.02)
        comparison, value = self.comparison, self.roc_class.currentData()
        if comparison is None or not comparison.roc:
            self._caption(self.roc, [] if comparison is None else [
                "No classifier target chosen: choose one above the table to draw ROC "
                "curves."])
            return
        plot.plot([0, 1], [0, 1], pen=pg.mkPen(GREY, width=1, style=Qt.PenStyle.DotLine))
        entries = []
        original = comparison.roc_original
        if original is not None and value is not None:
            curve = original[original["class"] == value]
            plot.plot(curve["fpr"].to_numpy(), curve["tpr"].to_numpy(),
                      pen=pg.mkPen(GREY, width=2, style=Qt.PenStyle.DashLine))
            entries.append(f"<span style='color:{GREY}'><b>╺ ╺ ╺</b></span> "
                           "original data")
        for index, name in enumerate(self._names()):
            roc = comparison.roc.get(name)
            if isinstance(roc, str) or roc is None:
                entries.append(_entry(index, name, roc or "not evaluated"))
                continue
            curve = roc[roc["class"] == value]
            if curve.empty:
                entries.append(_entry(index, name, f"does not apply: no curve for {value}"))
                continue
            plot.plot(curve["fpr"].to_numpy(), curve["tpr"].to_numpy(),
                      pen=pg.mkPen(color_of(index), width=2))
            entries.append(_entry(index, name, f"AUC {curve['auc'].iloc[0]:.3f}"))
        self._caption(self.roc, entries)

    def _caption(self, widget: pg.PlotWidget, entries: list[str]) -> None:
        self.captions[widget].setText(" &nbsp; ".join(entries))


def _caption() -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    return label


def _entry(index: int, name: str, detail: str) -> str:
    """One release in a caption: its colour, letter and a figure, or why it is not
    drawn (``name`` is in the legend above)."""
    skipped = detail.startswith(("does not apply", "not applicable", "not evaluated"))
    text = f"not drawn: {short_reason(detail)}" if skipped else detail
    return (f"<span style='color:{color_of(index)}'><b>■ {letter_of(index)}</b></span> "
            f"<span style='color:#555'>{html.escape(text)}</span>")


def _peak(shown: Distribution) -> str:
    """The band holding the largest share, in words."""
    at = int(np.argmax(shown.shares))
    return f"most in {shown.labels[at]}: {100 * shown.shares[at]:.0f} %"


def _column(table: pd.DataFrame | str | None, column: str,
            attributes: list[str]) -> np.ndarray | None:
    if not isinstance(table, pd.DataFrame):
        return None
    return np.array([float(table.loc[a, column]) if a in table.index else np.nan
                     for a in attributes])
