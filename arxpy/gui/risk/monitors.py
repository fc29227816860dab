"""Threshold monitors: user-set limits on risk figures, each a small gauge that turns
red (with ✗) when the watched table exceeds its limit and green (with ✓) otherwise.

The watched table is the output of the applied transformation, or the input before a
run; the other side's value is shown beside it for comparison.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from arxpy.gui.risk.common import (
    EXCEEDED_COLOR,
    MET_COLOR,
    SIDE_COLORS,
    THRESHOLD_COLOR,
    percent,
)
from arxpy.risk import RiskAnalysis


def _uniqueness(analysis: RiskAnalysis) -> float:
    return analysis.population.dankar if analysis.population is not None else 0.0


@dataclass(frozen=True)
class Monitor:
    """One watched figure: ``measure`` maps an analysis to a fraction in [0, 1]."""

    key: str
    title: str
    measure: Callable[[RiskAnalysis], float]
    default_limit: float  # a fraction in [0, 1]
    help: str


MONITORS: tuple[Monitor, ...] = (
    Monitor("highest", "Highest prosecutor risk", lambda a: a.risks.prosecutor.highest, 0.2,
            "The risk of the most exposed record: 1 / size of the smallest class."),
    Monitor("average", "Average prosecutor risk", lambda a: a.risks.prosecutor.average, 0.05,
            "Classes over records: the expected share of records re-identified."),
    Monitor("at_risk", "Records at risk", lambda a: a.risks.prosecutor.records_above_threshold,
            0.0, "Share of records whose risk is above the record-risk threshold."),
    Monitor("uniqueness", "Population uniqueness", _uniqueness, 0.01,
            "Estimated share of the population that is unique (Dankar et al.'s estimator)."),
)


def exceeded(value: float | None, limit: float) -> bool | None:
    """True if ``value`` is above ``limit`` (both fractions), None without a value."""
    if value is None:
        return None
    # A tolerance: a value equal to its limit up to rounding meets it.
    return bool(value > limit + 1e-12)


class Gauge(QWidget):
    """A bar from 0 to a scale that shows both the value and the limit (marked by a
    vertical line); filled green within the limit, red above it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.value: float | None = None
        self.limit = 0.0
        self.setFixedHeight(12)
        self.setMinimumWidth(120)

    def set_values(self, value: float | None, limit: float) -> None:
        self.value, self.limit = value, limit
        self.update()

    def scale(self) -> float:
        """The gauge's full length as a fraction: room for the limit and the value."""
        top = max(2.0 * self.limit, 1.15 * (self.value or 0.0), 1e-6)
        return min(top, 1.0)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.fillRect(rect, QColor("#e8e8e8"))
        scale = self.scale()
        if self.value is not None:
            fill = QRectF(rect)
            fill.setWidth(rect.width() * min(self.value / scale, 1.0))
            state = exceeded(self.value, self.limit)
            painter.fillRect(fill, QColor(EXCEEDED_COLOR if state else MET_COLOR))
        x = rect.left() + rect.width() * min(self.limit / scale, 1.0)
        painter.setPen(QPen(QColor(THRESHOLD_COLOR), 2))
        painter.drawLine(int(x), 0, int(x), self.height())
        painter.setPen(QPen(QColor("#999")))
        painter.drawRect(rect)
        painter.end()


class MonitorWidget(QFrame):
    """One monitor: title, limit spin box (in %), gauge and verdict."""

    limit_changed = Signal()

    def __init__(self, monitor: Monitor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.monitor = monitor
        self.value: float | None = None
        self.side = "input"
        self.other: tuple[str, float] | None = None
        self.setObjectName("monitor")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setToolTip(monitor.help)
        self.limit = QDoubleSpinBox()
        self.limit.setRange(0.0, 100.0)
        self.limit.setDecimals(2)
        self.limit.setSuffix(" %")
        self.limit.setValue(100.0 * monitor.default_limit)
        self.limit.setKeyboardTracking(False)
        self.limit.valueChanged.connect(self._limit_changed)
        self.gauge = Gauge()
        self.verdict = QLabel()
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.verdict.setWordWrap(True)
        top = QHBoxLayout()
        title = QLabel(f"<b>{monitor.title}</b> ≤", wordWrap=True)  # fits 1280 px
        top.addWidget(title)
        top.addWidget(self.limit)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.gauge)
        layout.addWidget(self.verdict)
        self._redraw()

    @property
    def threshold(self) -> float:
        """The limit as a fraction in [0, 1]."""
        return self.limit.value() / 100.0

    def set_threshold(self, fraction: float) -> None:
        self.limit.setValue(100.0 * fraction)

    @property
    def exceeded(self) -> bool | None:
        """True (red) above the limit, False (green) within it, None without data."""
        return exceeded(self.value, self.threshold)

    def show_values(self, value: float | None, side: str,
                    other: tuple[str, float] | None = None) -> None:
        """Watch ``value`` of ``side``; ``other`` is (side, value) shown for comparison."""
        self.value, self.side, self.other = value, side, other
        self._redraw()

    def _limit_changed(self) -> None:
        self._redraw()
        self.limit_changed.emit()

    def _redraw(self) -> None:
        self.gauge.set_values(self.value, self.threshold)
        state = self.exceeded
        if state is None:
            self.verdict.setText("<span style='color:#777'>waiting for the analysis…</span>")
            self._set_style("")
            return
        color = EXCEEDED_COLOR if state else MET_COLOR
        word = "✗ exceeded" if state else "✓ met"
        text = (f"<span style='color:{color}; font-weight:bold'>{word}</span> "
                f"<span style='color:{SIDE_COLORS[self.side]}'>■</span> {self.side} "
                f"<b>{percent(self.value)}</b>")
        if self.other is not None:
            other_side, other_value = self.other
            text += (f" <span style='color:#666'>· {other_side} "
                     f"{percent(other_value)}</span>")
        self.verdict.setText(text)
        self._set_style(f"QFrame#monitor {{ border: 2px solid {color}; border-radius: 4px; }}")

    def _set_style(self, sheet: str) -> None:
        # A new style sheet re-polishes the frame and its children: only when it changes.
        if sheet != self.styleSheet():
            self.setStyleSheet(sheet)


class MonitorStrip(QWidget):
    """The row of monitors; ``changed`` fires when any limit changes."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.widgets = {m.key: MonitorWidget(m) for m in MONITORS}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in self.widgets.values():
            widget.limit_changed.connect(self.changed)
            layout.addWidget(widget, 1)

    def show_analyses(self, input_analysis: RiskAnalysis | None,
                      output_analysis: RiskAnalysis | None) -> None:
        """Watch the output if there is one, else the input."""
        for monitor in MONITORS:
            widget = self.widgets[monitor.key]
            if output_analysis is not None:
                other = ("input", monitor.measure(input_analysis)) if input_analysis else None
                widget.show_values(monitor.measure(output_analysis), "output", other)
            elif input_analysis is not None:
                widget.show_values(monitor.measure(input_analysis), "input")
            else:
                widget.show_values(None, "input")
