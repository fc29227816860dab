"""Explore's list of runs (lattice searches and other methods), and for the selected
run its Summary, Groups and the views registered for its method
(:func:`arxpy.gui.methods.views.result_views`); a Compare tab sets the selected runs, or
every pinned candidate of any run, side by side: figures, charts and "Which to publish?".

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
from arxpy.formatting import figure, percent, plain, plural
from arxpy.gui.explore.compare_charts import ComparisonCharts, letter_of
from arxpy.gui.explore.jobs import start_job
from arxpy.gui.methods.candidates_view import CandidatesView
from arxpy.gui.methods.run_views import GroupSizesView, RunSummaryView
from arxpy.gui.methods.views import result_views
from arxpy.gui.state import AppState
from arxpy.gui.utility.common import fill_table, note, read_only_table
from arxpy.methods import method_classes
from arxpy.workflows.compare import Comparison, compare_candidates
from arxpy.workflows.method_choice import COMPARE_KEY, LATTICE, key_parameters
from arxpy.workflows.pins import of_run, pinned_releases
from arxpy.workflows.runs import MethodRun

log = logging.getLogger(__name__)

RUN_COLUMNS = ("Run", "Method", "Key parameters", "Groups", "Smallest group", "Elapsed")
EMPTY_TEXT = ("No method run yet. Choose a method in Configure, set its parameters and "
              "press Run (Ctrl+R); every run is listed here and saved with the project.")


def run_row(run: MethodRun, pins: int = 0) -> tuple[str, ...]:
    """The list's cells for ``run`` with ``pins`` of its candidates pinned."""
    statistics = run.release.statistics
    label = run.label if not pins else \
        f"{run.label}  [pinned]" if pins == 1 else f"{run.label}  [{pins} pinned]"
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
        self.table.verticalHeader().setDefaultSectionSize(20)
        header = self.table.horizontalHeader()
        for column in range(1, len(RUN_COLUMNS)):
            header.setSectionResizeMode(column, header.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, header.ResizeMode.Stretch)
        self.heading = note(EMPTY_TEXT)
        self.buttons = {name: QPushButton(name) for name in
                        ("Pin", "Rename…", "Remove", "Compare selected", "Compare pinned",
                         "Export…")}
        self.buttons["Pin"].setToolTip(
            "Pin the selected run's release (a search's optimum) for Compare; a run with "
            "pins is kept when the list is full. Pin other candidates of a search in its "
            "Candidates tab, or in the lattice.")
        self.buttons["Compare pinned"].setToolTip("Compare every pinned candidate of any run")
        self.buttons["Pin"].clicked.connect(self._toggle_pin)
        self.buttons["Rename…"].clicked.connect(self._ask_rename)
        self.buttons["Remove"].clicked.connect(self._remove_selected)
        self.buttons["Compare selected"].clicked.connect(self.compare_selected)
        self.buttons["Compare pinned"].clicked.connect(self.compare_pinned)
        self.buttons["Export…"].clicked.connect(self.export_requested)
        self.tabs = QTabWidget()
        self.compare_note = note()
        #: "Which to publish?" across the compared releases.
        self.advice = QLabel()
        self.advice.setWordWrap(True)
        self.advice.setTextFormat(Qt.TextFormat.RichText)
        self.compare_table = read_only_table(("Figure",))
        self.compare_table.setToolTip(
            "Figures recomputed from each release's published records: classes are records "
            "sharing every declared quasi-identifier value (the attacker's view); each "
            "verdict checks the release's claims independently, as in Explore, Risk and "
            "the report.")
        self.charts = ComparisonCharts()
        self.target = QComboBox()
        self.target.setToolTip("Compare classifier accuracy on this attribute too (seed "
                               "004's cross-validation; takes a few seconds per release)")
        self.target_bins = QLineEdit()
        self.target_bins.setPlaceholderText("e.g. 10000, 50000")
        self.target_bins.setToolTip("Bin a numeric target at these edges first")
        # The choice is saved with the project: a reopened comparison has its accuracy rows.
        self.target.activated.connect(lambda _index: self._keep_target())
        self.target_bins.editingFinished.connect(self._keep_target)
        target_row = QHBoxLayout()
        target_row.addWidget(QLabel("Classifier accuracy on"))
        target_row.addWidget(self.target)
        target_row.addWidget(QLabel("binned at"))
        target_row.addWidget(self.target_bins)
        target_row.addStretch(1)
        figures = QWidget()
        figures_layout = QVBoxLayout(figures)
        figures_layout.setContentsMargins(0, 0, 0, 0)
        figures_layout.addWidget(self.compare_table, 1)
        figures_layout.addWidget(self.compare_note)
        self.compare_views = QTabWidget()
        self.compare_views.addTab(figures, "Figures")
        # Not in a scroll area: the charts shrink to the room there is (1280x720 too).
        self.compare_views.addTab(self.charts, "Charts")
        compare = QWidget()
        compare_layout = QVBoxLayout(compare)
        compare_layout.addLayout(target_row)
        compare_layout.addWidget(self.advice)
        compare_layout.addWidget(self.compare_views, 1)
        self.compare_page = compare
        self.tabs.addTab(compare, "Compare")
        self._layout()
        state.runs_changed.connect(self.refresh)
        state.release_changed.connect(self.refresh)
        state.result_changed.connect(self.refresh)
        state.project_changed.connect(self._fill_targets)
        state.settings_changed.connect(self._show_saved_target)
        self._fill_targets()
        self.refresh()

    def _fill_targets(self) -> None:
        """Released attributes of the project; the saved choice, else none (accuracy
        costs time)."""
        self.target.clear()
        self.target.addItem("(no classifier)", None)
        self.target_bins.clear()
        if not self.state.has_project:
            return
        for name in self.state.definition.names:
            if name not in self.state.definition.identifying:
                self.target.addItem(name, name)
        self._show_saved_target()

    def _show_saved_target(self) -> None:
        """The target and bins the project keeps (after opening it, or an undo)."""
        saved = self.state.settings.get(COMPARE_KEY) or {} if self.state.has_project else {}
        self.target.setCurrentIndex(max(self.target.findData(saved.get("target")), 0))
        self.target_bins.setText(", ".join(plain(b) for b in saved.get("bins") or ()))

    def _keep_target(self) -> None:
        """The chosen target and bins as a project setting (one undoable edit)."""
        try:
            chosen = {"target": self.target.currentData(), "bins": self._bins()}
        except ConfigurationError:
            return  # the comparison says what is wrong with the bins
        if self.state.has_project and chosen != self.state.settings.get(COMPARE_KEY):
            self.state.update_settings("Choose the comparison's classifier target",
                                       **{COMPARE_KEY: chosen})

    def _layout(self) -> None:
        bar = QHBoxLayout()
        bar.addWidget(self.heading, 1)
        for name in ("Pin", "Rename…", "Remove", "Compare selected", "Compare pinned",
                     "Export…"):
            bar.addWidget(self.buttons[name])
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(bar)
        top_layout.addWidget(self.table, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(self.tabs)
        splitter.setSizes([190, 410])  # five runs in view at 1280x720
        splitter.setStretchFactor(1, 1)  # a taller window gives its height to the tabs
        splitter.setStretchFactor(0, 0)
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
        pins = self.state.pins
        rows = [(id(run), run.label, len(of_run(pins, run.label))) for run in runs]
        if rows != self._rows:
            self._rows = rows
            fill_table(self.table, [run_row(run, count) for run, (_, _, count)
                                    in zip(runs, rows, strict=True)])
            for row in range(self.table.rowCount()):  # names read as text
                for column in (1, 2):
                    self.table.item(row, column).setTextAlignment(
                        Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if current in runs and current not in self.selected_runs():
            self.table.selectRow(runs.index(current))
        self._filling = False
        # One line: the line above names the current release, the list's tooltip says
        # that Utility, Risk and Export analyse it.
        self.heading.setText(
            EMPTY_TEXT if not runs else f"{plural(len(runs), 'run')}; the last "
            f"{self.state.max_runs} and the pinned ones are kept.")
        for button in self.buttons.values():
            button.setEnabled(bool(runs))
        self.buttons["Pin"].setText("Unpin" if current is not None and current.pinned
                                    else "Pin")
        count = len(pins)
        self.buttons["Compare pinned"].setText(f"Compare pinned ({count})" if count
                                               else "Compare pinned")
        self.buttons["Compare pinned"].setEnabled(count >= 2)
        self._show_run(current if current in runs else None)
        if self._compared and not self._comparison_current():
            self._clear_comparison()

    def _comparison_current(self) -> bool:
        """Whether everything compared is still here: the runs' releases and results."""
        kept = {id(run.release) for run in self.state.runs} | {
            id(run.result) for run in self.state.runs if run.result is not None}
        return all(id(item) in kept for item in self._compared)

    def _clear_comparison(self) -> None:
        self._compared = ()
        self.compare_table.setRowCount(0)
        self.compare_table.setColumnCount(1)
        self.compare_table.setHorizontalHeaderLabels(["Figure"])
        self.compare_note.setText("")
        self.advice.setText("")
        self.charts.show_comparison(None)

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
        if run is None:
            return
        try:
            self.state.pin_run(run, not run.pinned)
        except ArxpyError as exc:
            self.heading.setText(f"<span style='color:#b3261e'>{html.escape(str(exc))}</span>")

    def _remove_selected(self) -> None:
        for run in self.selected_runs() or ([self.state.current_run]
                                            if self.state.current_run else []):
            self.state.remove_run(run)

    # --- the selected run's tabs --------------------------------------------------------

    def _show_run(self, run: MethodRun | None) -> None:
        shown = self._shown_run
        # Pinning or renaming replaces the run object; its views still show its release.
        same = run is shown or (run is not None and shown is not None
                                and run.release is shown.release)
        self._shown_run = run
        if same:
            return
        while self.tabs.count() > 1:  # everything but Compare belongs to the old run
            widget = self.tabs.widget(0)
            self.tabs.removeTab(0)
            widget.deleteLater()
        if run is None:
            return
        views = [("Summary", RunSummaryView), ("Groups", GroupSizesView),
                 *self._search_views(run), *result_views(run.method.name)]
        for index, (title, factory) in enumerate(views):
            self.tabs.insertTab(index, self._view(factory, run), title)
        self.tabs.setCurrentIndex(0)

    def _search_views(self, run: MethodRun) -> list[tuple[str, Any]]:
        """A lattice search's candidates, to pin any of them (older searches too)."""
        if run.method.name != LATTICE:
            return []
        return [("Candidates", lambda run: CandidatesView(self.state, run))]

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
        """Compare the selected runs' releases (a search's: its optimum) in the
        background; the figures, charts and advice fill when done."""
        runs = self.selected_runs()
        if len(runs) < 2:
            self._say("Select two or more runs (Ctrl-click), or pin candidates and press "
                      "Compare pinned.")
            return
        self._compare({run.label: run.release for run in runs},
                      tuple(run.release for run in runs))

    def compare_pinned(self) -> None:
        """Compare every pinned candidate of any run (a lattice candidate's release is
        computed on the worker)."""
        runs = self.state.runs
        named = pinned_releases(self.state.pins, runs)
        if len(named) < 2:
            self._say("Pin two or more candidates: a run with Pin here, or transformations "
                      "of a search in its lattice.")
            return
        pinned_runs = {pin.run for pin in self.state.pins}
        self._compare(named, tuple(run.result if run.result is not None else run.release
                                   for run in runs if run.label in pinned_runs))

    def _say(self, text: str) -> None:
        self.compare_note.setText(text)
        self.tabs.setCurrentWidget(self.compare_page)
        self.compare_views.setCurrentIndex(0)  # where the note is

    def _compare(self, named: dict[str, Any], compared: tuple[Any, ...]) -> None:
        state = self.state
        try:
            target, bins = self.target.currentData(), self._bins()
            original, definition = state.release_inputs()  # what the runs released
        except ConfigurationError as exc:
            self._say(f"<span style='color:#b3261e'>{html.escape(str(exc))}</span>")
            return
        hierarchies = state.release_hierarchies()
        self._clear_comparison()
        self._compared = compared
        self._say("Comparing…")
        self.last_job = start_job(
            self, lambda: compare_candidates(named, original, definition, hierarchies,
                                             target, bins),
            lambda comparison: self._show_comparison(compared, comparison),
            lambda message: self._comparison_failed(compared, message))

    def _show_comparison(self, compared: tuple[Any, ...], comparison: Comparison) -> None:
        if compared is not self._compared:
            return  # runs or project changed meanwhile: these figures describe nothing shown
        frame = comparison.table
        self.compare_table.setColumnCount(len(frame.columns) + 1)
        self.compare_table.setHorizontalHeaderLabels(
            ["Figure", *(_wrapped(f"{letter_of(i)} · {c}")
                         for i, c in enumerate(frame.columns))])
        for column, name in enumerate(frame.columns, start=1):
            self.compare_table.horizontalHeaderItem(column).setToolTip(str(name))
        fill_table(self.compare_table, [(name, *(_cell(name, v) for v in row))
                                        for name, row in frame.iterrows()], bold_first=True)
        for row in range(self.compare_table.rowCount()):  # long sentences are cut in cells
            for column in range(self.compare_table.columnCount()):
                item = self.compare_table.item(row, column)
                if item is not None:
                    item.setToolTip(item.text())
        self._mark_best(frame)
        # The figures' names whole; the releases share the rest of the width.
        self.compare_table.horizontalHeader().setSectionResizeMode(
            0, self.compare_table.horizontalHeader().ResizeMode.ResizeToContents)
        self.advice.setText(_advice_html(comparison))
        self.charts.show_comparison(comparison)
        set_valued = (" Set-valued (disassociation) releases publish a document of chunks: "
                      "classes and prosecutor risks do not apply to them; their k^m rows "
                      "come from the document and the independent checker."
                      if SETVALUED_ROWS[0] in frame.index else "")
        self.compare_note.setText(
            "★ best value among the anonymous releases. Figures are recomputed from each "
            "release's published records; hover a cell or header for its full text."
            + set_valued)

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


def _cell(row: str, value: object) -> str:
    """A figure for people: the method's label, risks and accuracies in percent, counts
    with separators."""
    if row == "method":
        method = method_classes().get(str(value))
        return method.label if method is not None else str(value)
    if isinstance(value, float) and ("risk" in row or "accuracy" in row):
        return percent(value)
    return figure(value)


def _advice_html(comparison: Comparison) -> str:
    """"Which to publish?" as one paragraph, the releases that are not anonymous in red."""
    if comparison.advice is None:
        return ""
    letters = {str(c): letter_of(i) for i, c in enumerate(comparison.table.columns)}
    lines = comparison.advice.sentences(letters)
    shown = [f"<span style='color:#b3261e'>{html.escape(line)}</span>"
             if " is not anonymous: " in line or line.startswith("None of") else
             html.escape(line) for line in lines]
    return "<b>Which to publish?</b> " + " ".join(shown)


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
