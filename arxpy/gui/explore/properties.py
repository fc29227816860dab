"""Details of the selected transformation.

Levels (with an example of what each level turns a value into), state and score come
from the search at once; classes, the smallest class, risks and scores under every
quality model need the output and are computed in a worker, never on the GUI thread.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from arxpy.engine.export import quality_scores, summarize_output
from arxpy.engine.result import Result
from arxpy.gui.explore.jobs import start_job
from arxpy.gui.plain_text import tooltip


def level_label(result: Result, name: str, level: int) -> str:
    """``level`` of ``name`` with an example, e.g. ``2 of 4 (34 → [30, 40[)``."""
    hierarchy = result.hierarchies[name]
    first = hierarchy.rows[0] if len(hierarchy) else ()
    example = f" ({first[0]} → {first[level]})" if level < len(first) else ""
    return f"{level} of {hierarchy.height - 1}{example}"


#: Pause before computing a selected transformation's classes and risks.
SUMMARY_DELAY_MS = 150


class PropertiesPanel(QWidget):
    """A two-column table of properties; the last rows fill in when their job ends."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: Result | None = None
        self.levels: tuple[int, ...] | None = None
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Property", "Value"])
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.scores_button = QPushButton("Scores under every quality model")
        self.scores_button.setToolTip("Computes the score of this transformation under every "
                                      "quality model (in the background)")
        self.scores_button.clicked.connect(self.compute_scores)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.scores_button)
        self.last_job: Any = None
        # Each showing has its own number: a late summary of an earlier one is dropped,
        # even for the same transformation (it would add its rows a second time).
        self._showing = 0

    def show_transformation(self, result: Result | None, levels: tuple[int, ...] | None) -> None:
        self.result, self.levels = result, levels
        self._showing += 1
        self.table.setRowCount(0)
        self.scores_button.setEnabled(result is not None and levels is not None)
        if result is None or levels is None:
            return
        state = result.transformation(levels)
        self._add("Transformation", str(list(levels)))
        for name, level in zip(result.quasi_identifiers, levels, strict=True):
            self._add(f"  {name}", level_label(result, name, level))
        self._fit_names(result.quasi_identifiers)
        self._add("State", state.state + ("" if state.checked or state.state == "not checked"
                                          else " (inferred from a neighbour)"))
        if state.score is not None:
            self._add("Score", f"{state.score:.6g} ({100 * state.relative_score:.1f} % of "
                               "the anonymous transformations' range; lower is better)")
        elif state.checked and state.state == "not anonymous":
            # As ARX, the search scores only anonymous transformations; the button below
            # still computes any transformation's scores.
            self._add("Score", "none (not anonymous)")
        if result.optimum is not None and result.optimum.levels == levels:
            self._add("Optimum", "yes")
        elif any(t.levels == levels for t in result.tied_optima()):
            self._add("Optimum", "tied (same score as the optimum)")
        self._add("Predecessors / successors",
                  f"{len(result.lattice.predecessors(levels))} / "
                  f"{len(result.lattice.successors(levels))}")
        self._add("Classes, risks", "computing…")
        # Started after a pause, so clicking through nodes does not queue a job per click
        # and a new result's first paint does not compete with it for the GIL.
        showing = self._showing
        QTimer.singleShot(SUMMARY_DELAY_MS, self,
                          lambda: self._summarize(result, levels, showing))

    def _summarize(self, result: Result, levels: tuple[int, ...], showing: int) -> None:
        if showing != self._showing:
            return  # another transformation was selected (or shown again) meanwhile
        # The engine's classes, not a regrouping of the table: the GUI thread shares the GIL.
        self.last_job = start_job(self, lambda: (showing, summarize_output(result, levels,
                                                                           regroup=False)),
                                  self._summary_done, self._failed)

    def compute_scores(self) -> None:
        result, levels = self.result, self.levels
        if result is None or levels is None:
            return
        self.scores_button.setEnabled(False)
        self.last_job = start_job(self, lambda: (levels, quality_scores(result, levels)),
                                  self._scores_done, self._failed, slot="scores")

    def _summary_done(self, value: tuple) -> None:
        showing, summary = value
        if showing != self._showing:
            return  # the user selected another transformation meanwhile
        self._remove("Classes, risks")
        sizes = summary.class_sizes
        self._add("Equivalence classes", f"{summary.n_classes:,}")
        self._add("Smallest class (k achieved)", f"{summary.achieved_k:,}")
        # The mean over released classes; the AECS quality model counts the suppressed
        # records as one more class, so its figure is smaller: named apart on purpose.
        largest = int(sizes.max()) if len(sizes) else 0
        mean = float(np.mean(sizes)) if len(sizes) else 0.0
        self._add("Largest / mean released class", f"{largest:,} / {mean:.1f}")
        self._add("Suppressed records", f"{summary.suppressed_records:,} of {summary.records:,}")
        self._add("Highest prosecutor risk", f"{100 * summary.highest_risk:.2f} %")
        self._add("Average prosecutor risk", f"{100 * summary.average_risk:.2f} %")
        for model in summary.models:
            self._add(model.description, "holds" if model.holds else "violated")

    def _scores_done(self, value: tuple) -> None:
        levels, scores = value
        if levels != self.levels:
            return
        self.scores_button.setEnabled(True)
        for label, score in scores.items():
            text = f"{score:.6g}" if isinstance(score, float) else score
            self._add(f"Score: {label}", text)

    def _failed(self, message: str) -> None:
        self._remove("Classes, risks")
        self._add("Error", message)
        self.scores_button.setEnabled(self.result is not None)

    def value(self, prop: str) -> str | None:
        """The text shown for property ``prop`` (for tests and screen readers)."""
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).text().strip() == prop:
                return self.table.item(row, 1).text()
        return None

    def _fit_names(self, names: list[str]) -> None:
        """The property column as wide as the attribute names ("Admission quarter"),
        up to 45 % of the table: longer properties are elided, in full in their tooltip."""
        metrics = self.table.fontMetrics()
        wanted = max(metrics.horizontalAdvance(f"  {n}") for n in ["Transformation", *names])
        room = self.table.viewport().width()  # narrow before the table is first laid out
        self.table.setColumnWidth(0, wanted + 16 if room < 200 else
                                  min(wanted + 16, int(0.45 * room)))

    def _add(self, prop: str, value: str) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        name = QTableWidgetItem(prop)
        name.setToolTip(tooltip(prop.strip()))
        self.table.setItem(row, 0, name)
        item = QTableWidgetItem(value)
        item.setToolTip(tooltip(value))
        self.table.setItem(row, 1, item)

    def _remove(self, prop: str) -> None:
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).text() == prop:
                self.table.removeRow(row)
                return
