"""Export the current release (the applied transformation, or a method run): format,
delimiter, suppressed rows, hierarchies, report. The one export of the application
(toolbar, File menu, Explore and the runs page open it).

Writing runs in a worker through :mod:`arxpy.engine.export` (the same code as the
command line); existing files are overwritten only after the user confirms, and a
confirmation names every file written.
"""

from __future__ import annotations

import html
import logging
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.formulas import (
    FormulaWarning,
    describe_formula_values,
    formula_like_examples,
    formula_locations,
)
from arxpy.engine.export import (
    export_release,
    hierarchy_path,
    write_release_report,
    write_report,
)
from arxpy.engine.result import Result
from arxpy.gui.explore.jobs import start_job
from arxpy.gui.explore.reidentification_options import ReidentificationOptions
from arxpy.gui.folders import pick_path
from arxpy.gui.plain_text import escaped, plain_label
from arxpy.params import drawn_seed
from arxpy.workflows.current_release import CurrentRelease

log = logging.getLogger(__name__)

FORMATS = {"CSV (.csv)": ".csv", "Excel (.xlsx)": ".xlsx"}
DELIMITERS = {",": ", (comma)", ";": "; (semicolon)", "\t": "Tab", "|": "| (pipe)"}


def _hierarchies(current: CurrentRelease) -> dict:
    """The hierarchies written beside the data (the lattice result's, or the release's)."""
    if current.result is not None:
        return dict(current.result.hierarchies)
    return dict(current.release().hierarchies)


def _formula_examples(current: CurrentRelease) -> dict[str, str]:
    """Where the output or the hierarchies hold values spreadsheets run as formulas."""
    frame = current.release().export_table()
    examples = formula_like_examples({c: frame[c] for c in frame.columns}, frame.columns)
    for name, hierarchy in _hierarchies(current).items():
        labels = {v for row in hierarchy.rows for v in row}
        found = formula_like_examples({f"hierarchy of {name}": labels})
        examples.update(found)
    return examples


def report_path(data_path: Path) -> Path:
    """Where the HTML report goes beside the data file."""
    return data_path.with_name(f"{data_path.stem}_report.html")


class ExportDialog(QDialog):
    """Options, then ``exported(list of paths)`` or an error shown in the dialog."""

    exported = Signal(list)

    def __init__(self, result: Result | CurrentRelease, levels: tuple[int, ...] | None,
                 default_path: Path, parent: QWidget | None = None,
                 delimiter: str = ",", original: pd.DataFrame | None = None) -> None:
        """``original``: the project's data, for a re-identification table of a release
        with pseudonyms (offered only with it)."""
        super().__init__(parent)
        # A lattice result and its levels, or any current release (levels None).
        current = result if isinstance(result, CurrentRelease) else CurrentRelease(
            pd.DataFrame(), result.definition, {}, result=result, levels=tuple(levels))
        self.current = current
        self.setWindowTitle("Export the applied transformation" if current.is_lattice
                            else "Export the method run's release")
        self.result, self.levels = current.result, current.levels
        release = current.release()
        self.last_job: Any = None
        self.path = QLineEdit(str(default_path))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.format = QComboBox()
        self.format.addItems(list(FORMATS))
        self.format.currentTextChanged.connect(self._format_changed)
        self.delimiter = QComboBox()
        for char, label in DELIMITERS.items():
            self.delimiter.addItem(label, char)
        if delimiter not in DELIMITERS:
            self.delimiter.addItem(repr(delimiter), delimiter)
        self.delimiter.setCurrentIndex(self.delimiter.findData(delimiter))
        self.delimiter.setToolTip("The input's delimiter unless you choose another")
        self.confirmation: QMessageBox | None = None
        self.as_star = QRadioButton("kept, with * in every quasi-identifier")
        self.removed = QRadioButton("removed from the file")
        remove = current.result.config.remove_suppressed if current.is_lattice else \
            release.remove_suppressed
        self.as_star.setChecked(not remove)
        self.removed.setChecked(remove)
        group = QButtonGroup(self)
        group.addButton(self.as_star)
        group.addButton(self.removed)
        self.hierarchies = QCheckBox("Write each quasi-identifier's hierarchy beside the data")
        self.report = QCheckBox("Write an HTML report (configuration, verification, risks)")
        self.report.setChecked(True)
        self.keep_order = QCheckBox("Keep the input's row order (otherwise rows are shuffled, "
                                    "so row numbers cannot link the file to its source)")
        # On by default when the output holds values a spreadsheet would run as formulas.
        self.formula_examples = _formula_examples(current)
        self.neutralize = QCheckBox("Neutralize spreadsheet formulas (prefix ' to values "
                                    "starting with =, +, -, @)")
        self.neutralize.setChecked(bool(self.formula_examples))
        self.neutralize.toggled.connect(self._explain_formulas)
        self.formula_note = plain_label(QLabel(wordWrap=True))
        self.formula_note.setStyleSheet("color: #8a5300")
        self.status = QLabel()
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form = QFormLayout()
        form.addRow("Transformation" if current.is_lattice else "Release",
                    plain_label(QLabel(str(list(current.levels)) if current.is_lattice
                                       else current.label, wordWrap=True)))
        form.addRow("File", row)
        form.addRow("Format", self.format)
        form.addRow("Delimiter", self.delimiter)
        form.addRow("Suppressed records", self.as_star)
        form.addRow("", self.removed)
        form.addRow("", self.hierarchies)
        form.addRow("", self.keep_order)
        form.addRow("", self.report)
        form.addRow("", self.neutralize)
        form.addRow("", self.formula_note)
        note = QLabel("Identifying attributes ("
                      + (", ".join(release.definition.identifying) or "none")
                      + ") are always removed.")
        note.setStyleSheet("color: #555")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.start_export)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        self.reidentification: ReidentificationOptions | None = None
        if original is not None and ReidentificationOptions.offered(current):
            self.reidentification = ReidentificationOptions.of_table(current, original, self)
            layout.addWidget(self.reidentification)
        if getattr(release, "published", None) is not None:  # a disassociation release
            synthetic = plain_label(QLabel(
                "This release's table is one synthetic reconstruction of the published "
                "document (possible original records, not the real data). To publish, save "
                "the document (JSON) from Explore ▸ Method runs ▸ Disassociation.",
                wordWrap=True))
            synthetic.setStyleSheet("color: #8a5300")
            layout.addWidget(synthetic)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self._format_changed(self.format.currentText())
        self._explain_formulas()

    def _explain_formulas(self) -> None:
        if not self.formula_examples:
            self.formula_note.setVisible(False)
            return
        where = formula_locations(self.formula_examples)
        if self.neutralize.isChecked() or not self.neutralize.isEnabled():
            text = f"Values a spreadsheet would run as formulas occur in {where}."
        else:
            text = (f"Warning: values a spreadsheet would run as formulas occur in {where}; "
                    "they will be written as they are.")
        self.formula_note.setText(text)
        self.formula_note.setVisible(True)

    def _browse(self) -> None:
        name = pick_path(self, "exports", True, "Export to", "CSV (*.csv);;Excel (*.xlsx)",
                         self.path.text())
        if name:
            self.path.setText(name)

    def _format_changed(self, text: str) -> None:
        path = Path(self.path.text() or "output.csv")
        self.path.setText(str(path.with_suffix(FORMATS[text])))
        self.delimiter.setEnabled(FORMATS[text] == ".csv")
        # Excel stores such values as text cells, which it never evaluates.
        self.neutralize.setEnabled(FORMATS[text] != ".xlsx")
        if hasattr(self, "formula_note"):
            self._explain_formulas()

    def targets(self) -> list[Path]:
        """Every file the export will write with the current options."""
        data = Path(self.path.text())
        files = [data]
        if self.hierarchies.isChecked():
            names = self.result.quasi_identifiers if self.current.is_lattice else \
                list(_hierarchies(self.current))
            files += [hierarchy_path(data, name) for name in names]
        if self.report.isChecked():
            files.append(report_path(data))
        return files

    def confirm_overwrite(self, existing: list[Path]) -> bool:
        """Ask before replacing files (tests replace this method)."""
        names = "\n".join(str(p) for p in existing[:6])
        more = f"\n… and {len(existing) - 6} more" if len(existing) > 6 else ""
        answer = QMessageBox.question(self, "Replace existing files?",
                                      escaped("These files exist and will be replaced:\n"
                                              f"{names}{more}"))
        return answer == QMessageBox.StandardButton.Yes

    def start_export(self) -> None:
        """Confirm overwriting if needed, then write in a worker."""
        data = Path(self.path.text())
        problem = self.reidentification.problem(data) if self.reidentification else ""
        if problem:
            self._failed(problem)
            return
        existing = [p for p in self.targets() if p.exists()]
        if existing and not self.confirm_overwrite(existing):
            self.status.setText("Nothing was written.")
            return
        report = self.report.isChecked()
        table = self.reidentification.writer() if self.reidentification else None
        remove, hierarchies = self.removed.isChecked(), self.hierarchies.isChecked()
        neutralize = self.neutralize.isChecked() and self.neutralize.isEnabled()
        current = self.current
        delimiter = self.delimiter.currentData() if data.suffix == ".csv" else None
        # A fresh seed per export: the order is random, not derived from the data.
        seed = None if self.keep_order.isChecked() else \
            drawn_seed()
        self.shuffle_seed = seed
        if self.formula_examples and not neutralize and data.suffix.lower() != ".xlsx":
            log.warning("Exporting %s with %s", data,
                        describe_formula_values(self.formula_examples))

        def work() -> list[Path]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FormulaWarning)  # the dialog said it
                written = export_release(current.release(), data,
                                         remove_suppressed=remove,
                                         with_hierarchies=hierarchies, overwrite=True,
                                         delimiter=delimiter, neutralize_formulas=neutralize,
                                         shuffle_seed=seed)
            if report and current.is_lattice:
                written.append(write_report(current.result, current.levels, report_path(data),
                                            overwrite=True, identifiers=current.identifiers))
            elif report:
                written.append(write_release_report(current.release(), report_path(data),
                                                    overwrite=True,
                                                    identifiers=current.identifiers))
            if table is not None:
                written.append(table())
            return written

        self.buttons.setEnabled(False)
        self.status.setText("Writing…")
        self.last_job = start_job(self, work, self._done, self._failed)

    def _done(self, written: list[Path]) -> None:
        self.buttons.setEnabled(True)
        order = ("input order kept" if self.shuffle_seed is None
                 else f"rows shuffled, seed {self.shuffle_seed}")
        self.status.setText("Wrote " + ", ".join(p.name for p in written) + f" ({order})")
        log.info("Exported %s (%s)", written[0].name, order)
        self.exported.emit(written)
        self.accept()
        self._confirm(written)

    def _confirm(self, written: list[Path]) -> None:
        """Name every file written (not blocking: the dialog has closed)."""
        folder = written[0].parent
        names = "\n".join(f"  {p.name}" for p in written)
        box = QMessageBox(QMessageBox.Icon.Information, "Export finished",
                          f"Wrote {len(written)} file(s) to {folder}:\n{names}",
                          QMessageBox.StandardButton.Ok, self.parentWidget())
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.confirmation = box

    def _failed(self, message: str) -> None:
        self.buttons.setEnabled(True)
        self.status.setText("<span style='color:#b3261e'>"
                            f"{html.escape(message, quote=False)}</span>")
