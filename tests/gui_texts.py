"""Every text a widget tree shows: labels, buttons, tables and their headers, lists,
combo boxes, tab titles, tooltips and the titles, axis labels and legends of
pyqtgraph plots. Tests compare what two windows show, or look for a name in it.

:func:`rich_texts` lists the texts Qt or pyqtgraph would read as HTML (rich-text labels
and tooltips, every pyqtgraph label), to check that data never reaches them unescaped.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyqtgraph as pg
from PySide6 import QtGui
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QTabWidget,
    QWidget,
)

#: Most rows of one table or list read (views of large data hold thousands).
MAX_ROWS = 200


def might_be_rich(text: str) -> bool:
    """Whether Qt would render ``text`` as rich text where it guesses (tooltips, labels
    in their default format)."""
    return bool(text) and QtGui.Qt.mightBeRichText(text)


def _model_texts(view: QAbstractItemView) -> Iterator[tuple[str, bool]]:
    """(text, read as HTML) of a view's cells and headers, tooltips included."""
    model = view.model()
    if model is None:
        return
    root = QModelIndex()
    rows = min(model.rowCount(root), MAX_ROWS)
    try:
        columns = model.columnCount(root)
    except TypeError:  # a list model (QListWidget's) keeps columnCount private
        columns = 1
    for orientation, count in ((Qt.Orientation.Horizontal, columns),
                               (Qt.Orientation.Vertical, min(rows, 50))):
        for section in range(count):
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = model.headerData(section, orientation, role)
                if value not in (None, ""):
                    yield str(value), role == Qt.ItemDataRole.ToolTipRole
    for row in range(rows):
        for column in range(columns):
            index = model.index(row, column)
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = model.data(index, role)
                if value not in (None, ""):
                    yield str(value), role == Qt.ItemDataRole.ToolTipRole


def _plot_texts(widget: pg.GraphicsView) -> Iterator[str]:
    """Titles, axis labels, legend entries and text items of a pyqtgraph widget (all
    rendered as HTML by pyqtgraph)."""
    scene = widget.scene()
    if scene is None:
        return
    for item in scene.items():
        if isinstance(item, pg.LabelItem):
            yield str(item.text)
        elif isinstance(item, pg.AxisItem):
            if item.labelText:
                yield str(item.labelText)
        elif isinstance(item, pg.TextItem):
            yield item.textItem.toHtml() if item.textItem.toPlainText() else ""


def _widget_texts(widget: QWidget) -> Iterator[tuple[str, bool]]:
    """(text, read as HTML) of one widget, not of its children."""
    if widget.toolTip():
        yield widget.toolTip(), might_be_rich(widget.toolTip())
    if isinstance(widget, QLabel):
        text, fmt = widget.text(), widget.textFormat()
        rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText
                                                 and might_be_rich(text))
        yield text, rich
    elif isinstance(widget, QAbstractButton | QLineEdit):
        yield widget.text(), False
    elif isinstance(widget, QGroupBox):
        yield widget.title(), False
    elif isinstance(widget, QComboBox):
        for i in range(widget.count()):
            yield widget.itemText(i), False
            tip = widget.itemData(i, Qt.ItemDataRole.ToolTipRole)
            if tip:
                yield str(tip), might_be_rich(str(tip))
    elif isinstance(widget, QTabWidget):
        for i in range(widget.count()):
            yield widget.tabText(i), False
            if widget.tabToolTip(i):
                yield widget.tabToolTip(i), might_be_rich(widget.tabToolTip(i))
    elif isinstance(widget, QAbstractItemView):
        for text, is_tip in _model_texts(widget):
            yield text, might_be_rich(text) if is_tip else False
    elif isinstance(widget, pg.GraphicsView):
        for text in _plot_texts(widget):
            yield text, True


def texts_with_format(root: QWidget) -> list[tuple[str, bool]]:
    """(text, read as HTML) of ``root`` and every widget under it, in a stable order."""
    out: list[tuple[str, bool]] = []
    for widget in [root, *root.findChildren(QWidget)]:
        out.extend((text, rich) for text, rich in _widget_texts(widget) if text)
    return out


def _path(root: QWidget, widget: QWidget) -> str:
    path, parent = [], widget
    while parent is not None and parent is not root:
        path.append(type(parent).__name__)
        parent = parent.parentWidget()
    return " < ".join(path[:6])


def rich_texts_by_widget(root: QWidget) -> list[tuple[str, str]]:
    """(widget path, text) of every text under ``root`` rendered as HTML."""
    return [(_path(root, widget), text) for widget in [root, *root.findChildren(QWidget)]
            for text, rich in _widget_texts(widget) if text and rich]


def where(root: QWidget, text: str, rich: bool = False) -> list[str]:
    """The widgets under ``root`` that show ``text`` (with ``rich``: as HTML), as class
    names from the widget up to the root."""
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if any(t == text and (r or not rich) for t, r in _widget_texts(widget)):
            found.append(_path(root, widget))
    return found


def shown_texts(root: QWidget) -> list[str]:
    """Every text of ``root`` and the widgets under it, in a stable order."""
    return [text for text, _rich in texts_with_format(root)]


def rich_texts(root: QWidget) -> list[str]:
    """The texts under ``root`` that are rendered as HTML."""
    return [text for text, rich in texts_with_format(root) if rich]
