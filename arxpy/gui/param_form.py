"""A form built from declared parameters (:class:`arxpy.params.Param`).

Whole numbers get spin boxes, numbers decimal spin boxes (bounded by the declared
range, with the decimals their value, default and bounds need), choices and attributes
combo boxes, flags check boxes, lists of attributes a checkable list of the project's
columns, text, mappings (``A=x, B=y``) and settings objects (JSON) line edits;
an optional parameter can be left "not given" and is then left out of
:meth:`ParamForm.values`. Help texts become tooltips, units suffixes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QWidget,
)

from arxpy.errors import ConfigurationError
from arxpy.params import Param

#: Shown for an optional parameter that is left out.
NOT_GIVEN = "not given"
_INT_MAX = 2**31 - 1
_FLOAT_MAX = 1e6
#: Decimals of number fields, at least (more where the value, the default or a bound
#: needs them, up to the most); open bounds are kept off by one step of this precision.
_DECIMALS = 3
_MOST_DECIMALS = 10


def row_label(param: Param) -> str:
    """``"Ground distance"`` for a label ``"ground distance"``; one-letter names stay."""
    title = param.title
    return title[:1].upper() + title[1:] if len(title) > 1 else title


def _int_range(param: Param) -> tuple[int, int]:
    low = 0 if param.low is None else int(param.low) + (1 if param.low_open else 0)
    high = _INT_MAX if param.high is None else int(param.high) - (1 if param.high_open else 0)
    if param.optional:
        low -= 1  # the value below the range stands for "not given"
    return max(low, -_INT_MAX), min(high, _INT_MAX)


def _decimals(param: Param, value: Any) -> int:
    """The decimals that show the value, the default and the bounds exactly (a gradient
    floor of 1e-6 must not come back as 0.001)."""
    needed = _DECIMALS
    for number in (value, param.default, param.low, param.high):
        if isinstance(number, bool) or not isinstance(number, int | float) or \
                not math.isfinite(number):
            continue
        while needed < _MOST_DECIMALS and round(number, needed) != number:
            needed += 1
    return needed


def _float_range(param: Param, decimals: int = _DECIMALS) -> tuple[float, float]:
    step = 10.0 ** -decimals
    low = 0.0 if param.low is None else param.low + (step if param.low_open else 0.0)
    high = _FLOAT_MAX if param.high is None else param.high - (step if param.high_open else 0.0)
    if param.optional:
        low -= step  # the value below the range stands for "not given"
    return low, high


class ParamForm(QWidget):
    """One row per declared parameter; ``changed`` fires on every edit.

    ``attributes`` lists the names offered for parameters of kind "attribute".
    """

    changed = Signal()

    def __init__(self, params: Sequence[Param], values: Mapping[str, Any] | None = None,
                 attributes: Sequence[str] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.params = tuple(params)
        self.layout_ = QFormLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.widgets: dict[str, QWidget] = {}
        values = values or {}
        for param in self.params:
            value = values.get(param.name, param.suggested if param.required else param.default)
            widget = self._widget(param, value, list(attributes))
            tip = param.help + (f" ({param.unit})" if param.unit else "")
            widget.setToolTip(tip)
            self.layout_.addRow(f"{row_label(param)}:", widget)
            self.widgets[param.name] = widget

    def _widget(self, param: Param, value: Any, attributes: list[str]) -> QWidget:
        builders: dict[str, Callable[[Param, Any, list[str]], QWidget]] = {
            "int": self._int_widget, "float": self._float_widget, "bool": self._bool_widget,
            "choice": self._combo_widget, "attribute": self._combo_widget,
            "attributes": self._attributes_widget, "text": self._text_widget,
            "mapping": self._mapping_widget, "object": self._json_widget,
            "objects": self._json_widget}
        if param.kind not in builders:
            raise ValueError(f"No form field for parameters of kind {param.kind!r}")
        return builders[param.kind](param, value, attributes)

    def _int_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        low, high = _int_range(param)
        widget = QSpinBox(minimum=low, maximum=high)
        if param.optional:
            widget.setSpecialValueText(NOT_GIVEN)
        if param.unit:
            widget.setSuffix(f" {param.unit}")
        widget.setValue(low if value is None else int(value))
        widget.valueChanged.connect(self.changed)
        return widget

    def _float_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        decimals = _decimals(param, value)
        low, high = _float_range(param, decimals)
        widget = QDoubleSpinBox(decimals=decimals, minimum=low, maximum=high,
                                singleStep=0.01 if high <= 1 else 0.5)
        if param.optional:
            widget.setSpecialValueText(NOT_GIVEN)
        if param.unit:
            widget.setSuffix(f" {param.unit}")
        widget.setValue(low if value is None else float(value))
        widget.valueChanged.connect(self.changed)
        return widget

    def _bool_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        widget = QCheckBox()
        widget.setChecked(bool(value))
        widget.toggled.connect(self.changed)
        return widget

    def _combo_widget(self, param: Param, value: Any, attributes: list[str]) -> QWidget:
        options: list[Any] = attributes if param.kind == "attribute" else list(param.choices)
        if param.optional:
            options = [None, *options]
        widget = QComboBox()
        widget.addItems([NOT_GIVEN if o is None else str(o) for o in options])
        widget.setProperty("options", options)
        if value in options:
            widget.setCurrentIndex(options.index(value))
        widget.currentIndexChanged.connect(self.changed)
        return widget

    def _attributes_widget(self, param: Param, value: Any, attributes: list[str]) -> QWidget:
        widget = QListWidget()
        chosen = set(value or ())
        for name in attributes:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in chosen
                               else Qt.CheckState.Unchecked)
            widget.addItem(item)
        # Short: a few rows show, the rest scroll (the form must fit 720 pixels).
        widget.setMaximumHeight(min(22 * max(len(attributes), 1) + 6, 110))
        widget.itemChanged.connect(self.changed)
        return widget

    def _text_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        widget = QLineEdit("" if value is None else str(value))
        if param.optional:
            widget.setPlaceholderText(NOT_GIVEN)
        widget.textChanged.connect(self.changed)
        return widget

    def _mapping_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        widget = QLineEdit(mapping_text(value or {}))
        widget.setPlaceholderText("attribute=value, … (empty: none)")
        widget.textChanged.connect(self.changed)
        return widget

    def _json_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        widget = QLineEdit("" if value is None else json.dumps(value))
        widget.setPlaceholderText('JSON, e.g. {"kind": "k-anonymity", "k": 5}')
        widget.textChanged.connect(self.changed)
        return widget

    def value(self, param: Param) -> Any:
        """The value of one field: None when an optional field is not given.

        Raises ConfigurationError for a mapping that cannot be read.
        """
        widget = self.widgets[param.name]
        if isinstance(widget, QListWidget):
            items = (widget.item(i) for i in range(widget.count()))
            checked = [i.text() for i in items if i.checkState() == Qt.CheckState.Checked]
            # Nothing ticked in an optional list means "not given" (the method's default,
            # e.g. every attribute), not "no attribute".
            return None if param.optional and not checked else checked
        if isinstance(widget, QLineEdit):
            text = widget.text()
            if param.kind == "mapping":
                return parse_mapping(text, row_label(param))
            if param.kind in ("object", "objects"):
                return parse_json(text, row_label(param))
            return None if param.optional and not text.strip() else text
        if isinstance(widget, QCheckBox):
            return widget.isChecked()
        if isinstance(widget, QSpinBox | QDoubleSpinBox):
            if param.optional and widget.value() == widget.minimum():
                return None
            return widget.value()
        options = widget.property("options") or []
        index = widget.currentIndex()
        if 0 <= index < len(options):
            return options[index]
        return "" if param.kind == "attribute" else None

    def values(self) -> dict[str, Any]:
        """Every field's value; optional fields not given are left out."""
        out = {}
        for param in self.params:
            value = self.value(param)
            if value is not None or not param.optional:
                out[param.name] = value
        return out


def mapping_text(mapping: Mapping[str, Any]) -> str:
    """``{"Age": "integer"}`` as ``"Age=integer"`` (the form's way to type a mapping)."""
    return ", ".join(f"{key}={value}" for key, value in mapping.items())


def parse_mapping(text: str, what: str) -> dict[str, str]:
    """``"A=x, B=y"`` as ``{"A": "x", "B": "y"}``; ConfigurationError naming ``what``."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ConfigurationError(
                f"{what}: write each entry as attribute=value, separated by commas; "
                f"{part!r} is not.")
        out[key.strip()] = value.strip()
    return out


def parse_json(text: str, what: str) -> Any:
    """A settings object (or a list of them) typed as JSON; ConfigurationError naming
    ``what`` if the text is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigurationError(f"{what}: cannot read {text!r} as JSON ({exc.msg}).") from None
