"""Contingency of two attributes: input and output heatmaps, each on its own colour scale
(as ARX: a generalized output concentrates its records in few cells, which on a shared
scale would leave the input uniformly dark), every cell with a tooltip."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.statistics import UtilityStatistics, contingency
from arxpy.data.definition import DataType
from arxpy.gui.plain_text import set_axis_label
from arxpy.gui.utility.common import SIDE_COLORS, note, plot_widget, side_label, thinned_ticks
from arxpy.gui.utility.distribution_view import binned, value_order

#: Most values per heatmap axis; the rest are summed into an 'other' row or column.
MAX_HEATMAP_VALUES = 25
#: Cividis: a sequential colour map readable with colour-vision deficiencies.
COLOR_MAP = "cividis"


def _top(table: pd.DataFrame, axis: int) -> pd.DataFrame:
    """Keep the most frequent values along ``axis`` (0 rows, 1 columns), sum the rest."""
    totals = table.sum(axis=1 - axis)
    if len(totals) <= MAX_HEATMAP_VALUES:
        return table
    keep = totals.sort_values(ascending=False).index[:MAX_HEATMAP_VALUES - 1]
    rest = [v for v in totals.index if v not in set(keep)]
    label = f"other ({len(rest)})"
    if axis == 0:
        kept = table.loc[[v for v in table.index if v in set(keep)]]
        return pd.concat([kept, table.loc[rest].sum(axis=0).to_frame(label).T])
    kept = table[[v for v in table.columns if v in set(keep)]]
    return pd.concat([kept, table[rest].sum(axis=1).rename(label)], axis=1)


def shares(first: pd.Series, second: pd.Series, first_type: DataType | None = None,
           second_type: DataType | None = None) -> pd.DataFrame:
    """Share of records (in [0, 1]) per value pair, at most MAX_HEATMAP_VALUES per axis.

    With data types, many numbers are binned into intervals and each axis is ordered by
    value (numbers, intervals, ordinal order) rather than alphabetically.
    """
    if first_type is not None:
        first = binned(first, first_type, MAX_HEATMAP_VALUES)
    if second_type is not None:
        second = binned(second, second_type, MAX_HEATMAP_VALUES)
    table = contingency(first, second)
    if first_type is not None:
        table = table.iloc[value_order(table.index.to_series(), first_type)]
    if second_type is not None:
        table = table.iloc[:, value_order(table.columns.to_series(), second_type)]
    table = _top(_top(table, 0), 1)
    total = max(float(len(first)), 1.0)
    return table / total


def column_numbers_needed(labels: list[str], room: int) -> bool:
    """Whether ``labels`` side by side in ``room`` pixels leave under three characters."""
    return bool(labels) and _characters(labels, room) < 3


def _characters(labels: list[str], room: int) -> int:
    return int((room / len(labels) - 6) // 7)  # ~7 px per character


def column_ticks(labels: list[str], room: int) -> list[tuple[float, str]]:
    """A tick for every column: its label, shortened with '…' to fit, or its number
    when even three characters do not fit (the legend under the plots names them)."""
    if column_numbers_needed(labels, room):
        return [(float(i), str(i + 1)) for i in range(len(labels))]
    most = _characters(labels, room) if labels else 0
    return [(float(i), text if len(text) <= most else text[:max(most - 1, 1)] + "…")
            for i, text in enumerate(labels)]


class ContingencyView(QWidget):
    """Two attribute pickers and heatmaps of their joint distribution, input | output."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.statistics: UtilityStatistics | None = None
        self.tables: dict[str, pd.DataFrame] = {}
        self.rows, self.columns = QComboBox(), QComboBox()
        for combo in (self.rows, self.columns):
            combo.setMinimumWidth(180)
            combo.currentTextChanged.connect(lambda _text: self._show())
        self.plots = {side: plot_widget() for side in SIDE_COLORS}
        self.images = {}
        for side, widget in self.plots.items():
            image = pg.ImageItem(axisOrder="row-major")
            widget.getPlotItem().addItem(image)
            widget.getPlotItem().invertY(True)
            self.images[side] = image
        self.color_bars = {}
        for side, image in self.images.items():
            bar = pg.ColorBarItem(values=(0, 1), colorMap=pg.colormap.get(COLOR_MAP),
                                  label=f"share of {side} records", interactive=False,
                                  width=14)
            bar.setImageItem(image, insert_in=self.plots[side].getPlotItem())
            self.color_bars[side] = bar
            self.plots[side].scene().sigMouseMoved.connect(
                lambda position, side=side: self._hover(side, position))
        self.explanation = note("Each side has its own colour scale (its highest share is the "
                                "brightest): the share of that side's records with the pair "
                                "of values. The output counts published records only. Hover "
                                "over a cell for its values and share.")
        self.column_legend = note("")
        top = QHBoxLayout()
        top.addWidget(QLabel("Rows:"))
        top.addWidget(self.rows)
        top.addSpacing(16)
        top.addWidget(QLabel("Columns:"))
        top.addWidget(self.columns)
        top.addStretch(1)
        grid = QGridLayout()
        for column, side in enumerate(SIDE_COLORS):
            grid.addWidget(QLabel(side_label(side)), 0, column)
            grid.addWidget(self.plots[side], 1, column)
        grid.setRowStretch(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(grid, 1)
        layout.addWidget(self.column_legend)
        layout.addWidget(self.explanation)

    def set_statistics(self, statistics: UtilityStatistics | None) -> None:
        previous = (self.rows.currentText(), self.columns.currentText())
        self.statistics = statistics
        names = list(statistics.input_summary.index) if statistics is not None else []
        for combo, wanted, fallback in ((self.rows, previous[0], 0),
                                        (self.columns, previous[1], 1)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(names)
            if names:
                combo.setCurrentText(wanted if wanted in names else
                                     names[min(fallback, len(names) - 1)])
            combo.blockSignals(False)
        self._show()

    def select(self, rows: str, columns: str) -> None:
        for combo, name in ((self.rows, rows), (self.columns, columns)):
            combo.blockSignals(True)
            combo.setCurrentText(name)
            combo.blockSignals(False)
        self._show()

    def _clear(self) -> None:
        """Empty heatmaps, axes and legend, as before any statistics."""
        self.tables = {}
        for side, widget in self.plots.items():
            plot = widget.getPlotItem()
            self.images[side].clear()
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTicks(None)
                plot.setLabel(axis, "")
        self.column_legend.setText("")

    def _show(self) -> None:
        stats = self.statistics
        first, second = self.rows.currentText(), self.columns.currentText()
        if stats is None or not first or not second:
            self._clear()
            return
        types = (stats.definition[first].data_type, stats.definition[second].data_type)
        for side, frame in (("input", stats.input), ("output", stats.published())):
            self.tables[side] = shares(frame[first], frame[second], *types)
        for side, table in self.tables.items():
            top = float(table.to_numpy().max()) if table.size else 0.0
            self.color_bars[side].setLevels((0.0, max(top, 1e-9)))
            self._draw(side, table, first, second)
        self._describe_columns()

    def cell_text(self, side: str, row: int, column: int) -> str | None:
        """The tooltip of one heatmap cell: both values and the share of records."""
        table = self.tables.get(side)
        if table is None or not (0 <= row < table.shape[0] and 0 <= column < table.shape[1]):
            return None
        share = float(table.iat[row, column])
        return (f"{self.rows.currentText()} = {table.index[row]}\n"
                f"{self.columns.currentText()} = {table.columns[column]}\n"
                f"{100 * share:.2f} % of the {side} records")

    def _hover(self, side: str, position) -> None:
        plot = self.plots[side].getPlotItem()
        if not plot.sceneBoundingRect().contains(position):
            return
        point = plot.vb.mapSceneToView(position)
        text = self.cell_text(side, round(point.y()), round(point.x()))
        if text is not None:
            QToolTip.showText(QCursor.pos(), text, self.plots[side])

    def _describe_columns(self) -> None:
        """Columns too narrow for their labels are numbered; the legend names them."""
        lines = []
        for side, table in self.tables.items():
            if not column_numbers_needed([str(v) for v in table.columns], self._room()):
                continue
            names = ", ".join(f"{i + 1} = {v}" for i, v in enumerate(table.columns))
            if lines and lines[-1].endswith(names):  # the same columns on both sides
                lines[-1] = f"Columns: {names}"
                continue
            lines.append(f"{side.capitalize()} columns: {names}")
        self.column_legend.setText("\n".join(lines))

    def _room(self) -> int:
        return max(self.plots["input"].width() - 120, 200)

    def _draw(self, side: str, table: pd.DataFrame, first: str, second: str) -> None:
        plot = self.plots[side].getPlotItem()
        image = self.images[side]
        image.setImage(table.to_numpy(dtype=float) if table.size else np.zeros((1, 1)),
                       autoLevels=False)
        image.setLevels(self.color_bars[side].levels())
        image.setRect(-0.5, -0.5, max(table.shape[1], 1), max(table.shape[0], 1))
        plot.getAxis("left").setTicks([thinned_ticks([str(v) for v in table.index], 25)])
        plot.getAxis("bottom").setTicks([column_ticks([str(v) for v in table.columns],
                                                      self._room())])
        set_axis_label(plot, "left", first)
        set_axis_label(plot, "bottom", second)
        plot.setXRange(-0.5, max(table.shape[1], 1) - 0.5, padding=0)
        plot.setYRange(-0.5, max(table.shape[0], 1) - 0.5, padding=0)
