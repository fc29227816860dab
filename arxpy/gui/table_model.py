"""A virtual Qt table model over a DataFrame of strings, colored by attribute type; set-valued
attributes show their codes as chips (:mod:`arxpy.gui.code_sets`)."""

from __future__ import annotations

from typing import Any

import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QTableView

from arxpy.data.definition import AttributeType, DataDefinition, DataKind
from arxpy.gui.code_sets import (
    CodeChipsDelegate,
    cell_codes,
    chips_text,
    codes_tooltip,
    column_figures,
    figures_text,
    warm_up_descriptions,
)
from arxpy.gui.plain_text import tooltip

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
        self._code_delimiters: dict[int, str] = {}
        self._figures: dict[tuple[int, str], str] = {}  # header line of a set column
        self._find_set_columns()

    def set_definition(self, definition: DataDefinition) -> None:
        self._definition = definition
        self._find_set_columns()
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
        value = self._values[index.row(), index.column()]
        delimiter = self._code_delimiters.get(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return value if delimiter is None else chips_text(value, delimiter)
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._brushes[self._attribute(index.column()).type]
        if delimiter is not None and role == Qt.ItemDataRole.ToolTipRole:
            return tooltip(codes_tooltip(cell_codes(value, delimiter)))
        if role == Qt.ItemDataRole.UserRole:
            return value
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Vertical:
            return section + 1 if role == Qt.ItemDataRole.DisplayRole else None
        attribute = self._attribute(section)
        figures = self.set_figures(section)
        if role == Qt.ItemDataRole.DisplayRole:  # a set's figures on two short lines
            return attribute.name if figures is None else \
                f"{attribute.name}\n" + figures.replace(" codes, ", " codes\n", 1)
        if role == Qt.ItemDataRole.ToolTipRole:  # the name as text, never as HTML
            return tooltip(f"{attribute.name}\n{attribute.type.label}\n"
                           f"{attribute.data_type.describe()}" + (f"\n{figures}" if figures
                                                                 else ""))
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._brushes[attribute.type]
        return None

    def _attribute(self, column: int):
        return self._definition[str(self._frame.columns[column])]

    # --- set-valued columns ----------------------------------------------------------------

    def _find_set_columns(self) -> None:
        self._code_delimiters = {
            column: attribute.data_type.code_delimiter
            for column in range(self._values.shape[1])
            if (attribute := self._attribute(column)).data_type.kind is DataKind.SET}
        if self._code_delimiters:
            warm_up_descriptions()

    def set_figures(self, column: int) -> str | None:
        """``set, 631 distinct codes, 5.11 avg, 43 max`` for a set column, else None
        (counted once per column and delimiter)."""
        delimiter = self._code_delimiters.get(column)
        if delimiter is None:
            return None
        key = (column, delimiter)
        if key not in self._figures:
            self._figures[key] = figures_text(column_figures(self._frame.iloc[:, column],
                                                             delimiter))
        return self._figures[key]

    def show_code_chips(self, view: QTableView) -> None:
        """Paint the set columns of ``view`` (showing this model) as chips."""
        for column in range(self.columnCount()):
            delimiter = self._code_delimiters.get(column)
            current = view.itemDelegateForColumn(column)
            if delimiter is None:
                if isinstance(current, CodeChipsDelegate):
                    view.setItemDelegateForColumn(column, None)
            elif not isinstance(current, CodeChipsDelegate) or current.delimiter != delimiter:
                view.setItemDelegateForColumn(column, CodeChipsDelegate(delimiter, view))
