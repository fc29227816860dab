"""The Configure perspective, laid out like ARX's: input data left, configuration right.

Left, below the data, the linked tables while the project holds event tables.
Right: the selected attribute (type, data type, level range, weight) with its
hierarchy, the privacy models, and the general and quality settings. Clicking a
column of the input table selects that attribute.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.definition import AttributeType
from arxpy.gui.attribute_panel import AttributePanel
from arxpy.gui.hierarchy_editor import HierarchyEditor
from arxpy.gui.identifier_panel import IdentifierPanel
from arxpy.gui.linked_panel import LinkedTablesPanel
from arxpy.gui.methods.method_panel import MethodPanel
from arxpy.gui.privacy_panel import PrivacyModelsPanel
from arxpy.gui.settings_panel import SettingsPanel
from arxpy.gui.state import AppState
from arxpy.gui.table_model import ATTRIBUTE_COLORS, DataFrameModel
from arxpy.workflows.method_choice import LATTICE


def _box(title: str, *widgets: QWidget) -> QFrame:
    frame = QFrame()
    frame.setFrameShape(QFrame.Shape.StyledPanel)
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(8, 6, 8, 8)
    if title:
        layout.addWidget(QLabel(f"<b>{title}</b>"))
    for widget in widgets:
        layout.addWidget(widget)
    return frame


def legend() -> QWidget:
    """The attribute-type colors as a one-line legend."""
    widget = QWidget()
    layout = QHBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    for attribute_type in AttributeType:
        swatch = QLabel(f" {attribute_type.label} ")
        swatch.setStyleSheet(f"background: {ATTRIBUTE_COLORS[attribute_type]};"
                             "border: 1px solid #bbb; border-radius: 3px; padding: 1px 4px")
        layout.addWidget(swatch)
    layout.addStretch(1)
    return widget


class ConfigurePerspective(QSplitter):
    """Input data and the whole anonymization configuration."""

    anonymize_requested = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.state = state
        self.table = QTableView()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setDefaultSectionSize(110)
        # Single cells only: selecting a whole column of a million rows walks every row
        # in Python (the model is Python), which stalls for seconds.
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectItems)
        self.table.horizontalHeader().sectionClicked.connect(self._column_clicked)
        self.table.horizontalHeader().setHighlightSections(True)
        self.summary = QLabel()
        self.attribute_panel = AttributePanel(state)
        self.hierarchy_editor = HierarchyEditor(state)
        self.identifier_panel = IdentifierPanel(state)
        # An identifier has no hierarchy: its treatment shows in the editor's place.
        self.attribute_editor = QStackedWidget()
        self.attribute_editor.addWidget(self.hierarchy_editor)
        # Scrolled: the panel must not raise the window's minimum height (1280x720).
        treatment = QScrollArea(widgetResizable=True, frameShape=QFrame.Shape.NoFrame)
        treatment.setWidget(self.identifier_panel)
        self.attribute_editor.addWidget(treatment)
        self.linked_panel = LinkedTablesPanel(state)
        self.privacy_panel = PrivacyModelsPanel(state)
        self.settings_panel = SettingsPanel(state)
        self.anonymize_button = QPushButton("Anonymize")
        self.anonymize_button.setMinimumHeight(32)
        self.anonymize_button.setStyleSheet("font-weight: bold")
        self.anonymize_button.setToolTip("Search for the best transformation meeting the "
                                         "privacy models (Ctrl+R)")
        self.anonymize_button.clicked.connect(self.anonymize_requested)
        self.method_panel: MethodPanel
        self._layout()
        self.attribute_panel.attribute_selected.connect(self.hierarchy_editor.show_attribute)
        self.attribute_panel.attribute_selected.connect(self._show_column)
        self.attribute_panel.attribute_selected.connect(self._show_editor)
        state.project_changed.connect(self._project_changed)
        state.definition_changed.connect(self._definition_changed)
        self._project_changed()

    def _layout(self) -> None:
        header = QHBoxLayout()
        header.addWidget(QLabel("<b>Input data</b>"))
        header.addWidget(self.summary, 1)
        data = QWidget()
        left_layout = QVBoxLayout(data)
        left_layout.setContentsMargins(0, 0, 4, 0)
        left_layout.addLayout(header)
        left_layout.addWidget(self.table)
        left_layout.addWidget(legend())
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(data)
        left.addWidget(self.linked_panel)  # hidden without event tables
        left.setChildrenCollapsible(False)
        left.setSizes([420, 280])
        attribute = _box("", self.attribute_panel, self.attribute_editor)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(_box("", self.privacy_panel))
        bottom.addWidget(self.settings_panel)
        bottom.setChildrenCollapsible(False)
        bottom.setSizes([280, 380])  # the settings' tabs need their width more
        # The method chosen above decides what shows: the lattice panels or its form.
        self.method_panel = MethodPanel(self.state, bottom)
        self.method_panel.method_changed.connect(self._method_changed)
        run = QWidget()
        run_layout = QVBoxLayout(run)
        run_layout.setContentsMargins(0, 0, 0, 0)
        run_layout.addWidget(self.method_panel, 1)
        run_layout.addLayout(self.method_panel.selector_row(self.anonymize_button))
        right = self.editors = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(attribute)
        right.addWidget(run)
        right.setChildrenCollapsible(False)
        right.setSizes([470, 230])
        self.addWidget(left)
        self.addWidget(right)
        self.setSizes([620, 660])
        # A wider window widens the table; the editors keep their size.
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 0)
        self.setChildrenCollapsible(False)

    def _method_changed(self, name: str) -> None:
        lattice = name == LATTICE
        label = self.method_panel.method_label().replace("&", "&&")  # no mnemonic
        self.anonymize_button.setText("Anonymize" if lattice else f"Run {label}")
        # The method's form needs room the hierarchy editor can spare for it.
        self.editors.setSizes([470, 230] if lattice else [330, 370])
        self.attribute_panel.set_lattice_off(
            "" if lattice else "Level range and weight belong to the lattice search; "
            f"{self.method_panel.method_label()} does not use them.")
        self.anonymize_button.setToolTip(
            "Search for the best transformation meeting the privacy models (Ctrl+R)"
            if lattice else "Run the chosen method in the background (Ctrl+R)")

    def set_editable(self, editable: bool) -> None:
        """Lock the configuration while a run uses it (the data table stays usable)."""
        self.editors.setEnabled(editable)

    def _project_changed(self) -> None:
        old = self.table.model()
        if not self.state.has_project:
            self.table.setModel(None)
            self.hierarchy_editor.show_attribute(None)
        else:
            model = DataFrameModel(self.state.data, self.state.definition, self.table)
            self.table.setModel(model)
            model.show_code_chips(self.table)
            self._fit_columns()
        if old is not None:
            old.deleteLater()
        if not self.state.has_project:
            return
        records, columns = self.state.data.shape
        self.summary.setText(f"{records:,} records, {columns} attributes")
        qis = self.state.definition.quasi_identifiers
        first = qis[0] if qis else self.state.definition.names[0]
        self.attribute_panel.select(first)
        self.hierarchy_editor.show_attribute(first)
        self._show_editor(first)

    def _show_editor(self, name: str | None = None) -> None:
        """The hierarchy editor, or for an identifying attribute its treatment."""
        name = name or self.attribute_panel.name
        identifying = bool(name) and self.state.has_project and \
            self.state.definition[name].type is AttributeType.IDENTIFYING
        self.identifier_panel.show_attribute(name if identifying else None)
        self.attribute_editor.setCurrentIndex(1 if identifying else 0)

    def _definition_changed(self) -> None:
        self._show_editor()
        model = self.table.model()
        if isinstance(model, DataFrameModel):
            model.set_definition(self.state.definition)
            model.show_code_chips(self.table)

    def _column_clicked(self, column: int) -> None:
        self.select_attribute(self.state.definition.names[column])

    def select_attribute(self, name: str) -> None:
        """Show ``name`` in the attribute panel, hierarchy editor and input table."""
        self.attribute_panel.select(name)
        self._show_column(name)

    def _show_column(self, name: str | None) -> None:
        """Select the attribute's column in the table and scroll it into view."""
        model = self.table.model()
        if name is None or model is None or model.rowCount() == 0 \
                or name not in self.state.definition.names:
            return
        column = self.state.definition.names.index(name)
        row = max(self.table.rowAt(0), 0)  # stay at the rows the user is looking at
        index = model.index(row, column)
        if self.table.currentIndex() != index:
            self.table.setCurrentIndex(index)
        self.table.scrollTo(index)

    def _fit_columns(self) -> None:
        # As wide as the header and the first rows need (short codes need far less than
        # a fixed width), so more attributes fit; measuring every row would stall.
        header = self.table.horizontalHeader()
        header.setResizeContentsPrecision(50)
        self.table.resizeColumnsToContents()
        for column in range(header.count()):
            header.resizeSection(column, min(max(header.sectionSize(column), 48), 180))
