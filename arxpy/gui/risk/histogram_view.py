"""The distribution of prosecutor risk over records, input and output as paired bars.

ARX's intervals of record risk (1/class size) are uneven, from (0, 1e-8] to (0.5, 1];
a bar per interval on a category axis keeps every interval readable. Bars run
horizontally so the interval labels read without rotation, with risk rising upwards;
the record-risk threshold is a dashed line between the intervals it separates.

As in ARX, the same data can be shown cumulatively (the share of records whose risk is
above each interval's lower bound) and as a table instead of a plot.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QRadioButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from arxpy.gui.risk.common import INPUT_COLOR, OUTPUT_COLOR, THRESHOLD_COLOR
from arxpy.risk import RiskDistribution
from arxpy.risk.sample import RISK_BIN_LOWER, RISK_BIN_UPPER

#: Intervals from (0.1 %, 1 %] upwards are always shown; lower ones only when used.
ALWAYS_SHOWN_FROM = int(np.searchsorted(RISK_BIN_UPPER, 0.01))
BAR_HEIGHT = 0.38


def _pct(value: float) -> str:
    return f"{100 * value:.6g}"


def interval_labels() -> list[str]:
    """ARX's risk intervals in percent, e.g. "(20, 25] %"; the first is "≤ 1e-06 %"."""
    labels = [f"({_pct(lo)}, {_pct(hi)}]" for lo, hi in zip(RISK_BIN_LOWER, RISK_BIN_UPPER,
                                                                strict=True)]
    labels[0] = f"≤ {_pct(RISK_BIN_UPPER[0])}"
    return labels


def above_labels() -> list[str]:
    """The cumulative view's levels: "> 20 %" is the share of records above 20 %."""
    labels = [f"> {_pct(lo)}" for lo in RISK_BIN_LOWER]
    labels[0] = "> 0"
    return labels


def records_above(distribution: RiskDistribution) -> np.ndarray:
    """Per interval, the fraction of records whose risk is above its lower bound."""
    return np.cumsum(distribution.fraction[::-1])[::-1]


def first_shown(*distributions: RiskDistribution | None) -> int:
    """Index of the lowest interval to draw: the lowest used one, at most ALWAYS_SHOWN_FROM."""
    first = ALWAYS_SHOWN_FROM
    for distribution in distributions:
        if distribution is not None:
            used = np.flatnonzero(distribution.fraction > 0)
            if used.size:
                first = min(first, int(used[0]))
    return first


class RiskHistogram(pg.GraphicsLayoutWidget):
    """Paired horizontal bars: percentage of records per risk interval, input and output.

    The legend sits in its own row above the plot so that it never hides a bar. The bars,
    the threshold line and the legend are made once and only get new data on a redraw:
    clearing and re-adding them cost the GUI thread tens of milliseconds per analysis.
    """

    def __init__(self) -> None:
        super().__init__()
        self.setBackground("w")
        self.legend = pg.LegendItem(colCount=3, labelTextColor="#222", verSpacing=-4,
                                    horSpacing=18)
        self.ci.addLabel("Distribution of prosecutor risk over records", row=0, col=0,
                         color="#222", size="10pt")
        self.ci.addItem(self.legend, row=1, col=0)
        self.plot = self.ci.addPlot(row=2, col=0, enableMenu=False)
        plot = self.plot
        for axis in ("left", "bottom"):
            item = plot.getAxis(axis)
            item.setPen(pg.mkPen("#444"))
            item.setTextPen(pg.mkPen("#222"))
            item.enableAutoSIPrefix(False)
        plot.setLabel("left", "Risk of a record [%]", color="#222")
        plot.setLabel("bottom", "Records [%]", color="#222")
        plot.showGrid(x=True, y=False, alpha=0.25)
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        self.setMinimumHeight(240)
        self.bars = {side: pg.BarGraphItem(x0=0, y=[], height=BAR_HEIGHT * 0.95, width=[],
                                           brush=pg.mkBrush(color),
                                           pen=pg.mkPen(QColor(color).darker(130)))
                     for side, color in (("input", INPUT_COLOR), ("output", OUTPUT_COLOR))}
        self.threshold_line = pg.PlotDataItem(
            [], [], pen=pg.mkPen(THRESHOLD_COLOR, width=1.5, style=Qt.PenStyle.DashLine))
        for item in (*self.bars.values(), self.threshold_line):
            plot.addItem(item)
        #: What is drawn, per side: the percentages of the intervals shown (for tests).
        self.shown: dict[str, np.ndarray] = {}
        #: "distribution" (records per interval) or "cumulative" (records above each).
        self.mode = "distribution"
        self._entries: tuple[str, ...] = ()  # the legend's entries, rebuilt when they change
        self._labels: list[str] = []  # the risk axis's tick labels
        self._axis_title = ""

    def show_distributions(self, input_dist: RiskDistribution | None,
                           output_dist: RiskDistribution | None, threshold: float) -> None:
        """Draw input (blue, upper bar of each pair) and output (orange, lower bar)."""
        self.shown = {}
        start = first_shown(input_dist, output_dist)
        cumulative = self.mode == "cumulative"
        labels = (above_labels() if cumulative else interval_labels())[start:]
        self._set_axis("Risk of a record above [%]" if cumulative else "Risk of a record [%]",
                       labels)
        positions = np.arange(len(labels), dtype=float)
        distributions = {"input": input_dist, "output": output_dist}
        both = input_dist is not None and output_dist is not None
        top = 1.0
        for index, (side, bars) in enumerate(self.bars.items()):
            distribution = distributions[side]
            bars.setVisible(distribution is not None)
            if distribution is None:
                continue
            values = 100.0 * (records_above(distribution) if cumulative
                              else distribution.fraction)[start:]
            self.shown[side] = values
            top = max(top, float(values.max()))
            offset = (0.5 - index) * BAR_HEIGHT if both else 0.0
            bars.setOpts(y=positions + offset, width=values)
        line = self._threshold_line(threshold, start, top)
        self._set_legend(tuple(side for side in self.bars if side in self.shown)
                         + (("threshold",) if line else ()), threshold)
        self.plot.setYRange(-0.6, len(labels) - 0.4, padding=0)
        self.plot.setXRange(0, top * 1.08 if top < 92 else 101.0, padding=0.01)

    def _set_axis(self, title: str, labels: list[str]) -> None:
        # Unchanged ticks are not set again: that re-lays out and repaints the axis.
        if title != self._axis_title:
            self._axis_title = title
            self.plot.setLabel("left", title, color="#222")
        if labels != self._labels:
            self._labels = labels
            self.plot.getAxis("left").setTicks([[(float(i), t) for i, t in enumerate(labels)]])

    def _threshold_line(self, threshold: float, start: int, top: float) -> bool:
        """Place the threshold line; False if the threshold is outside the intervals shown."""
        # Between the interval holding the threshold and the next (records above it).
        index = int(np.searchsorted(RISK_BIN_UPPER, threshold, side="left")) - start
        shown = 0 <= index < RISK_BIN_UPPER.size - start
        self.threshold_line.setVisible(shown)
        if shown:
            y = index + 0.5
            self.threshold_line.setData([0, max(top * 1.08, 100.0)], [y, y])
        return shown

    def _set_legend(self, entries: tuple[str, ...], threshold: float) -> None:
        """The legend holds ``entries`` ("input", "output", "threshold"); it is rebuilt only
        when they change (before and after the first run), else its text is updated."""
        titles = {"input": "Input (original)", "output": "Output",
                  "threshold": f"Record-risk threshold ({_pct(threshold)} %)"}
        if entries != self._entries:
            self._entries = entries
            self.legend.clear()
            items = {**self.bars, "threshold": self.threshold_line}
            for entry in entries:
                self.legend.addItem(items[entry], titles[entry])
        elif "threshold" in entries:
            label = self.legend.items[-1][1]
            if label.text != titles["threshold"]:
                label.setText(titles["threshold"])


class RiskDistributionPanel(QWidget):
    """The risk plot with ARX's toggles: per interval or cumulative, plot or table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_view = RiskHistogram()
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Risk [%]", "Input records [%]",
                                              "Output records [%]"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.plot_view)
        self.stack.addWidget(self.table)
        self.buttons: dict[str, QRadioButton] = {}
        self._last: tuple = (None, None, 0.2)
        self._table_stale = True  # the table does not show self._last yet
        bar = QHBoxLayout()
        for group_keys in (("distribution", "cumulative"), ("plot", "table")):
            group = QButtonGroup(self)
            for key in group_keys:
                button = QRadioButton({"distribution": "Per interval",
                                       "cumulative": "Cumulative (records above)",
                                       "plot": "Plot", "table": "Table"}[key])
                group.addButton(button)
                bar.addWidget(button)
                self.buttons[key] = button
            group.buttons()[0].setChecked(True)
            bar.addSpacing(12)
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        for button in self.buttons.values():  # connected once every button exists
            # Only the button switched on redraws (its partner's "off" would redraw twice).
            button.toggled.connect(lambda on: self._mode_changed() if on else None)

    def show_distributions(self, input_dist: RiskDistribution | None,
                           output_dist: RiskDistribution | None, threshold: float) -> None:
        self._last = (input_dist, output_dist, threshold)
        self.plot_view.show_distributions(input_dist, output_dist, threshold)
        # The table is filled when it is shown (one view less to redraw per analysis).
        self._table_stale = True
        if self.stack.currentWidget() is self.table:
            self._fill_table()

    def set_mode(self, mode: str) -> None:
        """"distribution" or "cumulative"."""
        self.buttons[mode].setChecked(True)

    def set_view(self, view: str) -> None:
        """"plot" or "table"."""
        self.buttons[view].setChecked(True)

    def _mode_changed(self) -> None:
        mode = "cumulative" if self.buttons["cumulative"].isChecked() else "distribution"
        self.stack.setCurrentIndex(1 if self.buttons["table"].isChecked() else 0)
        if mode != self.plot_view.mode:  # switching plot/table alone leaves the plot be
            self.plot_view.mode = mode
            self.show_distributions(*self._last)
        elif self._table_stale and self.stack.currentWidget() is self.table:
            self._fill_table()

    def _fill_table(self) -> None:
        input_dist, output_dist, _ = self._last
        self._table_stale = False
        cumulative = self.plot_view.mode == "cumulative"
        start = first_shown(input_dist, output_dist)
        labels = (above_labels() if cumulative else interval_labels())[start:]
        self.table.setRowCount(len(labels))
        for row, label in enumerate(labels):
            self.table.setItem(row, 0, QTableWidgetItem(label))
            for column, distribution in ((1, input_dist), (2, output_dist)):
                if distribution is None:
                    text = "—"
                else:
                    values = records_above(distribution) if cumulative \
                        else distribution.fraction
                    text = f"{100 * float(values[start + row]):.2f}"
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                      | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, column, item)
