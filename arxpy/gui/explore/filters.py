"""Which transformations the lattice and the list show: by state, score and levels.

:class:`NodeFilter` is plain data with a vectorized :meth:`~NodeFilter.mask`;
:class:`FilterPanel` edits one and emits ``changed`` with the new filter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from arxpy.search import ANONYMOUS, NOT_ANONYMOUS, NOT_CHECKED
from arxpy.workflows.lattice_nodes import LatticeNodes


@dataclass(frozen=True)
class NodeFilter:
    """States shown, relative score range (inclusive, in [0, 1]), level range per attribute."""

    states: frozenset[int] = frozenset({ANONYMOUS, NOT_ANONYMOUS, NOT_CHECKED})
    score_range: tuple[float, float] = (0.0, 1.0)
    level_ranges: dict[str, tuple[int, int]] = field(default_factory=dict)

    def mask(self, nodes: LatticeNodes) -> np.ndarray:
        """Boolean per row: does the transformation pass every criterion?

        A narrowed score range drops transformations without a known score.
        """
        keep = np.isin(nodes.states, np.fromiter(self.states, dtype=np.int8))
        low, high = self.score_range
        if low > 0.0 or high < 1.0:
            with np.errstate(invalid="ignore"):
                keep &= (nodes.relative >= low - 1e-12) & (nodes.relative <= high + 1e-12)
        for column, name in enumerate(nodes.names):
            if name in self.level_ranges:
                first, last = self.level_ranges[name]
                keep &= (nodes.levels[:, column] >= first) & (nodes.levels[:, column] <= last)
        return keep


class FilterPanel(QWidget):
    """Check boxes for states, a score range and a level range per quasi-identifier."""

    changed = Signal(object)  # NodeFilter

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._names: list[str] = []
        self._bounds: list[tuple[int, int]] = []
        self.state_boxes = {
            ANONYMOUS: QCheckBox("Anonymous"),
            NOT_ANONYMOUS: QCheckBox("Not anonymous"),
            NOT_CHECKED: QCheckBox("Not checked"),
        }
        states = QHBoxLayout()
        for box in self.state_boxes.values():
            box.setChecked(True)
            box.toggled.connect(self._emit)
            states.addWidget(box)
        states.addStretch(1)
        self.score_low, self.score_high = QDoubleSpinBox(), QDoubleSpinBox()
        for box, value in ((self.score_low, 0.0), (self.score_high, 100.0)):
            box.setRange(0.0, 100.0)
            box.setDecimals(1)
            box.setSuffix(" %")
            box.setValue(value)
            box.valueChanged.connect(self._emit)
        scores = QGridLayout()
        scores.addWidget(QLabel("Relative score from"), 0, 0)
        scores.addWidget(self.score_low, 0, 1)
        scores.addWidget(QLabel("to"), 0, 2)
        scores.addWidget(self.score_high, 0, 3)
        self.levels = QTableWidget(0, 3)
        self.levels.setHorizontalHeaderLabels(["Quasi-identifier", "From level", "To level"])
        self.levels.verticalHeader().hide()
        self.levels.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        reset = QPushButton("Show all")
        reset.clicked.connect(self.reset)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(states)
        layout.addLayout(scores)
        layout.addWidget(self.levels, 1)
        layout.addWidget(reset)

    def set_attributes(self, names: list[str], bottom: tuple[int, ...],
                       top: tuple[int, ...]) -> None:
        """One level-range row per quasi-identifier; resets every criterion."""
        self._names, self._bounds = list(names), list(zip(bottom, top, strict=True))
        self.levels.setRowCount(len(names))
        for row, (name, (low, high)) in enumerate(zip(names, self._bounds, strict=True)):
            self.levels.setItem(row, 0, QTableWidgetItem(name))
            for column, value in ((1, low), (2, high)):
                box = QSpinBox()
                box.setRange(low, high)
                box.setValue(value)
                box.valueChanged.connect(self._emit)
                self.levels.setCellWidget(row, column, box)
        self.reset()

    def reset(self) -> None:
        blockers = [b.blockSignals(True) for b in self._widgets()]
        for box in self.state_boxes.values():
            box.setChecked(True)
        self.score_low.setValue(0.0)
        self.score_high.setValue(100.0)
        for row, (low, high) in enumerate(self._bounds):
            self.levels.cellWidget(row, 1).setValue(low)
            self.levels.cellWidget(row, 2).setValue(high)
        for widget, old in zip(self._widgets(), blockers, strict=True):
            widget.blockSignals(old)
        self._emit()

    def _widgets(self) -> list[QWidget]:
        boxes: list[QWidget] = [*self.state_boxes.values(), self.score_low, self.score_high]
        for row in range(self.levels.rowCount()):
            boxes += [self.levels.cellWidget(row, 1), self.levels.cellWidget(row, 2)]
        return boxes

    def current(self) -> NodeFilter:
        """The filter the widgets describe."""
        states = frozenset(s for s, box in self.state_boxes.items() if box.isChecked())
        ranges = {}
        for row, name in enumerate(self._names):
            low = self.levels.cellWidget(row, 1).value()
            high = self.levels.cellWidget(row, 2).value()
            if (low, high) != self._bounds[row]:
                ranges[name] = (low, high)
        return NodeFilter(states, (self.score_low.value() / 100, self.score_high.value() / 100),
                          ranges)

    def _emit(self, *_args: object) -> None:
        self.changed.emit(self.current())
