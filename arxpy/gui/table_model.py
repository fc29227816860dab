"""A virtual Qt table model over a DataFrame of strings, colored by attribute type."""

from __future__ import annotations

from typing import Any

import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from arxpy.data.definition import AttributeType, DataDefinition

#: Background per attribute type, ARX's convention (red/yellow/purple/green), softened
#: so that black text stays readable.
ATTRIBUTE_COLORS: dict[AttributeType, str] = {
    AttributeType.IDENTIFYING: "#f4c7c3",
    AttributeType.QUASI_IDENTIFYING: "#fce8b2",
    AttributeType.SENSITIVE: "#e1d5f0",
    AttributeType.INSENSITIVE: "#d9ead3",
}

_Index = QModelIndex | QPersistentModelIndex


class DataFrameModel(QAbstractTableModel):
    """Read-only model; Qt asks only for visible cells, so a million rows scroll smoothly."""

    def __init__(self, frame: pd.DataFrame, definition: DataDefinition, parent=None) -> None:
        super().__init__(parent)
        self._frame = frame
        self._values = frame.to_numpy(dtype=object)  # row access without pandas overhead
        self._definition = definition
        self._brushes = {t: QBrush(QColor(c)) for t, c in ATTRIBUTE_COLORS.items()}

    def set_definition(self, definition: DataDefinition) -> None:
        self._definition = definition
        last = self.columnCount() - 1
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, last)
        self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, last))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else self._values.shape[0]

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._values.shape[1]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._values[index.row(), index.column()]
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._brushes[self._attribute(index.column()).type]
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Vertical:
            return section + 1 if role == Qt.ItemDataRole.DisplayRole else None
        attribute = self._attribute(section)
        if role == Qt.ItemDataRole.DisplayRole:
            return attribute.name
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{attribute.name}\n{attribute.type.label}\n{attribute.data_type.describe()}"
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._brushes[attribute.type]
        return None

    def _attribute(self, column: int):
        return self._definition[str(self._frame.columns[column])]
