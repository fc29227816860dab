"""The hierarchy wizard: one page per builder, with a live preview of the result.

Each page turns its widgets into a builder from :mod:`arxpy.hierarchy.builders`;
the dialog builds the hierarchy from the attribute's distinct values whenever a
parameter changes (debounced) and shows it, or the builder's message when the
parameters are impossible. OK stays disabled until the preview is a hierarchy.
"""

from __future__ import annotations

import decimal
import html
import math
from collections.abc import Callable

import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QSpinBox,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.definition import DataKind, DataType
from arxpy.data.types import is_missing
from arxpy.errors import ArxpyError, HierarchyError
from arxpy.formatting import plain
from arxpy.gui.plain_text import plain_label
from arxpy.hierarchy.builders import (
    GRANULARITIES,
    DateBuilder,
    FlatBuilder,
    HierarchyBuilder,
    IntervalBuilder,
    MaskingBuilder,
    OrderingBuilder,
)
from arxpy.hierarchy.builders.intervals import to_decimal
from arxpy.hierarchy.model import Hierarchy

#: Rows shown in the preview; the count line says how many there are in all.
PREVIEW_ROWS = 500
PAGES = (("interval", "Intervals"), ("ordering", "Ordering"), ("masking", "Masking"),
         ("date", "Dates"), ("flat", "Flat"))


def _numbers(text: str, name: str) -> list[str]:
    """Comma- or space-separated numbers as text, checked."""
    items = [t for t in text.replace(",", " ").split() if t]
    for item in items:
        if to_decimal(item) is None:
            raise HierarchyError(f"{name}: {item!r} is not a number.")
    return items


def _fanouts(text: str) -> tuple[int, ...]:
    items = _numbers(text, "Group sizes")
    if not items or any(not i.isdigit() or int(i) < 1 for i in items):
        raise HierarchyError("Group sizes must be whole numbers of 1 or more, e.g. '2' or '2 5'.")
    return tuple(int(i) for i in items)


def _optional(edit: QLineEdit) -> str | None:
    return edit.text().strip() or None


def nice_width(values: pd.Series) -> str:
    """A round interval width giving about ten intervals over the numeric values."""
    numbers = pd.to_numeric(values[~is_missing(values)], errors="coerce").dropna()
    if numbers.empty or numbers.max() == numbers.min():
        return "10"
    raw = (numbers.max() - numbers.min()) / 10
    power = 10 ** math.floor(math.log10(raw))
    step = next(m for m in (1, 2, 5, 10) if m * power >= raw) * power
    return plain(decimal.Decimal(str(step)))


class _Page(QWidget):
    """A form whose ``builder()`` returns the configured builder or raises."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        super().__init__()
        self.form = QFormLayout(self)
        self._on_change = on_change

    def line(self, label: str, text: str = "", tip: str = "") -> QLineEdit:
        edit = QLineEdit(text, toolTip=tip)
        edit.textChanged.connect(self._on_change)
        self.form.addRow(label, edit)
        return edit

    def choice(self, label: str, options: list[str]) -> QComboBox:
        combo = QComboBox()
        combo.addItems(options)
        combo.currentIndexChanged.connect(self._on_change)
        self.form.addRow(label, combo)
        return combo

    def builder(self) -> HierarchyBuilder:
        raise NotImplementedError


class IntervalPage(_Page):
    def __init__(self, on_change: Callable[[], None], width: str) -> None:
        super().__init__(on_change)
        self.width = self.line("Interval width:", width, "Width of the level-1 intervals")
        self.cuts = self.line("Or cut points:", "", "Increasing numbers, e.g. '0 18 65 100'; "
                              "replaces the width")
        self.start = self.line("Start:", "", "First interval's lower bound (default: rounded "
                               "smallest value)")
        self.bottom = self.line("Bottom coding:", "", "Values below become '<b'")
        self.top = self.line("Top coding:", "", "Values at or above become '>=t'")
        self.fanouts = self.line("Merge groups of:", "2", "Intervals merged per level above, "
                                 "e.g. '2' or '2 5' (the last repeats)")

    def builder(self) -> HierarchyBuilder:
        cuts = _numbers(self.cuts.text(), "Cut points")
        return IntervalBuilder(
            width=None if cuts else _optional(self.width), cuts=cuts or None,
            start=_optional(self.start), bottom_coding=_optional(self.bottom),
            top_coding=_optional(self.top), fanouts=_fanouts(self.fanouts.text()))


class OrderingPage(_Page):
    def __init__(self, on_change: Callable[[], None], order: tuple[str, ...] | None) -> None:
        super().__init__(on_change)
        self.order = order
        self.fanouts = self.line("Group sizes:", "2", "Values (then groups) per group, per "
                                 "level, e.g. '2' or '3 2'")
        self.labels = self.choice("Labels:", ["range", "set"])
        note = "the attribute's ordinal order" if order else "natural order (a2 before a10)"
        self.form.addRow("Order:", QLabel(note))

    def builder(self) -> HierarchyBuilder:
        return OrderingBuilder(order=self.order, fanouts=_fanouts(self.fanouts.text()),
                               labels=self.labels.currentText())


class MaskingPage(_Page):
    def __init__(self, on_change: Callable[[], None]) -> None:
        super().__init__(on_change)
        self.direction = self.choice("Mask from the:", ["right", "left"])
        self.mask = self.line("Mask character:", "*")
        self.levels = QSpinBox(minimum=0, maximum=64, specialValueText="all characters")
        self.levels.valueChanged.connect(on_change)
        self.form.addRow("Masking levels:", self.levels)
        self.pad = QCheckBox("Align values of different lengths", checked=True)
        self.pad.toggled.connect(on_change)
        self.form.addRow("", self.pad)

    def builder(self) -> HierarchyBuilder:
        return MaskingBuilder(direction=self.direction.currentText(), mask_char=self.mask.text(),
                              levels=self.levels.value() or None, pad=self.pad.isChecked())


class DatePage(_Page):
    def __init__(self, on_change: Callable[[], None], date_format: str) -> None:
        super().__init__(on_change)
        self.format = self.line("Date format:", date_format, "strptime pattern, e.g. %Y-%m-%d")
        self.granularities = QListWidget()
        for name in GRANULARITIES:
            self.granularities.addItem(name)
            item = self.granularities.item(self.granularities.count() - 1)
            default = name in ("month", "quarter", "year", "decade")
            item.setCheckState(Qt.CheckState.Checked if default else Qt.CheckState.Unchecked)
        self.granularities.setMaximumHeight(140)
        self.granularities.itemChanged.connect(lambda _item: on_change())
        self.form.addRow("Levels:", self.granularities)

    def builder(self) -> HierarchyBuilder:
        chosen = [self.granularities.item(i).text() for i in range(self.granularities.count())
                  if self.granularities.item(i).checkState() == Qt.CheckState.Checked]
        return DateBuilder(format=self.format.text(), granularities=tuple(chosen))


class FlatPage(_Page):
    def __init__(self, on_change: Callable[[], None]) -> None:
        super().__init__(on_change)
        self.form.addRow(QLabel("Every value generalizes directly to '*'."))

    def builder(self) -> HierarchyBuilder:
        return FlatBuilder()


def default_page(data_type: DataType, values: pd.Series) -> str:
    """The builder that suits the attribute: numbers intervals, dates dates, ..."""
    if data_type.is_numeric:
        return "interval"
    if data_type.kind is DataKind.DATE:
        return "date"
    if data_type.kind is DataKind.ORDINAL:
        return "ordering"
    present = values[~is_missing(values)]
    digits = present.astype(str).str.fullmatch(r"[0-9]+")
    return "masking" if len(present) and digits.all() else "flat"


class HierarchyWizard(QDialog):
    """Choose a builder, set its parameters, check the preview; ``hierarchy`` on accept."""

    def __init__(self, values: pd.Series, name: str, data_type: DataType,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Create a hierarchy for '{name}'")
        self.resize(900, 560)
        self.values = list(pd.unique(values))
        self.hierarchy: Hierarchy | None = None
        self._timer = QTimer(self, singleShot=True, interval=150)
        self._timer.timeout.connect(self.update_preview)
        schedule = self._timer.start
        self.pages: dict[str, _Page] = {
            "interval": IntervalPage(schedule, nice_width(values)),
            "ordering": OrderingPage(schedule, data_type.order),
            "masking": MaskingPage(schedule),
            "date": DatePage(schedule, data_type.format if data_type.kind is DataKind.DATE
                             else "%Y-%m-%d"),
            "flat": FlatPage(schedule),
        }
        self._build(name)
        self.choose(default_page(data_type, values))

    def _build(self, name: str) -> None:
        self.kind = QComboBox()
        self.stack = QStackedWidget()
        for key, label in PAGES:
            self.kind.addItem(label, key)
            self.stack.addWidget(self.pages[key])
        self.kind.currentIndexChanged.connect(self._page_chosen)
        self.preview = QTableWidget()
        self.preview.verticalHeader().setDefaultSectionSize(22)
        self.summary = QLabel()
        self.message = plain_label(QLabel(wordWrap=True))
        self.message.setStyleSheet("color: #a61b1b")
        left = QVBoxLayout()
        left.addWidget(QLabel(f"<b>{len(self.values)}</b> distinct values of "
                              f"<b>{html.escape(name, quote=False)}</b>"))
        row = QHBoxLayout()
        row.addWidget(QLabel("Type:"))
        row.addWidget(self.kind, 1)
        left.addLayout(row)
        left.addWidget(self.stack)
        left.addStretch(1)
        left.addWidget(self.message)
        right = QVBoxLayout()
        right.addWidget(self.summary)
        right.addWidget(self.preview)
        body = QHBoxLayout()
        body.addLayout(left, 2)
        body.addLayout(right, 3)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(body)
        layout.addWidget(self.buttons)

    @property
    def builder_kind(self) -> str:
        return str(self.kind.currentData())

    def page(self, kind: str | None = None) -> _Page:
        return self.pages[kind or self.builder_kind]

    def choose(self, kind: str) -> None:
        """Show the page of builder ``kind`` ("interval", "ordering", ...)."""
        self.kind.setCurrentIndex(self.kind.findData(kind))
        self._page_chosen()

    def _page_chosen(self) -> None:
        self.stack.setCurrentWidget(self.page())
        self.update_preview()

    def update_preview(self) -> None:
        """Build from the current parameters and show the result or the problem."""
        self._timer.stop()
        try:
            self.hierarchy = self.page().builder().build(self.values)
        except (ArxpyError, ValueError, TypeError) as exc:
            self.hierarchy = None
            self.message.setText(str(exc))
        else:
            self.message.clear()
        self._fill_preview()
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(self.hierarchy is not None)

    def _fill_preview(self) -> None:
        rows = list(self.hierarchy.rows) if self.hierarchy is not None else []
        height = self.hierarchy.height if self.hierarchy is not None else 0
        shown = rows[:PREVIEW_ROWS]
        self.preview.clear()
        self.preview.setRowCount(len(shown))
        self.preview.setColumnCount(height)
        self.preview.setHorizontalHeaderLabels([f"Level-{i}" for i in range(height)])
        for r, row in enumerate(shown):
            for c, text in enumerate(row):
                self.preview.setItem(r, c, QTableWidgetItem(text))
        self.preview.resizeColumnsToContents()
        more = f" (first {PREVIEW_ROWS} shown)" if len(rows) > PREVIEW_ROWS else ""
        self.summary.setText(f"Preview: {len(rows)} rows, {height} levels{more}"
                             if self.hierarchy is not None else "Preview: —")
