"""The import wizard: source, format with a live preview, columns and their data types.

Pages: (1) a CSV file, an Excel sheet or a SQLite table; (2) for CSV the delimiter,
quote, encoding and header, detected by :func:`sniff_csv` and changeable, with the
first rows as they will be read, and a question when a delimiter leaves one column of
a line holding another; (2b) when the data hold a set of codes per record (ticked by
the user only; the page says when cells look like codes), how the codes are laid out
(:mod:`arxpy.gui.setvalued_import`); (3) which columns to keep and their data types
and formats (inferred, changeable), with the import's warnings: a duplicated column
name, numbers that may be category codes, values spelled in several ways (plain text,
:mod:`arxpy.data.value_checks`). Every error of the data layer appears on the page as
its message; the page cannot advance until it is fixed. (4), optional (Finish on the
columns page skips it): event tables linked to the imported patient table
(:mod:`arxpy.gui.linked_import`).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from arxpy.data.csv_io import DELIMITER_NAMES, CsvFormat, preview_csv, read_csv, sniff_csv
from arxpy.data.definition import AttributeDefinition, DataDefinition, DataKind, DataType
from arxpy.data.delimiter_check import delimiter_warning
from arxpy.data.excel_io import list_sheets, read_excel
from arxpy.data.sql_io import SQLITE_SUFFIXES, list_tables, read_sqlite
from arxpy.data.types import DATE_FORMATS, infer_data_type
from arxpy.data.value_checks import DataWarning, codes_warning, variants_warning
from arxpy.errors import ArxpyError, DataImportError
from arxpy.gui.folders import pick_path
from arxpy.gui.linked_import import LinkedTablesPage
from arxpy.gui.message_lines import ReservedLines
from arxpy.gui.plain_text import plain_label
from arxpy.gui.setvalued_import import (
    CodesPage,
    codes_aware_format,
    guess_layout,
    looks_set_valued,
)
from arxpy.project import Project
from arxpy.workflows.session import default_settings

PREVIEW_ROWS = 20
SOURCES = {"csv": "CSV file", "excel": "Excel sheet", "sqlite": "SQLite table"}
SUFFIXES = {".xlsx": "excel", ".xlsm": "excel", **dict.fromkeys(SQLITE_SUFFIXES, "sqlite")}
ENCODINGS = ("utf-8", "utf-8-sig", "cp1252", "latin-1", "utf-16")
IMPORT_KINDS = (DataKind.STRING, DataKind.INTEGER, DataKind.DECIMAL, DataKind.DATE)
_ERROR_STYLE = "color: #a61b1b"
_NOTICE_STYLE = "color: #8a5300"
#: Warnings listed on the columns page; the rest are counted.
SHOWN_WARNINGS = 6


def fill_table(table: QTableWidget, frame: pd.DataFrame, rows: int = PREVIEW_ROWS) -> None:
    """Show the first ``rows`` rows of ``frame`` in ``table``."""
    shown = frame.head(rows)
    table.clear()
    table.setRowCount(len(shown))
    table.setColumnCount(shown.shape[1])
    table.setHorizontalHeaderLabels([str(c) for c in shown.columns])
    for r, values in enumerate(shown.itertuples(index=False, name=None)):
        for c, value in enumerate(values):
            table.setItem(r, c, QTableWidgetItem(str(value)))
    table.resizeColumnsToContents()


def _noting_warnings(read) -> tuple[pd.DataFrame, list[str]]:
    """``read()`` and the messages of the DataWarnings it gave (shown on the page, not
    printed)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        frame = read()
    for other in (w for w in caught if not issubclass(w.category, DataWarning)):
        warnings.showwarning(other.message, other.category, other.filename, other.lineno)
    return frame, [str(w.message) for w in caught if issubclass(w.category, DataWarning)]


def _error_label() -> QLabel:
    label = plain_label(QLabel(wordWrap=True))
    label.setStyleSheet(_ERROR_STYLE)
    return label


class SourcePage(QWizardPage):
    def __init__(self) -> None:
        super().__init__()
        self.setTitle("Choose the data source")
        self.setSubTitle("A CSV file, a sheet of an Excel workbook or a table of a SQLite "
                         "database.")
        self.path = QLineEdit(placeholderText="Path of the file")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.kind = QComboBox()
        for key, label in SOURCES.items():
            self.kind.addItem(label, key)
        self.table = QComboBox()
        self.error = _error_label()
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form = QFormLayout(self)
        form.addRow("File:", row)
        form.addRow("Type:", self.kind)
        form.addRow("Sheet or table:", self.table)
        form.addRow(self.error)
        self.path.textChanged.connect(self._path_changed)
        self.kind.currentIndexChanged.connect(self._list_tables)
        self.table.currentIndexChanged.connect(self.completeChanged)

    def _browse(self) -> None:
        path = pick_path(self, "data", False, "Import data",
                         "Data (*.csv *.txt *.tsv *.xlsx *.db *.sqlite *.sqlite3);;All files (*)")
        if path:
            self.path.setText(path)

    def source(self) -> str:
        return str(self.kind.currentData())

    def _path_changed(self) -> None:
        kind = SUFFIXES.get(Path(self.path.text()).suffix.lower(), "csv")
        self.kind.setCurrentIndex(self.kind.findData(kind))
        self._list_tables()

    def _list_tables(self) -> None:
        self.table.clear()
        self.error.clear()
        path = self.path.text().strip()
        self.table.setEnabled(self.source() != "csv")
        if not path:
            self.completeChanged.emit()
            return
        try:
            if not Path(path).is_file():
                raise DataImportError(f"'{path}' is not a file; choose an existing file.")
            if self.source() == "excel":
                self.table.addItems(list_sheets(path))
            elif self.source() == "sqlite":
                self.table.addItems(list_tables(path))
        except ArxpyError as exc:
            self.error.setText(str(exc))
        self.completeChanged.emit()

    def isComplete(self) -> bool:  # noqa: N802 - Qt's name
        if not self.path.text().strip() or self.error.text():
            return False
        return self.source() == "csv" or self.table.count() > 0


class FormatPage(QWizardPage):
    """CSV format (or header for Excel) with a live preview of the first rows."""

    def __init__(self, wizard: ImportWizard) -> None:
        super().__init__()
        self.owner = wizard
        self.setTitle("Check the format")
        self.setSubTitle(f"The first {PREVIEW_ROWS} rows as they will be read.")
        self.delimiter = QComboBox(editable=True)
        for char, name in DELIMITER_NAMES.items():
            self.delimiter.addItem(f"{name} ({char!r})", char)
        self.quote = QComboBox()
        self.quote.addItem('double quote (")', '"')
        self.quote.addItem("single quote (')", "'")
        self.encoding = QComboBox(editable=True)
        self.encoding.addItems(ENCODINGS)
        self.header = QCheckBox("The first row holds the column names", checked=True)
        # Only the user ticks it: a wrong delimiter made ordinary tables look like codes.
        self.set_valued = QCheckBox("The data hold a set of diagnosis codes per record "
                                    "(codes in one cell, long or wide format)")
        self.set_valued.toggled.connect(self.update_preview)
        # Questions about the choices (a doubtful delimiter, cells that look like codes),
        # in room kept for them so the preview does not jump.
        self.notice = ReservedLines(2)
        self.notice.setStyleSheet(_NOTICE_STYLE)
        self.preview = QTableWidget()
        self.preview.verticalHeader().setDefaultSectionSize(22)
        self.error = _error_label()
        self.csv_options = QWidget()
        options = QFormLayout(self.csv_options)
        options.setContentsMargins(0, 0, 0, 0)
        options.addRow("Delimiter:", self.delimiter)
        options.addRow("Quote:", self.quote)
        options.addRow("Encoding:", self.encoding)
        layout = QVBoxLayout(self)
        layout.addWidget(self.csv_options)
        layout.addWidget(self.header)
        layout.addWidget(self.set_valued)
        layout.addWidget(self.notice)
        layout.addWidget(self.error)
        layout.addWidget(self.preview, 1)
        self._filling = False
        for combo in (self.delimiter, self.quote, self.encoding):
            combo.currentIndexChanged.connect(self.update_preview)
        self.delimiter.editTextChanged.connect(self.update_preview)
        self.encoding.editTextChanged.connect(self.update_preview)
        self.header.toggled.connect(self.update_preview)

    def initializePage(self) -> None:  # noqa: N802 - Qt's name
        source = self.owner.source_page.source()
        self.csv_options.setVisible(source == "csv")
        self.header.setVisible(source != "sqlite")
        self._filling = True
        if source == "csv":
            try:
                path = self.owner.path()
                self.set_format(codes_aware_format(path, sniff_csv(path)))
            except ArxpyError as exc:
                self.error.setText(str(exc))
        self._filling = False
        self.update_preview()

    def set_format(self, fmt: CsvFormat) -> None:
        """Show ``fmt`` in the widgets (without re-reading in between)."""
        index = self.delimiter.findData(fmt.delimiter)
        if index >= 0:
            self.delimiter.setCurrentIndex(index)
        else:
            self.delimiter.setEditText(fmt.delimiter)
        self.quote.setCurrentIndex(max(self.quote.findData(fmt.quotechar), 0))
        self.encoding.setEditText(fmt.encoding)
        self.header.setChecked(fmt.has_header)

    def csv_format(self) -> CsvFormat:
        """The format the widgets describe; DataImportError if impossible."""
        text = self.delimiter.currentText()
        data = self.delimiter.currentData()
        index = self.delimiter.findText(text)
        delimiter = data if index >= 0 and data else text.replace("\\t", "\t")
        return CsvFormat(delimiter, self.quote.currentData(), self.encoding.currentText().strip(),
                         self.header.isChecked())

    def update_preview(self) -> None:
        if self._filling:
            return
        self.error.clear()
        self.notice.setText("")
        try:
            frame = self.owner.read(preview=True)
            fill_table(self.preview, frame)
            self.notice.setText(self._question(frame))
        except ArxpyError as exc:
            self.preview.clear()
            self.preview.setRowCount(0)
            self.error.setText(str(exc))
        self.completeChanged.emit()

    def _question(self, frame: pd.DataFrame) -> str:
        """What to check before going on: a delimiter that made one column of a line
        holding another delimiter; otherwise cells that look like sets of codes (the box
        is the user's to tick)."""
        if self.owner.source_page.source() == "csv" and frame.shape[1] == 1:
            cells = frame.iloc[:, 0].astype(str).tolist()
            header = str(frame.columns[0]) if self.header.isChecked() else \
                (cells[0] if cells else "")
            warning = delimiter_warning(header, cells, self.csv_format().delimiter)
            if warning:
                return f"⚠ {warning}"
        if self.set_valued.isChecked() or not looks_set_valued(frame):
            return ""
        layout, column, prefix = guess_layout(frame)
        where = (f"the columns {prefix}1, {prefix}2, … look like codes in wide format"
                 if layout == "wide" else f"the cells of '{column}' look like sets of codes")
        return (f"Note: {where}. Tick the box above if each record holds a set of diagnosis "
                "codes.")

    def isComplete(self) -> bool:  # noqa: N802 - Qt's name
        return not self.error.text()


class ColumnsPage(QWizardPage):
    """Which columns to import, with their data types and formats."""

    def __init__(self, wizard: ImportWizard) -> None:
        super().__init__()
        self.owner = wizard
        self.setTitle("Choose columns and data types")
        self.setSubTitle("Data types are inferred from every value; change them where the "
                         "data mean something else (a ZIP code is text, not a number).")
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Column", "Data type", "Format", "Examples"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.error = _error_label()
        self.warnings = plain_label(QLabel(wordWrap=True))
        self.warnings.setStyleSheet(_NOTICE_STYLE)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.warnings)
        layout.addWidget(self.error)
        self.setFinalPage(True)  # linking event tables is optional

    def initializePage(self) -> None:  # noqa: N802 - Qt's name
        self.error.clear()
        self.warnings.clear()
        try:
            frame = self.owner.table()
        except ArxpyError as exc:
            self.error.setText(str(exc))
            self.table.setRowCount(0)
            return
        self.owner.frame = frame
        self.table.setRowCount(frame.shape[1])
        found = list(self.owner.read_warnings)
        for row, name in enumerate(frame.columns):
            guess = self._fill_row(row, str(name), frame[name])
            found.extend(_typing_warnings(str(name), frame[name], guess))
        self.warnings.setText(_listed(found))
        self.table.resizeColumnsToContents()
        self.table.setColumnWidth(1, max(self.table.columnWidth(1), 110))
        self.table.setColumnWidth(2, max(self.table.columnWidth(2), 150))

    def _fill_row(self, row: int, name: str, values: pd.Series) -> DataType:
        """One column's row; returns the data type guessed for it."""
        include = QTableWidgetItem(name)
        include.setCheckState(_checked(True))
        self.table.setItem(row, 0, include)
        codes = name == self.owner.codes_column()
        guess = DataType(DataKind.SET) if codes else infer_data_type(values)
        if guess.kind is DataKind.INTEGER and values.astype(str).str.match(r"[+-]?0[0-9]").any():
            guess = DataType(DataKind.STRING)  # leading zeros: a code (ZIP, ID), not a number
        kind = QComboBox()
        for option in (DataKind.SET,) if codes else IMPORT_KINDS:  # codes stay a set
            kind.addItem(option.value.capitalize(), option.value)
        kind.setCurrentIndex(max(kind.findData(guess.kind.value), 0))
        self.table.setCellWidget(row, 1, kind)
        fmt = QComboBox(editable=True)
        fmt.addItems(["", *DATE_FORMATS, ","])
        fmt.setEditText(guess.format or "")
        self.table.setCellWidget(row, 2, fmt)
        examples = ", ".join(str(v) for v in pd.unique(values.head(200))[:5])
        self.table.setItem(row, 3, QTableWidgetItem(examples))
        return guess

    def column(self, name: str) -> int:
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).text() == name:
                return row
        raise KeyError(name)

    def set_column(self, name: str, include: bool = True, kind: DataKind | None = None,
                   fmt: str | None = None) -> None:
        """Choose whether to import ``name`` and, optionally, its data type and format."""
        row = self.column(name)
        self.table.item(row, 0).setCheckState(_checked(include))
        if kind is not None:
            combo = self.table.cellWidget(row, 1)
            combo.setCurrentIndex(combo.findData(DataKind(kind).value))
        if fmt is not None:
            self.table.cellWidget(row, 2).setEditText(fmt)

    def definition(self) -> DataDefinition:
        """The chosen columns with their data types; DefinitionError if one is impossible."""
        attributes = []
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item.checkState() != _checked(True):
                continue
            kind = DataKind(self.table.cellWidget(row, 1).currentData())
            fmt = self.table.cellWidget(row, 2).currentText().strip() or None
            if kind is DataKind.DECIMAL:
                fmt = "," if fmt == "," else None
            elif kind is not DataKind.DATE:
                fmt = None
            attributes.append(AttributeDefinition(item.text(), data_type=DataType(kind, fmt)))
        if not attributes:
            raise DataImportError("Choose at least one column to import.")
        return DataDefinition(attributes)

    def validatePage(self) -> bool:  # noqa: N802 - Qt's name
        try:
            self.owner.build_project(self.definition())
        except ArxpyError as exc:
            self.error.setText(str(exc))
            return False
        return True


def _typing_warnings(name: str, values: pd.Series, guess: DataType) -> list[str]:
    """What to check about a column given its guessed type: numbers that may be codes,
    text values spelled in several ways (roles are not chosen yet: any column)."""
    if guess.is_numeric:
        warning = codes_warning(name, values)
    elif guess.kind is DataKind.STRING:
        warning = variants_warning(name, values, sensitive=False)
    else:
        warning = None
    return [] if warning is None else [str(warning)]


def _listed(messages: list[str]) -> str:
    """The first :data:`SHOWN_WARNINGS` messages as lines, the rest counted."""
    lines = [f"⚠ {m}" for m in messages[:SHOWN_WARNINGS]]
    if len(messages) > SHOWN_WARNINGS:
        lines.append(f"… and {len(messages) - SHOWN_WARNINGS} more warnings of these kinds.")
    return "\n".join(lines)


def _checked(on: bool) -> Qt.CheckState:
    return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked


class ImportWizard(QWizard):
    """Three pages; ``project`` holds the new project after the wizard is accepted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import data")
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.resize(860, 600)
        self.frame: pd.DataFrame | None = None
        self.project: Project | None = None
        #: The data layer's warnings from the last read (a duplicated column name).
        self.read_warnings: list[str] = []
        self._table_cache: dict[tuple[str, str, str, bool],
                                tuple[pd.DataFrame, list[str]]] = {}
        self.source_page = SourcePage()
        self.format_page = FormatPage(self)
        self.codes_page = CodesPage(self)
        self.columns_page = ColumnsPage(self)
        self.linked_page = LinkedTablesPage(self)
        self.page_ids = {page: self.addPage(page) for page in (
            self.source_page, self.format_page, self.codes_page, self.columns_page,
            self.linked_page)}

    def nextId(self) -> int:  # noqa: N802 - Qt's name
        # The codes page only for data holding a set of codes per record.
        if self.currentPage() is self.format_page and not self.format_page.set_valued.isChecked():
            return self.page_ids[self.columns_page]
        return super().nextId()

    def codes_column(self) -> str | None:
        """The set-valued attribute being imported, if any."""
        return self.codes_page.codes_column_name() if self.reads_codes() else None

    def reads_codes(self) -> bool:
        return self.format_page.set_valued.isChecked()

    def table(self) -> pd.DataFrame:
        """The data as imported: as read, or one row per record with a codes column."""
        return self.codes_page.table() if self.reads_codes() else self.read(preview=False)

    def path(self) -> str:
        return self.source_page.path.text().strip()

    def csv_delimiter(self) -> str | None:
        """The delimiter of an imported CSV file (None for a workbook or database)."""
        return self.format_page.csv_format().delimiter \
            if self.source_page.source() == "csv" else None

    def source_description(self) -> str:
        table = self.source_page.table.currentText()
        return f"{self.path()}" + (f" ({table})" if table else "")

    def read(self, preview: bool) -> pd.DataFrame:
        """The data as the current choices read them (only the first rows if ``preview``);
        the data layer's warnings go to :attr:`read_warnings`."""
        source = self.source_page.source()
        if source == "csv":
            fmt = self.format_page.csv_format()
            frame, self.read_warnings = _noting_warnings(
                lambda: preview_csv(self.path(), fmt, PREVIEW_ROWS) if preview else
                read_csv(self.path(), fmt))
            return frame
        table, header = self.source_page.table.currentText(), self.format_page.header.isChecked()
        key = (source, self.path(), table, header)
        if key not in self._table_cache:  # workbooks and databases have no partial read
            self._table_cache.clear()
            self._table_cache[key] = _noting_warnings(
                lambda: read_excel(self.path(), table, header) if source == "excel"
                else read_sqlite(self.path(), table))
        frame, self.read_warnings = self._table_cache[key]
        return frame

    def build_project(self, definition: DataDefinition) -> Project:
        if self.frame is None:
            raise DataImportError("The data could not be read; go back and fix the format.")
        data = self.frame[definition.names].reset_index(drop=True)
        project = Project(data, definition, {}, default_settings(), name=self.project_name())
        if self.currentPage() is self.linked_page:
            self.linked_page.apply(project)
        self.project = project
        return project

    def project_name(self) -> str:
        """The new project's name (the patient table's, with linked tables)."""
        return Path(self.path()).stem or "Imported data"
