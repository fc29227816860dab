"""The Risk perspective's settings bar: population, record-risk threshold, size of the
quasi-identifier combinations scored, and the progress of the analyses with Cancel."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QWidget,
)

from arxpy.gui.plain_text import plain_label
from arxpy.gui.workers import JobProgressBar
from arxpy.risk import REGIONS, PopulationSetting
from arxpy.workflows.risk_jobs import RiskOptions

#: Region names as shown, ARX's wording.
REGION_TITLES = {"usa": "USA", "uk": "UK", "european_union": "European Union",
                 "north_america": "North America", "south_america": "South America"}
KIND_TITLES = {"region": "Region", "size": "Population size", "fraction": "Sampling fraction"}


def region_title(key: str) -> str:
    return REGION_TITLES.get(key, key.replace("_", " ").title())


class PopulationControl(QWidget):
    """How the population is given: a region preset, a size, or a sampling fraction."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = QComboBox()
        for key, title in KIND_TITLES.items():
            self.kind.addItem(title, key)
        self.region = QComboBox()
        for key in sorted(REGIONS, key=region_title):
            self.region.addItem(f"{region_title(key)} ({REGIONS[key]:,})", key)
        self.region.setCurrentIndex(self.region.findData("usa"))
        self.size = QSpinBox()
        self.size.setRange(1, 2_000_000_000)
        self.size.setGroupSeparatorShown(True)
        self.size.setValue(REGIONS["usa"])
        self.size.setKeyboardTracking(False)
        self.fraction = QDoubleSpinBox()
        self.fraction.setDecimals(6)
        self.fraction.setRange(0.000001, 1.0)
        self.fraction.setSingleStep(0.01)
        self.fraction.setValue(0.01)
        self.fraction.setKeyboardTracking(False)
        # "European Union (447,706,209)" may be cut in the closed box (the list shows it
        # whole): at 1280 pixels the bar must leave room for the progress and Cancel.
        self.region.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.region.setMinimumContentsLength(16)
        self.stack = QStackedWidget()
        for widget in (self.region, self.size, self.fraction):
            self.stack.addWidget(widget)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.kind)
        layout.addWidget(self.stack)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.region.currentIndexChanged.connect(self.changed)
        self.size.valueChanged.connect(self.changed)
        self.fraction.valueChanged.connect(self.changed)

    def _kind_changed(self, index: int) -> None:
        self.stack.setCurrentIndex(index)
        self.changed.emit()

    def setting(self) -> PopulationSetting:
        kind = self.kind.currentData()
        value = {"region": self.region.currentData(), "size": self.size.value(),
                 "fraction": self.fraction.value()}[kind]
        return PopulationSetting(kind, value)

    def set_region(self, key: str) -> None:
        """Choose region preset ``key`` (a key of REGIONS)."""
        self.kind.setCurrentIndex(self.kind.findData("region"))
        self.region.setCurrentIndex(self.region.findData(key))


class SettingsBar(QWidget):
    """Settings of every analysis, with the progress of the running ones."""

    population_changed = Signal()
    threshold_changed = Signal()
    qi_size_changed = Signal()
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.population = PopulationControl()
        self.population.setToolTip("The population the data were sampled from; population "
                                   "uniqueness is estimated for it.")
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 100.0)
        self.threshold.setDecimals(2)
        self.threshold.setSuffix(" %")
        self.threshold.setValue(20.0)
        self.threshold.setKeyboardTracking(False)
        self.threshold.setToolTip("Records whose prosecutor risk is above this count as at "
                                  "risk (ARX's default 20 %, i.e. classes smaller than 5).")
        self.qi_size = QSpinBox()
        self.qi_size.setRange(1, 12)
        self.qi_size.setValue(3)
        self.qi_size.setKeyboardTracking(False)
        self.qi_size.setToolTip("Quasi-identifier combinations up to this many attributes "
                                "are scored (more take longer).")
        self.progress = JobProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setFixedWidth(140)
        self.status = plain_label(QLabel())
        self.status.setStyleSheet("color: #555")
        self.status.setWordWrap(True)  # a long message wraps rather than widening the window
        # A new progress message must not change the bar's geometry: that re-laid out
        # the perspective and repainted its plots on every report, during the analyses.
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.status.setFixedHeight(2 * self.status.fontMetrics().lineSpacing() + 2)
        self.cancel = QPushButton("Cancel")
        for widget in (self.progress, self.cancel):  # shown or not, they keep their place
            policy = widget.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            widget.setSizePolicy(policy)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for text, widget in (("Population:", self.population),
                             ("Record-risk threshold:", self.threshold),
                             ("Combinations up to:", self.qi_size)):
            layout.addWidget(QLabel(text))
            layout.addWidget(widget)
            layout.addSpacing(10)
        layout.addStretch(1)
        layout.addWidget(self.status)
        layout.addWidget(self.progress)
        layout.addWidget(self.cancel)
        self.population.changed.connect(self.population_changed)
        self.threshold.valueChanged.connect(self.threshold_changed)
        self.qi_size.valueChanged.connect(self.qi_size_changed)
        self.cancel.clicked.connect(self.cancel_requested)
        self.show_busy(False)

    def options(self) -> RiskOptions:
        return RiskOptions(self.population.setting(), self.threshold.value() / 100.0,
                           self.qi_size.value())

    def show_busy(self, busy: bool, percent: int = 0, message: str = "") -> None:
        """Show progress (and Cancel) while analyses run."""
        self.progress.setVisible(busy)
        self.cancel.setVisible(busy)
        self.progress.setValue(percent)
        self.status.setText(message if busy else "")
