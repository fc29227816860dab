"""The form that says what to predict from what: class attribute (optionally binned),
features, classifier with its main parameters, folds and seed."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.classification import MAX_CLASS_VALUES, ClassificationConfig
from arxpy.analysis.classifiers import LABELS, PARAMETERS, ClassifierSpec
from arxpy.data.definition import AttributeType, DataDefinition, DataKind
from arxpy.data.roles import CLASS_NAMES, fitting_attributes, guess_attribute
from arxpy.errors import ConfigurationError

#: Choices of the string parameters (scikit-learn's names).
CHOICES = {"solver": ("newton-cg", "lbfgs", "liblinear", "sag", "saga"),
           "criterion": ("gini", "entropy", "log_loss")}
PARAMETER_LABELS = {"C": "Inverse regularization C", "max_iter": "Maximum iterations",
                    "tol": "Tolerance", "solver": "Solver", "max_depth": "Maximum depth",
                    "min_samples_leaf": "Minimum records per leaf", "criterion": "Split criterion",
                    "n_estimators": "Trees", "alpha": "Smoothing alpha"}


#: What the class attribute shows until one is chosen.
CHOOSE_CLASS = "Choose the class attribute…"
#: Data types a class can have: categories, or numbers (binned when there are many).
CLASS_KINDS = tuple(kind.value for kind in (DataKind.STRING, DataKind.ORDINAL,
                                            DataKind.INTEGER, DataKind.DECIMAL))


def suggested_bins(values: pd.Series) -> str:
    """Tertiles of a numeric column rounded to two significant digits, as 'a, b' ('' if
    it has few distinct values or no numbers): a starting point the user edits."""
    numbers = pd.to_numeric(values, errors="coerce").dropna().to_numpy()
    if numbers.size == 0 or np.unique(numbers).size <= 10:
        return ""
    edges = []
    for q in np.percentile(numbers, [100 / 3, 200 / 3]):
        digits = 1 - int(math.floor(math.log10(abs(q)))) if q else 0
        edges.append(round(float(q), digits))
    edges = sorted(set(edges))
    return ", ".join(f"{e:g}" for e in edges)


def _parameter_widget(name: str, default: Any) -> QWidget:
    if name in CHOICES:
        widget = QComboBox()
        widget.addItems(CHOICES[name])
        widget.setCurrentText(str(default))
        return widget
    if default is None or isinstance(default, int):  # None: an optional integer (depth)
        widget = QSpinBox()
        widget.setRange(0 if default is None else 1, 100_000)
        if default is None:
            widget.setSpecialValueText("unlimited")
        widget.setValue(0 if default is None else int(default))
        return widget
    widget = QDoubleSpinBox()
    widget.setDecimals(4)
    widget.setRange(1e-4, 1e4)
    widget.setValue(float(default))
    return widget


def _parameter_value(widget: QWidget, default: Any) -> Any:
    if isinstance(widget, QComboBox):
        return widget.currentText()
    if isinstance(widget, QSpinBox):
        value = widget.value()
        return None if default is None and value == 0 else value
    return widget.value()


class ClassificationForm(QWidget):
    """Inputs of one classification analysis; ``config()`` turns them into settings."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.definition: DataDefinition | None = None
        self.frame: pd.DataFrame | None = None
        # Starts unchosen ("Choose …") unless one column is named like a class; never
        # silently the first or last column.
        self.class_attribute = QComboBox()
        self.class_attribute.currentIndexChanged.connect(
            lambda _index: self._class_changed(self.class_name()))
        self.class_note = QLabel(wordWrap=True)
        self.class_note.setTextFormat(Qt.TextFormat.PlainText)
        self.class_note.setStyleSheet("color: #555; font-style: italic")
        policy = self.class_note.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # hidden after a choice, nothing below moves
        self.class_note.setSizePolicy(policy)
        self.class_note.hide()
        self.bins = QLineEdit()
        self.bins.setPlaceholderText("e.g. 10000, 50000 (numeric class only)")
        self.bins.setToolTip("Bin edges turn a numeric class attribute into classes "
                             "<e1, [e1, e2[, …, >=en.")
        self.features = QListWidget()
        self.features.setMinimumHeight(120)
        self.classifier = QComboBox()
        for kind, label in LABELS.items():
            self.classifier.addItem(label, kind)
        self.classifier.currentIndexChanged.connect(self._classifier_changed)
        self.parameter_box = QWidget()
        self.parameter_form = QFormLayout(self.parameter_box)
        self.parameter_form.setContentsMargins(12, 0, 0, 0)
        self.parameters: dict[str, QWidget] = {}
        self.folds = QSpinBox()
        self.folds.setRange(2, 20)
        self.folds.setValue(3)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        form = QFormLayout()
        form.addRow("Class attribute", self.class_attribute)
        form.addRow("", self.class_note)
        form.addRow("Class bins", self.bins)
        form.addRow("Features", self.features)
        form.addRow("Classifier", self.classifier)
        form.addRow(self.parameter_box)
        form.addRow("Folds (k)", self.folds)
        form.addRow("Seed", self.seed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        self._classifier_changed()

    # --- filling ---------------------------------------------------------------------------

    def set_data(self, frame: pd.DataFrame | None, definition: DataDefinition | None) -> None:
        """Offer the attributes of ``definition`` that can be predicted (identifying ones,
        sets and dates excluded). Other data (another project) start unchosen or with a
        class suggested by its name; an edit of the same data keeps the choice."""
        same_data = frame is not None and frame is self.frame
        current = self.class_name() if same_data else None
        self.frame, self.definition = frame, definition
        names = fitting_attributes(definition, CLASS_KINDS, identifying=False) \
            if definition is not None else []
        self.class_attribute.blockSignals(True)
        self.class_attribute.clear()
        self.class_attribute.addItem(CHOOSE_CLASS, None)
        for name in names:
            self.class_attribute.addItem(name, name)
        self.class_attribute.blockSignals(False)
        if current in names:
            self.set_class_attribute(current)
            return
        guess = guess_attribute(definition, CLASS_NAMES, CLASS_KINDS, identifying=False) \
            if definition is not None else None
        self.set_class_attribute(guess or "")
        if guess:
            self.class_note.setText(f"Suggested: '{guess}' is named like a class; check it.")
            self.class_note.show()

    def class_name(self) -> str:
        """The chosen class attribute ("" while none is)."""
        return self.class_attribute.currentData() or ""

    def set_class_attribute(self, name: str, bins: str | None = None) -> None:
        """Choose the class attribute ("" for none); ``bins`` None suggests tertiles for a
        numeric one."""
        self.class_attribute.blockSignals(True)
        self.class_attribute.setCurrentIndex(max(self.class_attribute.findData(name or None),
                                                 0))
        self.class_attribute.blockSignals(False)
        self._class_changed(self.class_name())
        if bins is not None:
            self.bins.setText(bins)

    def _class_changed(self, name: str) -> None:
        self.class_note.setText("")  # set again by set_data when it suggests the choice
        self.class_note.hide()
        self.features.clear()
        if self.definition is None:
            self.bins.setEnabled(False)
            self.bins.setText("")
            self.changed.emit()
            return
        numeric = bool(name) and self.definition[name].data_type.is_numeric
        binnable = numeric and self.definition[name].type is not AttributeType.QUASI_IDENTIFYING
        self.bins.setEnabled(binnable)
        self.bins.setText(suggested_bins(self.frame[name]) if binnable else "")
        for attribute in self.definition:
            if attribute.type is AttributeType.IDENTIFYING or attribute.name == name:
                continue
            item = QListWidgetItem(attribute.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.features.addItem(item)
        self.changed.emit()

    def _classifier_changed(self) -> None:
        while self.parameter_form.rowCount():
            self.parameter_form.removeRow(0)
        self.parameters = {}
        for name, default in PARAMETERS[self.classifier.currentData()].items():
            widget = _parameter_widget(name, default)
            self.parameters[name] = widget
            self.parameter_form.addRow(PARAMETER_LABELS.get(name, name), widget)
        self.changed.emit()

    def set_classifier(self, kind: str, **params: Any) -> None:
        """Choose a classifier kind and set some of its parameters."""
        self.classifier.setCurrentIndex(self.classifier.findData(kind))
        for name, value in params.items():
            widget = self.parameters[name]
            if isinstance(widget, QComboBox):
                widget.setCurrentText(str(value))
            else:
                widget.setValue(0 if value is None else value)

    def set_features(self, names: list[str]) -> None:
        """Check exactly the features in ``names``."""
        for i in range(self.features.count()):
            item = self.features.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names
                               else Qt.CheckState.Unchecked)

    # --- reading ---------------------------------------------------------------------------

    def checked_features(self) -> list[str]:
        return [self.features.item(i).text() for i in range(self.features.count())
                if self.features.item(i).checkState() == Qt.CheckState.Checked]

    def class_bins(self) -> list[float] | None:
        """The bin edges typed in (None if none); ConfigurationError if unreadable."""
        text = self.bins.text().strip() if self.bins.isEnabled() else ""
        if not text:
            return None
        try:
            return [float(e) for e in text.replace(";", ",").split(",") if e.strip()]
        except ValueError:
            raise ConfigurationError(
                f"Cannot read the class bins '{text}'; write increasing numbers separated by "
                "commas, like 10000, 50000.") from None

    def config(self) -> ClassificationConfig:
        """The settings as a ClassificationConfig; ConfigurationError says what to fix."""
        name = self.class_name()
        if not name:
            raise ConfigurationError("Choose the class attribute: the attribute classifiers "
                                     "will predict.")
        features = self.checked_features()
        if not features:
            raise ConfigurationError("Check at least one feature attribute.")
        if self.class_bins() is None and self.frame is not None and \
                self.frame[name].nunique() > MAX_CLASS_VALUES:
            raise ConfigurationError(
                f"The class attribute '{name}' has {self.frame[name].nunique():,} distinct "
                "values; enter class bins (e.g. 10000, 50000) or choose another attribute.")
        return ClassificationConfig(name, tuple(features), self.classifier_spec(),
                                    folds=self.folds.value(), seed=self.seed.value())

    def classifier_spec(self) -> ClassifierSpec:
        """The classifier with its parameters and the seed (no class attribute needed:
        the overview predicts every target with it)."""
        kind = self.classifier.currentData()
        params = {p: _parameter_value(w, PARAMETERS[kind][p]) for p, w in self.parameters.items()}
        return ClassifierSpec(kind, params, seed=self.seed.value())
