"""The distribution of prosecutor risk over records, input and output as paired bars.

ARX's intervals of record risk (1/class size) are uneven, from (0, 1e-8] to (0.5, 1];
a bar per interval on a category axis keeps every interval readable. Bars run
horizontally so the interval labels read without rotation, with risk rising upwards;
the record-risk threshold is a dashed line between the intervals it separates.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

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

    The legend sits in its own row above the plot so that it never hides a bar.
    """

    def __init__(self) -> None:
        super().__init__()
        self.setBackground("w")
        self.legend = pg.LegendItem(colCount=3, labelTextColor="#222", verSpacing=-4,
                                    horSpacing=18)
        self.ci.addLabel("Distribution of prosecutor risk over records", row=0, col=0,
                         color="#222", size="10pt")
        self.ci.addItem(self.legend, row=1, col=0)
        self.plot = self.ci.addPlot(row=2, col=0)
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
        #: What is drawn, per side: the percentages of the intervals shown (for tests).
        self.shown: dict[str, np.ndarray] = {}

    def show_distributions(self, input_dist: RiskDistribution | None,
                           output_dist: RiskDistribution | None, threshold: float) -> None:
        """Draw input (blue, upper bar of each pair) and output (orange, lower bar)."""
        plot = self.plot
        plot.clear()
        self.legend.clear()
        self.shown = {}
        start = first_shown(input_dist, output_dist)
        labels = interval_labels()[start:]
        positions = np.arange(len(labels), dtype=float)
        sides = [(s, d, c) for s, d, c in (("input", input_dist, INPUT_COLOR),
                                           ("output", output_dist, OUTPUT_COLOR))
                 if d is not None]
        top = 1.0
        for index, (side, distribution, color) in enumerate(sides):
            values = 100.0 * distribution.fraction[start:]
            self.shown[side] = values
            top = max(top, float(values.max()))
            offset = (0.5 - index) * BAR_HEIGHT if len(sides) == 2 else 0.0
            bars = pg.BarGraphItem(x0=0, y=positions + offset, height=BAR_HEIGHT * 0.95,
                                   width=values, brush=pg.mkBrush(color),
                                   pen=pg.mkPen(QColor(color).darker(130)))
            plot.addItem(bars)
            self.legend.addItem(bars, "Input (original)" if side == "input" else "Output")
        self._threshold_line(threshold, start, top)
        plot.getAxis("left").setTicks([[(float(i), t) for i, t in enumerate(labels)]])
        plot.setYRange(-0.6, len(labels) - 0.4, padding=0)
        plot.setXRange(0, top * 1.08 if top < 92 else 101.0, padding=0.01)

    def _threshold_line(self, threshold: float, start: int, top: float) -> None:
        # Between the interval holding the threshold and the next (records above it).
        index = int(np.searchsorted(RISK_BIN_UPPER, threshold, side="left")) - start
        if not 0 <= index < RISK_BIN_UPPER.size - start:
            return
        y = index + 0.5
        line = pg.PlotDataItem([0, max(top * 1.08, 100.0)], [y, y],
                               pen=pg.mkPen(THRESHOLD_COLOR, width=1.5,
                                            style=Qt.PenStyle.DashLine))
        self.plot.addItem(line)
        self.legend.addItem(line, f"Record-risk threshold ({_pct(threshold)} %)")
