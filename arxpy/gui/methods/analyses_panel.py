"""Where the data recipient's planned analyses are declared (Gal et al. 2014's "data
recipient centered" step; spec §6): linear, logistic or Cox models with response or
time/event, covariates and an optional row filter, picked from the data's columns."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.model_preservation import ModelSpec, read_analyses
from arxpy.errors import ConfigurationError

TYPES = {"ols": "Linear (OLS)", "logit": "Logistic", "cox": "Cox proportional hazards"}
NO_FILTER = "(all records)"
#: Keys of an analysis that the form sets; others (``categorical``) pass through.
_EDITED = ("name", "type", "covariates", "response", "time", "event", "event_value",
           "threshold", "filter")
#: Most covariates a suggested analysis starts with.
MOST_COVARIATES = 8


def suggested_analyses(data: pd.DataFrame, columns: Sequence[str], time: str | None,
                       status: str | None, event_value: str | None) -> list[ModelSpec]:
    """A starting point: with a time and status, the paper's Cox model and a linear model
    of time on the deceased; otherwise a linear model of the first numeric attribute with
    more than two values."""
    columns = list(columns)
    if time in columns and status in columns:
        values = sorted(set(data[status].astype(str)))
        event = event_value if event_value in values else ("1" if "1" in values else values[0])
        covariates = tuple(c for c in columns if c not in (time, status))[:MOST_COVARIATES]
        if covariates:
            return [ModelSpec("cox", "cox", covariates, time=time, event=status,
                              event_value=event),
                    ModelSpec("linear", "ols", covariates, response=time,
                              filter={"column": status, "equals": event})]
    numeric = [c for c in columns if pd.to_numeric(data[c], errors="coerce").notna().all()]
    if not numeric or len(columns) < 2:
        return []
    # A binary attribute (a status) makes a poor linear response: prefer a measurement.
    response = next((c for c in numeric if data[c].nunique() > 2), numeric[0])
    covariates = tuple(c for c in columns if c != response)[:MOST_COVARIATES]
    return [ModelSpec("linear", "ols", covariates, response=response)]


class AnalysesPanel(QWidget):
    """A list of declared analyses and an editor for the selected one."""

    def __init__(self, data: pd.DataFrame, columns: Sequence[str],
                 analyses: Sequence[ModelSpec] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data = data
        self.columns = list(columns)
        self._items: list[dict[str, Any]] = []
        self._loading = False
        self.list = QListWidget()
        self.list.setMaximumHeight(90)
        self.list.currentRowChanged.connect(self._select)
        self.name = QLineEdit()
        self.type = QComboBox()
        for key, text in TYPES.items():
            self.type.addItem(text, key)
        self.response, self.time, self.event_column = (self._combo() for _ in range(3))
        self.event_value = QComboBox()
        self.threshold = QLineEdit()
        self.threshold.setPlaceholderText("median of the original")
        self.covariates = QListWidget()
        self.covariates.setMinimumHeight(80)
        for name in self.columns:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.covariates.addItem(item)
        self.filter_column = self._combo(NO_FILTER)
        self.filter_value = QComboBox()
        for combo in (self.type, self.response, self.time, self.event_column,
                      self.event_value, self.filter_column, self.filter_value):
            # Long attribute names must not widen the panel beyond its column.
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)
        self.form = self._form()
        self._connect()
        buttons = QHBoxLayout()
        for text, slot in (("Add", self.add), ("Remove", self.remove), ("Load…", self._load)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        layout.addLayout(self.form)
        self.set_analyses(analyses)

    def _combo(self, first: str | None = None) -> QComboBox:
        combo = QComboBox()
        combo.addItems(([first] if first else []) + self.columns)
        return combo

    def _form(self) -> QFormLayout:
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Model", self.type)
        form.addRow("Response", self.response)
        form.addRow("Threshold", self.threshold)
        form.addRow("Time", self.time)
        form.addRow("Event", self.event_column)
        form.addRow("Event value", self.event_value)
        form.addRow("Covariates", self.covariates)
        form.addRow("Only rows where", self.filter_column)
        form.addRow("equals", self.filter_value)
        return form

    def _connect(self) -> None:
        for edit in (self.name, self.threshold):
            edit.textChanged.connect(self._store)
        for combo in (self.type, self.response, self.time, self.event_value, self.filter_value):
            combo.currentIndexChanged.connect(self._store)
        self.event_column.currentIndexChanged.connect(lambda _: self._values(self.event_column,
                                                                      self.event_value))
        self.filter_column.currentIndexChanged.connect(
            lambda _: self._values(self.filter_column, self.filter_value))
        self.covariates.itemChanged.connect(self._store)

    # --- the list ---------------------------------------------------------------------

    def set_analyses(self, analyses: Sequence[ModelSpec]) -> None:
        self._items = [spec.to_dict() for spec in analyses]
        self._refresh_list(0 if self._items else -1)

    def analyses(self) -> list[ModelSpec]:
        """The declarations as specs; ConfigurationError names the first bad one."""
        if not self._items:
            raise ConfigurationError("Declare at least one analysis (Add).")
        names = [item["name"] for item in self._items]
        if len(set(names)) != len(names):
            raise ConfigurationError("Give every analysis its own name.")
        for item in self._items:
            _check_item(item)
        return [ModelSpec.from_dict({k: v for k, v in item.items() if v is not None})
                for item in self._items]

    def add(self) -> None:
        template = dict(self._items[-1]) if self._items else {
            "type": "ols", "response": self.columns[0] if self.columns else None,
            "covariates": self.columns[1:3]}
        template["name"] = f"model {len(self._items) + 1}"
        self._items.append(template)
        self._refresh_list(len(self._items) - 1)

    def remove(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self._items):
            del self._items[row]
            self._refresh_list(min(row, len(self._items) - 1))

    def load(self, path: str | Path) -> None:
        """Declarations from an analyses file (the format of ``arxpy compare-models``)."""
        self.set_analyses(read_analyses(path))

    def _load(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load analyses", "", "JSON (*.json)")
        if path:
            self.load(path)

    def _refresh_list(self, row: int) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for item in self._items:
            self.list.addItem(f"{item['name']} — {TYPES[item['type']]}")
        self.list.blockSignals(False)
        self.form_enabled(row >= 0)
        if row >= 0:
            self.list.setCurrentRow(row)
            self._select(row)

    def form_enabled(self, enabled: bool) -> None:
        for i in range(self.form.rowCount()):
            item = self.form.itemAt(i, QFormLayout.ItemRole.FieldRole)
            if item is not None and item.widget() is not None:
                item.widget().setEnabled(enabled)

    # --- the editor -------------------------------------------------------------------

    def _select(self, row: int) -> None:
        if not 0 <= row < len(self._items):
            return
        item = self._items[row]
        self._loading = True
        self.name.setText(item["name"])
        self.type.setCurrentIndex(self.type.findData(item["type"]))
        self.response.setCurrentText(item.get("response") or self.columns[0])
        self.time.setCurrentText(item.get("time") or self.columns[0])
        self.event_column.setCurrentText(item.get("event") or self.columns[0])
        self._values(self.event_column, self.event_value, item.get("event_value"))
        threshold = item.get("threshold")
        self.threshold.setText("" if threshold is None else f"{threshold:g}")
        chosen = set(item.get("covariates") or ())
        for i in range(self.covariates.count()):
            cell = self.covariates.item(i)
            cell.setCheckState(Qt.CheckState.Checked if cell.text() in chosen
                               else Qt.CheckState.Unchecked)
        where = item.get("filter") or {}
        self.filter_column.setCurrentText(where.get("column", NO_FILTER))
        self._values(self.filter_column, self.filter_value, where.get("equals"))
        self._loading = False
        self._show_rows(item["type"])

    def _values(self, column: QComboBox, target: QComboBox, chosen: str | None = None) -> None:
        name = column.currentText()
        values = sorted(set(self.data[name].astype(str)))[:100] \
            if name in self.data.columns else []
        was = self._loading
        self._loading = True
        target.clear()
        target.addItems(values)
        if chosen is not None and str(chosen) in values:
            target.setCurrentText(str(chosen))
        self._loading = was
        self._store()

    def _show_rows(self, kind: str) -> None:
        rows = {self.response: kind != "cox", self.threshold: kind == "logit",
                self.time: kind == "cox", self.event_column: kind == "cox",
                self.event_value: kind == "cox"}
        for widget, visible in rows.items():
            self.form.setRowVisible(widget, visible)

    def _store(self, *_: Any) -> None:
        row = self.list.currentRow()
        if self._loading or not 0 <= row < len(self._items):
            return
        kind = self.type.currentData()
        # Keys the form does not edit (reference levels from a loaded file) are kept.
        item = {key: value for key, value in self._items[row].items() if key not in _EDITED}
        item.update(name=self.name.text().strip() or f"model {row + 1}", type=kind,
                    covariates=[self.covariates.item(i).text()
                                for i in range(self.covariates.count())
                                if self.covariates.item(i).checkState() == Qt.CheckState.Checked])
        if isinstance(item.get("categorical"), dict):
            item["categorical"] = {c: ref for c, ref in item["categorical"].items()
                                   if c in item["covariates"]}
        if kind == "cox":
            item.update(time=self.time.currentText(), event=self.event_column.currentText(),
                        event_value=self.event_value.currentText())
        else:
            item["response"] = self.response.currentText()
        if kind == "logit" and self.threshold.text().strip():
            item["threshold"] = _number(self.threshold.text())
        if self.filter_column.currentText() != NO_FILTER:
            item["filter"] = {"column": self.filter_column.currentText(),
                              "equals": self.filter_value.currentText()}
        self._items[row] = item
        self.list.item(row).setText(f"{item['name']} — {TYPES[kind]}")
        self._show_rows(kind)


def _check_item(item: dict[str, Any]) -> None:
    """What the form allows but no fit can use, said in the form's words."""
    where = f"Analysis '{item['name']}'"
    if isinstance(item.get("threshold"), str):
        raise ConfigurationError(f"{where}: the threshold must be a number, got "
                                 f"{item['threshold']!r}; leave it empty for the median.")
    outcome = [item.get(key) for key in ("response", "time", "event") if item.get(key)]
    clash = [c for c in item.get("covariates", ()) if c in outcome]
    if clash:
        raise ConfigurationError(f"{where}: '{clash[0]}' is an outcome of the model and "
                                 "cannot also be a covariate; untick it.")
    if item["type"] == "cox" and item.get("time") == item.get("event"):
        raise ConfigurationError(f"{where}: time and event must be different attributes.")


def _number(text: str) -> float | str:
    """The threshold as a number, or the text (refused with a message at Run)."""
    try:
        return float(text)
    except ValueError:
        return text.strip()
