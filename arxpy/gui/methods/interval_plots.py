"""Plots of an interval release: values and their intervals in 1-D (like Xiang et al.'s
Fig. 2) and boxes of a pair of attributes in 2-D."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from arxpy.analysis.interval_report import Bounds
from arxpy.gui.plain_text import set_axis_label
from arxpy.gui.utility.common import (
    INPUT_COLOR,
    OUTPUT_COLOR,
    legend_row,
    note,
    plot_widget,
)

#: Most records the 1-D plot draws (evenly spread over the sorted records).
MOST_RECORDS = 150
#: Most boxes and points the 2-D plot draws.
MOST_BOXES = 2000
MOST_POINTS = 5000


def shown_rows(n: int, most: int) -> np.ndarray:
    """Up to ``most`` row positions spread evenly over 0..n-1 (all when n ≤ most)."""
    if n <= most:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, most).round().astype(np.int64))


def one_d_order(lo: np.ndarray, hi: np.ndarray, values: np.ndarray | None) -> np.ndarray:
    """Records sorted by interval (then value), so a box's members sit together."""
    keys = (hi, lo) if values is None else (values, hi, lo)  # last key sorts first
    return np.lexsort(keys)


class IntervalPlots(QWidget):
    """A 1-D plot of one attribute and a 2-D rectangle plot of a pair."""

    def __init__(self, bounds: Bounds, original: dict[str, np.ndarray] | None,
                 groups: np.ndarray, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bounds, self.original = bounds, original
        # One record per box stands for the box (its members share its bounds).
        self.box_rows = np.unique(np.asarray(groups), return_index=True)[1]
        names = list(bounds)
        self.attribute = QComboBox()
        self.attribute.addItems(names)
        self.x_attribute, self.y_attribute = QComboBox(), QComboBox()
        self.x_attribute.addItems(names)
        self.y_attribute.addItems(names)
        if len(names) > 1:
            self.y_attribute.setCurrentIndex(1)
        self.one_d = plot_widget("Values and their intervals", "value", "record (sorted)")
        self.two_d = plot_widget("Boxes of a pair")
        self.one_d_note, self.two_d_note = note(), note()
        self.attribute.currentTextChanged.connect(self.draw_one_d)
        self.x_attribute.currentTextChanged.connect(self.draw_two_d)
        self.y_attribute.currentTextChanged.connect(self.draw_two_d)
        left, right = QVBoxLayout(), QVBoxLayout()
        left.addLayout(_row("Attribute", self.attribute))
        left.addWidget(self.one_d, 1)
        left.addWidget(self.one_d_note)
        right.addLayout(_row("x", self.x_attribute, "y", self.y_attribute))
        right.addWidget(self.two_d, 1)
        right.addWidget(self.two_d_note)
        plots = QHBoxLayout()
        plots.addLayout(left, 1)
        plots.addLayout(right, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(legend_row() if original is not None else
                         QLabel("Intervals as released (orange)."))
        layout.addLayout(plots, 1)
        self.draw_one_d()
        self.draw_two_d()

    def draw_one_d(self) -> None:
        name = self.attribute.currentText()
        lo, hi = self.bounds[name]
        values = None if self.original is None else self.original[name]
        order = one_d_order(lo, hi, values)
        rows = order[shown_rows(len(order), MOST_RECORDS)]
        y = np.arange(len(rows), dtype=float)
        plot = self.one_d.getPlotItem()
        plot.clear()
        segments_x = np.column_stack([lo[rows], hi[rows]]).ravel()
        segments_y = np.repeat(y, 2)
        plot.plot(segments_x, segments_y, connect="pairs", pen=pg.mkPen(OUTPUT_COLOR, width=2))
        # Unchanged values are intervals of width 0: a tick keeps them visible.
        same = lo[rows] == hi[rows]
        plot.addItem(pg.ScatterPlotItem(lo[rows][same], y[same], symbol="|", size=9,
                                        pen=pg.mkPen(OUTPUT_COLOR, width=2)))
        if values is not None:
            plot.addItem(pg.ScatterPlotItem(values[rows], y, symbol="o", size=6,
                                            brush=None, pen=pg.mkPen(INPUT_COLOR, width=1.5)))
        set_axis_label(plot, "bottom", name, color="#222")
        self.one_d_note.setText(
            f"{len(rows):,} of {len(lo):,} records" + ("" if len(rows) == len(lo) else
                                                       ", evenly spread over the sorted order")
            + ("; circles: original values" if values is not None else "") + ".")

    def draw_two_d(self) -> None:
        plot = self.two_d.getPlotItem()
        plot.clear()
        x_name, y_name = self.x_attribute.currentText(), self.y_attribute.currentText()
        if len(self.bounds) < 2 or x_name == y_name:
            self.two_d_note.setText("Choose two different attributes (the release needs at "
                                    "least two boxed attributes).")
            return
        (xl, xh), (yl, yh) = self.bounds[x_name], self.bounds[y_name]
        boxes = np.column_stack([xl, xh, yl, yh])[self.box_rows]
        drawn = boxes[shown_rows(len(boxes), MOST_BOXES)]
        xs, ys = rectangles(drawn)
        plot.plot(xs, ys, connect="finite", pen=pg.mkPen(OUTPUT_COLOR, width=1.5))
        if self.original is not None:
            rows = shown_rows(len(xl), MOST_POINTS)
            plot.addItem(pg.ScatterPlotItem(self.original[x_name][rows],
                                            self.original[y_name][rows], size=4,
                                            brush=pg.mkBrush(INPUT_COLOR), pen=None))
        set_axis_label(plot, "bottom", x_name, color="#222")
        set_axis_label(plot, "left", y_name, color="#222")
        self.two_d_note.setText(f"{len(drawn):,} of {len(boxes):,} boxes"
                                + ("; dots: original values" if self.original is not None
                                   else "") + ".")


def rectangles(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outline coordinates of boxes (rows x_lo, x_hi, y_lo, y_hi), NaN between boxes."""
    xl, xh, yl, yh = boxes.T
    nan = np.full(len(boxes), np.nan)
    xs = np.column_stack([xl, xh, xh, xl, xl, nan]).ravel()
    ys = np.column_stack([yl, yl, yh, yh, yl, nan]).ravel()
    return xs, ys


def _row(*parts) -> QHBoxLayout:
    row = QHBoxLayout()
    for part in parts:
        row.addWidget(QLabel(part) if isinstance(part, str) else part)
    row.addStretch(1)
    return row
