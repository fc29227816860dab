"""Input and output tables in Utility, as ARX shows them: rows grouped by the output's
equivalence classes, alternate classes shaded, the two tables scrolling together."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtWidgets import QVBoxLayout, QWidget

from arxpy.data.codes import column_codes, group_codes
from arxpy.gui.explore.io_table import InputOutputTable, table_values
from arxpy.gui.explore.jobs import start_job
from arxpy.release import Release
from arxpy.workflows.utility_jobs import Applied


def class_order(release: Release) -> tuple[np.ndarray, np.ndarray]:
    """Row order grouping records of one equivalence class (suppressed rows last, original
    order within a class) and each ordered row's class number (0, 1, ... in that order)."""
    codes = release.groups if release.groups is not None else \
        group_codes(column_codes(release.table, release.quasi_identifiers))[0] \
        if release.quasi_identifiers else np.zeros(release.records, np.int64)
    codes = np.where(release.suppressed, codes.max(initial=0) + 1, codes)
    order = np.lexsort((np.arange(len(codes)), codes))
    ordered = codes[order]
    # Renumber classes by first appearance in the new order, for alternating shades.
    starts = np.r_[True, ordered[1:] != ordered[:-1]] if len(ordered) else np.zeros(0, bool)
    return order, np.cumsum(starts) - 1


class DataTablesView(QWidget):
    """The applied transformation's input and output rows, grouped by output class."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tables = InputOutputTable()
        self.tables.caption.setText(
            "Input (left) and output (right), rows grouped by the output's equivalence "
            "classes, alternate classes shaded; suppressed rows last, grey, italic, marked ✕.")
        self.tables.caption.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tables)
        self.applied: Applied | None = None
        self._shown: Applied | None = None
        self.last_job: Any = None

    def set_applied(self, applied: Applied | None) -> None:
        self.applied = applied
        if applied is None:
            self._shown = None
            self.tables.set_tables(None, None, None)
        elif self.isVisible():
            self._compute()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self._compute()

    def _compute(self) -> None:
        applied = self.applied
        if applied is None or applied is self._shown:
            return  # computed when shown: a whole output costs a second on 1M rows
        self._shown = applied

        def work() -> tuple:
            release = applied.release()
            order, classes = class_order(release)
            return (applied, table_values(applied.frame.iloc[order]),
                    table_values(release.table.iloc[order]), release.suppressed[order],
                    classes % 2)

        self.last_job = start_job(self, work, self._ready)

    def _ready(self, value: tuple) -> None:
        applied, inputs, outputs, suppressed, shades = value
        if applied is self.applied:
            self.tables.set_tables(inputs, outputs, suppressed, shades)
