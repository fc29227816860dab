"""Configure's identifier panel (issue 32): what happens to the chosen identifying
attribute, the project's per-patient date shift, and the session's pseudonym key.

Shown in place of the hierarchy editor while an identifying attribute is chosen (an
identifier has no hierarchy). Every edit goes through the state as one undoable step;
the plan and the key's fingerprint are kept in the project, the key only in memory.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.definition import AttributeType, DataKind
from arxpy.errors import ArxpyError
from arxpy.gui.state import AppState
from arxpy.identifiers import (
    MASK,
    PSEUDONYM,
    RANDOM,
    REMOVE,
    DateShift,
    MaskRule,
    PseudonymFormat,
    Treatment,
)
from arxpy.identifiers.dates import MAX_SHIFT_DAYS
from arxpy.identifiers.plan import DEFAULT_NAMESPACE, RANDOM_NOTE
from arxpy.workflows.identifier_settings import with_date_shift, with_treatment

TREATMENTS = {REMOVE: "Remove (default)", PSEUDONYM: "Keyed pseudonym", MASK: "Mask",
              RANDOM: "Random replacement"}
FORMATS = ("hex:16", "hex:12", "hex:32", "digits", "prefix:P")
RULES = ("keep-last:4", "keep-first:2", r"regex:(\d{3})-\d{2}-(\d{4})")
_NOTES = {
    REMOVE: "The attribute is left out of the release.",
    PSEUDONYM: "Each value becomes HMAC-SHA-256(key, value) in the format: the same in "
               "every release made with the key, so records of one person link.",
    MASK: "Letters and digits outside what the rule keeps become *; layout is kept.",
    RANDOM: RANDOM_NOTE[0].upper() + RANDOM_NOTE[1:] + ".",
}
PROTECTION = "Treated identifiers protect against direct identification only."


class IdentifierPanel(QWidget):
    """Treatment of one identifying attribute, the date shift and the key."""

    choose_key_requested = Signal()
    create_key_requested = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.name: str | None = None
        self._filling = False
        self.treatment = QComboBox()
        for kind, label in TREATMENTS.items():
            self.treatment.addItem(label, kind)
        self.format = QComboBox(editable=True)
        self.format.addItems(FORMATS)
        self.namespace = QLineEdit(placeholderText=DEFAULT_NAMESPACE)
        self.namespace.setToolTip("Attributes of one namespace give one value one pseudonym "
                                  "(a patient id under two names); name another to keep "
                                  "unrelated identifiers apart")
        self.rule = QComboBox(editable=True)
        self.rule.addItems(RULES)
        self.note = QLabel(wordWrap=True)
        self.note.setStyleSheet("color: #555")
        self.shift = QCheckBox("Shift dates per patient")
        self.patient = QComboBox()
        self.days = QSpinBox(minimum=1, maximum=MAX_SHIFT_DAYS, value=30, prefix="±",
                             suffix=" days")
        self.dates = QListWidget()
        self.dates.setMaximumHeight(64)
        self.no_dates = QLabel("No date attribute yet: give one the Date data type to shift "
                               "it.", wordWrap=True)
        self.no_dates.setStyleSheet("color: #555")
        self.key_status = QLabel(wordWrap=True)
        self.choose_key = QPushButton("Choose key…")
        self.create_key = QPushButton("Create key file…")
        self.message = QLabel(wordWrap=True)
        self.message.setStyleSheet("color: #a61b1b")
        self._layout()
        self._connect()
        for signal in (state.project_changed, state.settings_changed,
                       state.definition_changed, state.key_changed):
            signal.connect(self.refresh)

    def _layout(self) -> None:
        treatment = QGroupBox("Treatment")
        self.treatment_form = form = QFormLayout(treatment)
        form.addRow("Treatment:", self.treatment)
        form.addRow("Format:", self.format)
        form.addRow("Namespace:", self.namespace)
        form.addRow("Mask rule:", self.rule)
        form.addRow(self.note)
        shift = QGroupBox("Date shifting (whole project)")
        shift_form = QFormLayout(shift)
        shift_form.addRow(self.shift)
        row = QHBoxLayout()
        row.addWidget(self.patient, 1)
        row.addWidget(self.days)
        shift_form.addRow("Patient:", row)
        shift_form.addRow("Dates:", self.dates)
        shift_form.addRow(self.no_dates)
        key = QHBoxLayout()
        key.addWidget(self.key_status, 1)
        key.addWidget(self.choose_key)
        key.addWidget(self.create_key)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(treatment, 1)
        top.addWidget(shift, 1)
        layout.addLayout(top)
        layout.addLayout(key)
        layout.addWidget(self.message)
        layout.addStretch(1)

    def _connect(self) -> None:
        self.treatment.activated.connect(lambda _i: self._treatment_edited())
        self.format.activated.connect(lambda _i: self._treatment_edited())
        self.format.lineEdit().editingFinished.connect(self._treatment_edited)
        self.namespace.editingFinished.connect(self._treatment_edited)
        self.rule.activated.connect(lambda _i: self._treatment_edited())
        self.rule.lineEdit().editingFinished.connect(self._treatment_edited)
        self.shift.toggled.connect(lambda _on: self._shift_edited())
        self.patient.activated.connect(lambda _i: self._shift_edited())
        self.days.editingFinished.connect(self._shift_edited)
        self.dates.itemChanged.connect(lambda _item: self._shift_edited())
        self.choose_key.clicked.connect(self.choose_key_requested)
        self.create_key.clicked.connect(self.create_key_requested)

    # --- showing -------------------------------------------------------------------------

    def show_attribute(self, name: str | None) -> None:
        self.name = name
        self.say("")
        self.refresh()

    def refresh(self) -> None:
        state = self.state
        if not state.has_project:
            return
        plan = state.identifier_plan
        self._filling = True
        current = next((t for t in plan.treatments if t.attribute == self.name), None)
        kind = current.kind if current is not None else REMOVE
        self.treatment.setCurrentIndex(self.treatment.findData(kind))
        if current is not None and current.format is not None:
            self.format.setCurrentText(str(current.format))
        self.namespace.setText("" if current is None or current.namespace == DEFAULT_NAMESPACE
                               else current.namespace)
        if current is not None and current.rule is not None:
            self.rule.setCurrentText(str(current.rule))
        self._show_fields(kind)
        self._fill_shift(plan.date_shift)
        self._show_key(plan.needs_key)
        self._filling = False

    def _show_fields(self, kind: str) -> None:
        for widget, kinds in ((self.format, (PSEUDONYM, RANDOM)), (self.namespace, (PSEUDONYM,)),
                              (self.rule, (MASK,))):
            self.treatment_form.setRowVisible(widget, kind in kinds)
        note = _NOTES[kind] if kind == REMOVE else f"{_NOTES[kind]} {PROTECTION}"
        self.note.setText(note)

    def _fill_shift(self, shift: DateShift | None) -> None:
        definition = self.state.definition
        self.shift.setChecked(shift is not None)
        self.patient.clear()
        self.patient.addItems(definition.names)
        patient = shift.patient if shift is not None else (
            self.name or (definition.identifying or definition.names)[0])
        self.patient.setCurrentIndex(max(self.patient.findText(patient), 0))
        if shift is not None:
            self.days.setValue(shift.days)
        self.dates.clear()
        chosen = set(shift.attributes) if shift is not None else set()
        for attribute in definition:
            if attribute.data_type.kind is DataKind.DATE \
                    and attribute.type is not AttributeType.IDENTIFYING:
                item = QListWidgetItem(attribute.name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if attribute.name in chosen
                                   else Qt.CheckState.Unchecked)
                self.dates.addItem(item)
        for widget in (self.patient, self.days, self.dates):
            widget.setEnabled(shift is not None)
        self.no_dates.setVisible(self.dates.count() == 0)

    def _show_key(self, needed: bool) -> None:
        key = self.state.pseudonym_key
        if key is not None:
            text = f"Key: fingerprint {key.fingerprint} (this session only; never saved)."
        elif needed:
            text = "<b>Key needed</b>: choose the key file of pseudonyms and date shifts."
        else:
            text = "Key: none chosen (needed by keyed pseudonyms and date shifts)."
        self.key_status.setText(text)

    def say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    # --- editing -------------------------------------------------------------------------

    def _treatment_edited(self) -> None:
        if self._filling or self.name is None:
            return
        name = self.name
        try:
            treatment = self._treatment(name)
            plan = with_treatment(self.state.identifier_plan, name, treatment)
            if plan != self.state.identifier_plan:
                self.state.set_identifier_plan(plan, f"Change the treatment of '{name}'")
        except ArxpyError as exc:
            self.say(f"Could not change '{name}': {exc}")
            self.refresh()
        else:
            self.say("")

    def _treatment(self, name: str) -> Treatment:
        kind = self.treatment.currentData()
        if kind == PSEUDONYM:
            return Treatment(name, kind, PseudonymFormat.parse(self.format.currentText().strip()),
                             namespace=self.namespace.text().strip() or DEFAULT_NAMESPACE)
        if kind == RANDOM:
            return Treatment(name, kind, PseudonymFormat.parse(self.format.currentText().strip()))
        if kind == MASK:
            return Treatment(name, kind, rule=MaskRule.parse(self.rule.currentText().strip()))
        return Treatment(name, REMOVE)

    def _shift_edited(self) -> None:
        if self._filling:
            return
        dates = tuple(self.dates.item(i).text() for i in range(self.dates.count())
                      if self.dates.item(i).checkState() == Qt.CheckState.Checked)
        for widget in (self.patient, self.days, self.dates):
            widget.setEnabled(self.shift.isChecked())
        try:
            if self.shift.isChecked() and not dates:
                self.say("Tick the date attributes to shift.")
                return
            shift = DateShift(dates, self.patient.currentText(), self.days.value()) \
                if self.shift.isChecked() else None
            plan = with_date_shift(self.state.identifier_plan, shift)
            if plan != self.state.identifier_plan:
                self.state.set_identifier_plan(plan, "Change the date shift")
        except ArxpyError as exc:
            self.say(f"Could not change the date shift: {exc}")
            self.refresh()
        else:
            self.say("")
