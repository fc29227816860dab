"""The risk of the codes before disassociation (spec 002 §6 "Risk view, before running";
the paper's Fig. 12): the share of distinct combinations of 1-5 codes held by 1, 2, ...,
10, > 10 records as stacked bars, the combinations held by fewer than k records in warm
colours, and the records at risk for the chosen k and m as a figure.

Configure shows it beside the disassociation form (:class:`RiskChart`); the runs page's
Combination risk tab draws the same chart (:func:`draw_combination_chart`). The counts
come from :mod:`arxpy.analysis.setvalued_risk`, as for ``arxpy setvalued-risk``.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from arxpy.analysis.setvalued_risk import (
    OCCURRENCE_BINS,
    CombinationCounts,
    CombinationRisk,
)
from arxpy.data.definition import DataDefinition
from arxpy.errors import ArxpyError
from arxpy.gui.utility.common import note, plot_widget
from arxpy.gui.workers import JobWorker, ViewJob
from arxpy.methods import method_from_dict
from arxpy.methods.disassociation import Disassociation
from arxpy.workflows.disassociation_jobs import RiskPreview, risk_preview_job

#: Wait this long after the last edit before counting (typing k = 25 is two edits).
DEBOUNCE_MS = 300
#: Bins held by fewer than k records (at risk): dark red (1 record) to light orange.
AT_RISK_COLORS = ("#7f0000", "#f5a25d")
#: Bins held by k or more records: dark to light blue.
SAFE_COLORS = ("#1f5f99", "#c9dcee")
#: The "> 10" bin when k > 11 holds combinations on both sides of k.
MIXED_COLOR = "#b8b8b8"


def _blend(ends: tuple[str, str], steps: int) -> list[str]:
    first, last = QColor(ends[0]), QColor(ends[1])
    out = []
    for i in range(steps):
        t = i / (steps - 1) if steps > 1 else 0.0
        out.append(QColor(round(first.red() + (last.red() - first.red()) * t),
                          round(first.green() + (last.green() - first.green()) * t),
                          round(first.blue() + (last.blue() - first.blue()) * t)).name())
    return out


def bin_colors(k: int) -> list[str]:
    """One colour per occurrence bin: warm for bins of fewer than ``k`` records."""
    exact = [int(b) for b in OCCURRENCE_BINS[:-1]]
    risky = [b for b in exact if b < k]
    safe = [b for b in exact if b >= k]
    last = MIXED_COLOR if k > len(exact) + 1 else None
    colors = _blend(AT_RISK_COLORS, len(risky)) + _blend(SAFE_COLORS, len(safe) + (last is None))
    return colors + ([last] if last else [])


def bin_legend(k: int) -> str:
    """Rich text naming each bin's colour, and what the warm colours mean."""
    swatches = " ".join(f"<span style='color:{c}'>■</span>{b}"
                        for b, c in zip(OCCURRENCE_BINS, bin_colors(k), strict=True))
    mixed = " (grey: more than 10, some fewer than k)" if k > len(OCCURRENCE_BINS) else ""
    return (f"Held by {swatches} records; warm: fewer than k = {k}{mixed}.")


def draw_combination_chart(widget: pg.PlotWidget, counts: CombinationCounts, k: int) -> None:
    """One stacked bar per combination size: the % of its distinct combinations held by
    1, 2, ..., 10, > 10 records, bottom to top (see :func:`bin_colors`)."""
    plot = widget.getPlotItem()
    plot.clear()
    sizes = sorted(counts.histogram)
    if not sizes:
        return
    x = np.arange(len(sizes), dtype=float)
    base = np.zeros(len(sizes))
    for name, color in zip(OCCURRENCE_BINS, bin_colors(k), strict=True):
        heights = np.array([counts.histogram[s][name] for s in sizes])
        plot.addItem(pg.BarGraphItem(x=x, y0=base.copy(), height=heights, width=0.7,
                                     brush=pg.mkBrush(color), pen=pg.mkPen("w", width=0.5)))
        base += heights
    plot.getAxis("bottom").setTicks([[(float(i), f"{s}") for i, s in enumerate(sizes)]])
    plot.setXRange(-0.55, len(sizes) - 0.45, padding=0)
    plot.setYRange(0, 100, padding=0)


def at_risk_text(risk: CombinationRisk, records: int) -> str:
    """The records at risk as a figure with its meaning (rich text)."""
    color = "#b3261e" if risk.records_at_risk_percent > 0 else "#1b6e20"
    return (f"<b>At risk before disassociation:</b> <span style='font-size:13pt; "
            f"color:{color}'><b>{risk.records_at_risk_percent:.1f} %</b></span> of "
            f"{records:,} records<br><span style='color:#555'>hold at most {risk.m} "
            f"code{'s' if risk.m > 1 else ''} that fewer than k = {risk.k} records share"
            "</span>")


def cap_text(counts: CombinationCounts) -> str:
    if not counts.capped_records:
        return ""
    return f"4-5 codes: {counts.capped_records:,} long records sampled to {counts.cap} codes."


class _Counted:
    """What was counted on one table read one way: its code sets, the combination
    counts, and the records at risk per (k, m). One table at a time (the project's)."""

    def __init__(self) -> None:
        self._data: weakref.ref | None = None
        self._reading: tuple[Any, ...] | None = None
        self.sets = None
        self.counts: CombinationCounts | None = None
        self.percent: dict[tuple[int, int], float] = {}

    def of(self, data: pd.DataFrame, reading: tuple[Any, ...]) -> _Counted:
        """Forget everything counted on another table or another reading of it."""
        if self._data is None or self._data() is not data or self._reading != reading:
            self._data, self._reading = weakref.ref(data), reading
            self.sets, self.counts, self.percent = None, None, {}
        return self

    def holds(self, data: pd.DataFrame, reading: tuple[Any, ...]) -> bool:
        return self._data is not None and self._data() is data and self._reading == reading

    def risk(self, k: int, m: int) -> CombinationRisk | None:
        if self.counts is None or (k, m) not in self.percent:
            return None
        return CombinationRisk.of(self.counts, k, m, self.percent[(k, m)])


_COUNTED = _Counted()


def _reading(method: Disassociation) -> tuple[Any, ...]:
    return (method.codes_column, method.delimiter, method.multiset)


class RiskChart(QWidget):
    """Beside the disassociation form: the chart and the records at risk for the form's
    k and m, recounted in the background when the data or k/m change (the previous count
    cancelled), from what was already counted on the same data where possible."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = ViewJob(self)
        self.job.progress.connect(lambda _percent, message: self.status.setText(message + "…"))
        self.job.failed.connect(self._ended)
        self.job.cancelled.connect(lambda: self._ended(""))
        self.risk: CombinationRisk | None = None  # what the chart shows
        self._wanted: tuple[pd.DataFrame, Disassociation] | None = None
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self._start)
        self.figure = QLabel(wordWrap=True)
        self.figure.setToolTip("Records holding a combination of at most m codes that fewer "
                               "than k records share: an attacker who knows those codes "
                               "narrows the patient down to fewer than k records. These are "
                               "the records k^m-anonymity must protect.")
        self.status = note()
        self.chart = plot_widget("", "codes in the combination", "% of combinations")
        self.chart.setMinimumHeight(140)
        self.chart.setToolTip("Of the distinct combinations of 1-5 codes in the data, the "
                              "share held by 1, 2, ..., 10 and more than 10 records (the "
                              "paper's Fig. 12).")
        self.legend = note()
        self.cap = note()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.figure)
        layout.addWidget(self.status)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.cap)
        self.status.setText("Counting starts when the codes column is set.")

    @property
    def busy(self) -> bool:
        """A count is waiting or running."""
        return self._timer.isActive() or self.job.running

    def show_values(self, values: Mapping[str, Any], data: pd.DataFrame | None,
                    definition: DataDefinition | None) -> None:
        """Show the risk for the form's ``values`` on ``data`` (counted if not yet)."""
        if data is None:
            return
        try:
            method = method_from_dict({"name": "disassociation", **values})
        except ArxpyError:
            return  # the form names what to fix; the last chart stays
        self._wanted = (data, method)
        known = _COUNTED.risk(method.k, method.m) \
            if _COUNTED.holds(data, _reading(method)) else None
        if known is not None:
            self._timer.stop()
            self.job.forget()  # superseded
            self._draw(known, len(_COUNTED.sets))
            return
        self.status.setText(f"Counting for k = {method.k}, m = {method.m}…")
        self.status.setVisible(True)
        self._timer.start()

    def _start(self) -> None:
        if self._wanted is None:
            return
        data, method = self._wanted
        counted = _COUNTED.of(data, _reading(method))
        self.job.start(risk_preview_job, method=method, data=data, sets=counted.sets,
                       counts=counted.counts,
                       on_finished=lambda result: self._done(data, method, result))

    @property
    def worker(self) -> JobWorker | None:
        return self.job.worker

    def _done(self, data: pd.DataFrame, method: Disassociation, result: RiskPreview) -> None:
        if _COUNTED.holds(data, _reading(method)):  # the user may come back to this k, m
            _COUNTED.sets, _COUNTED.counts = result.sets, result.risk
            _COUNTED.percent[(method.k, method.m)] = result.risk.records_at_risk_percent
        self._draw(result.risk, len(result.sets))

    def _ended(self, message: str) -> None:
        self.status.setText(message)
        self.status.setVisible(bool(message))

    def _draw(self, risk: CombinationRisk, records: int) -> None:
        self.risk = risk
        self.figure.setText(at_risk_text(risk, records))
        self.status.setText("")
        self.status.setVisible(False)
        draw_combination_chart(self.chart, risk, risk.k)
        self.legend.setText(bin_legend(risk.k))
        self.cap.setText(cap_text(risk))
        self.cap.setVisible(bool(self.cap.text()))
        self.cap.setToolTip(f"Combinations of 4-5 codes of the {risk.capped_records:,} records "
                            f"with more than {risk.cap} codes are counted on a random "
                            f"{risk.cap} of their codes (the exact count is exponential).")
