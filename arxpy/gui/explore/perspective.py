"""The Explore perspective: lattice, list, comparison and input/output of one result.

Composes the views and keeps them in step with :class:`~arxpy.gui.state.AppState`:
views ask the state to select, apply or pin, and redraw when its signals say so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy.errors import ArxpyError
from arxpy.gui.explore.compare import CompareView
from arxpy.gui.explore.export_dialog import ExportDialog
from arxpy.gui.explore.filters import FilterPanel, NodeFilter
from arxpy.gui.explore.hasse_view import NeighbourhoodPanel
from arxpy.gui.explore.io_table import InputOutputTable, table_values
from arxpy.gui.explore.jobs import start_job
from arxpy.gui.explore.lattice_view import LatticeView
from arxpy.gui.explore.list_view import TransformationList
from arxpy.gui.explore.properties import PropertiesPanel
from arxpy.gui.folders import last_folder, remember, settings_of
from arxpy.gui.message_lines import ElidedLine
from arxpy.gui.state import AppState
from arxpy.workflows.lattice_nodes import LatticeNodes


class ExplorePerspective(QWidget):
    """Everything a user needs to pick the transformation to publish."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.nodes: LatticeNodes | None = None
        self.node_filter = NodeFilter()
        self.last_job: Any = None
        self.dialog: ExportDialog | None = None
        self._io_levels: tuple[int, ...] | None = None
        self.lattice, self.list = LatticeView(), TransformationList()
        # The legible part of the lattice, with the whole lattice as its minimap.
        self.neighbourhood = NeighbourhoodPanel(self.lattice)
        self.hasse = self.neighbourhood.hasse
        self.compare, self.io_table = CompareView(), InputOutputTable()
        self.filters, self.properties = FilterPanel(), PropertiesPanel()
        self.tabs = QTabWidget()
        for widget, title in ((self.neighbourhood, "Lattice"), (self.list, "List"),
                              (self.compare, "Compare"), (self.io_table, "Input / output")):
            self.tabs.addTab(widget, title)
        # The summary wraps and the message keeps its line: neither widens the window
        # nor, appearing, moves the views below.
        self.summary, self.message = QLabel(wordWrap=True), ElidedLine(reserve=True)
        self.message.setStyleSheet("color: #b3261e")
        self.buttons = {name: QPushButton(name) for name in
                        ("Apply selected", "Pin selected", "Unpin all", "Export…")}
        self._layout()
        self._connect()
        self.on_result()

    def _layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        for button in self.buttons.values():
            top.addWidget(button)
        side = QSplitter(Qt.Orientation.Vertical)
        for widget, title in ((self.filters, "Filter"), (self.properties, "Properties")):
            box = QGroupBox(title)
            QVBoxLayout(box).addWidget(widget)
            side.addWidget(box)
        main = QSplitter()
        main.addWidget(self.tabs)
        main.addWidget(side)
        main.setStretchFactor(0, 3)
        main.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.message)
        layout.addWidget(main, 1)

    def _connect(self) -> None:
        state = self.state
        # Deferred to its own turn of the event loop: a result arrives in the same turn as
        # the main window's own work, and together they would stall it past 100 ms. A 1 ms
        # timer, not 0: a zero timer is a posted event and would run before due timers.
        state.result_changed.connect(
            lambda: QTimer.singleShot(1, self, lambda: self.on_result(deferred=True)))
        state.transformation_changed.connect(self.on_transformation)
        state.pinned_changed.connect(self.on_pinned)
        self.filters.changed.connect(self.set_filter)
        self.tabs.currentChanged.connect(lambda _index: self._refresh_io())
        for view in (self.lattice, self.list, self.hasse):
            view.selected.connect(lambda levels: state.select(levels))
            view.applied.connect(self.apply)
        self.lattice.pin_requested.connect(self.pin)
        self.lattice.unpin_requested.connect(state.unpin)
        self.compare.apply_requested.connect(self.apply)
        self.compare.unpin_requested.connect(state.unpin)
        self.buttons["Apply selected"].clicked.connect(lambda: self.apply(state.selected))
        self.buttons["Pin selected"].clicked.connect(lambda: self.pin(state.selected))
        self.buttons["Unpin all"].clicked.connect(lambda: state.unpin())
        self.buttons["Export…"].clicked.connect(self._export)

    # --- actions ----------------------------------------------------------------------

    def apply(self, levels: tuple[int, ...] | None) -> None:
        if levels is not None:
            self.state.select(tuple(levels), apply=True)

    def pin(self, levels: tuple[int, ...] | None) -> None:
        if levels is None:
            return
        try:
            self.state.pin(tuple(levels))
            self.message.clear()
        except ArxpyError as exc:
            self.message.setText(str(exc))

    def _export(self) -> None:
        # Linked tables go out together (File › Export asks for their folder).
        projects = getattr(self.window(), "projects", None)
        if self.state.events and projects is not None:
            projects.export_data()
        else:
            self.export_dialog().open()

    def export_dialog(self) -> ExportDialog:
        """The export dialog for the current release: the applied transformation or the
        selected method run (not yet shown)."""
        settings = settings_of(self)
        folder = last_folder(settings, "exports") or (
            self.state.path.parent if self.state.path is not None else Path.home())
        current = self.state.current_release()
        self.dialog = ExportDialog(current, None,
                                   Path(folder) / "anonymized.csv", self,
                                   delimiter=self.state.input_delimiter or ",",
                                   original=self.state.data)
        self.dialog.exported.connect(
            lambda written: remember(settings, "exports", written[0]) if written else None)
        return self.dialog

    def set_filter(self, node_filter: NodeFilter) -> None:
        self.node_filter = node_filter
        self.lattice.set_filter(node_filter)
        self.hasse.set_filter(node_filter)
        self.list.set_content(self.nodes, node_filter)

    # --- observing the state ----------------------------------------------------------

    def on_result(self, deferred: bool = False) -> None:
        """Show the state's result; ``deferred`` splits the work over two event-loop turns."""
        result = self.state.result
        self._io_levels = None
        self.message.clear()  # a pin error belongs to the previous result
        self.nodes = LatticeNodes.from_result(result) if result is not None else None
        self.lattice.set_nodes(self.nodes)
        self.hasse.set_nodes(self.nodes)
        self.on_pinned()
        self.on_transformation()
        if deferred:
            QTimer.singleShot(1, self, self._show_filters)
        else:
            self._show_filters()

    def _show_filters(self) -> None:
        if self.nodes is not None:
            # Resetting the filter widgets emits the new filter, which calls set_filter.
            self.filters.set_attributes(self.nodes.names, self.nodes.bottom, self.nodes.top)
        else:  # no result: no rows naming another result's (or project's) attributes
            self.filters.set_attributes([], (), ())
            self.set_filter(NodeFilter())

    def on_transformation(self) -> None:
        state, result = self.state, self.state.result
        self.lattice.set_marks(state.selected, state.applied, state.pinned)
        self.hasse.set_marks(state.selected, state.applied, state.pinned)
        self.list.model.set_marks(state.applied, state.pinned)
        self.properties.show_transformation(result, state.selected)
        self.compare.set_applied(state.applied)
        has = result is not None
        self.buttons["Export…"].setEnabled(has and state.applied is not None)
        for name in ("Apply selected", "Pin selected"):
            self.buttons[name].setEnabled(has and state.selected is not None)
        self._update_summary()
        self._refresh_io()

    def on_pinned(self) -> None:
        state = self.state
        self.lattice.set_marks(state.selected, state.applied, state.pinned)
        self.hasse.set_marks(state.selected, state.applied, state.pinned)
        self.list.model.set_marks(state.applied, state.pinned)
        self.compare.set_pinned(state.result, state.pinned, state.applied)
        self.buttons["Unpin all"].setEnabled(bool(state.pinned))
        self.tabs.setTabText(2, f"Compare ({len(state.pinned)})" if state.pinned else "Compare")

    def _update_summary(self) -> None:
        result, state = self.state.result, self.state
        if result is None:
            self.summary.setText("Run an anonymization (Configure → Anonymize) to explore it.")
            return
        best = result.optimum
        self.summary.setText(
            f"{result.lattice_size:,} transformations, {result.transformations_checked:,} "
            f"checked · optimum {list(best.levels) if best else 'none'} · "
            f"selected {list(state.selected) if state.selected else '—'} · "
            f"<b>applied {list(state.applied) if state.applied else '—'}</b>")

    def _refresh_io(self) -> None:
        result, levels = self.state.result, self.state.applied
        if result is None or levels is None:
            self._io_levels = None
            self.io_table.set_tables(None, None, None)
            return
        if levels == self._io_levels or self.tabs.currentWidget() is not self.io_table:
            return  # computed when the tab is shown: a whole output costs a second on 1M rows
        self._io_levels = levels
        frame = self.state.result_frame  # identifiers as treated for the search

        def work() -> tuple:
            release = result.release(levels)
            return levels, table_values(frame), table_values(release.table), release.suppressed

        self.last_job = start_job(self, work, self._io_ready)

    def _io_ready(self, value: tuple) -> None:
        levels, inputs, outputs, suppressed = value
        if levels == self.state.applied:
            self.io_table.set_tables(inputs, outputs, suppressed)
