"""A lattice run's candidates: its search's anonymous transformations, best first, any
of which can be pinned for Compare (older searches included, not only the current one).
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from arxpy.errors import ArxpyError
from arxpy.formatting import plural
from arxpy.gui.explore.filters import NodeFilter
from arxpy.gui.explore.list_view import TransformationList
from arxpy.gui.state import AppState
from arxpy.gui.utility.common import note
from arxpy.search import ANONYMOUS
from arxpy.workflows.lattice_nodes import LatticeNodes
from arxpy.workflows.pins import of_run
from arxpy.workflows.runs import MethodRun

DROPPED_TEXT = (
    "Only this search's optimum is kept. arxpy keeps every candidate of the latest "
    "{kept} searches and of searches with a pin; run the search again to pin another "
    "of its transformations.")


class CandidatesView(QWidget):
    """The run's anonymous transformations (the lattice list's columns and marks) with a
    Pin button for the selected one."""

    def __init__(self, state: AppState, run: MethodRun,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        # The run is found again by its release: pinning or renaming replaces the run.
        self._release = run.release
        self.list = TransformationList()
        self.pin_button = QPushButton("Pin")
        self.pin_button.setToolTip("Pin the selected transformation for Compare (up to "
                                   f"{state.MAX_PINNED} per search)")
        self.pin_button.clicked.connect(self.toggle_pin)
        self.message = note()
        self.nodes = LatticeNodes.from_result(run.result) if run.result is not None else None
        layout = QVBoxLayout(self)
        if self.nodes is None:
            self.message.setText(DROPPED_TEXT.format(kept=state.KEPT_SEARCHES))
            layout.addWidget(self.message)
            layout.addStretch(1)
            return
        self.list.set_content(self.nodes, NodeFilter(states=frozenset({ANONYMOUS})))
        self.list.table.selectionModel().selectionChanged.connect(self._refresh_button)
        buttons = QHBoxLayout()
        buttons.addWidget(self.pin_button)
        buttons.addWidget(self.message, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.list, 1)
        state.pinned_changed.connect(self._show_pins)
        self._show_pins()

    def run(self) -> MethodRun | None:
        return next((r for r in self.state.runs if r.release is self._release), None)

    def selected_levels(self) -> tuple[int, ...] | None:
        rows = self.list.table.selectionModel().selectedRows()
        return self.list.model.levels_at(rows[0].row()) if rows else None

    def select(self, levels: tuple[int, ...]) -> bool:
        """Select ``levels``' row; False if the list does not show it."""
        model = self.list.model
        for position in range(model.rowCount()):
            if model.levels_at(position) == tuple(levels):
                self.list.table.selectRow(position)
                return True
        return False

    def pinned(self) -> list[tuple[int, ...]]:
        run = self.run()
        return [] if run is None else [
            levels for levels in of_run(self.state.pins, run.label) if levels is not None]

    def toggle_pin(self) -> None:
        run, levels = self.run(), self.selected_levels()
        if run is None or levels is None:
            return
        try:
            if levels in self.pinned():
                self.state.unpin_candidate(next(p for p in self.state.pins
                                                if p.run == run.label and p.levels == levels))
            else:
                self.state.pin_candidate(run, levels)
        except ArxpyError as exc:
            self.message.setText(f"<span style='color:#b3261e'>{html.escape(str(exc))}</span>")

    def _show_pins(self) -> None:
        if self.nodes is None or self.run() is None:
            return
        pinned = self.pinned()
        self.list.model.set_marks(None, pinned)  # the optimum is marked already
        count = self.list.model.rowCount()
        self.message.setText(
            f"{plural(count, 'anonymous transformation')} of this search, "
            f"best first; {len(pinned)} pinned. Select one and press Pin to compare it "
            "with other runs' candidates (Compare pinned).")
        self._refresh_button()

    def _refresh_button(self, *_args: object) -> None:
        levels = self.selected_levels()
        self.pin_button.setEnabled(levels is not None)
        self.pin_button.setText("Unpin" if levels is not None and levels in self.pinned()
                                else "Pin")
