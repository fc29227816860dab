"""The import wizard's page for set-valued data (spec 002 §6): diagnosis codes as codes
in one cell (a chosen delimiter), in long format (one row per patient and code) or in
wide format (dx1..dxN), read by :func:`arxpy.data.transactions.read_code_sets` with a
preview of the records it makes, the import report (repeated codes dropped, empty
records) and the codes ICD-9-CM does not know (kept and flagged).

The page turns the table into one row per record whose codes column holds the record's
normalised (undotted) codes joined by ``;``, typed ``set``: exactly what the
disassociation method reads, so the imported column needs no further setting.
"""

from __future__ import annotations

import html
import re

import pandas as pd
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWizardPage,
)

from arxpy.data.csv_io import CsvFormat, preview_csv, sniff_csv
from arxpy.data.transactions import DEFAULT_CODE_DELIMITER, CodeSetImport, read_code_sets
from arxpy.errors import ArxpyError
from arxpy.gui.code_sets import chips_text, codes_tooltip
from arxpy.gui.plain_text import tooltip
from arxpy.gui.workers import ViewJob

LAYOUT_LABELS = {"cell": "Codes in one cell (one row per record)",
                 "long": "Long format (one row per record and code)",
                 "wide": "Wide format (columns dx1 .. dxN)"}
#: Delimiters offered for codes in one cell (never '.', which ICD-9 codes use).
CODE_DELIMITERS = {";": "semicolon (;)", "|": "bar (|)", " ": "space", ",": "comma (,)"}
NO_ID = "(none)"
PREVIEW_RECORDS = 20
#: Name of the codes column made from a wide layout (unless taken).
WIDE_CODES_COLUMN = "codes"
_WIDE = re.compile(r"^([A-Za-z_]+)(\d+)$")
_UPDATE_DELAY_MS = 250


def guess_layout(frame: pd.DataFrame) -> tuple[str, str | None, str]:
    """(layout, codes column, wide prefix) the table most likely uses: wide when two or
    more columns share a prefix followed by a number (dx1, dx2), else codes in one cell
    in the column whose cells most often hold ';' or '|'; ("", None, "dx") if neither."""
    prefixes: dict[str, int] = {}
    for column in frame.columns:
        match = _WIDE.match(str(column))
        if match:
            prefixes[match.group(1)] = prefixes.get(match.group(1), 0) + 1
    wide = [p for p, n in prefixes.items() if n >= 2]
    if wide:
        return "wide", None, max(wide, key=lambda p: prefixes[p])
    best, share = None, 0.0
    sample = frame.head(200)
    for column in sample.columns:
        values = sample[column].astype(str)
        found = values.str.contains(r"[;|]", regex=True).mean() if len(values) else 0.0
        if found > share:
            best, share = str(column), float(found)
    return ("cell", best, "dx") if best is not None and share >= 0.5 else ("", None, "dx")


def codes_aware_format(path: str, fmt: CsvFormat) -> CsvFormat:
    """``fmt``, or the comma-separated reading when the sniffer took the codes' own
    delimiter (``;`` or ``|``, the most frequent character of ``id,296.00;834.0``) for
    the field delimiter and the comma reading shows codes in one cell."""
    if fmt.delimiter not in (";", "|"):
        return fmt
    try:
        comma = sniff_csv(path, delimiter=",")
        frame = preview_csv(path, comma, PREVIEW_RECORDS)
    except ArxpyError:
        return fmt
    return comma if frame.shape[1] >= 2 and guess_layout(frame)[0] == "cell" else fmt


def looks_set_valued(frame: pd.DataFrame) -> bool:
    """Whether the table looks like it holds a set of codes per record."""
    return bool(guess_layout(frame)[0])


def _read_codes(progress=None, cancel=None, **choices) -> CodeSetImport | str:
    """The import with ``choices`` (a job: 50,000 records take a second or two), or the
    data layer's message saying what to change."""
    try:
        return read_code_sets(**choices)
    except ArxpyError as exc:
        return str(exc)


def records_table(imported: CodeSetImport, codes_column: str) -> pd.DataFrame:
    """One row per record: the other columns, then ``codes_column`` with the record's
    codes joined by ``;`` (the set type's default delimiter)."""
    records = imported.records.copy()
    if codes_column in records.columns:
        records = records.drop(columns=[codes_column])
    records[codes_column] = imported.code_sets.to_column(DEFAULT_CODE_DELIMITER).to_numpy()
    return records.astype(object)


class CodesPage(QWizardPage):
    """Layout, columns and delimiter of the codes, with a preview of the records."""

    def __init__(self, wizard) -> None:
        super().__init__()
        self.owner = wizard
        self.setTitle("Read the diagnosis codes")
        self.setSubTitle("The codes of each record become one set-valued attribute, "
                         "stored undotted (295.01 and 29501 are one code) and shown dotted.")
        self.source: pd.DataFrame | None = None
        self.imported: CodeSetImport | None = None
        self.job = ViewJob(self)
        self.job.finished.connect(self._read_done)
        self.job.failed.connect(self._read_done)
        self.layout_choice = QComboBox()
        for key, label in LAYOUT_LABELS.items():
            self.layout_choice.addItem(label, key)
        self.codes_column, self.id_column = QComboBox(), QComboBox()
        self.delimiter = QComboBox(editable=True)
        for char, label in CODE_DELIMITERS.items():
            self.delimiter.addItem(label, char)
        self.prefix = QLineEdit("dx")
        self.icd9 = QCheckBox("ICD-9-CM codes: normalise dotted and undotted forms, flag "
                              "unknown codes", checked=True)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #8a5300")
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #a61b1b")
        self.preview = QTableWidget()
        self.preview.verticalHeader().setDefaultSectionSize(22)
        self.form = QFormLayout()
        self.form.addRow("Layout:", self.layout_choice)
        self.form.addRow("Codes column:", self.codes_column)
        self.form.addRow("Code delimiter:", self.delimiter)
        self.form.addRow("Record id column:", self.id_column)
        self.form.addRow("Column prefix:", self.prefix)
        self.form.addRow(self.icd9)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.error)
        layout.addWidget(self.summary)
        layout.addWidget(self.notes)
        layout.addWidget(self.preview, 1)
        self._timer = QTimer(self, singleShot=True, interval=_UPDATE_DELAY_MS)
        self._timer.timeout.connect(self.update_preview)
        self._filling = False
        for combo in (self.layout_choice, self.codes_column, self.id_column, self.delimiter):
            combo.currentIndexChanged.connect(self._changed)
        self.delimiter.editTextChanged.connect(self._changed)
        self.prefix.textChanged.connect(self._changed)
        self.icd9.toggled.connect(self._changed)

    # --- following the wizard --------------------------------------------------------------

    def initializePage(self) -> None:  # noqa: N802 - Qt's name
        self.error.clear()
        try:
            self.source = self.owner.read(preview=False)
        except ArxpyError as exc:
            self.source = None
            self.error.setText(str(exc))
            return
        layout, codes, prefix = guess_layout(self.source)
        names = [str(c) for c in self.source.columns]
        self._filling = True
        self.codes_column.clear()
        self.codes_column.addItems(names)
        self.id_column.clear()
        self.id_column.addItems([NO_ID, *names])
        self.layout_choice.setCurrentIndex(max(self.layout_choice.findData(layout or "cell"), 0))
        if codes is not None:
            self.codes_column.setCurrentText(codes)
        self.prefix.setText(prefix)
        self._filling = False
        self.update_preview()

    def set_layout(self, layout: str, *, codes_column: str | None = None,
                   id_column: str | None = None, delimiter: str | None = None,
                   prefix: str | None = None) -> None:
        """Choose the layout and its columns (as a user would), then re-read now."""
        self._filling = True
        self.layout_choice.setCurrentIndex(self.layout_choice.findData(layout))
        if codes_column is not None:
            self.codes_column.setCurrentText(codes_column)
        self.id_column.setCurrentText(id_column or NO_ID)
        if delimiter is not None:
            index = self.delimiter.findData(delimiter)
            if index >= 0:
                self.delimiter.setCurrentIndex(index)
            else:
                self.delimiter.setEditText(delimiter)
        if prefix is not None:
            self.prefix.setText(prefix)
        self._filling = False
        self.update_preview(wait=True)

    def _changed(self) -> None:
        if not self._filling:
            self._timer.start()
            self.completeChanged.emit()

    def code_delimiter(self) -> str:
        text = self.delimiter.currentText()
        index = self.delimiter.findText(text)
        return self.delimiter.itemData(index) if index >= 0 else text

    def layout_name(self) -> str:
        return str(self.layout_choice.currentData())

    def codes_column_name(self) -> str:
        """The set-valued attribute's name in the imported table."""
        if self.layout_name() != "wide":
            return self.codes_column.currentText()
        taken = {str(c) for c in self.imported.records.columns} if self.imported else set()
        name = WIDE_CODES_COLUMN
        while name in taken:
            name = f"{name}_"
        return name

    def update_preview(self, wait: bool = False) -> None:
        """Read the codes with the current choices in the background (at once with
        ``wait``); the preview shows the records or the error when done."""
        self._timer.stop()
        layout = self.layout_name()
        for widget, shown in ((self.codes_column, layout != "wide"),
                              (self.delimiter, layout == "cell"), (self.prefix, layout == "wide")):
            widget.setEnabled(shown)
        self.error.clear()
        self.imported = None
        self.job.forget()  # its answer is for choices no longer shown
        if self.source is None:
            self.completeChanged.emit()
            return
        choices = self._choices()
        if wait:
            self._read_done(_read_codes(**choices))
            return
        self.summary.setText("Reading the codes…")
        self.job.start(_read_codes, **choices)
        self.completeChanged.emit()

    @property
    def busy(self) -> bool:
        """Reading, or about to read, the codes."""
        return self.job.running or self._timer.isActive()

    def _choices(self) -> dict:
        layout, identifier = self.layout_name(), self.id_column.currentText()
        return {"source": self.source, "layout": layout,
                "codes_column": None if layout == "wide" else self.codes_column.currentText(),
                "id_column": None if identifier == NO_ID else identifier,
                "delimiter": self.code_delimiter(), "wide_prefix": self.prefix.text().strip(),
                "icd9": self.icd9.isChecked()}

    def _read_done(self, outcome: CodeSetImport | str) -> None:
        if isinstance(outcome, str):  # the data layer's message
            long_without_id = self.layout_name() == "long" and \
                self.id_column.currentText() == NO_ID
            self.error.setText(outcome + (" The long layout needs the record id column."
                                          if long_without_id else ""))
        else:
            self.imported = outcome
        self._show_import()
        self.completeChanged.emit()

    def _show_import(self) -> None:
        self.preview.clear()
        if self.imported is None:
            self.preview.setRowCount(0)
            self.summary.clear()
            self.notes.clear()
            return
        report = self.imported.report
        kept = ("Only the record id is kept besides the codes." if self.layout_name() == "long"
                else "The other columns are kept, one row per record.")
        self.summary.setText(f"<b>{report.records:,} records</b>, {report.occurrences:,} "
                             f"codes: {html.escape(report.summary())}. {kept}")
        self.notes.setText("<br>".join(html.escape(n) for n in report.warnings()))
        table = records_table(self.imported, self.codes_column_name())
        shown = table.head(PREVIEW_RECORDS)
        self.preview.setRowCount(len(shown))
        self.preview.setColumnCount(shown.shape[1])
        self.preview.setHorizontalHeaderLabels([str(c) for c in shown.columns])
        codes_at = shown.shape[1] - 1
        for r, values in enumerate(shown.itertuples(index=False, name=None)):
            for c, value in enumerate(values):
                text = chips_text(value, DEFAULT_CODE_DELIMITER, 6) if c == codes_at \
                    else str(value)
                item = QTableWidgetItem(text)
                if c == codes_at:
                    item.setToolTip(tooltip(codes_tooltip(sorted(
                        self.imported.code_sets.record(r)))))
                self.preview.setItem(r, c, item)
        self.preview.resizeColumnsToContents()

    def isComplete(self) -> bool:  # noqa: N802 - Qt's name
        return self.imported is not None and not self.busy

    def table(self) -> pd.DataFrame:
        """The imported records with the codes column (read now if still reading)."""
        if self.busy or self.imported is None:
            self.update_preview(wait=True)
        if self.imported is None:
            raise ArxpyError(self.error.text() or "The codes could not be read.")
        return records_table(self.imported, self.codes_column_name())
