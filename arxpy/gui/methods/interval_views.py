"""Result views of interval generalisation (issue 14, spec ``001-interval-generalisation.md``
§6): boxes with leftovers, unchanged values and nesting; the per-record intervals; 1-D
and 2-D plots; the interval-statistics panel; and a k sweep of widths against k."""

from __future__ import annotations

import html
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.interval_report import (
    SWEEP_STATISTICS,
    default_statistics,
    interval_summary,
    largest_within,
    parse_width_limits,
    release_bounds,
)
from arxpy.errors import ArxpyError
from arxpy.gui.methods.common import (
    SERIES_COLORS,
    Figures,
    SizeHistogram,
    caveat_banner,
    frame_view,
    number,
)
from arxpy.gui.methods.interval_plots import IntervalPlots
from arxpy.gui.methods.views import register_result_view
from arxpy.gui.utility.common import (
    GREEN,
    VERMILLION,
    fill_table,
    note,
    plot_widget,
    read_only_table,
)
from arxpy.gui.utility.runner import JobControls
from arxpy.methods.interval_boxes import gradient_rule
from arxpy.workflows.interval_sweeps import (
    k_sweep_job,
    original_values,
    statistics_job,
    target_pairs,
)
from arxpy.workflows.runs import MethodRun

CAVEAT = ("interval endpoints are real values of boundary records (each box spans its "
          "members' minimum and maximum), and an unchanged value [v, v] publishes an exact "
          "value that at least k records share. Only the boxed attributes are protected; "
          "other columns are released as they are.")


#: Bounds and original values read once per release and shared by its views (parsing
#: 100,000 cells takes a while).
_BOUNDS: WeakKeyDictionary = WeakKeyDictionary()
_ORIGINAL: WeakKeyDictionary = WeakKeyDictionary()


def _bounds(run: MethodRun):
    if run.release not in _BOUNDS:
        _BOUNDS[run.release] = release_bounds(run.release.table, run.method.attributes)
    return _BOUNDS[run.release]


def _original(run: MethodRun) -> dict[str, np.ndarray]:
    if run.release not in _ORIGINAL:
        _ORIGINAL[run.release] = original_values(run.method, run.data)
    return _ORIGINAL[run.release]


class BoxesView(QWidget):
    """Boxes, smallest box against k, leftovers; per attribute unchanged values, nesting
    and mean width; the box-size histogram; the privacy caveat."""

    COLUMNS = ("Attribute", "Unchanged values", "Nesting", "Mean width")

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        method = run.method
        self.summary = interval_summary(_bounds(run), run.release.groups, method.k)
        s = self.summary
        self.figures = Figures([
            ("Records", f"{s.records:,}", f"boxed: {', '.join(method.attributes)}"),
            ("Boxes", f"{s.boxes:,}", "distinct boxes, each shared by its records"),
            ("Smallest box", f"{s.min_box_size:,}",
             f"k = {s.k}: {'every box holds at least k' if s.min_box_size >= s.k else 'BELOW k'}"),
            ("Leftovers", f"{s.leftovers:,}",
             f"records merged into an existing box (merge rule '{method.merge}')"),
        ], columns=4)
        self.table = read_only_table(self.COLUMNS)
        fill_table(self.table, [
            (a, f"{s.unchanged[a]:,} ({100 * s.unchanged[a] / max(s.records, 1):.1f} %)",
             "yes" if s.nesting[a] else "no",
             number(s.mean_width[a])) for a in method.attributes], bold_first=True)
        self.table.setMaximumHeight(30 + 24 * len(method.attributes))
        layout = QVBoxLayout(self)
        layout.addWidget(caveat_banner(CAVEAT[0].upper() + CAVEAT[1:]))
        layout.addWidget(QLabel(f"<b>Target</b> "
                                f"{html.escape(gradient_rule(method.target), quote=False)}; "
                                f"order '{method.order}', merge rule '{method.merge}'."))
        layout.addWidget(self.figures)
        layout.addWidget(self.table)
        layout.addWidget(note("Unchanged values are intervals [v, v] (at least k records "
                              "share v). Nesting: some interval lies inside another, which "
                              "makes exact variance bounds expensive; a one-attribute release "
                              "never nests."))
        layout.addWidget(SizeHistogram(s.box_sizes, s.k, "box"), 1)


class RecordsView(QWidget):
    """The per-record intervals; the data holder sees the original value beside them."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        bounds = _bounds(run)
        original = _original(run)
        columns: dict[str, Any] = {"box": np.asarray(run.release.groups)}
        for a, (lo, hi) in bounds.items():
            columns[a] = original[a]
            columns[f"{a}_lo"], columns[f"{a}_hi"] = lo, hi
        self.frame = pd.DataFrame(columns)
        self.view = frame_view(self.frame, _cell)
        self.holder = QCheckBox("Show original values (data holder only)")
        self.holder.setChecked(True)
        self.holder.toggled.connect(self._show_original)
        layout = QVBoxLayout(self)
        layout.addWidget(note("One row per record in input order: its box, and per attribute "
                              "the original value and the released interval [lo, hi]."))
        layout.addWidget(self.holder)
        layout.addWidget(self.view, 1)

    def _show_original(self, shown: bool) -> None:
        for name in self.frame.columns:
            if not name.endswith(("_lo", "_hi")) and name != "box":
                self.view.setColumnHidden(self.frame.columns.get_loc(name), not shown)


def _cell(value: Any) -> str:
    if isinstance(value, float | np.floating):
        return number(float(value), 6)
    return str(value)


class StatisticsPanel(QWidget):
    """Interval statistics of the release: range, width, flag, algorithm and, for the data
    holder, the true value and whether the range contains it. Computed in the
    background, the first time the panel is shown and on request."""

    COLUMNS = ("Statistic", "Range", "Width", "Relative width", "Flag", "True value",
               "Inside")

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bounds = _bounds(run)
        self.original = _original(run)
        self.result: pd.DataFrame | None = None
        self.statistics = QLineEdit(default_statistics(run.method.attributes))
        self.ddof = QComboBox()
        self.ddof.addItem("population (÷ n)", 0)
        self.ddof.addItem("sample (÷ n − 1)", 1)
        self.holder = QCheckBox("Show true values (data holder only)")
        self.holder.setChecked(True)
        self.holder.toggled.connect(lambda _: self._show(self.result))
        self.controls = JobControls("Compute")
        self.controls.run_requested.connect(self.start)
        self.controls.finished.connect(self._show)
        self.table = read_only_table(self.COLUMNS)
        self.algorithms = note()
        top = QHBoxLayout()
        top.addWidget(QLabel("Statistics"))
        top.addWidget(self.statistics, 3)
        top.addWidget(self.ddof)
        top.addWidget(self.holder)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(note("As for <code>arxpy interval-stats</code>: mean, median, q:0.9, "
                              "variance, sd, gmean, hmean, cv, iqr, skewness, ci:0.95, "
                              "exceed:T, cov:A,B, corr:A,B. <b>exact</b>: the range is the "
                              "tightest possible; <b>outer</b>: guaranteed to contain it, "
                              "possibly wider."))
        layout.addWidget(self.controls)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.algorithms)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self.result is None and not self.controls.running:
            self.start()

    def start(self) -> None:
        self.controls.start(statistics_job, bounds=self.bounds,
                            statistics=self.statistics.text(), original=self.original,
                            ddof=self.ddof.currentData())

    def _show(self, result: pd.DataFrame | None) -> None:
        self.result = result
        if result is None:
            return
        holder = self.holder.isChecked()
        rows = []
        for r in result.itertuples():
            span = "—" if np.isnan(r.lo) else f"[{number(r.lo)}, {number(r.hi)}]"
            inside = "—" if r.inside is None else ("yes" if r.inside else "NO")
            rows.append((r.statistic, span, number(r.width), _relative(r.relative_width),
                         r.flag, number(r.true) if holder else "hidden",
                         inside if holder else "hidden"))
        fill_table(self.table, rows, bold_first=True)
        algorithms = dict.fromkeys(f"{r.statistic.split('(')[0]}: {r.algorithm}"
                                   for r in result.itertuples())
        self.algorithms.setText("Algorithms — " + "; ".join(algorithms))


def _relative(value: float) -> str:
    return "—" if value is None or not np.isfinite(value) else f"{100 * value:.1f} %"


class KSweepView(QWidget):
    """Widths of the mean and sd ranges per attribute against k (a background job), and
    with width limits the largest k that keeps every limited width within its limit."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.sweep: pd.DataFrame | None = None
        self.limits: dict[str, float] = {}
        self.best_k: int | None = None
        n = len(run.data)
        self.k_max = QSpinBox()
        self.k_max.setRange(2, max(2, n))
        self.k_max.setValue(min(n, max(2 * run.method.k, 20)))
        self.limits_text = QLineEdit()
        self.limits_text.setPlaceholderText(f"optional, e.g. mean:{run.method.attributes[0]}=5")
        self.statistic = QComboBox()
        self.statistic.addItems([*SWEEP_STATISTICS, *(p.split(":")[0]
                                                      for p in target_pairs(run.method))])
        self.statistic.currentTextChanged.connect(lambda _: self._draw())
        self.controls = JobControls("Run sweep")
        self.controls.run_requested.connect(self.start)
        self.controls.finished.connect(self._show)
        self.plot = plot_widget("Width of the statistic's range against k", "k", "width")
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("k from 2 to"))
        top.addWidget(self.k_max)
        top.addWidget(QLabel("Width limits"))
        top.addWidget(self.limits_text, 1)
        top.addWidget(QLabel("Show"))
        top.addWidget(self.statistic)
        layout = QVBoxLayout(self)
        layout.addWidget(note("Builds the boxes again for every k with this run's settings and "
                              "measures how wide the ranges of the mean and the standard "
                              "deviation (and of a targeted covariance or correlation) "
                              "become, to help choose k. Widths need not grow steadily with "
                              "k. With width limits (as <code>arxpy intervals --max-width"
                              "</code>) it names the largest k within all of them. Dashed "
                              "line: this release's k."))
        layout.addLayout(top)
        layout.addWidget(self.controls)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.legend)

    def start(self) -> None:
        try:
            self.limits = parse_width_limits(self.limits_text.text())
        except ArxpyError as exc:
            self.controls.set_status(str(exc), error=True)
            return
        self.controls.start(k_sweep_job, method=self.run.method, data=self.run.data,
                            ks=list(range(2, self.k_max.value() + 1)),
                            extra=list(self.limits))

    def _show(self, sweep: pd.DataFrame) -> None:
        self.sweep = sweep
        self.best_k = largest_within(sweep, self.limits) if self.limits else None
        shown = self.statistic.currentText()
        self.statistic.blockSignals(True)
        self.statistic.clear()
        self.statistic.addItems(list(dict.fromkeys(sweep["statistic"])))
        self.statistic.setCurrentText(shown)
        self.statistic.blockSignals(False)
        if self.limits:
            top = int(sweep["k"].max())
            self.controls.set_status(
                f"Largest k within every width limit: {self.best_k}." if self.best_k else
                f"Not releasable at these width limits: no k from 2 to {top} keeps every "
                "width within its limit.", error=self.best_k is None)
        self._draw()

    def _draw(self) -> None:
        plot = self.plot.getPlotItem()
        plot.clear()
        if self.sweep is None:
            return
        statistic = self.statistic.currentText()
        part = self.sweep[self.sweep["statistic"] == statistic]
        entries = []
        for i, (attribute, rows) in enumerate(part.groupby("attribute", sort=False)):
            color = SERIES_COLORS[i % len(SERIES_COLORS)]
            plot.plot(rows["k"].to_numpy(float), rows["width"].to_numpy(float),
                      pen=pg.mkPen(color, width=2), symbol="o", symbolSize=5,
                      symbolBrush=color, symbolPen=None)
            entries.append(f"<span style='color:{color}; font-size: 14pt'>■</span> "
                           f"{statistic}({attribute})")
            limit = self.limits.get(f"{statistic}:{attribute}")
            if limit is not None:  # the limit as a dotted line in the series' colour
                plot.addItem(pg.InfiniteLine(limit, angle=0, pen=pg.mkPen(
                    color, style=Qt.PenStyle.DotLine)))
                entries[-1] += f" (limit {number(limit)}, dotted)"
        plot.addItem(pg.InfiniteLine(self.run.method.k, angle=90,
                                     pen=pg.mkPen(VERMILLION, style=Qt.PenStyle.DashLine)))
        if self.best_k is not None:
            plot.addItem(pg.InfiniteLine(self.best_k, angle=90,
                                         pen=pg.mkPen(GREEN, width=2)))
            entries.append(f"<span style='color:{GREEN}'>│</span> largest k within the "
                           f"limits: {self.best_k}")
        self.legend.setText(" &nbsp; ".join(entries))


def _plots(run: MethodRun) -> IntervalPlots:
    return IntervalPlots(_bounds(run), _original(run), run.release.groups)


METHODS = ("intervals",)
register_result_view(METHODS, "Boxes", BoxesView)
register_result_view(METHODS, "Intervals", RecordsView)
register_result_view(METHODS, "Interval plots", _plots)
register_result_view(METHODS, "Interval statistics", StatisticsPanel)
register_result_view(METHODS, "k sweep", KSweepView)
