"""The attribute panel: type, data type and format, level range and weight of one attribute,
and whether a quasi-identifier is generalized or microaggregated (ARX's "Transformation")."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.definition import (
    DEFAULT_WEIGHT,
    AttributeDefinition,
    AttributeType,
    DataKind,
    DataType,
)
from arxpy.data.types import DATE_FORMATS, DECIMAL_COMMA, infer_data_type, validate_values
from arxpy.engine.microaggregation import (
    FUNCTIONS,
    MicroAggregation,
    microaggregation_from_dict,
    with_microaggregation,
)
from arxpy.errors import ArxpyError
from arxpy.gui.message_lines import ReservedLines
from arxpy.gui.state import AppState
from arxpy.gui.table_model import ATTRIBUTE_COLORS
from arxpy.hierarchy.builders import natural_key

#: Shown for a level bound of None: the search may use every level.
NO_BOUND = "All"
DECIMAL_FORMATS = {"point (1.5)": "", "comma (1,5)": DECIMAL_COMMA}
#: Delimiters of the codes in a cell of a set attribute (never '.', which ICD-9 uses).
CODE_DELIMITERS = {"codes separated by ;": ";", "codes separated by |": "|",
                   "codes separated by spaces": " ", "codes separated by ,": ","}
#: ARX's transformations of a quasi-identifier: None generalizes it with its hierarchy;
#: otherwise microaggregation, with clustering (True) or without (False).
TRANSFORMATIONS = {"Generalization": None, "Microaggregation": False,
                   "Clustering and microaggregation": True}


def type_icon(attribute_type: AttributeType) -> QIcon:
    """A small square in the attribute type's color (the data table's legend)."""
    pixmap = QPixmap(12, 12)
    pixmap.fill(QColor(ATTRIBUTE_COLORS[attribute_type]).darker(115))
    return QIcon(pixmap)


class AttributePanel(QWidget):
    """Edits the definition of the attribute chosen in its combo box (undoable edits)."""

    attribute_selected = Signal(str)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._filling = False
        self._invalid: dict[tuple[str, DataType], list[tuple[int, str]]] = {}
        #: Why the level range and weight are off ("" while the lattice search is chosen).
        self.lattice_off_reason = ""
        self.attribute = QComboBox()
        self.type = QComboBox()
        for attribute_type in AttributeType:
            self.type.addItem(type_icon(attribute_type), attribute_type.label, attribute_type.value)
        self.kind = QComboBox()
        for kind in DataKind:
            self.kind.addItem(kind.value.capitalize(), kind.value)
        self.format = QComboBox(editable=True)
        self.format.setMinimumContentsLength(12)
        self.order_button = QPushButton("Order…")
        self.order_button.setToolTip("Rank the values of an ordinal attribute")
        self.min_level, self.max_level = QComboBox(), QComboBox()
        self.weight = QDoubleSpinBox(decimals=2, minimum=0.01, maximum=100.0, singleStep=0.1,
                                     value=DEFAULT_WEIGHT)
        self.transformation = QComboBox()
        for label, clustering in TRANSFORMATIONS.items():
            self.transformation.addItem(label, clustering)
        self.transformation.setToolTip(
            "Generalization releases a level of the hierarchy; microaggregation one aggregate "
            "per equivalence class, the classes formed by the other quasi-identifiers (with "
            "clustering, by this attribute's hierarchy too)")
        self.function = QComboBox()
        for key, label in FUNCTIONS.items():
            self.function.addItem(label, key)
        self.function.setToolTip("The aggregate released for each class (microaggregation)")
        for combo in (self.transformation, self.function):  # long labels must not widen it
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)
        self.weight.setToolTip(
            f"Weight of the attribute in weighted quality models (Loss, ...); {DEFAULT_WEIGHT} "
            "unless set, as in ARX. Only ratios matter: weights are divided by the largest.")
        # Two lines reserved: a warning appearing must not push the hierarchy editor down.
        self.message = ReservedLines(2)
        self.message.setStyleSheet("color: #a61b1b")
        self.message.hide()
        # The policy preset's rule for this attribute, in words; its reason as tooltip.
        self.preset_rule = QLabel()
        self.preset_rule.setWordWrap(True)
        self.preset_rule.setTextFormat(Qt.TextFormat.PlainText)
        self.preset_rule.setStyleSheet("color: #1b4f8a")
        self.preset_rule.hide()
        self._layout()
        self._connect()
        state.project_changed.connect(self._fill_attributes)
        state.definition_changed.connect(self.refresh)
        state.hierarchy_changed.connect(lambda _name: self.refresh())
        state.settings_changed.connect(self._show_preset_rule)
        state.settings_changed.connect(self.refresh)
        self._fill_attributes()

    def _layout(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        # No row of its own for the order button or the function: the panel's height is
        # what lets the window fit 1280x720 (tests/test_gui_fit.py).
        rows = (
            ("Attribute:", self.attribute, "Type:", self.type),
            ("Data type:", self.kind, "Format:", _beside(self.format, self.order_button)),
            ("Minimum level:", self.min_level, "Maximum level:", self.max_level),
            ("Weight:", self.weight, "Transformation:",
             _beside(self.transformation, self.function, (6, 5))),
        )
        for row, (label_a, widget_a, label_b, widget_b) in enumerate(rows):
            grid.addWidget(QLabel(label_a), row, 0)
            grid.addWidget(widget_a, row, 1)
            grid.addWidget(QLabel(label_b), row, 2)
            grid.addWidget(widget_b, row, 3)
        grid.addWidget(self.message, len(rows), 0, 1, 4)
        grid.addWidget(self.preset_rule, len(rows) + 1, 0, 1, 4)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(3, 3)  # the transformation and its function share a cell

    def _connect(self) -> None:
        self.attribute.currentIndexChanged.connect(self._attribute_chosen)
        self.type.activated.connect(
            lambda _i: self._edit(type=AttributeType(self.type.currentData())))
        self.kind.activated.connect(
            lambda _i: self._change_kind(DataKind(self.kind.currentData())))
        self.format.activated.connect(lambda _i: self._change_format())
        self.order_button.clicked.connect(self._edit_order)
        for combo, key in ((self.min_level, "min_level"), (self.max_level, "max_level")):
            combo.activated.connect(
                lambda _i, c=combo, k=key: self._edit(**{k: c.currentData()}))
        self.weight.editingFinished.connect(self._change_weight)
        self.transformation.activated.connect(lambda _i: self._change_microaggregation())
        self.function.activated.connect(lambda _i: self._change_microaggregation())

    # --- filling -------------------------------------------------------------------------

    @property
    def name(self) -> str | None:
        return self.attribute.currentText() or None

    def select(self, name: str) -> None:
        """Show attribute ``name``."""
        self.attribute.setCurrentIndex(self.attribute.findText(name))

    def _fill_attributes(self) -> None:
        self._invalid.clear()
        self._filling = True
        self.attribute.clear()
        if self.state.has_project:
            for attribute in self.state.definition:
                self.attribute.addItem(type_icon(attribute.type), attribute.name)
        self._filling = False
        self.setEnabled(self.state.has_project)
        self._attribute_chosen()

    def _attribute_chosen(self) -> None:
        if self._filling:
            return
        self.say("")
        self.refresh()
        if self.name:
            self.attribute_selected.emit(self.name)

    def refresh(self) -> None:
        """Show the current definition of the chosen attribute."""
        if not self.state.has_project or self.name is None:
            return
        attribute = self.state.definition[self.name]
        self._filling = True
        for i in range(self.attribute.count()):
            self.attribute.setItemIcon(i, type_icon(self.state.definition[
                self.attribute.itemText(i)].type))
        self.type.setCurrentIndex(self.type.findData(attribute.type.value))
        self.kind.setCurrentIndex(self.kind.findData(attribute.data_type.kind.value))
        self._fill_format(attribute.data_type)
        self._fill_levels(attribute)
        self.weight.setValue(attribute.weight)
        self._fill_microaggregation(attribute)
        self._filling = False
        self._show_invalid_values(attribute)
        self._show_preset_rule()

    def _show_preset_rule(self) -> None:
        """The applied policy preset's rule for the chosen attribute, where it applies."""
        record = self.state.preset_record if self.state.has_project else None
        rules = [r for r in (record or {}).get("rules", ()) if r.get("attribute") == self.name]
        self.preset_rule.setVisible(bool(rules))
        if rules:
            self.preset_rule.setText(f"{record['label']}: "
                                     + "; ".join(r["rule"] for r in rules) + ".")
            self.preset_rule.setToolTip("\n\n".join(f"{r['category']}\n{r['reason']}"
                                                     for r in rules))

    def _fill_format(self, data_type: DataType) -> None:
        self.format.clear()
        kind = data_type.kind
        if kind is DataKind.DATE:
            self.format.addItems(list(dict.fromkeys([data_type.format or "", *DATE_FORMATS])))
            self.format.setCurrentText(data_type.format or "")
        elif kind is DataKind.DECIMAL:
            for label, value in DECIMAL_FORMATS.items():
                self.format.addItem(label, value)
            self.format.setCurrentIndex(max(self.format.findData(data_type.format or ""), 0))
        elif kind is DataKind.SET:
            for label, value in CODE_DELIMITERS.items():
                self.format.addItem(label, value)
            self.format.setCurrentIndex(max(self.format.findData(data_type.code_delimiter), 0))
        self.format.setEnabled(kind in (DataKind.DATE, DataKind.DECIMAL, DataKind.SET))
        self.format.setEditable(kind is DataKind.DATE)
        self.order_button.setVisible(kind is DataKind.ORDINAL)

    def _fill_levels(self, attribute: AttributeDefinition) -> None:
        hierarchy = self.state.hierarchies.get(attribute.name)
        height = hierarchy.height if hierarchy is not None else 0
        for combo, bound in ((self.min_level, attribute.min_level),
                             (self.max_level, attribute.max_level)):
            combo.clear()
            combo.addItem(NO_BOUND, None)
            for level in range(max(height, (bound or 0) + 1) if bound is not None else height):
                combo.addItem(f"Level {level}", level)
            combo.setCurrentIndex(max(combo.findData(bound), 0))
        is_qi = attribute.type is AttributeType.QUASI_IDENTIFYING
        for widget in (self.min_level, self.max_level, self.weight):
            widget.setEnabled(is_qi and not self.lattice_off_reason)
            widget.setToolTip(self.lattice_off_reason)

    def _microaggregation(self) -> dict[str, MicroAggregation]:
        try:
            return microaggregation_from_dict(self.state.settings.get("microaggregation") or {})
        except ArxpyError:  # a hand-edited project: the run says what is wrong
            return {}

    def _fill_microaggregation(self, attribute: AttributeDefinition) -> None:
        m = self._microaggregation().get(attribute.name)
        self.transformation.setCurrentIndex(self.transformation.findData(
            None if m is None else m.clustering))
        self.function.setCurrentIndex(max(self.function.findData(
            "mean" if m is None else m.function), 0))
        usable = attribute.type is AttributeType.QUASI_IDENTIFYING and not self.lattice_off_reason
        self.transformation.setEnabled(usable)
        self.function.setEnabled(usable and m is not None)
        if usable and m is not None and not m.clustering:  # outside the lattice: no levels
            for combo in (self.min_level, self.max_level):
                combo.setEnabled(False)
                combo.setToolTip("Microaggregated without clustering: the search does not "
                                 "generalize it")

    def _change_microaggregation(self) -> None:
        if self._filling or self.name is None:
            return
        clustering = self.transformation.currentData()
        function = self.function.currentData()
        if not self.function.isEnabled():  # newly aggregated: a function its values allow
            numeric = self.state.definition[self.name].data_type.is_numeric
            function = "mean" if numeric else "mode"
        m = None if clustering is None else MicroAggregation(function,
                                                             clustering=bool(clustering))
        text = f"Generalize '{self.name}'" if m is None else \
            f"Microaggregate '{self.name}' ({m.describe().lower()})"
        self.state.set_settings(with_microaggregation(self.state.settings, self.name, m), text)
        self.refresh()

    def set_lattice_off(self, reason: str) -> None:
        """Disable the lattice search's level range and weight, saying ``reason`` in
        their tooltips ("" enables them again)."""
        self.lattice_off_reason = reason
        self.refresh()

    def _show_invalid_values(self, attribute: AttributeDefinition) -> None:
        # Parsing a column costs about a second per million distinct values and the data
        # never change within a project: check each (attribute, data type) once.
        key = (attribute.name, attribute.data_type)
        if key not in self._invalid:
            self._invalid[key] = validate_values(self.state.data[attribute.name],
                                                 attribute.data_type, limit=3)
        bad = self._invalid[key]
        if bad:
            values = ", ".join(repr(v) for _, v in bad)
            self.say(f"Some values of '{attribute.name}' are not "
                     f"{attribute.data_type.describe()} (for example {values}); they will be "
                     "treated as text.")
        elif not self.message.text().startswith("Could not"):
            self.say("")

    def say(self, text: str) -> None:
        """Show a warning under the fields (hidden when empty)."""
        self.message.setText(text)
        self.message.setVisible(bool(text))

    # --- editing -------------------------------------------------------------------------

    def _edit(self, **changes: object) -> None:
        if self._filling or self.name is None:
            return
        try:
            self.state.set_attribute(self.name, **changes)
        except ArxpyError as exc:
            self.say(f"Could not change '{self.name}': {exc}")
            self.refresh()
        else:
            self.say("")
            self.refresh()

    def _change_kind(self, kind: DataKind) -> None:
        if self.name is None:
            return
        current = self.state.definition[self.name].data_type
        values = self.state.data[self.name]
        if kind is DataKind.DATE:
            guess = infer_data_type(values)
            fmt = guess.format if guess.kind is DataKind.DATE else DATE_FORMATS[0]
            self._edit(data_type=DataType(kind, fmt))
        elif kind is DataKind.ORDINAL:
            order = current.order or tuple(sorted(values.unique(), key=natural_key))
            self._edit(data_type=DataType(kind, order=order))
        else:
            self._edit(data_type=DataType(kind))

    def _change_format(self) -> None:
        if self._filling or self.name is None:
            return
        kind = DataKind(self.kind.currentData())
        if kind is DataKind.DATE and self.format.currentText().strip():
            self._edit(data_type=DataType(kind, self.format.currentText().strip()))
        elif kind in (DataKind.DECIMAL, DataKind.SET):
            self._edit(data_type=DataType(kind, self.format.currentData() or None))

    def _change_weight(self) -> None:
        if self.name is not None and self.weight.value() != self.state.definition[self.name].weight:
            self._edit(weight=float(self.weight.value()))

    def _edit_order(self) -> None:
        if self.name is None:
            return
        current = self.state.definition[self.name].data_type
        dialog = OrderDialog(self.name, list(current.order or ()), self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self._edit(data_type=DataType(DataKind.ORDINAL, order=tuple(dialog.order())))


def _beside(first: QWidget, second: QWidget, stretches: tuple[int, int] = (1, 1)) -> QWidget:
    """Two widgets side by side in one cell of the panel's grid."""
    cell = QWidget()
    row = QHBoxLayout(cell)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(first, stretches[0])
    row.addWidget(second, stretches[1])
    return cell


class OrderDialog(QDialog):
    """Drag the values of an ordinal attribute into rank order (lowest first)."""

    def __init__(self, name: str, order: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Order of '{name}'")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Drag the values into order, lowest first:"))
        self.values = QListWidget()
        self.values.addItems(order)
        self.values.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        layout.addWidget(self.values)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def order(self) -> list[str]:
        return [self.values.item(i).text() for i in range(self.values.count())]
