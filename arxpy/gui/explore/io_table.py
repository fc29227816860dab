"""Input and output side by side, scrolling together; suppressed rows marked."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QLabel, QSplitter, QTableView, QVBoxLayout, QWidget

_Index = QModelIndex | QPersistentModelIndex
SUPPRESSED_BRUSH = QBrush(QColor("#e6e6e6"))
#: Alternating backgrounds of equivalence classes (white, light blue).
CLASS_BRUSHES = (None, QBrush(QColor("#e8f0fa")))


class MarkedTableModel(QAbstractTableModel):
    """A read-only table; rows flagged in ``marked`` are grey and italic."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._values = np.empty((0, 0), dtype=object)
        self._columns: list[str] = []
        self._marked = np.zeros(0, dtype=bool)
        self._shades: np.ndarray | None = None
        self._italic = QFont()
        self._italic.setItalic(True)

    def set_frame(self, values: np.ndarray, columns: list[str], marked: np.ndarray,
                  shades: np.ndarray | None = None) -> None:
        """``shades`` (0/1 per row) alternates the background of equivalence classes."""
        self.beginResetModel()
        self._values, self._columns, self._marked = values, columns, marked
        self._shades = shades
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else self._values.shape[0]

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._values[index.row(), index.column()]
        marked = self._marked[index.row()] if len(self._marked) else False
        if role == Qt.ItemDataRole.BackgroundRole:
            if marked:
                return SUPPRESSED_BRUSH
            if self._shades is not None and len(self._shades):
                return CLASS_BRUSHES[int(self._shades[index.row()])]
            return None
        if role == Qt.ItemDataRole.FontRole and marked:
            return self._italic
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self._columns[section]
        suffix = " ✕" if len(self._marked) and self._marked[section] else ""
        return f"{section + 1}{suffix}"


def table_values(frame: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Cell values as an object array (done on a worker for large tables) and the header."""
    return frame.to_numpy(dtype=object), [str(c) for c in frame.columns]


class InputOutputTable(QWidget):
    """Two tables in a splitter whose vertical scroll bars move together."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.input_model, self.output_model = MarkedTableModel(self), MarkedTableModel(self)
        self.input_view, self.output_view = QTableView(), QTableView()
        for view, model in ((self.input_view, self.input_model),
                            (self.output_view, self.output_model)):
            view.setModel(model)
            view.verticalHeader().setDefaultSectionSize(20)
        bars = (self.input_view.verticalScrollBar(), self.output_view.verticalScrollBar())
        bars[0].valueChanged.connect(bars[1].setValue)
        bars[1].valueChanged.connect(bars[0].setValue)
        self.caption = QLabel("Input (left) and the applied transformation's output (right); "
                              "suppressed rows are grey, italic and marked ✕.")
        splitter = QSplitter()
        splitter.addWidget(self.input_view)
        splitter.addWidget(self.output_view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(splitter, 1)

    def set_tables(self, inputs: tuple[np.ndarray, list[str]] | None,
                   outputs: tuple[np.ndarray, list[str]] | None,
                   suppressed: np.ndarray | None, shades: np.ndarray | None = None) -> None:
        """Show prepared tables (see :func:`table_values`); None clears a side.
        ``shades`` (0/1 per row) shades alternate equivalence classes."""
        empty = (np.empty((0, 0), dtype=object), [])
        marked = np.zeros(0, dtype=bool) if suppressed is None else suppressed
        self.input_model.set_frame(*(inputs or empty), marked, shades)
        self.output_model.set_frame(*(outputs or empty), marked, shades)
