"""Shared look of the Risk perspective: palette, number formats and read-only tables.

Input and output are told apart by the same two colours everywhere (Okabe-Ito, safe
for the common colour-vision deficiencies): input blue, output orange. Monitors use
Okabe-Ito's vermillion and bluish green, always together with a symbol and a word.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
)

from arxpy.formatting import figure as number  # noqa: F401 (the views import it here)
from arxpy.formatting import fixed_percent, percent  # noqa: F401

INPUT_COLOR = "#0072B2"
OUTPUT_COLOR = "#E69F00"
EXCEEDED_COLOR = "#D55E00"  # Okabe-Ito vermillion
MET_COLOR = "#009E73"  # Okabe-Ito bluish green
THRESHOLD_COLOR = "#333333"
SIDE_COLORS = {"input": INPUT_COLOR, "output": OUTPUT_COLOR}
NOTE_STYLE = "color: #555"
#: Item data role holding the raw number behind a formatted cell.
VALUE_ROLE = Qt.ItemDataRole.UserRole + 1
#: Item data role naming the side ("input"/"output") whose colour a value bar takes.
SIDE_ROLE = Qt.ItemDataRole.UserRole + 2
ROW_HEIGHT = 22


def note(text: str = "") -> QLabel:
    """A grey, word-wrapped explanatory label."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet(NOTE_STYLE)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


def side_label(side: str, text: str) -> str:
    """Rich text: a square in the side's colour, then ``text`` in bold."""
    return (f"<span style='color:{SIDE_COLORS[side]}; font-size: 13pt'>■</span> "
            f"<b>{text}</b>")


class SortableItem(QTableWidgetItem):
    """A cell that sorts by its raw number (VALUE_ROLE) when it has one."""

    def __lt__(self, other: QTableWidgetItem) -> bool:
        mine, theirs = self.data(VALUE_ROLE), other.data(VALUE_ROLE)
        if isinstance(mine, int | float) and isinstance(theirs, int | float):
            return float(mine) < float(theirs)
        return self.text() < other.text()  # super().__lt__ would call back into Python


def text_item(text: str, bold: bool = False) -> QTableWidgetItem:
    item = SortableItem(text)
    if bold:
        font = QFont()
        font.setBold(True)
        item.setFont(font)
    return item


def value_item(value: float | None, side: str | None = None,
               formatter=percent) -> QTableWidgetItem:
    """A right-aligned cell showing ``formatter(value)``, the raw value in VALUE_ROLE and
    (with ``side``) a bar of that side's colour behind it (see :class:`BarDelegate`)."""
    item = SortableItem(formatter(value))
    item.setData(VALUE_ROLE, None if value is None else float(value))
    if side is not None:
        item.setData(SIDE_ROLE, side)
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class BarDelegate(QStyledItemDelegate):
    """Draws a pale bar of length value (a fraction in [0, 1]) behind a cell's text, in
    the colour of its side, so that input and output read at a glance (as ARX does)."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        value, side = index.data(VALUE_ROLE), index.data(SIDE_ROLE)
        if isinstance(value, float) and side in SIDE_COLORS and not math.isnan(value):
            rect = QRectF(option.rect).adjusted(2, 3, -2, -3)
            rect.setWidth(rect.width() * min(max(value, 0.0), 1.0))
            color = QColor(SIDE_COLORS[side])
            color.setAlpha(70)
            painter.fillRect(rect, color)
        super().paint(painter, option, index)


def read_only_table(columns: Sequence[str], bars: bool = False) -> QTableWidget:
    """A compact, read-only, row-selecting table with ``columns`` as headers."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.verticalHeader().hide()
    table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    if bars:
        table.setItemDelegate(BarDelegate(table))
    return table
