"""Shared look of the Utility perspective: the input/output palette, plots, tables, numbers.

Input and output are told apart by the same two colours everywhere (Okabe-Ito, safe
for the common colour-vision deficiencies): input blue, output orange.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from arxpy.formatting import figure as number  # noqa: F401 (the views import it here)
from arxpy.formatting import fixed_percent
from arxpy.gui.plain_text import set_axis_label, set_title  # noqa: F401 (views use them)

#: Okabe-Ito colours: input (original data) blue, output (de-identified data) orange.
INPUT_COLOR = "#0072B2"
OUTPUT_COLOR = "#E69F00"
#: Further Okabe-Ito colours for marks that are neither input nor output.
GREEN = "#009E73"
VERMILLION = "#D55E00"
GREY = "#999999"
SIDE_COLORS = {"input": INPUT_COLOR, "output": OUTPUT_COLOR}
SIDE_TITLES = {"input": "Input (original data)", "output": "Output (de-identified data)"}
#: Most categories a bar chart or heatmap axis shows; the rest are summed as "other".
MAX_CATEGORIES = 40
NOTE_STYLE = "color: #555"


def side_label(side: str) -> str:
    """Rich text naming a side in its colour, e.g. a coloured square and 'Input'."""
    return (f"<span style='color:{SIDE_COLORS[side]}; font-size: 14pt'>■</span> "
            f"<b>{SIDE_TITLES[side]}</b>")


def note(text: str = "") -> QLabel:
    """A grey, word-wrapped explanatory label."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet(NOTE_STYLE)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


def plot_widget(title: str = "", x_label: str = "", y_label: str = "") -> pg.PlotWidget:
    """A white pyqtgraph plot with axis labels, no mouse panning (charts, not explorers)."""
    widget = pg.PlotWidget(background="w", enableMenu=False)  # its menu is never shown
    plot = widget.getPlotItem()
    if title:
        set_title(plot, title, color="#222", size="10pt")
    for axis in ("left", "bottom"):
        item = plot.getAxis(axis)
        item.setPen(pg.mkPen("#444"))
        item.setTextPen(pg.mkPen("#222"))
    set_axis_label(plot, "bottom", x_label, color="#222")
    set_axis_label(plot, "left", y_label, color="#222")
    for axis in ("left", "bottom"):
        plot.getAxis(axis).enableAutoSIPrefix(False)  # "(x0.001)" confuses more than helps
    plot.setMenuEnabled(False)
    plot.hideButtons()
    widget.setMouseEnabled(x=False, y=False)
    widget.setMinimumHeight(180)
    return widget


def thinned_ticks(labels: Sequence[str], most: int,
                  room: int | None = None) -> list[tuple[float, str]]:
    """Tick positions 0..n-1 with labels, keeping at most ``most`` evenly spaced ones;
    with ``room`` (pixels along the axis) also few enough that the labels do not overlap."""
    if room is not None and labels:
        widest = max(len(str(text)) for text in labels) * 7 + 14  # ~7 px per character
        most = min(most, max(room // widest, 2))
    step = max(1, math.ceil(len(labels) / max(most, 1)))
    return [(float(i), str(text)) for i, text in enumerate(labels) if i % step == 0]


def keep_other(ticks: list[tuple[float, str]],
               labels: Sequence[str]) -> list[tuple[float, str]]:
    """``ticks`` with the last bar labelled when it sums the rest ('other ...'): an
    unlabelled bar of a fifth of the records reads as a value."""
    if not labels or not str(labels[-1]).startswith("other") or \
            (ticks and ticks[-1][0] == len(labels) - 1):
        return ticks
    last = float(len(labels) - 1)
    # Drop a neighbouring tick whose label would run into this one.
    kept = [t for t in ticks if last - t[0] >= 3]
    return [*kept, (last, str(labels[-1]))]


def bar_chart(widget: pg.PlotWidget, labels: Sequence[str], values: Sequence[float],
              color: str, horizontal: bool = False) -> None:
    """Draw one bar per label (replacing what the plot held); ``values`` on the value axis.

    Horizontal bars list the first label at the top, which suits long category names;
    vertical bars suit ordered values (numbers, intervals, quarters).
    """
    plot = widget.getPlotItem()
    plot.clear()
    n = len(labels)
    if n == 0:
        return
    positions = np.arange(n, dtype=float)
    values = np.asarray(values, dtype=float)
    brush, pen = pg.mkBrush(color), pg.mkPen(QColor(color).darker(130))
    if horizontal:
        bars = pg.BarGraphItem(x0=0, y=positions, height=0.75, width=values, brush=brush,
                               pen=pen)
        plot.getAxis("left").setTicks([keep_other(thinned_ticks(labels, 30), labels)])
        plot.getAxis("bottom").setTicks(None)
        plot.invertY(True)
        plot.setYRange(-0.6, n - 0.4, padding=0)
        plot.setXRange(0, max(float(values.max()), 1e-9) * 1.05, padding=0)
    else:
        bars = pg.BarGraphItem(x=positions, height=values, width=0.8, brush=brush, pen=pen)
        plot.getAxis("bottom").setTicks([keep_other(thinned_ticks(labels, 30, room=520),
                                                     labels)])
        plot.getAxis("left").setTicks(None)
        plot.invertY(False)
        plot.setXRange(-0.6, n - 0.4, padding=0)
        plot.setYRange(0, max(float(values.max()), 1e-9) * 1.05, padding=0)
    plot.addItem(bars)


def read_only_table(columns: Sequence[str]) -> QTableWidget:
    """A compact, non-editable table with the given column headers."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().hide()
    table.verticalHeader().setDefaultSectionSize(22)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    table.setAlternatingRowColors(True)
    return table


def fill_table(table: QTableWidget, rows: Sequence[Sequence[Any]],
               bold_first: bool = False) -> None:
    """Replace the table's rows with ``rows`` (text, numbers right-aligned)."""
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            item = QTableWidgetItem("" if value is None else str(value))
            if c > 0:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if bold_first and c == 0:
                font = QFont(item.font())
                font.setBold(True)
                item.setFont(font)
            table.setItem(r, c, item)


def percent(value: Any, decimals: int = 2) -> str:
    """A share in [0, 1] with ``decimals`` decimals (see arxpy.formatting.fixed_percent)."""
    return fixed_percent(value, decimals)


def legend_row(widget: QWidget | None = None) -> QLabel:
    """One line naming both sides in their colours, for the top of a view."""
    label = QLabel(f"{side_label('input')} &nbsp;&nbsp;&nbsp; {side_label('output')}", widget)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


def tint_headers(table: QTableWidget, colors: dict[int, str]) -> None:
    """Colour the header text of the given columns (input blue, output orange)."""
    for column, color in colors.items():
        item = table.horizontalHeaderItem(column)
        if item is not None:
            item.setForeground(QColor(color).darker(125))
            font = QFont(item.font())
            font.setBold(True)
            item.setFont(font)


def legend(widget: pg.PlotWidget, offset: tuple[int, int]) -> pg.LegendItem:
    """A readable legend (dark text on a translucent white box) anchored at ``offset``."""
    return widget.getPlotItem().addLegend(offset=offset, labelTextColor="#222",
                                          labelTextSize="8pt", brush=pg.mkBrush(255, 255, 255, 220),
                                          pen=pg.mkPen("#ccc"))
