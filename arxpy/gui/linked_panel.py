"""Configure's linked tables (issue 32): the patient table and its event tables, the
link column, the aggregates the patient-level view judges and the event dates shifted.

Widgets only: every edit is the session's undoable ``set_linked`` or
``set_linked_tables``; :mod:`arxpy.workflows.linked_project` says what they mean. Shown
while the project holds event tables (File › Add linked tables… adds the first).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
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

from arxpy.data.csv_io import read_csv
from arxpy.errors import ArxpyError
from arxpy.gui.folders import pick_paths
from arxpy.gui.linked_import import (
    CSV_FILTER,
    checked_names,
    fill_checkable,
    id_like,
    names_list,
)
from arxpy.gui.plain_text import plain_label
from arxpy.gui.state import AppState
from arxpy.identifiers.dates import MAX_SHIFT_DAYS
from arxpy.workflows.linked_project import (
    DEFAULT_SHIFT_DAYS,
    LinkedSettings,
    date_columns,
    offered_aggregates,
    without_table,
)
from arxpy.workflows.linked_tables import EventAggregate

NOTE = ("Explore, Utility and Risk judge one row per patient: the patient table's "
        "attributes and the aggregates ticked here. Export writes every table; a suppressed "
        "patient leaves every table. The link column must be a keyed pseudonym.")


class LinkedTablesPanel(QWidget):
    """The tables, the link column, the judged aggregates and the shifted event dates."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._filling = False
        self.tables = QTableWidget(0, 3)
        self.tables.setHorizontalHeaderLabels(["Table", "Rows", "Columns"])
        self.tables.verticalHeader().hide()
        header = self.tables.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tables.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.tables.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.add, self.remove = QPushButton("Add CSV files…"), QPushButton("Remove")
        self.add.clicked.connect(self.choose_files)
        self.remove.clicked.connect(self._remove_selected)
        self.link_column = QComboBox()
        self.link_column.currentTextChanged.connect(self._commit)
        self.aggregates, self.shifted = names_list(), names_list()
        self.aggregates.itemChanged.connect(self._commit)
        self.shifted.itemChanged.connect(self._commit)
        self.shift_days = QSpinBox(minimum=1, maximum=MAX_SHIFT_DAYS, suffix=" days")
        self.shift_days.setPrefix("± ")
        self.shift_days.editingFinished.connect(self._commit)
        self.message = plain_label(QLabel(wordWrap=True))
        self._layout()
        for signal in (state.project_changed, state.linked_changed, state.settings_changed):
            signal.connect(self.refresh)
        self.refresh()

    def _layout(self) -> None:
        buttons = QHBoxLayout()
        buttons.addWidget(self.remove)
        buttons.addStretch(1)
        buttons.addWidget(self.add)
        tables = QVBoxLayout()
        tables.addWidget(self.tables, 1)
        tables.addLayout(buttons)
        link = QFormLayout()
        link.addRow("Link column:", self.link_column)
        tables.addLayout(link)
        judged = QVBoxLayout()
        judged.addWidget(QLabel("Aggregates judged per patient:"))
        judged.addWidget(self.aggregates, 1)
        shifted = QVBoxLayout()
        shifted.addWidget(QLabel("Event dates shifted:"))
        shifted.addWidget(self.shifted, 1)
        shifted.addWidget(self.shift_days)
        columns = QHBoxLayout()
        columns.addLayout(tables, 4)
        columns.addLayout(judged, 3)
        columns.addLayout(shifted, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(QLabel("<b>Linked tables</b>"))
        layout.addLayout(columns, 1)
        note = QLabel(NOTE, wordWrap=True)
        note.setStyleSheet("color: #555")
        layout.addWidget(note)
        layout.addWidget(self.message)

    # -- showing the session's choices ---------------------------------------------------

    def refresh(self) -> None:
        state = self.state
        events = state.events if state.has_project else {}
        self.setVisible(bool(events))
        if not events:
            return
        linked = state.linked or LinkedSettings(self.link_column.currentText())
        self._filling = True
        try:
            self._fill_tables(events)
            common = [c for c in state.data.columns
                      if all(c in frame.columns for frame in events.values())]
            if [self.link_column.itemText(i) for i in range(self.link_column.count())] != common:
                self.link_column.clear()
                self.link_column.addItems(common)
            self.link_column.setCurrentText(linked.link_column)
            chosen = {a.name for a in linked.aggregates}
            fill_checkable(self.aggregates, [
                (a.label, a.name in chosen, a.name) for name, frame in events.items()
                for a in offered_aggregates(name, frame, linked.link_column)])
            dates = dict.fromkeys(c for frame in events.values()
                                  for c in date_columns(frame, linked.link_column))
            fill_checkable(self.shifted, [(c, c in linked.shifted, c) for c in dates])
            self.shift_days.setValue(linked.shift_days)
        finally:
            self._filling = False

    def _fill_tables(self, events: dict) -> None:
        rows = [(f"{self.state.patient_table} (patient table)", self.state.data.shape)] + [
            (name, frame.shape) for name, frame in events.items()]
        self.tables.setRowCount(len(rows))
        for row, (name, (records, columns)) in enumerate(rows):
            for column, text in enumerate((name, f"{records:,}", str(columns))):
                self.tables.setItem(row, column, QTableWidgetItem(text))

    # -- edits -----------------------------------------------------------------------------

    def chosen(self) -> LinkedSettings:
        """The choices the widgets show."""
        return LinkedSettings(
            self.link_column.currentText(),
            tuple(EventAggregate.parse(t) for t in checked_names(self.aggregates)),
            tuple(checked_names(self.shifted)), self.shift_days.value())

    def _commit(self, *_: object) -> None:
        if self._filling or not self.state.has_project or not self.state.events:
            return
        chosen = self.chosen()
        if chosen != self.state.linked:
            self._guarded(lambda: self.state.set_linked(chosen))

    def choose_files(self) -> None:
        """Add event tables from CSV files (the first becomes the project's first)."""
        paths = pick_paths(self, "data", "Linked event tables", CSV_FILTER)
        if paths:
            self.add_files(paths)

    def add_files(self, paths: list[str]) -> None:
        """Event tables named after their files, as one undoable step."""
        state = self.state
        events = dict(state.events)
        try:
            for path in paths:
                name = Path(path).stem
                if name in events or name == state.patient_table:
                    raise ArxpyError(f"A table is already named '{name}'; rename the file.")
                events[name] = read_csv(path, guess_encoding=True)
        except ArxpyError as exc:
            self.message.setText(str(exc))
            return
        linked = state.linked
        if linked is None:  # the first: link by a column every table holds
            common = [c for c in state.data.columns
                      if all(c in frame.columns for frame in events.values())]
            linked = LinkedSettings(common[id_like(common)] if common else "",
                                    shift_days=DEFAULT_SHIFT_DAYS)
        names = ", ".join(f"'{Path(p).stem}'" for p in paths)
        self._guarded(lambda: state.set_linked_tables(events, linked,
                                                      f"Add linked table {names}"))

    def _remove_selected(self) -> None:
        row = self.tables.currentRow()
        names = list(self.state.events)
        if row < 1 or row > len(names):  # the patient table stays
            self.message.setText("Select an event table to remove.")
            return
        self.remove_table(names[row - 1])

    def remove_table(self, name: str) -> None:
        state = self.state
        remaining = {n: f for n, f in state.events.items() if n != name}
        linked = without_table(state.linked, name, remaining) if remaining else None
        self._guarded(lambda: state.set_linked_tables(remaining, linked,
                                                      f"Remove linked table '{name}'"))

    def _guarded(self, edit) -> None:
        try:
            edit()
            self.message.clear()
        except ArxpyError as exc:
            self.message.setText(str(exc))
