"""Summary statistics of one attribute, input next to output (ARX's "Summary statistics")."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from PySide6.QtWidgets import QHBoxLayout, QListWidget, QVBoxLayout, QWidget

from arxpy.analysis.statistics import UtilityStatistics
from arxpy.data.definition import DataKind
from arxpy.gui.utility.common import (
    INPUT_COLOR,
    OUTPUT_COLOR,
    fill_table,
    note,
    number,
    read_only_table,
    tint_headers,
)

SCALES = {DataKind.STRING: "Nominal", DataKind.ORDINAL: "Ordinal",
          DataKind.INTEGER: "Ratio (integer)", DataKind.DECIMAL: "Ratio (decimal)",
          DataKind.DATE: "Interval (date)"}
#: (row label, summary key) for every attribute, then for numeric ones.
COMMON_ROWS = (("Records", "count"), ("Missing values", "missing"),
               ("Distinct values", "distinct"), ("Mode", "mode"))
NUMERIC_ROWS = (("Values carrying a number", "numeric_values"),
                ("Values without a number", "not_numeric"), ("Minimum", "min"),
                ("Lower quartile", "q1"), ("Median", "median"), ("Upper quartile", "q3"),
                ("Maximum", "max"), ("Mean", "mean"), ("Mean, lowest possible", "mean_low"),
                ("Mean, highest possible", "mean_high"), ("Standard deviation", "sd"),
                ("Computed from", "basis"))


def _cell(summary: pd.DataFrame, name: str, key: str) -> Any:
    if name not in summary.index or key not in summary.columns:
        return None
    value = summary.at[name, key]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


class SummaryView(QWidget):
    """An attribute list and a table: statistic | input | output, with what is computed
    from what on generalized values."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.statistics: UtilityStatistics | None = None
        self.attributes = QListWidget()
        self.attributes.setMaximumWidth(220)
        self.attributes.currentTextChanged.connect(self._show)
        self.table = read_only_table(["Statistic", "Input", "Output"])
        # Orange text on white is too faint to read: the colours go on the headers.
        tint_headers(self.table, {1: INPUT_COLOR, 2: OUTPUT_COLOR})
        self.explanation = note()
        right = QVBoxLayout()
        right.addWidget(self.table, 1)
        right.addWidget(self.explanation)
        layout = QHBoxLayout(self)
        layout.addWidget(self.attributes)
        layout.addLayout(right, 1)

    def set_statistics(self, statistics: UtilityStatistics | None) -> None:
        """Show ``statistics`` (None clears), keeping the selected attribute if it exists."""
        current = self.attributes.currentItem().text() if self.attributes.currentItem() else None
        self.statistics = statistics
        self.attributes.blockSignals(True)
        self.attributes.clear()
        names = list(statistics.input_summary.index) if statistics is not None else []
        self.attributes.addItems(names)
        self.attributes.blockSignals(False)
        if names:
            self.select(current if current in names else names[0])
        else:
            self.table.setRowCount(0)
            self.explanation.setText("")

    def select(self, attribute: str) -> None:
        """Show the statistics of ``attribute``."""
        matches = [i for i in range(self.attributes.count())
                   if self.attributes.item(i).text() == attribute]
        if matches:
            self.attributes.setCurrentRow(matches[0])
            self._show(attribute)

    def rows(self, attribute: str) -> list[tuple[str, str, str]]:
        """The table's rows for ``attribute``: (statistic, input text, output text)."""
        stats = self.statistics
        kind = stats.definition[attribute].data_type.kind
        role = stats.definition[attribute].type.label
        rows = [("Role", role, role), ("Scale of measure", SCALES.get(kind, kind.value),
                                       SCALES.get(kind, kind.value))]
        keys = COMMON_ROWS + (NUMERIC_ROWS if kind in (DataKind.INTEGER, DataKind.DECIMAL)
                              else ())
        for label, key in keys:
            rows.append((label, number(_cell(stats.input_summary, attribute, key)),
                         number(_cell(stats.output_summary, attribute, key))))
        return rows

    def _show(self, attribute: str) -> None:
        if self.statistics is None or not attribute:
            return
        fill_table(self.table, self.rows(attribute), bold_first=True)
        self.explanation.setText(self._explain(attribute))

    def _explain(self, attribute: str) -> str:
        stats = self.statistics
        published = int((~stats.suppressed).sum())
        text = (f"The output side counts the {published:,} published records; "
                f"{int(stats.suppressed.sum()):,} suppressed records are left out. "
                "Missing-value spellings count as values in counts and modes and are left "
                "out of numbers.")
        basis = _cell(stats.output_summary, attribute, "basis")
        if basis == "interval midpoints":
            text += (" <b>Output numbers are estimated from generalized values</b>: each "
                     "interval stands for its midpoint in the quartiles, mean and standard "
                     "deviation, and its bounds give the lowest and highest possible mean; "
                     "'*', masked and open-ended values carry no number.")
        elif basis == "none":
            text += (" <b>No output value carries a number</b> (all are '*', masked or "
                     "open-ended), so the output has no numeric statistics.")
        elif basis == "values":
            text += " Numbers are the values themselves on both sides."
        return text
