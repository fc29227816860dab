"""Configure's method selector: the lattice search or any registered method, with the
chosen method's parameter form generated from its declaration.

The choice and the parameters are project settings (see :mod:`arxpy.workflows.method_choice`):
choosing is one undoable edit, typing parameters one undoable edit after a short pause.
The method's own constructor checks the parameters; its message shows under the form
and the field it names is marked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy.errors import ConfigurationError
from arxpy.gui.code_picker import attach_code_picker
from arxpy.gui.code_sets import set_valued_defaults
from arxpy.gui.help import help_button
from arxpy.gui.message_lines import ReservedLines
from arxpy.gui.param_form import ParamForm, mark_invalid
from arxpy.gui.plain_text import plain_label
from arxpy.gui.settings_panel import shrinkable
from arxpy.gui.state import AppState
from arxpy.help import Topic, method_topic
from arxpy.methods import method_classes, method_from_dict
from arxpy.workflows.form_hints import form_hint
from arxpy.workflows.method_choice import (
    LATTICE,
    METHOD_KEY,
    chosen_method,
    method_parameters,
    selectable_methods,
    with_parameters,
)

COMMIT_DELAY_MS = 300
#: Lines kept under the form for the message saying why the parameters cannot run.
ERROR_LINES = 3
ERROR_STYLE = "color: #b3261e"

#: Makes a widget with ``show_values(values, data, definition)``, shown beside the form.
FormCompanion = Callable[[], QWidget]

_COMPANIONS: dict[str, FormCompanion] = {}


def register_form_companion(methods: Iterable[str], factory: FormCompanion) -> None:
    """Show ``factory()`` beside the forms of ``methods`` (text hints beside a form are
    :mod:`arxpy.workflows.form_hints`)."""
    for name in methods:
        _COMPANIONS[name] = factory


def form_companion(method: str) -> QWidget | None:
    """A new companion widget for ``method``'s form, or None."""
    factory = _COMPANIONS.get(method)
    return factory() if factory is not None else None


def _disassociation_risk_chart() -> QWidget:
    from arxpy.gui.methods.disassociation_risk_chart import RiskChart  # on first use

    return RiskChart()


register_form_companion(["disassociation"], _disassociation_risk_chart)


class MethodPanel(QWidget):
    """The method combo box, its description, and the lattice panels or the method's form."""

    #: The chosen method changed (its name).
    method_changed = Signal(str)

    def __init__(self, state: AppState, lattice_page: QWidget,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.choices = selectable_methods()
        self.form: ParamForm | None = None
        self.companion: QWidget | None = None  # beside the form (see register_form_companion)
        self._form_key: tuple[Any, ...] | None = None
        self._filling = False
        self._timer = QTimer(self, singleShot=True, interval=COMMIT_DELAY_MS)
        self._timer.timeout.connect(self.commit)
        self.combo = shrinkable(QComboBox(), 24)
        self._fill_combo()
        self.combo.currentIndexChanged.connect(self._chosen)
        self.description = plain_label(QLabel(wordWrap=True))
        self.description.setStyleSheet("color: #555")
        self.note = QLabel(wordWrap=True)
        self.note.setStyleSheet("color: #555; font-style: italic")
        # Why the parameters cannot run: below the form, beside the Run button, in room
        # kept for it, so fields never move under the pointer when a message comes.
        self.error = ReservedLines(ERROR_LINES)
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.hide()
        # What the values typed mean: under the fields, which it therefore never moves.
        self.hint = plain_label(QLabel(wordWrap=True))
        self.hint.setStyleSheet("color: #8a5300")
        # Summary, note, form and hint scroll together: a stacked widget is as tall as
        # its tallest page, and the window must fit 720 pixels.
        self.form_holder = QVBoxLayout()
        form_page = QWidget()
        form_layout = QVBoxLayout(form_page)
        form_layout.setContentsMargins(0, 0, 4, 0)
        for label in (self.description, self.note):
            form_layout.addWidget(label)
        form_layout.addLayout(self.form_holder)
        form_layout.addWidget(self.hint)
        form_layout.addStretch(1)
        self.scroll = QScrollArea(widgetResizable=True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll.setWidget(form_page)
        form_column = QWidget()
        column = QVBoxLayout(form_column)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.scroll, 1)
        column.addWidget(self.error)
        # A method's companion (a chart) sits beside the form and scrolls apart from it.
        method_page = QWidget()
        self.method_row = QHBoxLayout(method_page)
        self.method_row.setContentsMargins(0, 0, 0, 0)
        self.method_row.addWidget(form_column, 3)
        self.pages = QStackedWidget()
        self.pages.addWidget(lattice_page)
        self.pages.addWidget(method_page)
        # The selector sits in a row of its own, beside the Run button (see selector_row).
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages, 1)
        state.settings_changed.connect(self.refresh)
        state.definition_changed.connect(self.refresh)
        state.project_changed.connect(self.refresh)
        self.refresh()

    def selector_row(self, *widgets: QWidget) -> QHBoxLayout:
        """"Method: [combo]" followed by ``widgets`` (the Run button), as one row."""
        row = QHBoxLayout()
        row.addWidget(QLabel("<b>Method:</b>"))
        row.addWidget(self.combo, 1)
        self.help_button = help_button(self.topic, "What the chosen method does and when "
                                       "to choose it")
        row.addWidget(self.help_button)
        for widget in widgets:
            row.addWidget(widget)
        return row

    def _fill_combo(self) -> None:
        """One entry per selectable method (again when a method registered later)."""
        self.choices = selectable_methods()
        self._filling = True
        self.combo.clear()
        for choice in self.choices:
            self.combo.addItem(choice.label, choice.name)
            self.combo.setItemData(self.combo.count() - 1, choice.description,
                                   Qt.ItemDataRole.ToolTipRole)
        self._filling = False

    # --- what is chosen -------------------------------------------------------------------

    @property
    def method_name(self) -> str:
        return self.combo.currentData() or LATTICE

    def topic(self) -> Topic:
        """The help of the chosen method."""
        return method_topic(method_classes()[self.method_name])

    def method_label(self) -> str:
        return self.combo.currentText() or chosen_method(self.state.settings)

    def _chosen(self, _index: int) -> None:
        if self._filling or not self.state.has_project:
            return
        name, label = self.method_name, self.method_label()
        if self._timer.isActive():  # parameters just typed for the previous method are kept
            self.commit()
        self.state.update_settings(f"Choose method {label}", **{METHOD_KEY: name})

    # --- following the state --------------------------------------------------------------

    def refresh(self) -> None:
        """Show the state's chosen method and its parameters."""
        if not self.state.has_project:
            return
        self._timer.stop()
        name = chosen_method(self.state.settings)
        if all(c.name != name for c in self.choices):
            self._fill_combo()
        self._filling = True
        self.combo.setCurrentIndex(self.combo.findData(name))  # -1: an unknown method
        self._filling = False
        choice = next((c for c in self.choices if c.name == name), None)
        self.pages.setCurrentIndex(0 if name == LATTICE else 1)
        if choice is None:
            self._show_unknown(name)
        elif name != LATTICE:
            self.description.setText(choice.description)
            self._show_form(name)
        else:  # a form left on the hidden page would hold another method's (or project's)
            self._drop_form()
            for label in (self.description, self.note, self.hint, self.error):
                label.setText("")
            self.error.setVisible(False)
        self.method_changed.emit(name)

    def _drop_form(self) -> None:
        """Remove the form and its companion (deleted later; hidden until then so that
        they do not draw over their successors)."""
        for widget, holder in ((self.form, self.form_holder), (self.companion, self.method_row)):
            if widget is not None:
                holder.removeWidget(widget)
                widget.hide()
                widget.deleteLater()
        self.form, self.companion, self._form_key = None, None, None

    def _show_unknown(self, name: str) -> None:
        self._drop_form()
        self.description.setText("")
        self.note.setText("")
        self.hint.setVisible(False)
        self.error.setText(f"This project chose the method '{name}', which this installation "
                           "of arxpy does not know (a newer version, or a method package not "
                           "installed). Choose one of the methods above.")
        self.error.setVisible(True)

    def _show_form(self, name: str) -> None:
        params = method_classes()[name].params
        # A set-valued method reads the set attribute unless told otherwise.
        values = {**set_valued_defaults(self.state.definition, params),
                  **method_parameters(self.state.settings, name)}
        columns = tuple(self.state.definition.names)
        key = (name, columns)
        if self.form is not None and self._form_key == key and self._form_values() == values:
            self.check()  # the same form already shows these values (e.g. our own commit)
            return
        self.note.setText("Privacy models, suppression, search settings, level ranges and "
                          "weights apply to the lattice search only.")
        self._drop_form()
        self.form = ParamForm(params, values, columns, definition=self.state.definition)
        attach_code_picker(self.form, self.state.data, self)
        self.form.changed.connect(self._edited)
        self._form_key = key
        self.form_holder.addWidget(self.form)
        self.companion = form_companion(name)
        if self.companion is not None:
            self.method_row.addWidget(self.companion, 2)
        self.check()

    def _form_values(self) -> dict[str, Any] | None:
        try:
            return self.form.values() if self.form is not None else None
        except ConfigurationError:
            return None

    # --- editing --------------------------------------------------------------------------

    def _edited(self) -> None:
        self.check()
        self._timer.start()

    def check(self) -> str:
        """Check the form's values: first what the form could not take as given (a value
        kept as the project gives it, a required attribute not chosen), then the method's
        constructor. Returns the message shown ("" if the parameters are usable); Run
        refuses to start while there is one."""
        message, hint = "", ""
        problems = self.form.problems() if self.form is not None else {}
        if self.form is not None:
            try:
                values = self.form.values()
                project = self.state.has_project
                hint = form_hint(self._form_key[0], values,
                                 self.state.data if project else None,
                                 self.state.definition if project else None)
                method_from_dict({"name": self._form_key[0], **values})
                if self.companion is not None and project:
                    self.companion.show_values(values, self.state.data, self.state.definition)
            except ConfigurationError as exc:
                message = str(exc)
        if problems:
            message = " ".join(problems.values())
        self.hint.setText(hint)
        self.hint.setVisible(bool(hint))
        self.error.setText(message)
        self.error.setVisible(bool(message))
        self._mark_fields(message, problems)
        return message

    def _mark_fields(self, message: str, problems: dict[str, str]) -> None:
        for param in self.form.params if self.form is not None else ():
            named = param.name in problems or bool(message) and any(
                re.search(rf"\b{re.escape(word)}\b", message)
                for word in {param.name, param.title})
            mark_invalid(self.form.widgets[param.name], named)

    def commit(self) -> None:
        """Write the form's parameters into the settings now (one undoable step); a
        mapping that cannot be read is not written (its message shows)."""
        self._timer.stop()
        if self.form is None or not self.state.has_project or self._filling:
            return
        name = self._form_key[0]
        if chosen_method(self.state.settings) != name:
            return
        values = self._form_values()
        if values is None:
            return
        self.state.set_settings(with_parameters(self.state.settings, name, values),
                                f"Change parameters of {self.method_label()}")
