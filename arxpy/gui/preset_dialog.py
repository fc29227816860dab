"""Edit › Apply policy preset… (issue 35): choose a preset, see every rule it would
apply where it applies, in words and with its reason, then apply them as one step.

Widgets only: the rules come from the session's :meth:`preview_preset` (the Qt-free
:func:`arxpy.presets.apply_preset`), and applying is the session's one undoable
:meth:`apply_preset`. The HIPAA scan the presets read runs once when the dialog opens.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from arxpy.errors import ArxpyError
from arxpy.gui.plain_text import plain_label
from arxpy.presets import DESCRIPTIONS, EXPERT_DETERMINATION, PRESETS, PSEUDONYMISED
from arxpy.presets.policies import DEFAULT_HIGHEST_RISK, DEFAULT_SHIFT_DAYS

COLUMNS = ("Attribute", "Rule", "Reason")


def _label(text: str = "") -> QLabel:
    label = plain_label(QLabel(text))
    label.setWordWrap(True)
    return label


class PresetDialog(QDialog):
    """The presets, their parameters, the rules each would apply, and Apply."""

    def __init__(self, state: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Apply policy preset")
        self.state = state
        self.outcome: Any = None
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            from arxpy.risk.hipaa import find_hipaa_identifiers

            self._scan = find_hipaa_identifiers(state.data)
        finally:
            QApplication.restoreOverrideCursor()
        self.choice = QComboBox()
        for name, label in PRESETS.items():
            self.choice.addItem(label, name)
        self.description = _label()
        self.parameters = self._parameter_form()
        self.rules = self._rule_table()
        self.status = _label()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Apply
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Apply).clicked.connect(self.apply)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.choice)
        layout.addWidget(self.description)
        layout.addWidget(self.parameters)
        layout.addWidget(self.rules, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.choice.currentIndexChanged.connect(self.preview)
        self.preview()
        self.resize(980, 560)

    def _parameter_form(self) -> QWidget:
        box = QWidget()
        form = QFormLayout(box)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.highest = QDoubleSpinBox(decimals=3, minimum=0.001, maximum=1.0, singleStep=0.01,
                                      value=DEFAULT_HIGHEST_RISK)
        self.highest.setToolTip("Largest prosecutor risk of any record (1 / class size); "
                                "0.09 is the EMA's and Health Canada's convention")
        self.use_average = QCheckBox("Also bound the average risk at")
        self.average = QDoubleSpinBox(decimals=3, minimum=0.001, maximum=1.0, singleStep=0.01,
                                      value=0.05)
        self.shift_days = QSpinBox(minimum=1, maximum=3650, value=DEFAULT_SHIFT_DAYS)
        self.shift_days.setSuffix(" days")
        form.addRow("Highest prosecutor risk:", self.highest)
        form.addRow(self.use_average, self.average)
        form.addRow("Widest date shift:", self.shift_days)
        for widget in (self.highest, self.average, self.shift_days):
            widget.valueChanged.connect(self.preview)
        self.use_average.toggled.connect(self.preview)
        return box

    def _rule_table(self) -> QTableWidget:
        table = QTableWidget(0, len(COLUMNS))
        table.setHorizontalHeaderLabels(COLUMNS)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setWordWrap(True)
        table.verticalHeader().setVisible(False)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        table.setColumnWidth(1, 300)
        return table

    @property
    def name(self) -> str:
        return str(self.choice.currentData())

    def chosen_parameters(self) -> dict[str, Any]:
        if self.name == EXPERT_DETERMINATION:
            return {"highest_risk": self.highest.value(),
                    "average_risk": self.average.value() if self.use_average.isChecked()
                    else None}
        if self.name == PSEUDONYMISED:
            return {"shift_days": self.shift_days.value()}
        return {}

    def _show_parameters(self) -> None:
        form: QFormLayout = self.parameters.layout()
        expert, pseudonymised = self.name == EXPERT_DETERMINATION, self.name == PSEUDONYMISED
        for widget, shown in ((self.highest, expert), (self.average, expert),
                              (self.shift_days, pseudonymised)):
            form.setRowVisible(widget, shown)
        self.average.setEnabled(self.use_average.isChecked())
        self.parameters.setVisible(expert or pseudonymised)

    def preview(self) -> None:
        """The rules of the chosen preset with its parameters (nothing applied yet)."""
        self.description.setText(DESCRIPTIONS[self.name])
        self._show_parameters()
        try:
            self.outcome = self.state.preview_preset(self.name, self.chosen_parameters(),
                                                    analysis=self._scan)
        except ArxpyError as exc:
            self.outcome = None
            self.status.setText(f"Cannot apply: {exc}")
        else:
            self.status.setText(self._summary())
        rules = self.outcome.rules if self.outcome is not None else ()
        self._fill(rules)
        self.buttons.button(QDialogButtonBox.StandardButton.Apply).setEnabled(bool(rules))

    def _summary(self) -> str:
        count = len(self.outcome.rules)
        if not count:
            return ("No rule of this preset applies to these data: the HIPAA scan finds no "
                    "direct identifier and no attribute is identifying. Nothing to apply.")
        note = " It needs the pseudonym key (File › Choose pseudonym key…) before a run." \
            if self.outcome.plan.needs_key else ""
        return (f"{count} rule{'' if count == 1 else 's'}. Apply sets them as one step "
                f"(Edit › Undo reverts it); the report, recipe and certificate list each "
                f"with its reason.{note}")

    def _fill(self, rules: Any) -> None:
        self.rules.setRowCount(len(rules))
        for row, rule in enumerate(rules):
            cells = (rule.attribute or "(whole release)", rule.describe(), rule.reason)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{rule.category}\n\n{text}" if column else rule.category)
                self.rules.setItem(row, column, item)
        self.rules.resizeRowsToContents()

    def apply(self) -> None:
        """Set the rules (one undoable step) and close."""
        if self.outcome is None:
            return
        try:
            self.state.apply_preset(self.outcome)
        except ArxpyError as exc:
            self.status.setText(f"Not applied: {exc}")
            return
        self.accept()
