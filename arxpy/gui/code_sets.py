"""How set-valued attributes (a set of diagnosis codes per record, spec 002 §6) look in
the desktop application: compact chips in a table cell, ICD-9-CM descriptions in the
tooltip, and the column's figures (distinct codes, average and maximum per record).

A set-valued attribute is a column of the project's string table whose data type is
``set`` (:class:`arxpy.data.definition.DataKind`); each cell holds the record's codes
separated by the type's delimiter, which is exactly what the disassociation method reads
(its ``codes_column`` and ``delimiter``), so there is one path from the table to a run.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from arxpy.data import icd9
from arxpy.data.definition import DataDefinition, DataKind
from arxpy.data.transactions import split_cell

#: Codes shown as text in a cell before "(+n)".
SHOWN_CODES = 3
#: Codes described in a tooltip before "… and n more".
DESCRIBED_CODES = 20
CHIP_SEPARATOR = " · "
_CHIP_FILL, _CHIP_BORDER, _CHIP_TEXT = "#ffffff", "#8c9bab", "#1d2a36"


def display_code(code: str) -> str:
    """A stored code as users read it: undotted ICD-9 dotted (``29501`` -> ``295.01``)."""
    return icd9.dotted(icd9.normalize_code(code))


def cell_codes(value: object, delimiter: str) -> list[str]:
    """The codes of a cell for display: dotted, without repeats, sorted by code."""
    return sorted(dict.fromkeys(display_code(c) for c in split_cell(value, delimiter)))


def chips_text(value: object, delimiter: str, shown: int = SHOWN_CODES) -> str:
    """``296.00 · 296.01 · 834.0 (+2)``: the first ``shown`` codes and how many more."""
    codes = cell_codes(value, delimiter)
    text = CHIP_SEPARATOR.join(codes[:shown])
    return text + (f" (+{len(codes) - shown})" if len(codes) > shown else "")


def codes_tooltip(codes: Iterable[str], most: int = DESCRIBED_CODES) -> str:
    """One line per code with its ICD-9-CM short description; unknown codes flagged."""
    codes = list(codes)
    if not codes:
        return "no codes"
    lines = []
    for code in codes[:most]:
        key = icd9.normalize_code(code)
        known = icd9.is_known(key)
        lines.append(f"{display_code(code)}  {icd9.describe(key)}" if known
                     else f"{display_code(code)}  ⚠ not an ICD-9-CM code (kept, no hierarchy)")
    if len(codes) > most:
        lines.append(f"… and {len(codes) - most} more")
    return "\n".join(lines)


def column_figures(values: pd.Series, delimiter: str) -> dict[str, float]:
    """Distinct codes, average and maximum codes per record of a set-valued column
    (counted on distinct cells, so 50,000 records with a few thousand patterns are quick)."""
    cells, counts = np.unique(values.astype(str).to_numpy(), return_counts=True)
    distinct: set[str] = set()
    lengths = np.zeros(len(cells), dtype=np.int64)
    for i, cell in enumerate(cells):
        codes = set(split_cell(cell, delimiter))
        distinct.update(codes)
        lengths[i] = len(codes)
    records = int(counts.sum())
    return {"distinct": len(distinct),
            "mean": float((lengths * counts).sum() / records) if records else 0.0,
            "max": int(lengths.max()) if len(lengths) else 0}


def figures_text(figures: Mapping[str, float]) -> str:
    """``set, 631 distinct codes, 5.11 avg, 43 max`` (spec 002 §6)."""
    return (f"set, {figures['distinct']:,} distinct codes, {figures['mean']:.2f} avg, "
            f"{figures['max']} max")


def set_columns(definition: DataDefinition) -> list[str]:
    """The attributes whose data type is a set of codes."""
    return [a.name for a in definition if a.data_type.kind is DataKind.SET]


def set_valued_defaults(definition: DataDefinition, params: Iterable[Any]) -> dict[str, Any]:
    """Defaults of a set-valued method's ``codes_column`` and ``delimiter`` (among its
    ``params``) from the first set column of ``definition``; ``{}`` without one."""
    names = set_columns(definition)
    declared = {param.name for param in params}
    if not names or "codes_column" not in declared:
        return {}
    defaults = {"codes_column": names[0],
                "delimiter": definition[names[0]].data_type.code_delimiter}
    return {key: value for key, value in defaults.items() if key in declared}


def warm_up_descriptions() -> None:
    """Load the ICD-9-CM hierarchy (about a second) on a thread, so the first tooltip
    does not stall the window."""
    threading.Thread(target=_load_quietly, name="icd9-descriptions", daemon=True).start()


def _load_quietly() -> None:
    try:
        icd9.is_known("0")
    except Exception:  # noqa: BLE001 - without the package, tooltips say "unknown"
        pass


_Index = QModelIndex | QPersistentModelIndex


class CodeChipsDelegate(QStyledItemDelegate):
    """Paints a cell's codes as rounded chips, as many as fit, then ``+n``."""

    def __init__(self, delimiter: str = ";", parent=None) -> None:
        super().__init__(parent)
        self.delimiter = delimiter

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        background = index.data(Qt.ItemDataRole.BackgroundRole)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.save()
        if selected:
            painter.fillRect(option.rect, option.palette.highlight())
        elif isinstance(background, QBrush):
            painter.fillRect(option.rect, background)
        codes = cell_codes(index.data(Qt.ItemDataRole.UserRole), self.delimiter)
        self._chips(painter, option.rect.adjusted(3, 2, -3, -2), QFontMetrics(option.font),
                    codes)
        painter.restore()

    @staticmethod
    def _chips(painter: QPainter, area: QRect, metrics: QFontMetrics, codes: list[str]) -> None:
        x, pad, gap = area.left(), 4, 3
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for i, code in enumerate(codes):
            width = metrics.horizontalAdvance(code) + 2 * pad
            rest = f"+{len(codes) - i}"
            room = area.right() - x - (metrics.horizontalAdvance(rest) + gap
                                       if i < len(codes) - 1 else 0)
            if width > room:
                painter.setPen(QPen(QColor("#444")))
                painter.drawText(QRect(x, area.top(), area.right() - x, area.height()),
                                 Qt.AlignmentFlag.AlignVCenter, rest)
                return
            chip = QRectF(x, area.top() + 1, width, area.height() - 2)
            painter.setPen(QPen(QColor(_CHIP_BORDER)))
            painter.setBrush(QBrush(QColor(_CHIP_FILL)))
            painter.drawRoundedRect(chip, 6, 6)
            painter.setPen(QPen(QColor(_CHIP_TEXT)))
            painter.drawText(chip, Qt.AlignmentFlag.AlignCenter, code)
            x += width + gap
