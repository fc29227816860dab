"""The privacy models panel: the configured models with add, edit and remove."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.gui.plain_text import tooltip
from arxpy.gui.privacy_dialog import PrivacyModelDialog, describe_model, model_label
from arxpy.gui.state import AppState
from arxpy.privacy import privacy_model_classes


class PrivacyModelsPanel(QWidget):
    """Lists ``settings["privacy_models"]``; every change is one undoable settings edit."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Type", "Model", "Attribute"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setDefaultSectionSize(22)
        # Long model names wrap onto a second line instead of being cut off.
        self.table.setWordWrap(True)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 110)
        self.table.itemDoubleClicked.connect(lambda _item: self.edit_selected())
        self.add_menu = QMenu(self)
        for kind, cls in privacy_model_classes().items():
            action = self.add_menu.addAction(cls.label, lambda k=kind: self.add(k))
            action.setToolTip(cls.description)
        self.add_menu.setToolTipsVisible(True)
        self.add_button = QToolButton(text="Add ▾", toolTip="Add a privacy model",
                                      autoRaise=True)
        self.add_button.setMenu(self.add_menu)
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.edit_button = QToolButton(text="Edit…", autoRaise=True)
        self.edit_button.clicked.connect(self.edit_selected)
        self.remove_button = QToolButton(text="Remove", autoRaise=True)
        self.remove_button.clicked.connect(self.remove_selected)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("<b>Privacy models</b>"), 1)
        for button in (self.add_button, self.edit_button, self.remove_button):
            bar.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.table)
        state.settings_changed.connect(self.refresh)
        state.project_changed.connect(self.refresh)
        state.definition_changed.connect(self.refresh)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.refresh()

    def models(self) -> list[dict[str, Any]]:
        return list(self.state.settings.get("privacy_models", [])) if self.state.has_project \
            else []

    def refresh(self) -> None:
        models = self.models()
        self.table.setRowCount(len(models))
        sensitive = set(self.state.definition.sensitive) if self.state.has_project else set()
        for row, spec in enumerate(models):
            cells = (model_label(spec.get("kind", "?")), describe_model(spec),
                     spec.get("attribute", ""))
            attribute = spec.get("attribute")
            # A model whose attribute is no longer sensitive cannot run; say so where it shows.
            problem = f"'{attribute}' is not sensitive; mark it sensitive or remove this " \
                "model." if attribute and attribute not in sensitive else ""
            for column, text in enumerate(cells):
                item = QTableWidgetItem(str(text))
                if problem:
                    item.setForeground(QColor("#a61b1b"))
                    item.setToolTip(tooltip(problem))
                self.table.setItem(row, column, item)
        self.setEnabled(self.state.has_project)
        self._update_buttons()

    def _update_buttons(self) -> None:
        chosen = self.table.currentRow() >= 0 and bool(self.table.selectedItems())
        self.edit_button.setEnabled(chosen)
        self.remove_button.setEnabled(chosen)

    def dialog(self, kind: str, index: int | None = None) -> PrivacyModelDialog:
        """The dialog for a new model of ``kind`` or for the model at ``index``."""
        current = self.models()[index] if index is not None else None
        return PrivacyModelDialog(self.state, kind, current, index, self)

    def add(self, kind: str) -> None:
        dialog = self.dialog(kind)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.state.update_settings(f"Add {model_label(kind)}",
                                       privacy_models=[*self.models(), dialog.model_dict()])

    def edit_selected(self) -> None:
        row = self.table.currentRow()
        models = self.models()
        if not 0 <= row < len(models) or models[row].get("kind") not in privacy_model_classes():
            return
        dialog = self.dialog(models[row]["kind"], row)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            models[row] = dialog.model_dict()
            self.state.update_settings(f"Edit {model_label(models[row]['kind'])}",
                                       privacy_models=models)

    def remove_selected(self) -> None:
        row = self.table.currentRow()
        models = self.models()
        if 0 <= row < len(models):
            removed = models.pop(row)
            self.state.update_settings(f"Remove {model_label(removed.get('kind', '?'))}",
                                       privacy_models=models)
