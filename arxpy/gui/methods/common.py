"""Pieces the method result views share: a privacy caveat banner, a row of figures, a
small table model and a job that starts the first time its view is shown."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from arxpy.formatting import figure
from arxpy.gui.utility.common import VERMILLION, note, plot_widget

#: Okabe-Ito colours after blue (input) and orange (output), for further series.
SERIES_COLORS = ("#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000")

_Index = QModelIndex | QPersistentModelIndex


def caveat_banner(text: str) -> QLabel:
    """A prominent, word-wrapped privacy caveat (amber box, bold lead)."""
    label = QLabel(f"<b>Privacy caveat:</b> {html.escape(text)}")
    label.setObjectName("privacyCaveat")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setStyleSheet("QLabel#privacyCaveat { background: #fff4d6; border: 1px solid "
                        "#e0b34a; border-radius: 4px; padding: 6px; color: #3d2c00; }")
    return label


def cancel_jobs_on_destroy(widget: QWidget, *owners: Any) -> None:
    """When ``widget`` is destroyed (its run closed), cancel the job each owner's
    ``worker`` still runs: nobody will see its result, and it would hold a core."""
    def cancel(*_: Any) -> None:
        for owner in owners:
            worker = getattr(owner, "worker", None)
            if worker is not None:
                worker.cancel()  # plain Python: works after the Qt object is gone

    widget.destroyed.connect(cancel)


class Figures(QFrame):
    """A grid of named figures (title above a large value, a grey note below)."""

    def __init__(self, items: Sequence[tuple[str, str, str]], columns: int = 4,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.values: dict[str, QLabel] = {}
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for i, (title, value, explanation) in enumerate(items):
            box = QFrame()
            box.setObjectName("figure")
            box.setStyleSheet("QFrame#figure { background: #fafafa; border: 1px solid #ddd; "
                              "border-radius: 4px; }")
            layout = QVBoxLayout(box)
            layout.setContentsMargins(8, 4, 8, 4)
            layout.setSpacing(1)
            heading = QLabel(f"<b>{html.escape(title)}</b>")
            shown = QLabel(value)
            shown.setStyleSheet("font-size: 16pt; font-weight: bold; color: #222")
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            comment = QLabel(explanation)
            comment.setWordWrap(True)
            comment.setStyleSheet("color: #555; font-size: 8pt")
            for widget in (heading, shown, comment):
                layout.addWidget(widget)
            layout.addStretch(1)
            self.values[title] = shown
            grid.addWidget(box, i // columns, i % columns)
        for column in range(columns):
            grid.setColumnStretch(column, 1)

    def text(self, title: str) -> str:
        return self.values[title].text()


def number(value: Any, digits: int = 4) -> str:
    """A figure for a table cell; NaN and None as an em dash."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "—"
    return figure(value, digits)


class FrameModel(QAbstractTableModel):
    """A read-only model over a DataFrame (cells formatted once per visible cell)."""

    def __init__(self, frame: pd.DataFrame, parent=None,
                 formatter: Callable[[Any], str] = str) -> None:
        super().__init__(parent)
        self.frame = frame
        # Column arrays, not an object matrix: building that took ~0.3 s at 50,000 rows.
        self._columns = [frame[c].to_numpy() for c in frame.columns]
        self._formatter = formatter

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.frame)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self._columns[index.column()][index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._formatter(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and isinstance(value, int | float
                                                                    | np.number):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return str(self.frame.columns[section])
        return section + 1


def frame_view(frame: pd.DataFrame, formatter: Callable[[Any], str] = str) -> QTableView:
    """A read-only table view over ``frame`` that scrolls any number of rows."""
    view = QTableView()
    view.setModel(FrameModel(frame, view, formatter))
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.verticalHeader().setDefaultSectionSize(22)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    return view


class SizeHistogram(QWidget):
    """Number of groups per group size, with k marked: no bar may stand left of the line."""

    def __init__(self, sizes: np.ndarray, k: int, what: str = "box",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        values, counts = np.unique(np.asarray(sizes), return_counts=True)
        self.plot = plot_widget(f"{what.capitalize()} sizes (dashed line: k = {k})",
                                f"records in the {what}",
                                f"{what}es" if what.endswith("x") else f"{what}s")
        plot = self.plot.getPlotItem()
        width = max(0.8, 0.8 * (values.max() - values.min() + 1) / 60) if len(values) else 0.8
        plot.addItem(pg.BarGraphItem(x=values.astype(float), height=counts.astype(float),
                                     width=width, brush=pg.mkBrush(SERIES_COLORS[0]),
                                     pen=pg.mkPen("#9c6b00")))
        plot.addItem(pg.InfiniteLine(k - 0.5, angle=90, pen=pg.mkPen(
            VERMILLION, width=2, style=Qt.PenStyle.DashLine)))
        low = min(k - 1.5, float(values.min()) - 1) if len(values) else k - 1.5
        high = float(values.max()) + 1 if len(values) else k + 1.0
        plot.setXRange(low, high, padding=0.02)
        step = max(1, int(np.ceil((high - low) / 15)))  # sizes are whole records
        plot.getAxis("bottom").setTickSpacing(step, step)
        plot.setYRange(0, float(counts.max()) * 1.1 if len(counts) else 1, padding=0)
        smallest = int(values.min()) if len(values) else 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 1)
        layout.addWidget(note(f"Smallest {what}: {smallest} records; no bar may stand left "
                              "of the dashed line."))
