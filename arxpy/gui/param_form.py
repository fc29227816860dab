"""A form built from declared parameters (:class:`arxpy.params.Param`).

Whole numbers get spin boxes, numbers decimal spin boxes (bounded by the declared
range), choices and attributes combo boxes, flags check boxes, lists of attributes a
checkable list of the project's columns, text, mappings (``A=x, B=y``) and settings
objects (JSON) line edits;
an optional parameter can be left "not given" and is then left out of
:meth:`ParamForm.values`. Help texts become tooltips, units suffixes.

The form never rewrites a value silently. A value it is given that the parameter
refuses, or that a field cannot hold (k = 0, "x", NaN, 1e308, an attribute the data do
not have or of the wrong type), is shown as it is, marked, and kept as the field's value
until the user edits the field; :meth:`ParamForm.problems` says why, and whoever runs the
parameters refuses to. A required attribute starts unchosen ("Choose …") unless exactly
one fitting column suggests itself (named like the role, or the only one that fits),
which a note under the field says. Only attributes of a fitting data type are offered,
and never an identifying one (removed, or released as a pseudonym).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPalette, QValidator
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QSpinBox,
    QWidget,
)

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.data.roles import fits, guess_attribute, misfit_reason
from arxpy.errors import ConfigurationError
from arxpy.params import Param

#: Shown for an optional parameter that is left out.
NOT_GIVEN = "not given"
_INT_MAX = 2**31 - 1
_FLOAT_MAX = 1e6
#: Decimals of number fields; open bounds are kept off by one step of this precision.
_DECIMALS = 3
_MAX_DECIMALS = 10
#: Marks a field whose value cannot be used (and an entry that is not offered).
INVALID_STYLE = "border: 1px solid #b3261e"
INVALID = "⚠"
_INVALID_COLOR = QColor("#b3261e")
_INVALID_BACKGROUND = QColor("#fde7e9")
#: Who gave a value the form did not choose (the start of a problem's message).
_GIVEN = "The project's value"


def row_label(param: Param) -> str:
    """``"Ground distance"`` for a label ``"ground distance"``; one-letter names stay."""
    title = param.title
    return title[:1].upper() + title[1:] if len(title) > 1 else title


def prompt(param: Param) -> str:
    """What an unchosen required attribute shows: ``"Choose the survival time…"``."""
    return f"Choose the {param.title}…"


def _int_range(param: Param) -> tuple[int, int]:
    low = 0 if param.low is None else int(param.low) + (1 if param.low_open else 0)
    high = _INT_MAX if param.high is None else int(param.high) - (1 if param.high_open else 0)
    if param.optional:
        low -= 1  # the value below the range stands for "not given"
    return max(low, -_INT_MAX), min(high, _INT_MAX)


def _decimals(param: Param, value: Any) -> int:
    """Decimals a number field needs to show ``value`` and its bounds (at least 3): a
    gradient floor of 1e-6 must not turn into 0.001."""
    decimals = _DECIMALS
    for number in (value, param.low, param.high, param.default):
        if isinstance(number, int | float) and not isinstance(number, bool) \
                and math.isfinite(number) and number != 0:
            decimals = max(decimals, min(_MAX_DECIMALS, 2 - math.floor(math.log10(abs(number)))))
    return decimals


#: The unit of fractions of records; forms show them in percent, as every view does.
FRACTION_OF_RECORDS = "fraction of records"


class PercentBox(QDoubleSpinBox):
    """A fraction (0 to 1) typed and shown in percent: the value stays the fraction the
    declaration and the project hold; only the text is multiplied by 100."""

    def textFromValue(self, value: float) -> str:  # noqa: N802 - Qt's name
        return f"{100 * value:.{max(self.decimals() - 2, 0)}f}"

    def valueFromText(self, text: str) -> float:  # noqa: N802 - Qt's name
        return float(self._number(text)) / 100

    def validate(self, text: str, position: int):  # noqa: D102 - Qt's contract
        number = self._number(text)
        if number in ("", "-", "."):
            return QValidator.State.Intermediate, text, position
        try:
            value = float(number) / 100
        except ValueError:
            return QValidator.State.Invalid, text, position
        if self.minimum() <= value <= self.maximum():
            return QValidator.State.Acceptable, text, position
        return QValidator.State.Intermediate, text, position

    def _number(self, text: str) -> str:
        return text.removeprefix(self.prefix()).removesuffix(self.suffix()).strip()


def _float_range(param: Param, decimals: int = _DECIMALS) -> tuple[float, float]:
    step = 10.0 ** -decimals
    low = 0.0 if param.low is None else param.low + (step if param.low_open else 0.0)
    high = _FLOAT_MAX if param.high is None else param.high - (step if param.high_open else 0.0)
    if param.optional:
        low -= step  # the value below the range stands for "not given"
    return low, high


def refusal(param: Param, value: Any) -> str:
    """Why ``param`` refuses ``value`` ("" if it takes it)."""
    try:
        param.check(value, _GIVEN)
    except ConfigurationError as exc:
        return str(exc)
    return ""


def _shown(value: Any) -> str:
    """A refused value as the field shows it: numbers as written, text quoted."""
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else f"{value:g}"
    return repr(value) if isinstance(value, str) else str(value)


class ParamForm(QWidget):
    """One row per declared parameter; ``changed`` fires on every edit.

    ``attributes`` lists the names offered for parameters of kind "attribute" and
    "attributes"; with ``definition`` only those of a fitting data type
    (:attr:`Param.data_types`) are, and a required attribute may be suggested by name.
    """

    changed = Signal()

    def __init__(self, params: Sequence[Param], values: Mapping[str, Any] | None = None,
                 attributes: Sequence[str] = (), parent: QWidget | None = None, *,
                 definition: DataDefinition | None = None) -> None:
        super().__init__(parent)
        self.params = tuple(params)
        self.definition = definition
        self.layout_ = QFormLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.widgets: dict[str, QWidget] = {}
        #: Values given that the fields could not take, kept until the field is edited.
        self.kept: dict[str, Any] = {}
        #: Why each kept value cannot be used.
        self._refused: dict[str, str] = {}
        #: Entries of combo boxes and lists shown as given but marked: (value(s), why).
        self._flagged: dict[str, tuple[Any, str]] = {}
        #: Under a field, why it holds what it holds (a suggested attribute).
        self.notes: dict[str, QLabel] = {}
        values = values or {}
        for param in self.params:
            value = values.get(param.name, param.suggested if param.required else param.default)
            widget = self._widget(param, value, self._offered(param, attributes))
            tip = param.help + (f" ({param.unit})" if param.unit else "")
            if param.data_types and param.kind in ("attribute", "attributes"):
                tip += f"; only {_kinds_text(param.data_types)} attributes are offered"
            if param.ordered:
                tip += "; drag the attributes into order"
            widget.setToolTip(tip)
            self.layout_.addRow(f"{row_label(param)}:", widget)
            self.widgets[param.name] = widget
            if param.name in self.notes:
                self.layout_.addRow("", self.notes[param.name])
            self._mark(param)

    def _offered(self, param: Param, attributes: Sequence[str]) -> list[str]:
        if self.definition is None:
            return list(attributes)
        # Identifying attributes are removed or released as pseudonyms: never offered,
        # so a method cannot be set to judge one (issue 32).
        return [name for name in attributes if name in self.definition.names
                and self.definition[name].type is not AttributeType.IDENTIFYING
                and fits(self.definition, name, param.data_types)]

    def _widget(self, param: Param, value: Any, attributes: list[str]) -> QWidget:
        builders: dict[str, Callable[[Param, Any, list[str]], QWidget]] = {
            "int": self._number_widget, "float": self._number_widget,
            "bool": self._bool_widget, "choice": self._combo_widget,
            "attribute": self._combo_widget, "attributes": self._attributes_widget,
            "text": self._text_widget, "mapping": self._mapping_widget,
            "object": self._json_widget, "objects": self._json_widget}
        if param.kind not in builders:
            raise ValueError(f"No form field for parameters of kind {param.kind!r}")
        return builders[param.kind](param, value, attributes)

    # --- keeping what cannot be shown ------------------------------------------------------

    def _keep(self, param: Param, value: Any, reason: str) -> None:
        """Keep ``value`` as the field's value until the user edits it."""
        self.kept[param.name] = value
        self._refused[param.name] = reason

    def _edited(self, param: Param) -> None:
        """The user changed the field: it holds what it shows from now on."""
        if param.name in self.kept:
            self.kept.pop(param.name)
            self._refused.pop(param.name, None)
            widget = self.widgets.get(param.name)
            if isinstance(widget, QAbstractSpinBox):
                widget.setSpecialValueText(NOT_GIVEN if param.optional else "")
        note = self.notes.get(param.name)
        if note is not None:
            note.hide()  # the suggestion is no longer what the field holds
        self._mark(param)
        self.changed.emit()

    def _mark(self, param: Param) -> None:
        widget = self.widgets.get(param.name)
        if widget is not None:
            mark_invalid(widget, param.name in self.problems())

    # --- fields ----------------------------------------------------------------------------

    def _number_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        if param.kind == "int":
            low, high = _int_range(param)
            widget: QSpinBox | QDoubleSpinBox = QSpinBox(minimum=low, maximum=high)
        elif param.unit == FRACTION_OF_RECORDS:
            decimals = max(_decimals(param, value), 4)  # two decimals of a percent
            low, high = _float_range(param, decimals)
            widget = PercentBox(decimals=decimals, minimum=low, maximum=high, singleStep=0.005)
        else:
            decimals = _decimals(param, value)
            low, high = _float_range(param, decimals)
            widget = QDoubleSpinBox(decimals=decimals, minimum=low, maximum=high,
                                    singleStep=0.01 if high <= 1 else 0.5)
        if param.optional:
            widget.setSpecialValueText(NOT_GIVEN)
        if param.unit == FRACTION_OF_RECORDS:
            widget.setSuffix(" % of records")
        elif param.unit:
            widget.setSuffix(f" {param.unit}")
        reason = refusal(param, value) if value is not None else ""
        if not reason and value is not None and not low <= float(value) <= high:
            reason = (f"{_GIVEN}: {param.name} = {_shown(value)} is outside what this form "
                      f"can hold ({_shown(low)} to {_shown(high)}); enter another value.")
        if reason:
            # The value stays what the project says; the box shows it beside its minimum.
            self._keep(param, value, reason)
            widget.setSpecialValueText(f"{INVALID} {_shown(value)}")
            widget.setValue(low)
        else:
            widget.setValue(low if value is None else
                            int(value) if param.kind == "int" else float(value))
        widget.valueChanged.connect(lambda _v, p=param: self._edited(p))
        widget.lineEdit().textEdited.connect(lambda _t, p=param: self._edited(p))
        return widget

    def _bool_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        widget = QCheckBox()
        reason = refusal(param, value)
        if reason:
            self._keep(param, value, reason)
            widget.setText(f"{INVALID} {_shown(value)}")
        widget.setChecked(value is True)
        widget.toggled.connect(lambda _on, p=param: self._edited(p))
        widget.toggled.connect(lambda _on, w=widget: w.setText(""))
        return widget

    def _combo_widget(self, param: Param, value: Any, attributes: list[str]) -> QWidget:
        is_attribute = param.kind == "attribute"
        options: list[Any] = list(attributes) if is_attribute else list(param.choices)
        texts = [str(o) for o in options]
        if param.optional:
            options, texts = [None, *options], [NOT_GIVEN, *texts]
        elif is_attribute:
            options, texts = [None, *options], [prompt(param), *texts]
        if value in (None, "") and is_attribute and not param.optional:
            value = self._suggest(param, attributes)
        elif value not in options:
            if not is_attribute:
                reason = refusal(param, value)
            else:
                why = (misfit_reason(self.definition, value, param.data_types)
                       if self.definition is not None else "not an attribute of the data")
                reason = f"{_GIVEN}: {param.title} '{value}' is {why}; choose another."
            # Shown as given and marked; chosen again later, it is refused again.
            self._flagged[param.name] = (value, reason)
            at = 1 if (param.optional or is_attribute) else 0
            options.insert(at, value)
            texts.insert(at, f"{INVALID} {value} (cannot be used)")
        widget = QComboBox()
        widget.addItems(texts)
        widget.setProperty("options", options)
        if param.name in self._flagged:
            widget.setItemData(options.index(value), _INVALID_COLOR,
                               Qt.ItemDataRole.ForegroundRole)
        widget.setCurrentIndex(options.index(value) if value in options else 0)
        widget.currentIndexChanged.connect(lambda _i, p=param: self._edited(p))
        return widget

    def _suggest(self, param: Param, attributes: list[str]) -> str | None:
        """The one attribute a required choice may start with (and a note saying why)."""
        guess, why = None, ""
        if self.definition is not None and param.named_like:
            guess = guess_attribute(self.definition, param.named_like, param.data_types,
                                    identifying=False)
            if guess not in attributes:
                guess = None
            why = f"named like the {param.title}"
        if guess is None and len(attributes) == 1:
            guess, why = attributes[0], "the only attribute that fits"
        if guess is not None:
            self.notes[param.name] = _note(f"Suggested: '{guess}' is {why}; check it.")
        return guess

    def _attributes_widget(self, param: Param, value: Any, attributes: list[str]) -> QWidget:
        widget = QListWidget()
        chosen = list(value) if isinstance(value, list | tuple) else []
        if param.ordered:  # ticked ones first, in order; the value reads in row order
            widget.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
            widget.model().rowsMoved.connect(lambda *_args, p=param: self._edited(p))
            attributes = [n for n in chosen if n in attributes] + \
                [n for n in attributes if n not in chosen]
        for name in attributes:
            item = QListWidgetItem(name)
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in chosen
                               else Qt.CheckState.Unchecked)
            widget.addItem(item)
        reason = refusal(param, value) if value is not None else ""
        refused = [name for name in chosen if name not in attributes]
        if reason:
            self._keep(param, value, reason)
        elif refused:
            why = (misfit_reason(self.definition, refused[0], param.data_types)
                   if self.definition is not None else "not an attribute of the data")
            self._flagged[param.name] = (set(refused), f"{_GIVEN}: {param.title} include "
                                         f"'{refused[0]}', which is {why}; untick it.")
        for name in refused:  # shown, ticked and marked until the user unticks them
            item = QListWidgetItem(f"{INVALID} {name} (cannot be used)")
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setForeground(_INVALID_COLOR)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            widget.addItem(item)
        # Short: a few rows show, the rest scroll (the form must fit 720 pixels).
        widget.setMaximumHeight(min(22 * max(widget.count(), 1) + 6, 110))
        widget.itemChanged.connect(lambda _item, p=param: self._edited(p))
        return widget

    def _text_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        reason = refusal(param, value) if value is not None else ""
        if reason:
            self._keep(param, value, reason)
        widget = QLineEdit("" if value is None else str(value))
        if param.optional:
            widget.setPlaceholderText(NOT_GIVEN)
        widget.textChanged.connect(lambda _t, p=param: self._edited(p))
        return widget

    def _mapping_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        reason = refusal(param, value) if value is not None else ""
        if reason:
            self._keep(param, value, reason)
        widget = QLineEdit(str(value) if reason else mapping_text(value or {}))
        widget.setPlaceholderText("attribute=value, … (empty: none)")
        widget.textChanged.connect(lambda _t, p=param: self._edited(p))
        return widget

    def _json_widget(self, param: Param, value: Any, _attributes: list[str]) -> QWidget:
        """Settings objects (a lattice search's privacy and quality models) as JSON."""
        widget = QLineEdit("" if value is None else json.dumps(value))
        widget.setPlaceholderText('JSON, e.g. {"kind": "k-anonymity", "k": 5}')
        widget.textChanged.connect(lambda _t, p=param: self._edited(p))
        return widget

    # --- reading ---------------------------------------------------------------------------

    def problems(self) -> dict[str, str]:
        """Per parameter, why its field's value cannot be used: a refused value kept as
        given, or a required attribute not chosen yet ({} when every field is usable)."""
        out = dict(self._refused)
        for param in self.params:
            widget = self.widgets.get(param.name)
            if widget is None or param.name in out:
                continue
            if param.name in self._flagged:
                flagged, reason = self._flagged[param.name]
                chosen = self._value(param)
                if chosen == flagged or (isinstance(flagged, set)
                                         and flagged & set(chosen or ())):
                    out[param.name] = reason
                    continue
            if param.kind == "attribute" and not param.optional and not self._value(param):
                out[param.name] = f"{prompt(param)[:-1]}."
        return out

    def value(self, param: Param) -> Any:
        """The value of one field: None when an optional field is not given; the value
        given when the field could not take it and was not edited since.

        Raises ConfigurationError for a mapping that cannot be read.
        """
        if param.name in self.kept:
            return self.kept[param.name]
        return self._value(param)

    def _value(self, param: Param) -> Any:
        widget = self.widgets[param.name]
        if isinstance(widget, QListWidget):
            items = (widget.item(i) for i in range(widget.count()))
            checked = [i.data(Qt.ItemDataRole.UserRole) for i in items
                       if i.checkState() == Qt.CheckState.Checked]
            # Nothing ticked in an optional list means "not given" (the method's default,
            # e.g. every attribute), not "no attribute".
            return None if param.optional and not checked else checked
        if isinstance(widget, QLineEdit):
            text = widget.text()
            if param.kind == "mapping":
                return parse_mapping(text, row_label(param))
            if param.kind in ("object", "objects"):
                if param.optional and not text.strip():
                    return None  # an optional setting left out, as a text field's
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
        chosen = options[index] if 0 <= index < len(options) else None
        return "" if chosen is None and param.kind == "attribute" and not param.optional \
            else chosen

    def values(self) -> dict[str, Any]:
        """Every field's value; optional fields not given are left out."""
        out = {}
        for param in self.params:
            value = self.value(param)
            if value is not None or not param.optional:
                out[param.name] = value
        return out


def mark_invalid(widget: QWidget, invalid: bool) -> None:
    """Tint a field whose value cannot be used (property ``invalid`` says so). A palette,
    not a style sheet: a style sheet's border takes the spin boxes' arrows away."""
    if bool(widget.property("invalid")) == invalid:
        return
    widget.setProperty("invalid", invalid)
    if isinstance(widget, QListWidget | QCheckBox):
        widget.setStyleSheet(INVALID_STYLE if invalid else "")
        return
    if not invalid:
        widget.setPalette(QPalette())  # back to the inherited palette
        return
    palette = widget.palette()
    for role in (QPalette.ColorRole.Base, QPalette.ColorRole.Button):
        palette.setColor(role, _INVALID_BACKGROUND)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(role, _INVALID_COLOR)
    widget.setPalette(palette)


def _note(text: str) -> QLabel:
    label = QLabel(text, wordWrap=True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet("color: #555; font-style: italic")
    policy = label.sizePolicy()
    policy.setRetainSizeWhenHidden(True)  # hidden after an edit, nothing below moves
    policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
    label.setSizePolicy(policy)
    return label


def _kinds_text(data_types: Sequence[str]) -> str:
    from arxpy.data.roles import KIND_WORDS, NUMERIC

    if set(data_types) <= set(NUMERIC):
        return "numeric"
    return " or ".join(KIND_WORDS.get(t, t) for t in data_types)


def mapping_text(mapping: Mapping[str, Any]) -> str:
    """``{"Age": "integer"}`` as ``"Age=integer"`` (the form's way to type a mapping)."""
    return ", ".join(f"{key}={value}" for key, value in mapping.items())


def parse_json(text: str, what: str) -> Any:
    """A settings object (or a list of them) typed as JSON; ConfigurationError naming
    ``what`` if the text is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigurationError(f"{what}: cannot read {text!r} as JSON ({exc.msg}).") from None


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
