"""The Explore tab: the lattice search's explorer or the list of method runs.

Two toggle buttons above say which one shows and switch it; which one shows is the
state's :attr:`~arxpy.gui.state.AppState.showing_runs`, so the current release (what
Utility, Risk and Export analyse) always matches what Explore shows.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy.gui.state import AppState


class ExploreSwitch(QWidget):
    """``lattice`` (the Explore perspective) or ``runs`` (the runs page), by the state."""

    def __init__(self, state: AppState, lattice: QWidget, runs: QWidget,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.lattice_button = QPushButton("Lattice search")
        self.runs_button = QPushButton("Method runs")
        self.lattice_button.setToolTip("The generalization lattice and its transformations; "
                                       "the applied one is the current release")
        self.runs_button.setToolTip("Runs of the other methods; the selected one is the "
                                    "current release")
        group = QButtonGroup(self)
        for button in (self.lattice_button, self.runs_button):
            button.setCheckable(True)
            button.setFlat(True)
            group.addButton(button)
        self.lattice_button.clicked.connect(lambda: state.show_runs(False))
        self.runs_button.clicked.connect(lambda: state.show_runs(True))
        self.current = QLabel()
        self.current.setStyleSheet("color: #555")
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 0)
        bar.addWidget(QLabel("Show:"))
        bar.addWidget(self.lattice_button)
        bar.addWidget(self.runs_button)
        bar.addWidget(self.current, 1)
        self.stack = QStackedWidget()
        self.stack.addWidget(lattice)
        self.stack.addWidget(runs)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        state.release_changed.connect(self.refresh)
        state.runs_changed.connect(self.refresh)
        state.project_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        showing_runs = self.state.showing_runs
        self.stack.setCurrentIndex(1 if showing_runs else 0)
        self.runs_button.setChecked(showing_runs)
        self.lattice_button.setChecked(not showing_runs)
        count = len(self.state.runs)
        self.runs_button.setText(f"Method runs ({count})" if count else "Method runs")
        current = self.state.current_release()
        self.current.setText(f"Current release: <b>{html.escape(current.label)}</b>" if current else
                             "No current release yet")
