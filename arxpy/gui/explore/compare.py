"""Up to four pinned transformations side by side, to decide which one to publish.

A metrics table (levels, quality under each model, classes, suppression, prosecutor
risk) marks the best value of each row with ★ and bold type; a verdict line names
the winner of each criterion; per candidate, a small chart shows how records spread
over class sizes, an excerpt shows generalized values, and Apply makes it the output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from arxpy.engine.export import OutputSummary, quality_scores, summarize_output
from arxpy.engine.result import Result
from arxpy.formatting import figure, fixed_percent
from arxpy.gui.explore.jobs import start_job
from arxpy.gui.explore.lattice_view import PIN_LETTERS
from arxpy.gui.explore.properties import level_label

EXCERPT_ROWS = 6
#: Class-size bins of the distribution chart: [low, high) record counts per class.
SIZE_BINS = [(1, 2), (2, 5), (5, 10), (10, 20), (20, 50), (50, 100), (100, 10**18)]
BEST = QColor("#d9ecf7")


@dataclass(frozen=True)
class Candidate:
    """Everything the comparison shows about one pinned transformation."""

    levels: tuple[int, ...]
    state: str
    score: float | None
    relative: float | None
    summary: OutputSummary
    scores: dict[str, float | str]
    excerpt: pd.DataFrame


def compute_candidates(result: Result, pinned: list[tuple[int, ...]]) -> list[Candidate]:
    """The comparison's figures for each pinned transformation (runs on a worker)."""
    out = []
    for levels in pinned:
        state = result.transformation(levels)
        frame = result.release(levels).table
        scores = quality_scores(result, levels)
        score = float(scores[result.config.quality_model.label])  # also if not searched
        out.append(Candidate(levels, state.state, score, result.relative(score),
                             summarize_output(result, levels), scores,
                             frame[result.quasi_identifiers].head(EXCERPT_ROWS)))
    return out


def size_distribution(summary: OutputSummary) -> list[tuple[str, float]]:
    """Share of all records per class-size bin, then the suppressed share (labels, [0, 1])."""
    sizes, total = summary.class_sizes, max(summary.records, 1)
    bars = []
    for low, high in SIZE_BINS:
        chosen = (sizes >= low) & (sizes < high)
        label = f"{low}" if high == low + 1 else (f"{low}+" if high > 10**9 else
                                                  f"{low}–{high - 1}")
        bars.append((label, float(sizes[chosen].sum()) / total))
    bars.append(("supp.", summary.suppressed_records / total))
    return bars


class ClassSizeChart(QWidget):
    """Bars: share of records in classes of each size; the last bar is suppression."""

    def __init__(self, bars: list[tuple[str, float]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bars = bars
        self.setMinimumHeight(90)
        self.setMaximumHeight(110)
        self.setToolTip("Share of records by the size of their equivalence class "
                        "(small classes = higher re-identification risk)")

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(QFont(self.font().family(), 7))
        n = len(self.bars)
        width = (self.width() - 8) / max(n, 1)
        base = self.height() - 16
        top = 14
        for i, (label, share) in enumerate(self.bars):
            x = 4 + i * width
            height = (base - top) * share
            color = QColor("#9e9e9e") if label == "supp." else QColor("#0072B2")
            painter.fillRect(QRectF(x + 2, base - height, width - 4, height), QBrush(color))
            painter.setPen(QColor("#222"))
            if share > 0:
                painter.drawText(QRectF(x, base - height - 13, width, 12),
                                 Qt.AlignmentFlag.AlignHCenter, f"{100 * share:.0f}%")
            painter.drawText(QRectF(x, base + 2, width, 12), Qt.AlignmentFlag.AlignHCenter, label)
        painter.setPen(QColor("#bbb"))
        painter.drawLine(4, int(base), self.width() - 4, int(base))
        painter.end()


def _metric_rows(result: Result, candidates: list[Candidate]) -> list[tuple[str, list, str]]:
    """(label, values per candidate, which is best: "min", "max" or "") per table row."""
    configured = result.config.quality_model.label
    # Decision figures first, so the answer is visible without scrolling.
    rows: list[tuple[str, list, str]] = [
        ("State", [c.state for c in candidates], ""),
        (f"{configured} (configured, relative)",
         [c.relative if c.relative is not None else np.nan for c in candidates], "min"),
        ("Suppressed records", [c.summary.suppressed_records for c in candidates], "min"),
        ("Smallest class (k achieved)", [c.summary.achieved_k for c in candidates], "max"),
        ("Highest prosecutor risk", [c.summary.highest_risk for c in candidates], "min"),
        ("Average prosecutor risk", [c.summary.average_risk for c in candidates], "min"),
        ("Equivalence classes", [c.summary.n_classes for c in candidates], "max"),
    ]
    for column, name in enumerate(result.quasi_identifiers):
        rows.append((f"Level: {name}",
                     [level_label(result, name, c.levels[column]) for c in candidates], ""))
    for label in candidates[0].scores:
        values = [c.scores.get(label) for c in candidates]
        if all(isinstance(v, float) for v in values):
            rows.append((f"Score: {label}", values, "min"))
    return rows


def _format(label: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if "risk" in label or "relative" in label:
        return fixed_percent(value)
    return figure(value, digits=5)


def best_columns(values: list, direction: str) -> set[int]:
    """Columns holding the best value of a row (ties all win); none if all equal."""
    if not direction:
        return set()
    numbers = np.array([np.nan if isinstance(v, str) else float(v) for v in values])
    if np.all(np.isnan(numbers)):
        return set()
    target = np.nanmin(numbers) if direction == "min" else np.nanmax(numbers)
    winners = set(np.flatnonzero(np.isclose(numbers, target, rtol=1e-12, atol=0)).tolist())
    return set() if len(winners) == len(values) else winners


class CompareView(QWidget):
    """Pinned transformations in columns; Apply and Unpin per column."""

    apply_requested = Signal(object)
    unpin_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: Result | None = None
        self.pinned: list[tuple[int, ...]] = []
        self.applied: tuple[int, ...] | None = None
        self.candidates: list[Candidate] = []
        self.last_job: Any = None
        self.verdict = QLabel()
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setDefaultSectionSize(21)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.panels = QWidget()
        self.panel_layout = QHBoxLayout(self.panels)
        self.panel_layout.setContentsMargins(0, 0, 0, 0)
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.addWidget(self.verdict)
        column.addWidget(self.table, 3)
        column.addWidget(self.panels, 2)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)
        self._show_note()

    def set_pinned(self, result: Result | None, pinned: list[tuple[int, ...]],
                   applied: tuple[int, ...] | None) -> None:
        """Recompute the comparison (in a worker) for ``pinned``."""
        self.result, self.pinned, self.applied = result, list(pinned), applied
        if result is None or not pinned:
            self.candidates = []
            self._show_note()
            return
        self.verdict.setText("Computing the comparison…")
        wanted = list(pinned)
        self.last_job = start_job(
            self, lambda: (result, wanted, compute_candidates(result, wanted)),
            self._computed, self.verdict.setText)

    def set_applied(self, applied: tuple[int, ...] | None) -> None:
        self.applied = applied
        if self.candidates:
            self._render()

    def _computed(self, value: tuple) -> None:
        result, wanted, candidates = value
        if result is not self.result or wanted != self.pinned:
            return  # pins or result (another project) changed meanwhile
        self.candidates = candidates
        self._render()

    def _show_note(self) -> None:
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self._clear_panels()
        self.verdict.setText("<b>Pin up to four transformations</b> (in the lattice's context "
                             "menu, or with <i>Pin selected</i>) to compare them side by side.")

    def _render(self) -> None:
        result, candidates = self.result, self.candidates
        rows = _metric_rows(result, candidates)
        self.table.setColumnCount(len(candidates))
        self.table.setRowCount(len(rows))
        self.table.setHorizontalHeaderLabels(
            [f"{PIN_LETTERS[i]}  {list(c.levels)}" + ("  (applied)" if c.levels == self.applied
                                                     else "")
             for i, c in enumerate(candidates)])
        self.table.setVerticalHeaderLabels([label for label, _, _ in rows])
        bold = QFont(self.font())
        bold.setBold(True)
        for r, (label, values, direction) in enumerate(rows):
            winners = best_columns(values, direction)
            for c, value in enumerate(values):
                text = _format(label, value)
                item = QTableWidgetItem(("★ " + text) if c in winners else text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if c in winners:
                    item.setFont(bold)
                    item.setBackground(QBrush(BEST))
                    item.setToolTip("best of the pinned transformations")
                self.table.setItem(r, c, item)
        self.verdict.setText(self._verdict(rows))
        self._fill_panels()

    def _verdict(self, rows: list[tuple[str, list, str]]) -> str:
        wanted = {"relative": "least information loss", "Suppressed": "fewest suppressed records",
                  "Highest prosecutor": "lowest highest risk",
                  "Smallest class": "largest smallest class"}
        parts = []
        for label, values, direction in rows:
            for key, text in wanted.items():
                if key in label:
                    winners = best_columns(values, direction)
                    names = ", ".join(PIN_LETTERS[w] for w in sorted(winners)) or "all equal"
                    parts.append(f"{text}: <b>{names}</b>")
        anonymous = [PIN_LETTERS[i] for i, c in enumerate(self.candidates)
                     if c.state == "anonymous"]
        note = "" if len(anonymous) == len(self.candidates) else \
            f" <span style='color:#b3261e'>Only {', '.join(anonymous) or 'none'} meet the " \
            "privacy models.</span>"
        return "Which to publish? " + " · ".join(parts) + "." + note

    def _clear_panels(self) -> None:
        while self.panel_layout.count():
            widget = self.panel_layout.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()

    def _fill_panels(self) -> None:
        self._clear_panels()
        for i, candidate in enumerate(self.candidates):
            self.panel_layout.addWidget(self._panel(i, candidate), 1)

    def _panel(self, i: int, candidate: Candidate) -> QWidget:
        panel = QWidget()
        grid = QGridLayout(panel)
        grid.setContentsMargins(2, 2, 2, 2)
        grid.addWidget(QLabel(f"<b>{PIN_LETTERS[i]}</b> records by class size"), 0, 0, 1, 2)
        grid.addWidget(ClassSizeChart(size_distribution(candidate.summary)), 1, 0, 1, 2)
        excerpt = QTableWidget(len(candidate.excerpt), candidate.excerpt.shape[1])
        excerpt.setHorizontalHeaderLabels([str(c) for c in candidate.excerpt.columns])
        excerpt.verticalHeader().setDefaultSectionSize(18)
        excerpt.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for r, row in enumerate(candidate.excerpt.astype(str).to_numpy()):
            for c, text in enumerate(row):
                excerpt.setItem(r, c, QTableWidgetItem(text))
        excerpt.setMinimumHeight(140)
        grid.addWidget(excerpt, 2, 0, 1, 2)
        is_applied = candidate.levels == self.applied
        apply = QPushButton("Applied" if is_applied else f"Apply {PIN_LETTERS[i]}")
        apply.setEnabled(candidate.levels != self.applied)
        apply.clicked.connect(lambda: self.apply_requested.emit(candidate.levels))
        unpin = QPushButton("Unpin")
        unpin.clicked.connect(lambda: self.unpin_requested.emit(candidate.levels))
        grid.addWidget(apply, 3, 0)
        grid.addWidget(unpin, 3, 1)
        return panel

    def apply_button(self, i: int) -> QPushButton:
        """The Apply button of column ``i`` (for tests)."""
        panel = self.panel_layout.itemAt(i).widget()
        return panel.layout().itemAtPosition(3, 0).widget()
