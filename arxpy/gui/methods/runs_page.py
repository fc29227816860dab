"""Explore for methods other than the lattice search: the list of runs, and for the
selected run its Summary, Groups and the views registered for its method
(:func:`arxpy.gui.methods.views.result_views`); a Compare tab sets selected runs (and
optionally the applied transformation) side by side.

Selecting a run makes it the current release (:meth:`AppState.select_run`), which
Utility, Risk and Export analyse.
"""

from __future__ import annotations

import html
import logging
from typing import Any

import pandas as pd
from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.compare import best_columns
from arxpy.analysis.setvalued_compare import SETVALUED_ROWS
from arxpy.errors import ArxpyError, ConfigurationError
from arxpy.gui.explore.jobs import start_job
from arxpy.gui.methods.choice import key_parameters
from arxpy.gui.methods.run_views import GroupSizesView, RunSummaryView
from arxpy.gui.methods.views import MethodRun, result_views
from arxpy.gui.state import AppState
from arxpy.gui.utility.common import fill_table, note, read_only_table
from arxpy.workflows.compare import compare_candidates

log = logging.getLogger(__name__)

RUN_COLUMNS = ("Run", "Method", "Key parameters", "Groups", "Smallest group", "Elapsed")
EMPTY_TEXT = ("No method run yet. Choose a method in Configure, set its parameters and "
              "press Run (Ctrl+R); every run is listed here and saved with the project.")


def run_row(run: MethodRun) -> tuple[str, ...]:
    """The list's cells for ``run``."""
    statistics = run.release.statistics
    label = f"{run.label}  [pinned]" if run.pinned else run.label
    return (label, run.method.label, key_parameters(run.method),
            f"{statistics.n_classes:,}", f"{statistics.min_size:,}",
            f"{run.release.elapsed_seconds:.2f} s")


class RunsPage(QWidget):
    """Runs list above, the selected run's tabs below."""

    #: The user asked to export the selected run's release.
    export_requested = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.last_job: Any = None
        #: What the comparison shown (or computing) was made of: releases and the
        #: lattice result; it goes when one of them does (another project, a removed run).
        self._compared: tuple[Any, ...] = ()
        self._shown_run: MethodRun | None = None
        self._rows: list[tuple[int, str]] = []
        self._filling = False
        self.table = read_only_table(RUN_COLUMNS)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setToolTip("Click a run to analyse it in Utility, Risk and Export; "
                              "Ctrl-click several to compare them")
        self.table.itemSelectionChanged.connect(self._selection_changed)
        header = self.table.horizontalHeader()
        for column in range(1, len(RUN_COLUMNS)):
            header.setSectionResizeMode(column, header.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, header.ResizeMode.Stretch)
        self.heading = note(EMPTY_TEXT)
        self.buttons = {name: QPushButton(name) for name in
                        ("Pin", "Rename…", "Remove", "Compare selected", "Export…")}
        self.buttons["Pin"].setToolTip("Keep the selected run when the list is full (it keeps "
                                       "the last runs; the oldest unpinned one goes first)")
        self.with_lattice = QCheckBox("with the applied and pinned transformations")
        self.with_lattice.setToolTip("Add the lattice search's applied transformation and "
                                     "the candidates pinned in Explore to the comparison "
                                     "(same input only)")
        self.buttons["Pin"].clicked.connect(self._toggle_pin)
        self.buttons["Rename…"].clicked.connect(self._ask_rename)
        self.buttons["Remove"].clicked.connect(self._remove_selected)
        self.buttons["Compare selected"].clicked.connect(self.compare_selected)
        self.buttons["Export…"].clicked.connect(self.export_requested)
        self.tabs = QTabWidget()
        self.compare_note = note()
        self.compare_table = read_only_table(("Figure",))
        self.target = QComboBox()
        self.target.setToolTip("Compare classifier accuracy on this attribute too (seed "
                               "004's cross-validation; takes a few seconds per release)")
        self.target_bins = QLineEdit()
        self.target_bins.setPlaceholderText("e.g. 10000, 50000")
        self.target_bins.setToolTip("Bin a numeric target at these edges first")
        target_row = QHBoxLayout()
        target_row.addWidget(QLabel("Classifier accuracy on"))
        target_row.addWidget(self.target)
        target_row.addWidget(QLabel("binned at"))
        target_row.addWidget(self.target_bins)
        target_row.addStretch(1)
        compare = QWidget()
        compare_layout = QVBoxLayout(compare)
        compare_layout.addLayout(target_row)
        compare_layout.addWidget(self.compare_note)
        compare_layout.addWidget(self.compare_table, 1)
        self.compare_page = compare
        self.tabs.addTab(compare, "Compare")
        self._layout()
        state.runs_changed.connect(self.refresh)
        state.release_changed.connect(self.refresh)
        state.result_changed.connect(self.refresh)
        state.project_changed.connect(self._fill_targets)
        self._fill_targets()
        self.refresh()

    def _fill_targets(self) -> None:
        """Released attributes of the project; none chosen (accuracy costs time)."""
        self.target.clear()
        self.target.addItem("(no classifier)", None)
        if self.state.has_project:
            for name in self.state.definition.names:
                if name not in self.state.definition.identifying:
                    self.target.addItem(name, name)

    def _layout(self) -> None:
        bar = QHBoxLayout()
        bar.addWidget(self.heading, 1)
        for name in ("Pin", "Rename…", "Remove", "Compare selected"):
            bar.addWidget(self.buttons[name])
        bar.addWidget(self.with_lattice)
        bar.addWidget(self.buttons["Export…"])
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(bar)
        top_layout.addWidget(self.table, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(self.tabs)
        splitter.setSizes([170, 430])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(splitter)

    # --- the list -------------------------------------------------------------------------

    def refresh(self) -> None:
        """Show the state's runs, the current one selected, and its tabs."""
        runs, current = self.state.runs, self.state.current_run
        self._filling = True
        # Rebuilt only when the runs changed: a rebuild would drop a Ctrl-click selection.
        rows = [(id(run), run.label) for run in runs]
        if rows != self._rows:
            self._rows = rows
            fill_table(self.table, [run_row(run) for run in runs])
            for row in range(self.table.rowCount()):  # names read as text
                for column in (1, 2):
                    self.table.item(row, column).setTextAlignment(
                        Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if current in runs and current not in self.selected_runs():
            self.table.selectRow(runs.index(current))
        self._filling = False
        self.heading.setText(
            EMPTY_TEXT if not runs else f"{len(runs)} run(s); the last "
            f"{self.state.max_runs} and the pinned ones are kept. Utility, Risk and Export "
            f"analyse the selected run{': ' + html.escape(current.label) if current else ''}.")
        for button in self.buttons.values():
            button.setEnabled(bool(runs))
        self.buttons["Pin"].setText("Unpin" if current is not None and current.pinned
                                    else "Pin")
        self.with_lattice.setEnabled(self.state.result is not None
                                     and self.state.applied is not None)
        self._show_run(current if current in runs else None)
        if self._compared and not self._comparison_current():
            self._clear_comparison()

    def _comparison_current(self) -> bool:
        """Whether everything compared is still here: the runs' releases, the result."""
        releases = {id(run.release) for run in self.state.runs}
        result = self.state.result
        return all(id(item) in releases or item is result for item in self._compared)

    def _clear_comparison(self) -> None:
        self._compared = ()
        self.compare_table.setRowCount(0)
        self.compare_table.setColumnCount(1)
        self.compare_table.setHorizontalHeaderLabels(["Figure"])
        self.compare_note.setText("")

    def selected_runs(self) -> list[MethodRun]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.state.runs[r] for r in rows if r < len(self.state.runs)]

    def select_runs(self, runs: list[MethodRun]) -> None:
        """Select ``runs`` in the list (what Compare takes), keeping the current run."""
        model = self.table.selectionModel()
        model.clearSelection()
        flags = QItemSelectionModel.SelectionFlag.Select | \
            QItemSelectionModel.SelectionFlag.Rows
        for row, run in enumerate(self.state.runs):
            if any(run is chosen for chosen in runs):
                model.select(self.table.model().index(row, 0), flags)

    def _selection_changed(self) -> None:
        if self._filling:
            return
        row = self.table.currentRow()
        if 0 <= row < len(self.state.runs) and self.state.runs[row] is not self.state.current_run:
            self.state.select_run(self.state.runs[row])

    def rename(self, run: MethodRun, label: str) -> bool:
        """Rename ``run``; a refused name shows why. True if renamed."""
        try:
            self.state.rename_run(run, label)
        except ArxpyError as exc:
            self.heading.setText(f"<span style='color:#b3261e'>{html.escape(str(exc))}</span>")
            return False
        return True

    def _ask_rename(self) -> None:
        run = self.state.current_run
        if run is None:
            return
        label, ok = QInputDialog.getText(self, "Rename run", "Name:", text=run.label)
        if ok:
            self.rename(run, label)

    def _toggle_pin(self) -> None:
        run = self.state.current_run
        if run is not None:
            self.state.pin_run(run, not run.pinned)

    def _remove_selected(self) -> None:
        for run in self.selected_runs() or ([self.state.current_run]
                                            if self.state.current_run else []):
            self.state.remove_run(run)

    # --- the selected run's tabs --------------------------------------------------------

    def _show_run(self, run: MethodRun | None) -> None:
        if run is self._shown_run:
            return
        self._shown_run = run
        while self.tabs.count() > 1:  # everything but Compare belongs to the old run
            widget = self.tabs.widget(0)
            self.tabs.removeTab(0)
            widget.deleteLater()
        if run is None:
            return
        views = [("Summary", RunSummaryView), ("Groups", GroupSizesView),
                 *result_views(run.method.name)]
        for index, (title, factory) in enumerate(views):
            self.tabs.insertTab(index, self._view(factory, run), title)
        self.tabs.setCurrentIndex(0)

    @staticmethod
    def _view(factory: Any, run: MethodRun) -> QWidget:
        try:
            return factory(run)
        except Exception as exc:  # a view's bug must not take the page down
            log.error("A result view failed", exc_info=exc)
            label = QLabel(f"This view could not be shown: {html.escape(str(exc))}")
            label.setWordWrap(True)
            return label

    # --- compare ------------------------------------------------------------------------

    def compare_selected(self) -> None:
        """Compare the selected runs (and the applied transformation if ticked) in the
        background; the table fills when done."""
        releases = {run.label: run.release for run in self.selected_runs()}
        state = self.state
        result, levels = state.result, state.applied
        lattice = self.with_lattice.isChecked() and result is not None and levels is not None
        if len(releases) + lattice < 2:
            self.compare_note.setText("Select two or more runs (Ctrl-click), or one run and "
                                      "tick 'with the applied and pinned transformations'.")
            self.tabs.setCurrentWidget(self.compare_page)
            return

        pinned = [p for p in state.pinned if p != levels] if lattice else []
        try:
            target, bins = self.target.currentData(), self._bins()
        except ConfigurationError as exc:
            self.compare_note.setText(
                f"<span style='color:#b3261e'>{html.escape(str(exc))}</span>")
            return
        original, definition = state.data, state.definition
        hierarchies = dict(state.hierarchies)

        def work() -> pd.DataFrame:
            named = dict(releases)
            if lattice:
                named[f"transformation {list(levels)}"] = result.release(levels)
                for candidate in pinned:  # any candidate of the search, not only the applied
                    named[f"pinned {list(candidate)}"] = result.release(candidate)
            return compare_candidates(named, original, definition, hierarchies, target, bins)

        compared = (*releases.values(), *((result,) if lattice else ()))
        self._clear_comparison()
        self._compared = compared
        self.compare_note.setText("Comparing…")
        self.tabs.setCurrentWidget(self.compare_page)
        self.last_job = start_job(
            self, work, lambda frame: self._show_comparison(compared, frame),
            lambda message: self._comparison_failed(compared, message))

    def _show_comparison(self, compared: tuple[Any, ...], frame: pd.DataFrame) -> None:
        if compared is not self._compared:
            return  # runs or project changed meanwhile: these figures describe nothing shown
        self.compare_table.setColumnCount(len(frame.columns) + 1)
        self.compare_table.setHorizontalHeaderLabels(
            ["Figure", *(_wrapped(str(c)) for c in frame.columns)])
        for column, name in enumerate(frame.columns, start=1):
            self.compare_table.horizontalHeaderItem(column).setToolTip(str(name))
        fill_table(self.compare_table, [(name, *(_cell(v) for v in row))
                                        for name, row in frame.iterrows()], bold_first=True)
        for row in range(self.compare_table.rowCount()):  # long sentences are cut in cells
            for column in range(self.compare_table.columnCount()):
                item = self.compare_table.item(row, column)
                if item is not None:
                    item.setToolTip(item.text())
        self._mark_best(frame)
        set_valued = (" Set-valued (disassociation) releases publish a document of chunks: "
                      "classes and prosecutor risks do not apply to them; their k^m rows "
                      "come from the document and the independent checker."
                      if SETVALUED_ROWS[0] in frame.index else "")
        self.compare_note.setText(
            "Figures recomputed from each release's published records: classes are records "
            "sharing every declared quasi-identifier value (the attacker's view); each "
            "verdict checks the release's claims independently, as in Explore, Risk and "
            "the report. Hover a cell for its full text." + set_valued)

    def _mark_best(self, frame: pd.DataFrame) -> None:
        """★ and bold on each row's best value among the anonymous releases."""
        columns = list(frame.columns)
        for row, name in enumerate(frame.index):
            for best in best_columns(frame, name):
                item = self.compare_table.item(row, columns.index(best) + 1)
                item.setText("★ " + item.text())
                font = item.font()
                font.setBold(True)
                item.setFont(font)

    def _bins(self) -> list[float] | None:
        text = self.target_bins.text().strip()
        if not text:
            return None
        try:
            return [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
        except ValueError:
            raise ConfigurationError(f"Cannot read the bins '{text}'; write numbers "
                                     "separated by commas, e.g. 10000, 50000.") from None

    def _comparison_failed(self, compared: tuple[Any, ...], message: str) -> None:
        if compared is not self._compared:
            return
        self.compare_note.setText(f"<span style='color:#b3261e'>{html.escape(message)}</span>")


def _cell(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _wrapped(text: str, width: int = 30) -> str:
    """A column header on up to three lines (headers do not wrap by themselves)."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return "\n".join(lines[:2] + ([" ".join(lines[2:])] if len(lines) > 2 else []))
