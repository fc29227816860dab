"""The exports' option to also write the encrypted re-identification table for a
trusted party (issue 32): a file away from the release and a passphrase typed twice.

The table (pseudonym -> original value) is built from the project's data and the
treated table the release was made of (the single-table export: :meth:`writer`), or,
for linked tables (File › Export, File › Release linked tables…), from every table of
the release by :func:`~arxpy.workflows.linked_release.write_linked_files`, given the
:meth:`request`. Either way :func:`~arxpy.identifiers.reidentification.write_table`
writes it (AES-256-GCM, scrypt, mode 0600, never over another file). The passphrase
stays in the two fields until the export starts and reaches no log or message.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from arxpy.errors import ArxpyError
from arxpy.gui.folders import pick_path
from arxpy.gui.plain_text import plain_label
from arxpy.identifiers.reidentification import (
    ReidentificationRequest,
    ReidentificationTable,
    beside_release,
    check_passphrase,
    reversible,
)
from arxpy.workflows.current_release import CurrentRelease

NOTE = ("Pseudonym → original value of {names}, encrypted with the passphrase (AES-256-GCM, "
        "key by scrypt). Whoever holds the table and the passphrase can undo the "
        "pseudonyms: give them to the trusted party only, apart from the release. The "
        "table is never written beside the release.")


class ReidentificationOptions(QGroupBox):
    """A checkable group: the table's file and its passphrase, typed twice.

    ``attributes`` are the ones the table reverses, named in the note; ``build`` makes
    the table once a single table's export runs (in its worker; None for linked
    tables, whose writer builds it)."""

    def __init__(self, attributes: list[str],
                 build: Callable[[], ReidentificationTable] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__("Also write a re-identification table for a trusted party", parent)
        self.build = build
        self.setCheckable(True)
        self.setChecked(False)
        self.path = QLineEdit()
        self.path.setPlaceholderText("a file in a folder only the trusted party uses")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.passphrase = QLineEdit(echoMode=QLineEdit.EchoMode.Password)
        self.again = QLineEdit(echoMode=QLineEdit.EchoMode.Password)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form = QFormLayout(self)
        form.addRow("Table file", row)
        form.addRow("Passphrase", self.passphrase)
        form.addRow("Passphrase again", self.again)
        self.note = plain_label(QLabel(NOTE.format(names=", ".join(attributes)),
                                       wordWrap=True))
        self.note.setStyleSheet("color: #555")
        form.addRow(self.note)

    @classmethod
    def of_table(cls, current: CurrentRelease, original: pd.DataFrame,
                 parent: QWidget | None = None) -> ReidentificationOptions:
        """The option of a single table's release (``original``: the project's data)."""
        return cls(reversible(current.identifiers), lambda: ReidentificationTable.of(
            original, current.frame, current.identifiers), parent)

    @staticmethod
    def offered(current: CurrentRelease | None) -> bool:
        """Does the release have pseudonyms or random replacements to reverse?"""
        return current is not None and bool(reversible(current.identifiers))

    def _browse(self) -> None:
        name = pick_path(self, "keys", True, "Re-identification table",
                         "Encrypted table (*.arxreid);;All files (*)", self.path.text())
        if name:
            self.path.setText(name)

    def problem(self, release: Path, whole_folder: bool = False) -> str:
        """Why the table cannot be written with these entries ("" if it can).
        ``release``: the released file, or with ``whole_folder`` the folder released as
        a whole (linked tables), in none of whose subfolders the table may go."""
        if not self.isChecked():
            return ""
        text = self.path.text().strip()
        if not text:
            return "Choose the re-identification table's file."
        folders, trees = ([], [release]) if whole_folder else ([release.parent], [])
        if beside_release(text, folders, trees):
            where = "outside the release's folder" if whole_folder else \
                "other than the release's"
            return ("The re-identification table would travel with the release; choose a "
                    f"folder {where}.")
        if Path(text).exists():
            return f"'{text}' exists; a re-identification table is never overwritten."
        if self.passphrase.text() != self.again.text():
            return "The two passphrases differ; type the same one twice."
        try:
            check_passphrase(self.passphrase.text())
        except ArxpyError as exc:
            return str(exc)
        return ""

    def request(self) -> ReidentificationRequest | None:
        """The table asked for (None: not asked for), once :meth:`problem` said none;
        the passphrase fields are emptied (the export starts)."""
        if not self.isChecked():
            return None
        request = ReidentificationRequest(Path(self.path.text().strip()),
                                          self.passphrase.text())
        self.passphrase.clear()
        self.again.clear()
        return request

    def writer(self) -> Callable[[], Path] | None:
        """The work that builds and writes a single table's (for the export's worker),
        or None; the passphrase fields are emptied."""
        request, build = self.request(), self.build
        if request is None or build is None:
            return None
        return lambda: request.write(build())
