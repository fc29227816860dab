"""The export of a linked release (File › Export with linked tables, issue 32): the
folder every table goes to and, for a release with pseudonyms or random replacements,
the encrypted re-identification table for a trusted party (the same option as the
single-table export, :class:`ReidentificationOptions`).

Widgets only: :meth:`ProjectActions.export_linked` writes the tables and the report,
then the table; every refusal comes before anything is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
)

from arxpy.errors import ArxpyError
from arxpy.gui.explore.reidentification_options import ReidentificationOptions
from arxpy.gui.folders import path_row, pick_folder
from arxpy.gui.plain_text import plain_label
from arxpy.identifiers.reidentification import ReidentificationTable, reversible
from arxpy.workflows.current_release import CurrentRelease
from arxpy.workflows.linked_release import REPORT_FILE
from arxpy.workflows.session_linked import STALE_LINKED_RELEASE

if TYPE_CHECKING:
    from arxpy.gui.project_actions import ProjectActions


class LinkedExportDialog(QDialog):
    """A folder for the released tables and, if offered, the re-identification table."""

    def __init__(self, actions: ProjectActions, current: CurrentRelease) -> None:
        super().__init__(actions.window)
        self.setWindowTitle("Export the linked tables")
        self.actions, self.current = actions, current
        self.folder, row = path_row("Browse…", self._browse)
        self.folder.setPlaceholderText("a new or empty folder")
        names = ", ".join(actions.linked_export_files().values())
        files = plain_label(QLabel(f"Writes {names} (rows shuffled) and the report "
                                   f"{REPORT_FILE}.", wordWrap=True))
        files.setStyleSheet("color: #555")
        form = QFormLayout()
        form.addRow("Folder", row)
        form.addRow("", files)
        self.status = plain_label(QLabel(wordWrap=True))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.export)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        self.reidentification: ReidentificationOptions | None = None
        if ReidentificationOptions.offered(current):
            self.reidentification = ReidentificationOptions(
                reversible(current.identifiers), self._table, self)
            layout.addWidget(self.reidentification)
        layout.addStretch(1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(640, self.sizeHint().height())

    def _browse(self) -> None:
        folder = pick_folder(self, "exports", "Folder for the released tables")
        if folder:
            self.folder.setText(folder)

    def _table(self) -> ReidentificationTable:
        table = self.actions.state.linked_reidentification_table(self.current)
        if table is None:
            raise ArxpyError(STALE_LINKED_RELEASE)
        return table

    def problem(self) -> str:
        """Why nothing can be written with these entries ("" if it can)."""
        folder = self.folder.text().strip()
        if not folder:
            return "Choose a folder for the released tables."
        problem = self.actions.linked_export_problem(folder)
        if not problem and self.reidentification is not None:
            problem = self.reidentification.problem(Path(folder), whole_folder=True)
        return problem

    def export(self) -> None:
        """Refuse with a reason, or write the tables, the report and the table."""
        problem = self.problem()
        if problem:
            self._say(problem, "#b3261e")
            return
        table = self.reidentification.writer() if self.reidentification else None
        if self.actions.export_linked(self.folder.text().strip(), table):
            self.accept()
        else:
            self._say("The export failed; see the message.", "#b3261e")

    def _say(self, text: str, color: str) -> None:
        self.status.setStyleSheet(f"color: {color}")
        self.status.setText(text)
