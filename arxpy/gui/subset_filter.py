"""The research subset of δ-presence as conditions over the population table (ARX's query
dialog, as a column filter builder).

Each row is one condition (attribute, operator, value); the rows meeting all of them
form the research subset, and the dialog shows how many population records that is.
The conditions are evaluated by :func:`arxpy.privacy.dpresence.subset_mask`, the same
code the model runs, so the count shown is the subset the run will check the data
against.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.errors import ArxpyError
from arxpy.gui.plain_text import plain_label
from arxpy.privacy.dpresence import OPERATORS, subset_mask

#: Most conditions a subset is built from here (more are possible in a project file).
MAX_CONDITIONS = 8


def read_population(path: str) -> pd.DataFrame:
    """The population table as text; ArxpyError saying what to change."""
    from arxpy.data.csv_io import read_csv, sniff_csv

    if not path or not Path(path).is_file():
        raise ArxpyError("Give the population table (an existing CSV file) first.")
    return read_csv(path, sniff_csv(Path(path))).astype(str)


class SubsetFilterDialog(QDialog):
    """Conditions over ``population``'s columns; ``conditions()`` after accept."""

    def __init__(self, population: pd.DataFrame, conditions: list[dict[str, Any]] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.population = population
        self.setWindowTitle("Research subset")
        self.rows: list[tuple[QComboBox, QComboBox, QLineEdit, QPushButton]] = []
        layout = QVBoxLayout(self)
        intro = QLabel("The population records that meet every condition form the research "
                       "subset. For 'in' and 'not in', separate values by commas.",
                       wordWrap=True)
        intro.setStyleSheet("color: #555")
        layout.addWidget(intro)
        self.grid = QGridLayout()
        for column, title in enumerate(("Attribute", "Operator", "Value")):
            self.grid.addWidget(QLabel(f"<b>{title}</b>"), 0, column)
        layout.addLayout(self.grid)
        self.add_button = QPushButton("Add condition")
        self.add_button.clicked.connect(lambda: self.add_condition())
        self.count = plain_label(QLabel(wordWrap=True))
        self.count.setMinimumHeight(36)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.count)
        layout.addWidget(self.buttons)
        for condition in conditions or [{}]:
            self.add_condition(condition)
        self.update_count()

    def add_condition(self, condition: dict[str, Any] | None = None) -> None:
        condition = condition or {}
        attribute = QComboBox()
        attribute.addItems([str(c) for c in self.population.columns])
        if condition.get("attribute") in self.population.columns:
            attribute.setCurrentText(str(condition["attribute"]))
        operator = QComboBox()
        operator.addItems(list(OPERATORS))
        operator.setCurrentText(str(condition.get("operator", "=")))
        value = condition.get("value")
        edit = QLineEdit(", ".join(value) if isinstance(value, list) else str(value or ""))
        edit.setPlaceholderText("value")
        remove = QPushButton("Remove")
        line = len(self.rows) + 1
        for column, widget in enumerate((attribute, operator, edit, remove)):
            self.grid.addWidget(widget, line, column)
        self.rows.append((attribute, operator, edit, remove))
        remove.clicked.connect(lambda: self._remove(attribute))
        attribute.currentIndexChanged.connect(self.update_count)
        operator.currentIndexChanged.connect(self.update_count)
        edit.textChanged.connect(self.update_count)
        self.add_button.setEnabled(len(self.rows) < MAX_CONDITIONS)
        self.update_count()

    def _remove(self, attribute: QComboBox) -> None:
        for entry in self.rows:
            if entry[0] is attribute and len(self.rows) > 1:
                for widget in entry:
                    self.grid.removeWidget(widget)
                    widget.deleteLater()
                self.rows.remove(entry)
                break
        self.add_button.setEnabled(len(self.rows) < MAX_CONDITIONS)
        self.update_count()

    def conditions(self) -> list[dict[str, Any]]:
        """The conditions as the model stores them (``subset_filter``)."""
        out = []
        for attribute, operator, edit, _remove in self.rows:
            entry: dict[str, Any] = {"attribute": attribute.currentText(),
                                     "operator": operator.currentText()}
            text = edit.text().strip()
            if entry["operator"] in ("in", "not in"):
                entry["value"] = [v.strip() for v in text.split(",") if v.strip()]
            elif entry["operator"] != "is true":
                entry["value"] = text
            edit.setEnabled(entry["operator"] != "is true")
            out.append(entry)
        return out

    def matching(self) -> int | str:
        """Population records meeting every condition, or why the conditions cannot run."""
        try:
            return int(subset_mask(self.population, self.conditions()).sum())
        except ArxpyError as exc:
            return str(exc).removeprefix("δ-presence: ")

    def update_count(self) -> None:
        found = self.matching()
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        if isinstance(found, str):
            self.count.setText(found)
            self.count.setStyleSheet("color: #a61b1b")
            ok.setEnabled(False)
            return
        total = len(self.population)
        self.count.setText(f"{found:,} of {total:,} population records match all conditions "
                           "(the research subset; the data must be these records).")
        self.count.setStyleSheet("")
        ok.setEnabled(found > 0)
