"""File › Release linked tables… (issue 32): the project's table as the patient table,
event tables from CSV files, the link column and the aggregates of the patient-level
view, and, when the project's plan has keyed pseudonyms or random replacements, the
encrypted re-identification table for a trusted party (:class:`ReidentificationOptions`,
as File › Export offers it); the release runs as a background job through a
:class:`ViewJob`.

Widgets only: :func:`arxpy.workflows.linked_release.release_linked_files` reads, judges
and writes (docs/linked-tables.md). The project's roles, hierarchies, privacy models,
identifier plan and the session's key apply, as in a search.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arxpy.errors import ArxpyError
from arxpy.gui.explore.reidentification_options import ReidentificationOptions
from arxpy.gui.folders import path_row, pick_folder, pick_path
from arxpy.gui.linked_export_dialog import ERROR
from arxpy.gui.linked_import import checkable, checked_names
from arxpy.gui.recipe_dialogs import DATA_FILTER, wrapped
from arxpy.gui.workers import JobDialog, JobProgressBar, JobWorker
from arxpy.identifiers import DateShift, IdentifierPlan
from arxpy.identifiers.dates import MAX_SHIFT_DAYS
from arxpy.identifiers.reidentification import REVERSIBLE
from arxpy.workflows.linked_project import SAMPLE_ROWS, date_columns, offered_aggregates
from arxpy.workflows.linked_release import (
    REPORT_FILE,
    LinkedFilesRequest,
    release_linked_files,
)
from arxpy.workflows.linked_tables import EventAggregate

#: The tallest first size: a 720-pixel screen less its title bar and a desktop panel.
FITTING_HEIGHT = 660


class LinkedTablesDialog(JobDialog):
    """Event tables, link column, aggregates and output folder; run; the verdict."""

    def __init__(self, state: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Release linked tables")
        self._state = state
        self.events: dict[str, Path] = {}
        self.outcome: Any = None
        self.job.progress.connect(lambda percent, message: self.progress.setValue(percent))
        self.job.finished.connect(self._finished)
        self.job.failed.connect(lambda message: self._say(f"Failed: {message}", ERROR))
        self.job.cancelled.connect(lambda: self._say("Cancelled; nothing was written.", ERROR))
        intro = wrapped(
            "The project's table is the patient table (one row per patient). Add the event "
            "tables that name patients in the link column: the privacy models judge one row "
            "per patient with the aggregates checked below, a suppressed patient leaves "
            "every table, and the project's pseudonyms and date shifts apply to every "
            "table with the session's key. The link column must be pseudonymized.")
        self.tables = QListWidget()  # plain text items: names stay text
        add, remove = QPushButton("Add event table…"), QPushButton("Remove")
        add.clicked.connect(self._choose_table)
        remove.clicked.connect(self._remove_table)
        buttons = QWidget()
        row = QHBoxLayout(buttons)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        self.link_column = QComboBox()
        self.link_column.addItems(list(state.data.columns) if state.has_project else [])
        self.aggregates = QListWidget()
        self.shifted = QListWidget()  # event date columns, shifted in every table holding them
        self.shift_days = QSpinBox(minimum=1, maximum=MAX_SHIFT_DAYS, suffix=" days")
        shift = state.identifier_plan.date_shift if state.has_project else None
        self.shift_days.setValue(shift.days if shift is not None else 30)
        self.output_edit, output_row = path_row("Choose…", self._choose_output)
        form = QFormLayout()
        form.addRow("Event tables:", self.tables)
        form.addRow("", buttons)
        form.addRow("Link column:", self.link_column)
        form.addRow("Aggregates judged:", self.aggregates)
        form.addRow("Event dates to shift:", self.shifted)
        form.addRow("Shift range (±):", self.shift_days)
        form.addRow("Output folder:", output_row)
        self.progress = JobProgressBar(textVisible=True)
        self.progress.hide()  # shown once a release runs: idle, it reads as an empty field
        self.status = wrapped("Add an event table and choose the output folder.")
        self.job_buttons("Release")
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        reversed_ = _reversible(state.identifier_plan) if state.has_project else []
        self.reidentification = ReidentificationOptions(reversed_, parent=self) \
            if reversed_ else None  # offered only when there is something to reverse
        if self.reidentification is not None:
            layout.addWidget(self.reidentification)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(640, min(self.heightForWidth(640), FITTING_HEIGHT))  # lists shrink

    # -- choosing tables -----------------------------------------------------------------

    def add_table(self, path: str) -> None:
        """An event table named after its file, with its aggregates offered unchecked:
        the count, and the first year of each column that reads as dates."""
        from arxpy.data.csv_io import read_csv

        name = Path(path).stem
        try:
            sample = read_csv(path, nrows=SAMPLE_ROWS, guess_encoding=True)
        except ArxpyError as exc:
            self._say(str(exc), ERROR)
            return
        if name in self.events or name == self._patient_table():
            self._say(f"A table is already named '{name}'; rename the file.", ERROR)
            return
        self.events[name] = Path(path)
        self.tables.addItem(f"{name}  ({Path(path).name})")
        link = self.link_column.currentText()
        for aggregate in offered_aggregates(name, sample, link):
            self.aggregates.addItem(checkable(aggregate.label, False, aggregate.name))
        dates = date_columns(sample, link)
        known = {self.shifted.item(i).text() for i in range(self.shifted.count())}
        for column in dates:
            if column not in known:
                self.shifted.addItem(checkable(column, False))

    def _choose_table(self) -> None:
        path = pick_path(self, "data", False, "Event table", DATA_FILTER)
        if path:
            self.add_table(path)

    def _remove_table(self) -> None:
        row = self.tables.currentRow()
        if row < 0:
            return
        name = list(self.events)[row]
        del self.events[name]
        self.tables.takeItem(row)
        for index in reversed(range(self.aggregates.count())):
            item = self.aggregates.item(index)
            if EventAggregate.parse(item.data(Qt.ItemDataRole.UserRole)).table == name:
                self.aggregates.takeItem(index)

    def _choose_output(self) -> None:
        path = pick_folder(self, "exports", "Folder for the released tables")
        if path:
            self.output_edit.setText(path)

    def _patient_table(self) -> str:
        return Path(self._patient_file()).stem

    def _patient_file(self) -> str:
        path = getattr(self._state, "path", None)
        return f"{Path(path).stem}.csv" if path else "patients.csv"

    # -- the release ---------------------------------------------------------------------

    def checked_aggregates(self) -> tuple[EventAggregate, ...]:
        return tuple(EventAggregate.parse(name) for name in checked_names(self.aggregates))

    def plan(self) -> IdentifierPlan:
        """The project's plan, its date shift widened to the checked event dates (one
        range, the link column's patient)."""
        plan = self._state.identifier_plan
        own = plan.date_shift.attributes if plan.date_shift is not None else ()
        dates = tuple(dict.fromkeys((*own, *checked_names(self.shifted))))
        shift = DateShift(dates, self.link_column.currentText(), self.shift_days.value()) \
            if dates else None
        return IdentifierPlan(plan.treatments, shift, plan.mask_character)

    def request(self) -> LinkedFilesRequest | str:
        """What the fields ask for, or why it cannot run yet."""
        state = self._state
        output = self.output_edit.text().strip()
        if not state.has_project:
            return "Open a project first: its table is the patient table."
        if not (self.events and output):
            return "Add an event table and choose the output folder first."
        try:
            self.plan()
        except ArxpyError as exc:
            return str(exc)
        request = LinkedFilesRequest(
            state.data, state.definition, state.hierarchies, state.settings, dict(self.events),
            self.link_column.currentText(), Path(output), self.checked_aggregates(),
            self._patient_file(), self.plan(), state.pseudonym_key)
        existing = [n for n in (*request.files.values(), REPORT_FILE)
                    if (Path(output) / n).exists()]
        if existing:  # an input, or an earlier release: never replaced from here
            return f"The output folder already holds {existing[0]}; choose another folder."
        problem = self.reidentification.problem(Path(output), whole_folder=True) \
            if self.reidentification is not None else ""
        return problem or request

    def run(self) -> JobWorker | None:
        """Start the release (None if a field is missing or one is running)."""
        if self.job.running:
            return None
        request = self.request()
        if isinstance(request, str):
            self._say(request, ERROR)
            return None
        if self.reidentification is not None:  # the passphrase leaves the fields now
            request = replace(request, reidentification=self.reidentification.request())
        self.outcome = None
        self.progress.setValue(0)
        self.progress.show()
        self._say("Releasing the linked tables…")
        return self.job.start(release_linked_files, request=request)

    def _say(self, text: str, color: str = "") -> None:
        """The status line: a refusal or failure in ``color`` (red), the rest plain."""
        self.status.setStyleSheet(f"color: {color}" if color else "")
        self.status.setText(text)

    def _finished(self, outcome: Any) -> None:
        self.outcome = outcome
        release, written = outcome
        self.progress.setValue(100)
        view = release.view
        table = written.get("reidentification")
        self._say(
            f"Released {view.records - view.suppressed_records:,} of {view.records:,} "
            f"patients (a suppressed patient leaves every table). "
            f"{view.verify().headline} Written: "
            + ", ".join(path.name for name, path in written.items()
                        if name != "reidentification")
            + (f"; the re-identification table to {table}." if table else "."))


def _reversible(plan: IdentifierPlan) -> list[str]:
    """The attributes a re-identification table of ``plan``'s release would reverse."""
    return [t.attribute for t in plan.treatments if t.kind in REVERSIBLE]
