"""One dialog per privacy model type: its parameters, checked against the data as typed.

The form comes from the model class's declaration (``label``, ``summary``, ``params``);
the dialog builds the model with :func:`privacy_model_from_dict` (so the model's own
checks apply) and adds the checks that need the data (k at most the number of records,
l at most the distinct values of the sensitive attribute, one model per kind and
attribute). A problem is shown under the form and OK stays disabled until it is fixed.
"""

from __future__ import annotations

import json
import math
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.definition import AttributeType
from arxpy.errors import ArxpyError
from arxpy.formatting import plural
from arxpy.gui.help import help_button
from arxpy.gui.param_form import ParamForm
from arxpy.gui.plain_text import plain_label
from arxpy.gui.state import AppState
from arxpy.help import model_topic
from arxpy.privacy import PrivacyModel, privacy_model_classes, privacy_model_from_dict


def model_class(kind: str) -> type[PrivacyModel] | None:
    return privacy_model_classes().get(kind)


def model_label(kind: str) -> str:
    cls = model_class(kind)
    return cls.label if cls is not None else kind


def describe_model(spec: dict[str, Any]) -> str:
    """One line for a model dict (``"5-anonymity"``), or the dict if it is invalid."""
    try:
        return privacy_model_from_dict(spec).describe()
    except ArxpyError:
        if not isinstance(spec, dict):
            return str(spec)
        return ", ".join(f"{k}={v}" for k, v in spec.items())


class PrivacyModelDialog(QDialog):
    """Parameters of one privacy model; ``model_dict()`` after accept.

    ``index`` is the position of the model being edited in the settings (None: a new
    one), so that it does not count as its own duplicate.
    """

    def __init__(self, state: AppState, kind: str, current: dict[str, Any] | None = None,
                 index: int | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state, self.kind, self.index = state, kind, index
        cls = model_class(kind)
        if cls is None:
            raise ValueError(f"Unknown privacy model kind {kind!r}")
        self.setWindowTitle(f"{'Edit' if current else 'Add'} {cls.label}")
        self.setMinimumWidth(440)
        self.form = ParamForm(cls.params, current,
                              attributes=state.of_type(AttributeType.SENSITIVE),
                              definition=state.definition if state.has_project else None)
        self.form.changed.connect(self.validate)
        self.widgets = self.form.widgets
        self.message = plain_label(QLabel(wordWrap=True))
        self.message.setStyleSheet("color: #a61b1b")
        self.message.setMinimumHeight(36)  # room for the message without the dialog jumping
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        title = QHBoxLayout()
        title.addWidget(QLabel(f"<b>{cls.label}</b>"), 1)
        title.addWidget(help_button(lambda: model_topic(cls, "privacy"),
                                    "What this model promises and what its settings do"))
        layout.addLayout(title)
        help_text = QLabel(cls.description, wordWrap=True)
        help_text.setStyleSheet("color: #555")
        layout.addWidget(help_text)
        layout.addWidget(self.form)
        if "subset_filter" in self.widgets:
            layout.addLayout(self._subset_row())
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.validate()

    def _subset_row(self) -> QHBoxLayout:
        """A button opening the research subset's filter builder (δ-presence)."""
        row = QHBoxLayout()
        self.subset_button = QPushButton("Choose the research subset…")
        self.subset_button.setToolTip("Build the research subset from conditions over the "
                                      "population table's columns, with the count of "
                                      "matching records")
        self.subset_button.clicked.connect(self.choose_subset)
        row.addStretch(1)
        row.addWidget(self.subset_button)
        return row

    def subset_dialog(self):
        """The filter builder over the population table the form names (None: the
        reason is shown under the form)."""
        from arxpy.gui.subset_filter import SubsetFilterDialog, read_population

        try:
            population = read_population(str(self.form.values().get("population") or ""))
            current = self.form.values().get("subset_filter")
        except ArxpyError as exc:
            self.message.setText(str(exc))
            return None
        return SubsetFilterDialog(population, current if isinstance(current, list) else None,
                                  self)

    def choose_subset(self) -> None:
        dialog = self.subset_dialog()
        if dialog is not None and dialog.exec() == QDialog.DialogCode.Accepted:
            self.widgets["subset_filter"].setText(json.dumps(dialog.conditions()))

    def model_dict(self) -> dict[str, Any]:
        """The model as stored in the settings (``{"kind": ..., parameters}``)."""
        return {"kind": self.kind, **self.form.values()}

    def problem(self) -> str | None:
        """Why these parameters cannot work for this data, or None."""
        spec = self.model_dict()
        if "attribute" in spec and not spec["attribute"]:
            if self.state.of_type(AttributeType.SENSITIVE):
                return "Choose the sensitive attribute to protect."
            return ("No attribute is sensitive. Mark the attribute to protect as sensitive in "
                    "the attribute panel, then add this model.")
        problems = self.form.problems()
        if problems:
            return " ".join(problems.values())
        try:
            model = privacy_model_from_dict(spec)
        except ArxpyError as exc:
            return str(exc)
        return self._data_problem(spec, model) or self._duplicate_problem(spec)

    def _data_problem(self, spec: dict[str, Any], model: PrivacyModel) -> str | None:
        records = len(self.state.data)
        if "k" in spec and spec["k"] > records:
            return f"k = {spec['k']} exceeds the number of records ({records}); choose at most " \
                   f"{records}."
        if "l" in spec:
            distinct = int(self.state.data[spec["attribute"]].nunique())
            needed = math.ceil(spec["l"])
            if needed > distinct:
                return (f"l = {spec['l']:g} is impossible: '{spec['attribute']}' has only "
                        f"{plural(distinct, 'distinct value')}, so no class can hold {needed}; "
                        f"choose l of at most {distinct}.")
        size = model.guaranteed_class_size
        if size is not None and size > records:
            return (f"{model.describe()} needs classes of {size} records, but the data has "
                    f"only {records}.")
        return None

    def _duplicate_problem(self, spec: dict[str, Any]) -> str | None:
        for i, other in enumerate(self.state.settings.get("privacy_models", [])):
            if i != self.index and isinstance(other, dict) and other.get("kind") == self.kind and \
                    other.get("attribute") == spec.get("attribute"):
                target = f" for '{spec['attribute']}'" if "attribute" in spec else ""
                return f"{model_label(self.kind)}{target} is already configured; edit that one."
        return None

    def validate(self) -> None:
        problem = self.problem()
        self.message.setText(problem or "")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(problem is None)
