"""Explore, Utility and Risk: placeholders until their own issues fill them.

Explore already shows the optimum of the last run (its generalization levels per
quasi-identifier, score and search figures) so that a run has a visible outcome.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from arxpy.gui.state import AppState

PLACEHOLDER_TEXT = {
    "Explore": "After an anonymization, the search lattice appears here: every transformation "
               "with its state and score, a filter, and a list of candidates to compare.",
    "Utility": "After an anonymization, input and output appear here side by side: summary "
               "statistics, distributions, contingency tables and classification performance.",
    "Risk": "After an anonymization, re-identification risks of input and output appear "
            "here: the distribution of prosecutor risk and an overview of risk measures.",
}


def placeholder(perspective: str) -> QLabel:
    """A centered note saying what the perspective will show."""
    label = QLabel(f"<h3>{perspective}</h3><p>{PLACEHOLDER_TEXT[perspective]}</p>")
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setStyleSheet("color: #666; padding: 60px 160px")
    return label


class ExplorePerspective(QWidget):
    """The optimum of the last run (a stand-in for the lattice explorer)."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.note = placeholder("Explore")
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.levels = QTableWidget(0, 4)
        self.levels.setHorizontalHeaderLabels(["Quasi-identifier", "Level", "Levels in hierarchy",
                                               "Example"])
        self.levels.verticalHeader().setDefaultSectionSize(22)
        self.levels.verticalHeader().hide()
        self.levels.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.levels.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.levels.setMaximumWidth(760)
        self.later = QLabel("The lattice of all transformations, with filters and a list of "
                            "candidates to compare, will appear here.")
        self.later.setStyleSheet("color: #666")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.addWidget(self.heading)
        layout.addWidget(self.levels)
        layout.addWidget(self.later)
        layout.addWidget(self.note, 1)
        layout.addStretch(0)
        state.result_changed.connect(self.refresh)
        state.transformation_changed.connect(self.refresh)
        state.project_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        result = self.state.result
        has_result = result is not None
        for widget in (self.heading, self.levels, self.later):
            widget.setVisible(has_result)
        self.note.setVisible(not has_result)
        if result is None:
            return
        best = result.optimum
        figures = (f"{result.transformations_checked:,} of {result.lattice_size:,} "
                   f"transformations checked in {result.elapsed_seconds:.2f} s")
        if best is None:
            self.heading.setText(f"<h3>No transformation meets the privacy models</h3>"
                                 f"<p>{figures}. Relax the models or allow more suppression."
                                 "</p>")
            self.levels.setRowCount(0)
            return
        score = f"{best.score:.4g}" if best.score is not None else "—"
        relative = f"{100 * best.relative_score:.1f} %" if best.relative_score is not None \
            else "—"
        suppressed = best.suppressed_records if best.suppressed_records is not None else 0
        self.heading.setText(
            f"<h3>Optimum {list(best.levels)}</h3>"
            f"<p>Score {score} ({relative} of the lattice's range, lower is better), "
            f"{suppressed:,} records suppressed; {figures}.</p>")
        self._fill_levels(best.levels)

    def _fill_levels(self, levels: tuple[int, ...]) -> None:
        names = self.state.result.quasi_identifiers if self.state.result else []
        self.levels.setRowCount(len(names))
        for row, (name, level) in enumerate(zip(names, levels, strict=True)):
            hierarchy = self.state.hierarchies.get(name)
            height = hierarchy.height if hierarchy is not None else 0
            example = hierarchy.rows[0][level] if hierarchy and level < len(hierarchy.rows[0]) \
                else ""
            example = f"{hierarchy.rows[0][0]} → {example}" if example else ""
            for column, text in enumerate((name, str(level), str(height), example)):
                self.levels.setItem(row, column, QTableWidgetItem(text))
        header = 26
        self.levels.setFixedHeight(header + 22 * len(names) + 2)
