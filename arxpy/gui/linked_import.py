"""The import wizard's last page (issue 32): event tables linked to the imported table.

Optional: Finish on the columns page imports the table alone. Here the imported table
is the patient table (one row per patient); event tables come from CSV files or from
the other tables of the SQLite database being imported, the link column is chosen
among the imported columns, and the aggregates the patient-level view judges are
ticked (as in Configure, where they can be changed later). The link column becomes
identifying with a keyed pseudonym (docs/linked-tables.md: removed, it would break the
link); how tables link and what the patient-level view judges is kept in the settings
(:mod:`arxpy.workflows.linked_project`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QWidget,
    QWizardPage,
)

from arxpy.data.csv_io import read_csv
from arxpy.data.definition import AttributeType
from arxpy.data.sql_io import list_tables, read_sqlite
from arxpy.errors import ArxpyError, DataImportError
from arxpy.gui.folders import pick_paths
from arxpy.gui.plain_text import plain_label, tooltip
from arxpy.identifiers import PSEUDONYM, Treatment
from arxpy.project import Project
from arxpy.workflows.identifier_settings import IDENTIFIERS, plan_of, plan_record, with_treatment
from arxpy.workflows.linked_project import LINKED, LinkedSettings, offered_aggregates
from arxpy.workflows.linked_tables import EventAggregate

CSV_FILTER = "CSV files (*.csv *.txt *.tsv);;All files (*)"


class LinkedTablesPage(QWizardPage):
    """Event tables by name and the link column; :meth:`apply` puts them in a project."""

    def __init__(self, wizard: Any) -> None:
        super().__init__()
        self.owner = wizard
        self.setTitle("Link event tables (optional)")
        self.setSubTitle(
            # Two lines at the wizard's width: a third would be clipped.
            "The imported table holds one row per patient; event tables name their patient "
            "in the link column, which becomes a keyed pseudonym. The privacy models judge "
            "one row per patient. Finish without tables to import the data alone.")
        self.events: dict[str, pd.DataFrame] = {}
        self.tables = QListWidget()  # plain text items: names stay text
        add_files = QPushButton("Add CSV files…")
        add_files.clicked.connect(self._choose_files)
        remove = QPushButton("Remove")
        remove.clicked.connect(self._remove)
        buttons = QWidget()
        row = QHBoxLayout(buttons)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(add_files)
        row.addWidget(remove)
        row.addStretch(1)
        # The database's other tables, ticked to link (a SQLite import only).
        self.database_tables = QListWidget()
        self.database_tables.itemChanged.connect(self._database_table_ticked)
        self.database_label = QLabel("Tables of the database:")
        self.link_column = QComboBox()
        self.link_column.currentTextChanged.connect(self._offer_aggregates)
        self.aggregates = names_list()
        self.error = plain_label(QLabel(wordWrap=True))
        self.error.setStyleSheet("color: #a61b1b")
        form = QFormLayout(self)
        form.addRow("Event tables:", self.tables)
        form.addRow("", buttons)
        form.addRow(self.database_label, self.database_tables)
        form.addRow("Link column:", self.link_column)
        form.addRow("Aggregates judged:", self.aggregates)
        form.addRow(self.error)

    def initializePage(self) -> None:  # noqa: N802 - Qt's name
        columns = self.owner.columns_page.definition().names
        chosen = self.link_column.currentText()
        self.link_column.clear()
        self.link_column.addItems(columns)
        self.link_column.setCurrentIndex(max(columns.index(chosen) if chosen in columns
                                             else id_like(columns), 0))
        sqlite = self.owner.source_page.source() == "sqlite"
        self.database_label.setVisible(sqlite)
        self.database_tables.setVisible(sqlite)
        if sqlite and self.database_tables.count() == 0:
            imported = self.owner.source_page.table.currentText()
            self.database_tables.blockSignals(True)
            for name in list_tables(self.owner.path()):
                if name != imported:
                    item = QListWidgetItem(name)
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    item.setCheckState(Qt.CheckState.Unchecked)
                    self.database_tables.addItem(item)
            self.database_tables.blockSignals(False)

    # -- choosing tables ---------------------------------------------------------------

    def add_files(self, paths: list[str]) -> None:
        """Event tables read from CSV files, each named after its file."""
        for path in paths:
            self._add(Path(path).stem, lambda p=path: read_csv(p, guess_encoding=True))

    def _choose_files(self) -> None:
        self.add_files(pick_paths(self, "data", "Event tables", CSV_FILTER))

    def _database_table_ticked(self, item: QListWidgetItem) -> None:
        name = item.text()
        if item.checkState() == Qt.CheckState.Checked:
            self._add(name, lambda: read_sqlite(self.owner.path(), name))
        elif name in self.events:
            self._drop(name)

    def _add(self, name: str, read: Any) -> None:
        self.error.clear()
        if name in self.events or name == self.owner.project_name():
            self.error.setText(f"A table is already named '{name}'; rename one of them.")
            return
        try:
            self.events[name] = read()
        except ArxpyError as exc:
            self.error.setText(str(exc))
            return
        records, columns = self.events[name].shape
        self.tables.addItem(f"{name}  ({records:,} rows, {columns} columns)")
        self._offer_aggregates()

    def _remove(self) -> None:
        row = self.tables.currentRow()
        if row >= 0:
            self._drop(list(self.events)[row])

    def _drop(self, name: str) -> None:
        self.tables.takeItem(list(self.events).index(name))
        del self.events[name]
        self._offer_aggregates()

    def _offer_aggregates(self, *_: object) -> None:
        """Each table's aggregates (its count, first years, sets of codes), the ticks
        kept for those still offered."""
        link = self.link_column.currentText()
        ticked = set(checked_names(self.aggregates))
        fill_checkable(self.aggregates, [
            (a.label, a.name in ticked, a.name) for name, frame in self.events.items()
            for a in offered_aggregates(name, frame, link)])

    # -- the project -------------------------------------------------------------------

    def validatePage(self) -> bool:  # noqa: N802 - Qt's name
        try:
            self.owner.build_project(self.owner.columns_page.definition())
        except ArxpyError as exc:
            self.error.setText(str(exc))
            return False
        return True

    def apply(self, project: Project) -> None:
        """Put the event tables into ``project``, linked by the chosen column, which
        becomes identifying with a keyed pseudonym. DataImportError if a table lacks it."""
        if not self.events:
            return
        link = self.link_column.currentText()
        lacking = [name for name, frame in self.events.items() if link not in frame.columns]
        if lacking:
            raise DataImportError(
                f"The table '{lacking[0]}' has no column '{link}'; choose the link column "
                "every table holds, or remove that table.")
        project.events = dict(self.events)
        project.definition = project.definition.with_attribute(
            link, type=AttributeType.IDENTIFYING)
        plan = with_treatment(plan_of(project.settings), link, Treatment(link, PSEUDONYM))
        project.settings[IDENTIFIERS] = plan_record(plan, None)
        aggregates = tuple(EventAggregate.parse(n) for n in checked_names(self.aggregates))
        project.settings[LINKED] = LinkedSettings(link, aggregates).to_dict()


def id_like(columns: list[str]) -> int:
    """The first column named like an identifier (``… ID``, ``id``), else the first."""
    for index, name in enumerate(columns):
        words = name.lower().replace("_", " ").split()
        if words and words[-1] in ("id", "identifier", "number"):
            return index
    return 0


def fill_checkable(items: QListWidget, entries: list[tuple[str, bool, str]]) -> None:
    """Show ``entries`` (text, ticked, name); the list is left alone when it shows them
    already (a tick's own edit comes back as a settings change while its signal runs)."""
    shown = [(items.item(i).text(), items.item(i).checkState() == Qt.CheckState.Checked,
              items.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(items.count())]
    if shown == entries:
        return
    items.clear()
    for text, ticked, name in entries:
        items.addItem(checkable(text, ticked, name))


def names_list() -> QListWidget:
    # Long names ("admissions:first-year:Admission date") elide in the middle, whole in
    # the tooltip, rather than scrolling sideways in a narrow column.
    names = QListWidget()
    names.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    names.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    return names


def checkable(text: str, checked: bool, name: str | None = None) -> QListWidgetItem:
    """A ticked or unticked ``text``, standing for ``name`` (the text if None)."""
    item = QListWidgetItem(text)
    item.setData(Qt.ItemDataRole.UserRole, name or text)
    item.setToolTip(tooltip(f"{text}: the view's column '{name}'" if name and name != text
                            else text))
    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
    item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
    return item


def checked_names(items: QListWidget) -> list[str]:
    """The names of the ticked items."""
    return [items.item(i).data(Qt.ItemDataRole.UserRole) for i in range(items.count())
            if items.item(i).checkState() == Qt.CheckState.Checked]
