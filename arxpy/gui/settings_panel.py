"""General settings: suppression limit, search strategy and the quality model.

The widgets mirror ``settings`` (the :meth:`AnonymizationConfig.to_dict` shape). A
change is committed as one undoable settings edit after a short pause, so dragging
a spin box does not fill the undo history with every intermediate value.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.roles import (
    CLASS_NAMES,
    DISCRETE,
    fitting_attributes,
    guess_attribute,
    misfit_reason,
)
from arxpy.engine.config import LOCAL_RECODING_PARAMS
from arxpy.gui.help import help_button
from arxpy.gui.state import AppState
from arxpy.gui.strategy_hint import StrategyHint
from arxpy.help import Topic, model_topic
from arxpy.quality import quality_model_classes
from arxpy.quality.loss import AGGREGATES

STRATEGIES = {"optimal": "Optimal (prunes with monotonicity and bounds)",
              "exhaustive": "Exhaustive (checks every transformation)",
              "lightning": "Lightning (best found within a time limit)",
              "genetic": "Genetic (ARX's genetic algorithm, within a time limit)"}
#: The strategies bounded by the time limit (ARX's best-effort algorithms).
TIMED_STRATEGIES = ("lightning", "genetic")
AGGREGATE_LABELS = {"sum": "Sum", "max": "Maximum", "arithmetic_mean": "Arithmetic mean",
                    "geometric_mean": "Geometric mean", "rank": "Rank"}
COMMIT_DELAY_MS = 300
#: Local recoding's settings by name (declared once in the engine's configuration).
LOCAL_RECODING = {p.name: p for p in LOCAL_RECODING_PARAMS}
#: What the quality model's class attribute shows until one is chosen.
CHOOSE_CLASS = "Choose the class attribute…"


def quality_models() -> dict[str, tuple[str, list[str]]]:
    """Quality model name -> (label, names of its declared parameters), by label."""
    out = {name: (cls.label, [p.name for p in cls.params])
           for name, cls in quality_model_classes().items()}
    return dict(sorted(out.items(), key=lambda item: item[1][0]))


class SettingsPanel(QWidget):
    """Suppression, strategy, time limit, quality model and its parameters."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.models = quality_models()
        self._filling = False
        self._timer = QTimer(self, singleShot=True, interval=COMMIT_DELAY_MS)
        self._timer.timeout.connect(self.commit)
        self._make_widgets()
        self._layout()
        state.settings_changed.connect(self.refresh)
        state.definition_changed.connect(self.refresh)
        state.project_changed.connect(self.refresh)
        self.refresh()

    def _make_widgets(self) -> None:
        self.suppression = QDoubleSpinBox(decimals=2, minimum=0.0, maximum=100.0, suffix=" %",
                                          singleStep=1.0)
        self.suppression.setToolTip("Largest share of records that may be suppressed")
        self.strategy = QComboBox()
        for key, label in STRATEGIES.items():
            self.strategy.addItem(label, key)
        self.time_limit = QDoubleSpinBox(decimals=1, minimum=0.0, maximum=86400.0, suffix=" s",
                                         specialValueText="no limit", singleStep=5.0)
        self.strategy_hint = StrategyHint(self.state)
        self.local_passes = QSpinBox(minimum=0, maximum=1000, specialValueText="off",
                                     suffix=" passes")
        self.local_passes.setToolTip(LOCAL_RECODING["local_recoding"].help)
        self.local_gs_factor = QDoubleSpinBox(decimals=2, minimum=0.0, maximum=1.0,
                                              singleStep=0.05)
        self.local_gs_factor.setToolTip(LOCAL_RECODING["local_recoding_gs_factor"].help)
        self.quality = QComboBox()
        for name, (label, _params) in self.models.items():
            self.quality.addItem(label, name)
        self.gs_factor = QDoubleSpinBox(decimals=2, minimum=0.0, maximum=1.0, singleStep=0.05)
        self.gs_factor.setToolTip("0: prefer suppression, 1: prefer generalization")
        self.aggregate = QComboBox()
        for key in AGGREGATES:
            self.aggregate.addItem(AGGREGATE_LABELS.get(key, key), key)
        self.monotonic = QCheckBox("Assume monotonicity")
        self.class_attribute = QComboBox()
        for combo in (self.strategy, self.quality, self.aggregate, self.class_attribute):
            shrinkable(combo)
        self.class_attribute.setToolTip("The attribute the classification model should predict "
                                        "(text, ordinal or whole-number attributes)")
        # Says when the class attribute was suggested by its name (a hidden note keeps its
        # room: nothing below moves).
        self.class_note = QLabel(wordWrap=True)
        self.class_note.setTextFormat(Qt.TextFormat.PlainText)
        self.class_note.setStyleSheet("color: #555; font-style: italic")
        policy = self.class_note.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.class_note.setSizePolicy(policy)
        self.class_note.hide()
        for widget in (self.suppression, self.time_limit, self.gs_factor, self.local_passes,
                       self.local_gs_factor):
            widget.valueChanged.connect(self._changed)
        for combo in (self.strategy, self.quality, self.aggregate, self.class_attribute):
            combo.currentIndexChanged.connect(self._changed)
        self.monotonic.toggled.connect(self._changed)

    def _quality_topic(self) -> Topic:
        return model_topic(quality_model_classes()[self.quality.currentData() or "loss"],
                           "quality")

    def _layout(self) -> None:
        general = QWidget()
        form = QFormLayout(general)
        form.addRow("Suppression limit:", self.suppression)
        form.addRow("Search strategy:", self.strategy)
        form.addRow("Time limit:", self.time_limit)
        form.addRow(self.strategy_hint)
        form.addRow("Local recoding:", self.local_passes)
        form.addRow("Local recoding gs-factor:", self.local_gs_factor)
        quality = QWidget()
        qform = QFormLayout(quality)
        measure = QHBoxLayout()
        measure.addWidget(self.quality, 1)
        measure.addWidget(help_button(self._quality_topic, "What the chosen measure counts"))
        qform.addRow("Measure:", measure)
        qform.addRow("gs-factor:", self.gs_factor)
        qform.addRow("Aggregate:", self.aggregate)
        qform.addRow("Class attribute:", self.class_attribute)
        qform.addRow("", self.class_note)
        qform.addRow("", self.monotonic)
        self.tabs = QTabWidget()
        # The pages scroll rather than set the window's minimum height (720-pixel screens).
        self.tabs.addTab(scrolling(general), "General settings")
        self.tabs.addTab(scrolling(quality), "Quality model")
        self.weights = WeightsTable(self.state)
        self.tabs.addTab(self.weights, "Weights")
        self.tabs.setTabToolTip(self.tabs.count() - 1, "Attribute weights of the quality model")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)

    def refresh(self) -> None:
        """Show the current settings."""
        self.setEnabled(self.state.has_project)
        if not self.state.has_project:
            return
        self._timer.stop()
        self._filling = True
        settings = self.state.settings
        self.suppression.setValue(100.0 * float(settings.get("suppression_limit", 0.0)))
        chosen = settings.get("strategy")
        chosen = "lightning" if chosen == "heuristic" else chosen  # its former name
        self.strategy.setCurrentIndex(max(self.strategy.findData(chosen), 0))
        self.time_limit.setValue(float(settings.get("time_limit") or 0.0))
        self.local_passes.setValue(int(settings.get("local_recoding") or 0))
        self.local_gs_factor.setValue(float(settings.get(
            "local_recoding_gs_factor", LOCAL_RECODING["local_recoding_gs_factor"].default)))
        spec = dict(settings.get("quality_model") or {"name": "loss"})
        self._fill_class_attribute(spec.get("class_attribute"))
        self.quality.setCurrentIndex(max(self.quality.findData(spec.get("name")), 0))
        self.gs_factor.setValue(float(spec.get("gs_factor", 0.5)))
        self.aggregate.setCurrentIndex(max(self.aggregate.findData(spec.get("aggregate",
                                                                         "geometric_mean")), 0))
        self.monotonic.setChecked(bool(spec.get("monotonic", False)))
        self._filling = False
        self._enable_parameters()

    def _fill_class_attribute(self, given: object) -> None:
        """Offer the attributes a class can be, unchosen unless the settings name one or
        one column is named like a class (said in a note); a name that cannot be used is
        shown as given and marked, never replaced by another column."""
        definition = self.state.definition
        names = fitting_attributes(definition, DISCRETE)
        combo = self.class_attribute
        combo.clear()
        combo.addItem(CHOOSE_CLASS, None)
        for name in names:
            combo.addItem(name, name)
        self.class_note.setText("")
        self.class_note.hide()
        if given and given not in names:
            combo.insertItem(1, f"⚠ {given} ({misfit_reason(definition, given, DISCRETE)})",
                             given)
            combo.setItemData(1, QColor("#b3261e"), Qt.ItemDataRole.ForegroundRole)
        guess = None if given else guess_attribute(definition, CLASS_NAMES, DISCRETE)
        if guess:
            self.class_note.setText(f"Suggested: '{guess}' is named like a class; check it.")
            self.class_note.show()
        combo.setCurrentIndex(max(combo.findData(given or guess), 0))

    def _enable_parameters(self) -> None:
        params = self.models.get(self.quality.currentData(), ("", []))[1]
        self.gs_factor.setEnabled("gs_factor" in params)
        self.aggregate.setEnabled("aggregate" in params)
        self.monotonic.setEnabled("monotonic" in params)
        self.class_attribute.setEnabled("class_attribute" in params)
        self.time_limit.setEnabled(self.strategy.currentData() in TIMED_STRATEGIES)
        self.local_gs_factor.setEnabled(self.local_passes.value() > 0)

    def _changed(self) -> None:
        if self._filling:
            return
        if self.sender() is self.class_attribute:
            self.class_note.hide()  # chosen now, not suggested
        self._enable_parameters()
        self._timer.start()

    def quality_dict(self) -> dict[str, Any]:
        """The chosen quality model with the parameters it takes."""
        name = self.quality.currentData()
        params = self.models[name][1]
        spec: dict[str, Any] = {"name": name}
        previous = dict(self.state.settings.get("quality_model") or {})
        if previous.get("name") == name:  # keep parameters this panel does not show
            spec.update({k: v for k, v in previous.items() if k in params})
        values = {"gs_factor": self.gs_factor.value(), "aggregate": self.aggregate.currentData(),
                  "monotonic": self.monotonic.isChecked(),
                  "class_attribute": self.class_attribute.currentData() or ""}
        spec.update({k: v for k, v in values.items() if k in params})
        return spec

    def commit(self) -> None:
        """Write the widgets into the settings now (one undoable step)."""
        self._timer.stop()
        if not self.state.has_project:
            return
        time_limit = self.time_limit.value() or None
        settings = {
            **self.state.settings,
            "suppression_limit": round(self.suppression.value() / 100.0, 6),
            "strategy": self.strategy.currentData(),
            "time_limit": time_limit if self.strategy.currentData() in TIMED_STRATEGIES else None,
            "quality_model": self.quality_dict(),
            **dict.fromkeys(LOCAL_RECODING),
        }
        # Written only when on, so projects without local recoding keep their settings.
        if self.local_passes.value():
            settings.update(local_recoding=self.local_passes.value(),
                            local_recoding_gs_factor=round(self.local_gs_factor.value(), 6))
        self.state.set_settings({k: v for k, v in settings.items()
                                 if k not in LOCAL_RECODING or v is not None},
                                "Change general settings")


class WeightsTable(QTableWidget):
    """The weight of every quasi-identifier in one table (ARX's "Attribute weights")."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(0, 2, parent)
        self.state = state
        self.setHorizontalHeaderLabels(["Quasi-identifier", "Weight"])
        self.verticalHeader().hide()
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setDefaultSectionSize(24)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        state.definition_changed.connect(self.refresh)
        state.project_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        names = self.state.definition.quasi_identifiers if self.state.has_project else []
        self.setRowCount(len(names))
        for row, name in enumerate(names):
            self.setItem(row, 0, QTableWidgetItem(name))
            spin = QDoubleSpinBox(decimals=2, minimum=0.01, maximum=100.0, singleStep=0.1)
            spin.setValue(self.state.definition[name].weight)
            spin.editingFinished.connect(lambda n=name, s=spin: self.set_weight(n, s.value()))
            self.setCellWidget(row, 1, spin)

    def set_weight(self, name: str, weight: float) -> None:
        """Give quasi-identifier ``name`` a new weight (> 0; one undoable step)."""
        if self.state.definition[name].weight != weight:
            self.state.set_attribute(name, weight=float(weight))


def scrolling(page: QWidget) -> QScrollArea:
    """``page`` in a frameless scroll area that lets it shrink below its own height."""
    area = QScrollArea(widgetResizable=True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidget(page)
    return area


def shrinkable(combo: QComboBox, characters: int = 14) -> QComboBox:
    """Let a combo box with long entries narrow (the popup still shows them whole), so
    the Configure perspective leaves room for the data table."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(characters)
    combo.view().setTextElideMode(Qt.TextElideMode.ElideNone)
    return combo
