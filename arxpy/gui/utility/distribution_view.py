"""Distribution of one attribute: input and output bar charts side by side."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from arxpy.analysis.generalized import read_numeric
from arxpy.analysis.statistics import UtilityStatistics, frequencies
from arxpy.data.definition import DataKind, DataType
from arxpy.gui.plain_text import set_axis_label
from arxpy.gui.utility.common import (
    MAX_CATEGORIES,
    SIDE_COLORS,
    bar_chart,
    note,
    plot_widget,
    side_label,
)

#: Bins of a histogram drawn for numbers with more distinct values than bars fit.
HISTOGRAM_BINS = 25


def _label(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 or float(value).is_integer() else f"{value:.3g}"


def _nice_edges(low: float, high: float) -> np.ndarray:
    """About HISTOGRAM_BINS equal bins from ``low`` to ``high`` with a round width
    (1, 2, 2.5 or 5 times a power of ten) starting at a multiple of it."""
    span = max(high - low, 1e-9)
    raw = span / HISTOGRAM_BINS
    power = 10.0 ** np.floor(np.log10(raw))
    width = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    start = np.floor(low / width) * width
    count = int(np.ceil((high - start) / width)) or 1
    return start + width * np.arange(count + 1)


def _histogram(values: pd.Series) -> pd.DataFrame:
    """Counts of plain numbers in equal-width bins up to the 99th percentile, one open bin
    above it (long tails such as charges would squeeze everything into one bar), then the
    values carrying no single number (intervals, '*', missing) by label."""
    reading = read_numeric(values)
    plain = reading.numeric & ~reading.interval
    numbers = reading.low[plain]
    rows = []
    if numbers.size:
        edges = _nice_edges(float(numbers.min()), float(np.percentile(numbers, 99)))
        counts, _ = np.histogram(numbers[numbers <= edges[-1]], bins=edges)
        rows = [(f"[{_label(a)}, {_label(b)}[", int(c))
                for a, b, c in zip(edges[:-1], edges[1:], counts, strict=True)]
        above = int((numbers > edges[-1]).sum())
        if above:
            rows.append((f">{_label(edges[-1])}", above))
    rest = frequencies(values[~plain])
    rows += list(zip(rest["value"], rest["count"], strict=True))
    table = pd.DataFrame(rows, columns=["value", "count"])
    table["share"] = table["count"] / max(len(values), 1)
    return table


def value_order(labels: pd.Series, data_type: DataType) -> np.ndarray:
    """Positions that sort ``labels`` by value: numbers and intervals by their lower
    bound, ordinal values by their order; other labels keep their place after them."""
    if data_type.kind in (DataKind.INTEGER, DataKind.DECIMAL):
        reading = read_numeric(labels)
        return np.argsort(np.where(np.isnan(reading.low), np.inf, reading.low), kind="stable")
    if data_type.kind is DataKind.ORDINAL and data_type.order:
        position = {v: i for i, v in enumerate(data_type.order)}
        key = np.array([position.get(v, len(position)) for v in labels])
        return np.argsort(key, kind="stable")
    return np.arange(len(labels))


def binned(values: pd.Series, data_type: DataType, most: int) -> pd.Series:
    """Plain numbers put into round-width interval labels when there are more than
    ``most`` distinct values; anything else unchanged."""
    if data_type.kind not in (DataKind.INTEGER, DataKind.DECIMAL) or values.nunique() <= most:
        return values
    reading = read_numeric(values)
    plain = reading.numeric & ~reading.interval
    if not plain.any():
        return values
    edges = _nice_edges(float(reading.low[plain].min()), float(reading.low[plain].max()))
    edges = edges[:: max(1, int(np.ceil(len(edges) / most)))]
    if edges[-1] <= reading.low[plain].max():
        edges = np.append(edges, edges[-1] + (edges[1] - edges[0] if len(edges) > 1 else 1))
    index = np.clip(np.searchsorted(edges, reading.low, side="right") - 1, 0, len(edges) - 2)
    labels = np.array([f"[{_label(a)}, {_label(b)}[" for a, b in zip(edges[:-1], edges[1:],
                                                                      strict=True)], dtype=object)
    out = values.to_numpy(dtype=object).copy()
    out[plain] = labels[index[plain]]
    return pd.Series(out, index=values.index, name=values.name)


def distribution(values: pd.Series, data_type: DataType) -> tuple[pd.DataFrame, str]:
    """Bars to draw for ``values``: (table of value, count, share; note on what was done).

    Numbers and intervals are ordered by value, ordinal values by their order, other
    values by frequency. Too many numbers become a histogram; too many other values keep
    the most frequent and sum the rest as 'other'.
    """
    table = frequencies(values)
    kind = data_type.kind
    if kind in (DataKind.INTEGER, DataKind.DECIMAL):
        if len(table) > MAX_CATEGORIES:
            return _histogram(values), ("histogram of the numbers; the last bar holds those "
                                        "above the 99th percentile")
        return table.iloc[value_order(table["value"], data_type)].reset_index(drop=True), ""
    if kind is DataKind.ORDINAL:
        table = table.iloc[value_order(table["value"], data_type)].reset_index(drop=True)
    if len(table) > MAX_CATEGORIES:
        kept = table.head(MAX_CATEGORIES - 1)
        rest = table.iloc[MAX_CATEGORIES - 1:]
        other = pd.DataFrame({"value": [f"other ({len(rest):,} values)"],
                              "count": [int(rest["count"].sum())],
                              "share": [float(rest["share"].sum())]})
        return (pd.concat([kept, other], ignore_index=True),
                f"the {MAX_CATEGORIES - 1} most frequent shown")
    return table, ""


class DistributionView(QWidget):
    """An attribute picker and two bar charts: share of records per value, input | output."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.statistics: UtilityStatistics | None = None
        self.attribute = QComboBox()
        self.attribute.setMinimumWidth(200)
        self.attribute.currentTextChanged.connect(self._show)
        self.plots = {side: plot_widget("", "", "% of records") for side in SIDE_COLORS}
        self.notes = {side: note() for side in SIDE_COLORS}
        self.tables: dict[str, pd.DataFrame] = {}
        top = QHBoxLayout()
        top.addWidget(QLabel("Attribute:"))
        top.addWidget(self.attribute)
        top.addStretch(1)
        grid = QGridLayout()
        for column, side in enumerate(SIDE_COLORS):
            title = QLabel(side_label(side))
            grid.addWidget(title, 0, column)
            grid.addWidget(self.plots[side], 1, column)
            grid.addWidget(self.notes[side], 2, column)
        grid.setRowStretch(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(grid, 1)

    def set_statistics(self, statistics: UtilityStatistics | None) -> None:
        current = self.attribute.currentText()
        self.statistics = statistics
        self.attribute.blockSignals(True)
        self.attribute.clear()
        names = list(statistics.input_summary.index) if statistics is not None else []
        self.attribute.addItems(names)
        self.attribute.blockSignals(False)
        if names:
            self.select(current if current in names else names[0])
        else:
            self._clear()

    def select(self, attribute: str) -> None:
        self.attribute.setCurrentText(attribute)
        self._show(attribute)

    def _clear(self) -> None:
        """Empty charts and notes, as before any statistics (no other data's figures)."""
        self.tables = {}
        for side, widget in self.plots.items():
            plot = widget.getPlotItem()
            plot.clear()
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTicks(None)
            plot.invertY(False)
            plot.setLabel("left", "% of records")
            plot.setLabel("bottom", "")
            self.notes[side].setText("")

    def _show(self, attribute: str) -> None:
        stats = self.statistics
        if stats is None or not attribute:
            self._clear()
            return
        data_type = stats.definition[attribute].data_type
        for side, frame in (("input", stats.input), ("output", stats.published())):
            table, remark = distribution(frame[attribute], data_type)
            self.tables[side] = table
            numeric = data_type.kind in (DataKind.INTEGER, DataKind.DECIMAL, DataKind.ORDINAL)
            # Long category names read better on the vertical axis; ordered values left to
            # right, as a histogram.
            horizontal = not numeric
            plot = self.plots[side]
            bar_chart(plot, list(table["value"]), 100 * table["share"].to_numpy(),
                      SIDE_COLORS[side], horizontal=horizontal)
            item = plot.getPlotItem()
            item.setLabel("left" if not horizontal else "bottom", "% of records")
            set_axis_label(item, "bottom" if not horizontal else "left", attribute)
            records = int(table["count"].sum())
            distinct = len(frame[attribute].unique())
            self.notes[side].setText(f"{records:,} records, {distinct:,} distinct "
                                     f"value{'' if distinct == 1 else 's'}"
                                     + (f"; {remark}" if remark else ""))
