"""The export of a linked release (File › Export with linked tables, issue 32): the
folder every table goes to and, for a release with pseudonyms or random replacements,
the encrypted re-identification table for a trusted party (the same option as the
single-table export, :class:`ReidentificationOptions`).

Widgets only: :meth:`ProjectActions.export_linked` writes the tables and the report,
then the table, as this dialog's background job (progress shown, buttons disabled
meanwhile; closing the dialog cancels it, and a cancelled or failed export leaves
nothing written); every refusal comes before the job starts.
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

from arxpy.gui.explore.reidentification_options import ReidentificationOptions
from arxpy.gui.folders import path_row, pick_folder
from arxpy.gui.plain_text import plain_label
from arxpy.gui.workers import JobProgressBar, ViewJob
from arxpy.identifiers.reidentification import reversible
from arxpy.workflows.current_release import CurrentRelease
from arxpy.workflows.linked_release import REPORT_FILE

if TYPE_CHECKING:
    from arxpy.gui.project_actions import ProjectActions

ERROR, NOTE = "#b3261e", "#555"


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
        files.setStyleSheet(f"color: {NOTE}")
        form = QFormLayout()
        form.addRow("Folder", row)
        form.addRow("", files)
        self.status = plain_label(QLabel(wordWrap=True))
        self.progress = JobProgressBar(textVisible=True)
        policy = self.progress.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # the buttons stay where they are
        self.progress.setSizePolicy(policy)
        self.progress.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.export)
        self.buttons.rejected.connect(self.reject)
        self.job = ViewJob(self)
        self.job.busy.connect(self._set_running)
        self.job.progress.connect(lambda percent, _message: self.progress.setValue(percent))
        self.job.finished.connect(lambda _written: self.accept())
        self.job.failed.connect(lambda message: self._say(message, ERROR))
        self.job.cancelled.connect(lambda: self._say("Cancelled; nothing was written.", ERROR))
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        self.reidentification: ReidentificationOptions | None = None
        if ReidentificationOptions.offered(current):
            self.reidentification = ReidentificationOptions(
                reversible(current.identifiers), parent=self)
            layout.addWidget(self.reidentification)
        layout.addStretch(1)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(640, self.sizeHint().height())

    def _browse(self) -> None:
        folder = pick_folder(self, "exports", "Folder for the released tables")
        if folder:
            self.folder.setText(folder)

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
        """Refuse with a reason, or start writing the tables, the report and the table
        (the dialog closes once they are written)."""
        problem = self.problem()
        if problem:
            self._say(problem, ERROR)
            return
        table = self.reidentification.request() if self.reidentification else None
        self._say("Writing the linked tables…", NOTE)
        if not self.actions.export_linked(self.folder.text().strip(), table, job=self.job):
            self._say("The export failed; see the message.", ERROR)

    def reject(self) -> None:  # closing the dialog stops its export, which then cleans up
        if self.job.running:
            self.job.cancel()
            self.job.wait(5)
        super().reject()

    def _set_running(self, running: bool) -> None:
        for widget in (self.buttons, self.folder, self.reidentification):
            if widget is not None:  # the entries the running export was given stay still
                widget.setEnabled(not running)
        self.progress.setValue(0)
        self.progress.setVisible(running)

    def _say(self, text: str, color: str) -> None:
        self.status.setStyleSheet(f"color: {color}")
        self.status.setText(text)
