"""One dialog per privacy model type: its parameters, checked against the data as typed.

The parameters of each kind are declared in :data:`MODEL_SPECS`; the dialog builds
the model with :func:`privacy_model_from_dict` (so the model's own checks apply) and
adds the checks that need the data (k at most the number of records, l at most the
distinct values of the sensitive attribute, one model per kind and attribute). A
problem is shown under the form and OK stays disabled until it is fixed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.definition import AttributeType
from arxpy.errors import ArxpyError
from arxpy.gui.plain_text import plain_label
from arxpy.gui.state import AppState
from arxpy.privacy import privacy_model_from_dict


@dataclass(frozen=True)
class Param:
    """One parameter: ``kind`` is "int", "float", "attribute", "choice" or "count".

    A "count" of 0 and an empty choice mean "not given": they are left out of the
    model's parameters (for either/or parameters such as a population size or region).
    """

    name: str
    kind: str
    default: Any = None
    minimum: float = 0.0
    maximum: float = 1e9
    choices: tuple[str, ...] = ()
    tip: str = ""


def _regions() -> tuple[str, ...]:
    """Population presets the risk layer knows (none if it does not offer any yet)."""
    try:
        from arxpy.risk.population import REGIONS
    except ImportError:
        return ()
    return tuple(sorted(REGIONS))


_ATTRIBUTE = Param("attribute", "attribute", tip="The sensitive attribute to protect")
#: Label and parameters of each privacy model kind, in the order the Add menu lists them.
MODEL_SPECS: dict[str, tuple[str, tuple[Param, ...]]] = {
    "k-anonymity": ("k-Anonymity", (
        Param("k", "int", 5, 1, 1e9, tip="Every class holds at least k records"),)),
    "distinct-l-diversity": ("Distinct l-diversity", (
        _ATTRIBUTE, Param("l", "int", 2, 1, 1e6, tip="Distinct sensitive values per class"),)),
    "entropy-l-diversity": ("Entropy l-diversity", (
        _ATTRIBUTE, Param("l", "float", 2.0, 1, 1e6, tip="Entropy of each class >= ln(l)"),
        Param("estimator", "choice", "shannon", choices=("shannon", "grassberger")),)),
    "recursive-cl-diversity": ("Recursive (c,l)-diversity", (
        _ATTRIBUTE, Param("c", "float", 4.0, 0.001, 1e6, tip="r1 < c (rl + ... + rm)"),
        Param("l", "int", 2, 1, 1e6),)),
    "t-closeness": ("t-Closeness", (
        _ATTRIBUTE, Param("t", "float", 0.2, 0.0, 1.0, tip="Largest distance to the overall "
                          "distribution (earth mover's distance, 0 to 1)"),
        Param("distance", "choice", "equal", choices=("equal", "hierarchical", "ordered")),)),
    "delta-disclosure": ("δ-Disclosure privacy", (
        _ATTRIBUTE, Param("delta", "float", 1.0, 0.001, 1e6),)),
    "basic-beta-likeness": ("Basic β-likeness", (
        _ATTRIBUTE, Param("beta", "float", 1.0, 0.001, 1e6),)),
    "enhanced-beta-likeness": ("Enhanced β-likeness", (
        _ATTRIBUTE, Param("beta", "float", 1.0, 0.001, 1e6),)),
    "average-risk": ("Average re-identification risk", (
        Param("threshold", "float", 0.05, 0.001, 1.0, tip="Largest average prosecutor risk"),)),
    "prosecutor-risk": ("Prosecutor risk", (
        Param("threshold", "float", 0.2, 0.001, 1.0, tip="Largest re-identification risk of "
              "any record (1 / class size)"),)),
    "population-uniqueness": ("Population uniqueness", (
        Param("threshold", "float", 0.01, 0.001, 0.999, tip="Largest estimated share of the "
              "population that is unique"),
        Param("estimator", "choice", "dankar", choices=("dankar", "pitman", "zayatz", "snb")),
        Param("region", "choice", "", choices=("", *_regions()),
              tip="The population the data were sampled from (or give its size)"),
        Param("population_size", "count", 0, 0, 2**31 - 1, tip="People in the population "
              "(instead of a region)"),)),
}


#: What each model promises, in one sentence shown at the top of its dialog.
MODEL_HELP = {
    "k-anonymity": "Every record is indistinguishable from at least k - 1 others in its "
                   "quasi-identifiers.",
    "distinct-l-diversity": "Every equivalence class holds at least l distinct values of the "
                            "sensitive attribute.",
    "entropy-l-diversity": "The entropy of the sensitive values in every class is at least "
                           "ln(l).",
    "recursive-cl-diversity": "In every class the most frequent sensitive value is rarer than "
                              "c times the l-th and less frequent ones together.",
    "t-closeness": "The distribution of the sensitive attribute in every class is within "
                   "distance t of its distribution in the whole dataset.",
    "delta-disclosure": "No class changes the frequency of a sensitive value by more than a "
                        "factor of e^δ.",
    "basic-beta-likeness": "No sensitive value is more than (1 + β) times as frequent in a "
                           "class as in the dataset.",
    "enhanced-beta-likeness": "Like basic β-likeness, with a logarithmic bound for rare values.",
    "average-risk": "The average prosecutor re-identification risk (1 / class size) stays below "
                    "the threshold.",
    "prosecutor-risk": "No record's prosecutor re-identification risk (1 / class size) exceeds "
                       "the threshold.",
    "population-uniqueness": "The estimated share of the population that is unique in the "
                             "output stays below the threshold.",
}
PARAMETER_LABELS = {"attribute": "Sensitive attribute", "k": "k", "l": "l", "c": "c",
                    "t": "t", "delta": "δ", "beta": "β", "threshold": "Threshold",
                    "estimator": "Estimator", "distance": "Ground distance",
                    "region": "Region", "population_size": "Population size"}


def model_label(kind: str) -> str:
    return MODEL_SPECS.get(kind, (kind, ()))[0]


def describe_model(spec: dict[str, Any]) -> str:
    """One line for a model dict (``"5-anonymity"``), or the dict if it is invalid."""
    try:
        return privacy_model_from_dict(spec).describe()
    except (ArxpyError, TypeError):
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
        label, self.params = MODEL_SPECS[kind]
        self.setWindowTitle(f"{'Edit' if current else 'Add'} {label}")
        self.setMinimumWidth(440)
        self.form = QFormLayout()
        self.widgets: dict[str, QWidget] = {}
        for param in self.params:
            widget = self._widget(param, (current or {}).get(param.name, param.default))
            widget.setToolTip(param.tip)
            self.form.addRow(f"{PARAMETER_LABELS.get(param.name, param.name)}:", widget)
            self.widgets[param.name] = widget
        self.message = plain_label(QLabel(wordWrap=True))
        self.message.setStyleSheet("color: #a61b1b")
        self.message.setMinimumHeight(36)  # room for the message without the dialog jumping
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"<b>{label}</b>"))
        help_text = QLabel(MODEL_HELP.get(kind, ""), wordWrap=True)
        help_text.setStyleSheet("color: #555")
        layout.addWidget(help_text)
        layout.addLayout(self.form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.validate()

    def _widget(self, param: Param, value: Any) -> QWidget:
        if param.kind in ("int", "count"):
            top = int(min(param.maximum, 2**31 - 1))
            widget = QSpinBox(minimum=int(param.minimum), maximum=top)
            if param.kind == "count":
                widget.setSpecialValueText("not given")
            widget.setValue(int(value or 0))
            widget.valueChanged.connect(self.validate)
        elif param.kind == "float":
            widget = QDoubleSpinBox(decimals=3, minimum=param.minimum, maximum=param.maximum,
                                    singleStep=0.01 if param.maximum <= 1 else 0.5)
            widget.setValue(float(value))
            widget.valueChanged.connect(self.validate)
        else:
            widget = QComboBox()
            options = (self.state.of_type(AttributeType.SENSITIVE) if param.kind == "attribute"
                       else list(param.choices))
            widget.addItems([o or "not given" for o in options])
            widget.setProperty("options", options)
            if value in options:
                widget.setCurrentIndex(options.index(value))
            widget.currentIndexChanged.connect(self.validate)
        return widget

    def model_dict(self) -> dict[str, Any]:
        """The model as stored in the settings (``{"kind": ..., parameters}``)."""
        out: dict[str, Any] = {"kind": self.kind}
        for param in self.params:
            widget = self.widgets[param.name]
            if isinstance(widget, QSpinBox | QDoubleSpinBox):
                value = widget.value()
            else:
                options = widget.property("options") or []
                index = widget.currentIndex()
                value = options[index] if 0 <= index < len(options) else ""
            if param.kind == "attribute" or value not in ("", 0) or param.kind in ("int",
                                                                                   "float"):
                out[param.name] = value
        return out

    def problem(self) -> str | None:
        """Why these parameters cannot work for this data, or None."""
        spec = self.model_dict()
        if "attribute" in spec and not spec["attribute"]:
            return ("No attribute is sensitive. Mark the attribute to protect as sensitive in "
                    "the attribute panel, then add this model.")
        try:
            privacy_model_from_dict(spec)
        except (ArxpyError, TypeError) as exc:
            return str(exc)
        return self._data_problem(spec) or self._duplicate_problem(spec)

    def _data_problem(self, spec: dict[str, Any]) -> str | None:
        records = len(self.state.data)
        if self.kind == "k-anonymity" and spec["k"] > records:
            return f"k = {spec['k']} exceeds the number of records ({records}); choose at most " \
                   f"{records}."
        if "l" in spec:
            distinct = int(self.state.data[spec["attribute"]].nunique())
            needed = math.ceil(spec["l"])
            if needed > distinct:
                return (f"l = {spec['l']:g} is impossible: '{spec['attribute']}' has only "
                        f"{distinct} distinct value(s), so no class can hold {needed}; "
                        f"choose l of at most {distinct}.")
        return None

    def _duplicate_problem(self, spec: dict[str, Any]) -> str | None:
        for i, other in enumerate(self.state.settings.get("privacy_models", [])):
            if i != self.index and other.get("kind") == self.kind and \
                    other.get("attribute") == spec.get("attribute"):
                target = f" for '{spec['attribute']}'" if "attribute" in spec else ""
                return f"{model_label(self.kind)}{target} is already configured; edit that one."
        return None

    def validate(self) -> None:
        problem = self.problem()
        self.message.setText(problem or "")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(problem is None)
