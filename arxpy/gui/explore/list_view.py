"""A sortable table of transformations, sharing the lattice's filter."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QTableView, QVBoxLayout, QWidget

from arxpy.gui.explore.filters import NodeFilter
from arxpy.gui.plain_text import tooltip
from arxpy.search import ANONYMOUS, NOT_ANONYMOUS
from arxpy.search import STATE_NAMES as STATE_LABELS
from arxpy.workflows.lattice_nodes import LatticeNodes

_Index = QModelIndex | QPersistentModelIndex
_TAIL = ["State", "Score", "Relative score", "Suppressed records"]


class TransformationModel(QAbstractTableModel):
    """Rows = transformations passing the filter; sorting is a numpy argsort."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.nodes: LatticeNodes | None = None
        self.rows = np.zeros(0, dtype=np.int64)
        self._brushes = {ANONYMOUS: QBrush(QColor("#e3eef8")),
                         NOT_ANONYMOUS: QBrush(QColor("#fbe3d6"))}
        self._sort: tuple[int, Qt.SortOrder] | None = None
        #: Lattice rows marked in the row header: optimum, applied, pinned.
        self.marks: dict[int, str] = {}
        self._marked: tuple[tuple[int, ...] | None, list[tuple[int, ...]]] = (None, [])
        self._bold = QFont()
        self._bold.setBold(True)

    def set_content(self, nodes: LatticeNodes | None, node_filter: NodeFilter) -> None:
        self.beginResetModel()
        self.nodes = nodes
        self.rows = np.zeros(0, dtype=np.int64) if nodes is None else \
            np.flatnonzero(node_filter.mask(nodes))
        if nodes is not None and self._sort is None:
            self.rows = default_order(nodes, self.rows)
        self._compute_marks()
        self.endResetModel()
        if self._sort is not None:
            self.sort(*self._sort)

    def set_marks(self, applied: tuple[int, ...] | None,
                  pinned: list[tuple[int, ...]]) -> None:
        """Mark the optimum, the applied and the pinned transformations' rows."""
        self._marked = (applied, list(pinned))
        self._compute_marks()
        if self.rows.size:
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, len(self.rows) - 1)
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(self.rows) - 1, self.columnCount() - 1))

    def _compute_marks(self) -> None:
        applied, pinned = self._marked
        marks: dict[int, list[str]] = {}
        nodes = self.nodes
        if nodes is not None:
            if nodes.optimum is not None:
                marks.setdefault(nodes.optimum, []).append("★ optimum")
            for levels, word in [(applied, "applied")] + [(p, "pinned") for p in pinned]:
                row = nodes.row_of(levels) if levels is not None else None
                if row is not None:
                    marks.setdefault(row, []).append(word)
        self.marks = {row: " · ".join(words) for row, words in marks.items()}

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() or self.nodes is None else len(self.nodes.names) + 4

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if self.nodes is None:
            return None
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal:
            names = self.nodes.names
            return tooltip(names[section]) if section < len(names) else None
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Vertical:
            mark = self.marks.get(int(self.rows[section])) if section < len(self.rows) else None
            return mark or section + 1
        names = self.nodes.names
        return names[section] if section < len(names) else _TAIL[section - len(names)]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.nodes is None:
            return None
        row, column, nodes = int(self.rows[index.row()]), index.column(), self.nodes
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._brushes.get(int(nodes.states[row]))
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if row in self.marks else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._full_precision(row, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column != len(nodes.names):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        q = len(nodes.names)
        if column < q:
            return int(nodes.levels[row, column])
        if column == q:
            return STATE_LABELS[int(nodes.states[row])]
        if column == q + 1:
            return "" if np.isnan(nodes.scores[row]) else f"{nodes.scores[row]:.6g}"
        if column == q + 2:
            return "" if np.isnan(nodes.relative[row]) else f"{100 * nodes.relative[row]:.2f} %"
        return "" if nodes.suppressed[row] < 0 else f"{int(nodes.suppressed[row]):,}"

    def _full_precision(self, row: int, column: int) -> str | None:
        q, nodes = len(self.nodes.names), self.nodes
        value = {q + 1: nodes.scores, q + 2: nodes.relative}.get(column)
        if value is None or np.isnan(value[row]):
            return None
        exact = float(value[row])
        return repr(exact) if column == q + 1 else f"{100 * exact!r} %"

    def sort_key(self, column: int) -> np.ndarray:
        nodes, q = self.nodes, len(self.nodes.names)
        if column < q:
            return nodes.levels[self.rows, column].astype(np.float64)
        values = {q: nodes.states, q + 1: nodes.scores, q + 2: nodes.relative,
                  q + 3: nodes.suppressed}[column][self.rows].astype(np.float64)
        if column == q + 3:
            values[values < 0] = np.nan
        return values

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if self.nodes is None or column < 0:
            return
        self._sort = (column, order)
        self.layoutAboutToBeChanged.emit()
        key = self.sort_key(column)
        descending = order == Qt.SortOrder.DescendingOrder
        # Unknown values last either way.
        filled = np.where(np.isnan(key), np.inf if not descending else -np.inf, key)
        permutation = np.argsort(-filled if descending else filled, kind="stable")
        self.rows = self.rows[permutation]
        self.layoutChanged.emit()

    def levels_at(self, position: int) -> tuple[int, ...]:
        return self.nodes.levels_of(int(self.rows[position]))


def default_order(nodes: LatticeNodes, rows: np.ndarray) -> np.ndarray:
    """The optimum first, then anonymous before the rest, each by score (unknown last),
    fewer generalization steps, then lattice order."""
    scores = nodes.scores[rows]
    key = (rows, nodes.heights[rows], np.where(np.isnan(scores), np.inf, scores),
           nodes.states[rows] != ANONYMOUS, rows != (-1 if nodes.optimum is None
                                                      else nodes.optimum))
    return rows[np.lexsort(key)]


class TransformationList(QWidget):
    """The table; a click selects, a double-click applies."""

    selected = Signal(object)
    applied = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = TransformationModel(self)
        self._resize_pending = False
        self.table = QTableView()
        self.table.setModel(self.model)
        # No column is sorted at first: the default order puts the optimum on top.
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setDefaultSectionSize(20)
        # Size columns from the first rows only: measuring 12,960 rows stalls the GUI.
        self.table.horizontalHeader().setResizeContentsPrecision(20)
        # A long attribute name in a narrow level column ends in "…" (full name in the
        # tooltip) instead of being cut at both sides.
        self.table.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.clicked.connect(lambda i: self.selected.emit(self.model.levels_at(i.row())))
        self.table.doubleClicked.connect(
            lambda i: self.applied.emit(self.model.levels_at(i.row())))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)

    def set_content(self, nodes: LatticeNodes | None, node_filter: NodeFilter) -> None:
        # A new result resizes the columns (when shown: measuring costs ~0.1 s); a new
        # filter keeps the columns as the user left them.
        self._resize_pending |= nodes is not self.model.nodes
        self.model.set_content(nodes, node_filter)
        if self.isVisible():
            self._resize_columns()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self._resize_columns()

    def _resize_columns(self) -> None:
        if self._resize_pending:
            self._resize_pending = False
            self.table.resizeColumnsToContents()
            # Level columns hold one digit: long attribute names (elided, full name in the
            # header's tooltip) must not push State and Score out of a 1280-pixel window.
            names = len(self.model.nodes.names) if self.model.nodes is not None else 0
            for column in range(names):
                self.table.setColumnWidth(column, min(self.table.columnWidth(column), 64))
            self._widen_level_columns(names)

    def _widen_level_columns(self, names: int) -> None:
        """Room left of the table goes to the level columns, up to their full names."""
        header = self.table.horizontalHeader()
        spare = self.table.viewport().width() - header.length()
        for column in range(names):
            if spare <= 0:
                return
            grow = min(max(header.sectionSizeHint(column) - header.sectionSize(column), 0),
                       spare)
            self.table.setColumnWidth(column, header.sectionSize(column) + grow)
            spare -= grow
