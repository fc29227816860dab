"""A picker for codes of a set-valued attribute, used for disassociation's sensitive codes
(the l-diversity variant, spec 002 §2.5 and §6 "sensitive codes, via a code picker").

The dialog lists the attribute's codes with their ICD-9-CM descriptions and the records
holding each, filterable by code or description; the chosen codes go into the form's
text field (comma-separated, dotted), which stays the one place the value lives.
"""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from arxpy.data import icd9
from arxpy.data.transactions import split_cell
from arxpy.errors import ArxpyError
from arxpy.gui.code_sets import display_code

#: The parameter a picker serves and the one naming the attribute whose codes it lists.
PICKED_PARAM, CODES_PARAM, DELIMITER_PARAM = "sensitive_codes", "codes_column", "delimiter"


def code_counts(values: pd.Series, delimiter: str) -> Counter[str]:
    """Records holding each (normalised) code of a set-valued column."""
    counts: Counter[str] = Counter()
    for cell, repeats in values.astype(str).value_counts().items():
        for code in {icd9.normalize_code(c) for c in split_cell(cell, delimiter)}:
            counts[code] += int(repeats)
    return counts


def parse_codes(text: str) -> list[str]:
    """Codes of a text field, normalised (separated by commas, semicolons or spaces)."""
    return [icd9.normalize_code(c) for c in re.split(r"[,;\s]+", text or "") if c.strip()]


class CodePickerDialog(QDialog):
    """Tick codes in a filterable table; :meth:`chosen` lists them."""

    COLUMNS = ("Code", "Description", "Records")

    def __init__(self, counts: Counter[str], chosen: list[str], title: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(640, 520)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by code or description, e.g. 296 or bipolar")
        self.filter.textChanged.connect(self._filter)
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.horizontalHeader().setSectionResizeMode(
            1, self.table.horizontalHeader().ResizeMode.Stretch)
        wanted = {icd9.normalize_code(c) for c in chosen}
        codes = sorted(counts, key=lambda c: (-counts[c], c))
        self.table.setRowCount(len(codes))
        for row, code in enumerate(codes):
            item = QTableWidgetItem(display_code(code))
            item.setData(Qt.ItemDataRole.UserRole, code)
            item.setCheckState(Qt.CheckState.Checked if code in wanted
                               else Qt.CheckState.Unchecked)
            self.table.setItem(row, 0, item)
            self.table.setItem(row, 1, QTableWidgetItem(icd9.describe(code)))
            number = QTableWidgetItem(f"{counts[code]:,}")
            number.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, 2, number)
        self.table.resizeColumnToContents(0)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Sensitive codes are always published in item chunks and "
                                "never used to cluster (the l-diversity variant)."))
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        key = needle.upper().replace(".", "")  # a prefix of the undotted code, not padded
        for row in range(self.table.rowCount()):
            code = self.table.item(row, 0).data(Qt.ItemDataRole.UserRole)
            shown = not needle or code.startswith(key) or \
                needle in self.table.item(row, 1).text().lower()
            self.table.setRowHidden(row, not shown)

    def chosen(self) -> list[str]:
        """The ticked codes, dotted, in table order."""
        return [self.table.item(row, 0).text() for row in range(self.table.rowCount())
                if self.table.item(row, 0).checkState() == Qt.CheckState.Checked]


def attach_code_picker(form, data: pd.DataFrame, parent: QWidget) -> None:
    """Give the form's sensitive-codes field a button opening the picker over the codes
    of the form's codes column (only for forms that have both fields)."""
    field = form.widgets.get(PICKED_PARAM)
    if field is None or CODES_PARAM not in form.widgets:
        return
    icon = parent.style().standardIcon(QStyle.StandardPixmap.SP_FileDialogContentsView)
    action = field.addAction(icon, QLineEdit.ActionPosition.TrailingPosition)
    action.setToolTip("Pick codes from the data…")

    def pick() -> None:
        try:
            values = form.values()
        except ArxpyError:
            return  # the form shows what to fix first
        column = values.get(CODES_PARAM)
        if column not in data.columns:
            return
        dialog = CodePickerDialog(code_counts(data[column], values.get(DELIMITER_PARAM) or ";"),
                                  parse_codes(field.text()), "Sensitive codes", parent)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            field.setText(", ".join(dialog.chosen()))

    action.triggered.connect(pick)
    field.picker_action = action  # for tests and the screenshots
