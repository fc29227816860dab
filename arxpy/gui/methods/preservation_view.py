"""Do the recipient's models give the same answers on the release? (Gal et al. 2014)

The planned analyses are declared on the left; a background job runs the method R times
(optionally next to its siblings at the same k, the compare mode) and fits every model
on the original and on each repetition. On the right: the three metrics per model as
bar charts (mean ± sd over repetitions, the analogue of the paper's Figs. 1-3) and, per
model, the coefficient table with the original estimate, CI and p (p in [0.01, 0.10]
marked fragile), the anonymized mean ± sd and how often each flag was raised.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.condensation_report import metric_summary
from arxpy.analysis.model_preservation import FRAGILE, ModelPreservation
from arxpy.errors import ArxpyError, ConfigurationError
from arxpy.gui.methods.analyses_panel import AnalysesPanel, suggested_analyses
from arxpy.gui.methods.common import SERIES_COLORS
from arxpy.gui.utility.common import fill_table, note, plot_widget, read_only_table
from arxpy.gui.utility.runner import JobControls
from arxpy.methods.registry import method_classes
from arxpy.workflows.model_preservation import COMPARED_METHODS, model_preservation_job
from arxpy.workflows.runs import MethodRun

#: (metric, chart title) of the paper's three requirements.
METRIC_TITLES = (("pct_sig_changed", "Significance changed"),
                 ("pct_dir_changed", "Direction changed"),
                 ("pct_outside_ci", "Outside original 95 % CI"))
#: Repetitions the GUI starts with (spec §6: 10 in the GUI, 100 in the CLI).
DEFAULT_REPEATS = 10
FRAGILE_MARK = "⚠"
#: Most methods per model whose bars carry their value as text.
MOST_LABELLED = 3


class ModelPreservationView(QWidget):
    """Analyses panel and run settings on the left, results on the right."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.results: dict[str, ModelPreservation] | None = None
        columns = [c for c in run.release.table.columns if c in run.data.columns]
        params = run.method.get_params()
        self.panel = AnalysesPanel(run.data, columns, suggested_analyses(
            run.data, columns, params.get("time"), params.get("status"),
            params.get("event_value")))
        self.repeats = QSpinBox()
        self.repeats.setRange(1, 1000)
        self.repeats.setValue(DEFAULT_REPEATS)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.ks = QLineEdit(str(run.method.k))
        self.ks.setToolTip("One or more k separated by commas, e.g. 25, 50, 100")
        # "&" would mark a keyboard shortcut in a check box's text.
        self.compare = {name: QCheckBox(method_classes()[name].label.replace("&", "&&"))
                        for name in COMPARED_METHODS if name != run.method.name}
        self.controls = JobControls("Run comparison")
        self.controls.run_requested.connect(self.start)
        self.controls.finished.connect(self.show_results)
        self.report = PreservationReport()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._settings())
        splitter.addWidget(self.report)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([360, 640])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

    def _settings(self) -> QWidget:
        analyses = QGroupBox("Planned analyses (the data recipient's models)")
        box = QVBoxLayout(analyses)
        box.addWidget(self.panel)
        form = QFormLayout()
        form.addRow("Repetitions R", self.repeats)
        form.addRow("First seed", self.seed)
        form.addRow("k values", self.ks)
        compare = QGroupBox("Also run (compare mode)")
        checks = QVBoxLayout(compare)
        for check in self.compare.values():
            checks.addWidget(check)
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.addWidget(analyses)
        column.addLayout(form)
        column.addWidget(compare)
        column.addWidget(note("Each method runs R times at each k with seeds seed … seed+R−1 "
                              "(k-anonymity is deterministic: one run stands for all); every "
                              "declared model is fitted on the original and on each "
                              "repetition, on interval midpoints where values are "
                              "generalized."))
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(inner)
        scroll.setMinimumWidth(300)
        # Run and Cancel stay in sight however long the declarations grow.
        side = QWidget()
        layout = QVBoxLayout(side)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.controls)
        return side

    def start(self) -> None:
        """Start the comparison job with the declared analyses (errors in the status)."""
        try:
            analyses = self.panel.analyses()
            ks = parse_ks(self.ks.text())
        except ArxpyError as exc:
            self.controls.set_status(str(exc), error=True)
            return
        compare = [name for name, check in self.compare.items() if check.isChecked()]
        self.controls.start(model_preservation_job, method=self.run.method,
                            data=self.run.data, definition=self.run.definition,
                            analyses=analyses, repeats=self.repeats.value(),
                            seed=self.seed.value(), compare_with=compare, ks=ks,
                            label=self.run.method.label)

    def show_results(self, results: dict[str, ModelPreservation]) -> None:
        self.results = results
        self.report.show_results(results)


def parse_ks(text: str) -> list[int]:
    """``"25, 50, 100"`` as [25, 50, 100]; ConfigurationError names what is wrong."""
    try:
        ks = [int(part) for part in text.replace(";", ",").split(",") if part.strip()]
    except ValueError:
        raise ConfigurationError(f"Write k values as whole numbers separated by commas, "
                                 f"got {text!r}.") from None
    if not ks:
        raise ConfigurationError("Give at least one k value.")
    return ks


class PreservationReport(QTabWidget):
    """Bar charts and summary of the three metrics, and the coefficient tables."""

    SUMMARY_COLUMNS = ("Method", "Model", "Sig. changed %", "Dir. changed %",
                       "Outside CI %", "Failed fits")
    COEFFICIENT_COLUMNS = ("Coefficient", "Original", "95 % CI", "p", "Anonymized mean ± sd",
                           "Sig. changed", "Dir. changed", "Outside CI")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: dict[str, ModelPreservation] = {}
        self._steps: list = []
        self.charts = {metric: plot_widget(title, "", "% (mean ± sd)")
                       for metric, title in METRIC_TITLES}
        self.chart_legend = QLabel()
        self.chart_legend.setTextFormat(Qt.TextFormat.RichText)
        self.chart_legend.setWordWrap(True)
        self.summary = read_only_table(self.SUMMARY_COLUMNS)
        self.summary.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents)
        self.method = QComboBox()
        self.model = QComboBox()
        self.coefficients = read_only_table(self.COEFFICIENT_COLUMNS)
        # Estimates and intervals are read in full; the table scrolls rather than clips.
        self.coefficients.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.coefficients.horizontalHeader().setStretchLastSection(True)
        self.coefficient_note = note()
        self.method.currentIndexChanged.connect(self._show_coefficients)
        self.model.currentIndexChanged.connect(self._show_coefficients)
        self.addTab(self._metrics_page(), "Metrics")
        self.addTab(self._coefficients_page(), "Coefficients")

    def _metrics_page(self) -> QWidget:
        page = QWidget()
        charts = QHBoxLayout()
        for widget in self.charts.values():
            charts.addWidget(widget)
        layout = QVBoxLayout(page)
        layout.addWidget(note("Run the comparison to see how often the declared models change "
                              "their answers on the release (mean ± sd over repetitions; "
                              "lower is better)."))
        layout.addLayout(charts, 3)
        layout.addWidget(self.chart_legend)
        layout.addWidget(self.summary, 2)
        return page

    def _coefficients_page(self) -> QWidget:
        page = QWidget()
        choose = QHBoxLayout()
        choose.addWidget(QLabel("Method"))
        choose.addWidget(self.method, 1)
        choose.addWidget(QLabel("Model"))
        choose.addWidget(self.model, 1)
        layout = QVBoxLayout(page)
        layout.addLayout(choose)
        layout.addWidget(self.coefficients, 1)
        layout.addWidget(self.coefficient_note)
        return page

    def show_results(self, results: dict[str, ModelPreservation]) -> None:
        """Draw a finished comparison, one chart or table per event-loop turn (drawing it
        all at once kept the event loop busy for ~200 ms)."""
        self.results = results
        summary = metric_summary(results)
        methods = list(dict.fromkeys(summary["method"]))
        models = list(dict.fromkeys(summary["model"]))
        self._steps = [lambda m=metric: self._draw_chart(m, summary, methods, models)
                       for metric in self.charts]
        self._steps += [lambda: self._legend(summary, methods),
                        lambda: self._fill_summary(summary),
                        lambda: self._choices(results)]
        QTimer.singleShot(1, self._next_step)

    @property
    def drawing(self) -> bool:
        """True until every part of the last results is drawn."""
        return bool(self._steps)

    def _next_step(self) -> None:
        if self._steps:
            self._steps.pop(0)()
        if self._steps:
            QTimer.singleShot(1, self._next_step)

    def _choices(self, results: dict[str, ModelPreservation]) -> None:
        for combo, items in ((self.method, list(results)),
                             (self.model, [m.spec.name for m in
                                           next(iter(results.values())).models])):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(items)
            combo.blockSignals(False)
        self._show_coefficients()

    def _draw_chart(self, metric: str, summary: pd.DataFrame, methods: list[str],
                    models: list[str]) -> None:
        width = 0.8 / len(methods)
        plot = self.charts[metric].getPlotItem()
        plot.clear()
        part = summary[summary["metric"] == metric]
        for m, method in enumerate(methods):
            rows = part[part["method"] == method].set_index("model").reindex(models)
            x = np.arange(len(models)) - 0.4 + width * (m + 0.5)
            mean = rows["mean"].to_numpy(float)
            sd = np.nan_to_num(rows["sd"].to_numpy(float))
            shown = np.nan_to_num(mean)
            color = SERIES_COLORS[m % len(SERIES_COLORS)]
            plot.addItem(pg.BarGraphItem(x=x, height=shown, width=width * 0.9,
                                         brush=pg.mkBrush(color),
                                         pen=pg.mkPen(QColor(color).darker(130))))
            plot.addItem(pg.ErrorBarItem(x=x, y=shown, top=sd, bottom=np.minimum(sd, shown),
                                         beam=width * 0.3, pen=pg.mkPen("#333")))
            for position, value, spread in zip(x, mean, sd, strict=True):
                # The mean in figures (a bar at 0 is invisible), while they fit.
                if np.isfinite(value) and len(methods) <= MOST_LABELLED:
                    label = pg.TextItem(f"{value:.1f}", color="#222", anchor=(0.5, 1))
                    label.setPos(position, value + spread)
                    plot.addItem(label)
        plot.getAxis("bottom").setTicks([[(float(i), name) for i, name in enumerate(models)]])
        plot.setXRange(-0.6, len(models) - 0.4, padding=0)
        top = np.nanmax((part["mean"] + part["sd"].fillna(0)).to_numpy(float), initial=0)
        plot.setYRange(0, min(100.0, max(10.0, 1.15 * top)), padding=0)

    def _legend(self, summary: pd.DataFrame, methods: list[str]) -> None:
        self.chart_legend.setText(" &nbsp; ".join(
            f"<span style='white-space: nowrap'><span style='color:"
            f"{SERIES_COLORS[m % len(SERIES_COLORS)]}; font-size: 14pt'>■</span> "
            f"{html.escape(method)}</span>" for m, method in enumerate(methods))
            + _no_direction_note(summary))

    def _fill_summary(self, summary: pd.DataFrame) -> None:
        rows = []
        for (method, model), part in summary.groupby(["method", "model"], sort=False):
            cells = part.set_index("metric")
            row = [method, model]
            for metric, _ in METRIC_TITLES:
                mean, sd = cells.at[metric, "mean"], cells.at[metric, "sd"]
                row.append(_mean_sd(mean, sd, 1))
            first = cells.iloc[0]
            row.append(f"{first['fit_failures']} of {first['repetitions']}")
            rows.append(row)
        fill_table(self.summary, rows, bold_first=True)

    def _show_coefficients(self, *_) -> None:
        preservation = self.results.get(self.method.currentText())
        if preservation is None:
            return
        model = next((m for m in preservation.models
                      if m.spec.name == self.model.currentText()), None)
        if model is None:
            return
        table = model.coefficients(preservation.alpha)
        cox = model.spec.type == "cox"
        rows = [_coefficient_row(name, row, cox) for name, row in table.iterrows()]
        fill_table(self.coefficients, rows, bold_first=True)
        for r, (_, row) in enumerate(table.iterrows()):
            if bool(row["fragile"]):
                item = self.coefficients.item(r, 3)
                item.setForeground(QColor("#a05a00"))
                item.setToolTip(f"Original p in [{FRAGILE[0]}, {FRAGILE[1]}]: a small change "
                                "can flip its significance.")
        failures = model.fit_failures
        self.coefficient_note.setText(
            f"{len(model.fits)} repetitions, {failures} failed fits (left out of the means)."
            + (" Cox coefficients are log hazard ratios (HR = exp(coef)); the CI flag is "
               "the same on either scale." if cox else "")
            + f" {FRAGILE_MARK} fragile: original p between {FRAGILE[0]} and {FRAGILE[1]}."
            " Flag columns: share of repetitions in which the flag was raised.")


def _no_direction_note(summary: pd.DataFrame) -> str:
    direction = summary[summary["metric"] == "pct_dir_changed"]
    missing = direction.loc[direction["mean"].isna(), "model"].unique()
    if not len(missing):
        return ""
    return (" &nbsp; No direction bar for " + ", ".join(html.escape(m) for m in missing)
            + ": no coefficient was significant on the original.")


def estimate(value: float) -> str:
    """A coefficient to three significant digits (thousands without a decimal)."""
    if value is None or not np.isfinite(value):
        return "—"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _coefficient_row(name: str, row: pd.Series, cox: bool) -> list[str]:
    original = estimate(row["coef"]) + (f" (HR {estimate(row['exp_coef'])})" if cox else "")
    p = f"{row['p']:.3g}" + (f" {FRAGILE_MARK}" if bool(row["fragile"]) else "")
    return [name, original, f"[{estimate(row['ci_low'])}, {estimate(row['ci_high'])}]", p,
            _mean_sd(row["anonymized_mean"], row["anonymized_sd"]),
            *(f"{100 * row[c]:.0f} %" if np.isfinite(row[c]) else "—"
              for c in ("share_sig_changed", "share_dir_changed", "share_outside_ci"))]


def _mean_sd(mean: float, sd: float, decimals: int | None = None) -> str:
    if mean is None or not np.isfinite(mean):
        return "—"
    if decimals is not None:
        spread = f" ± {sd:.{decimals}f}" if sd is not None and np.isfinite(sd) else ""
        return f"{mean:.{decimals}f}{spread}"
    spread = f" ± {sd:.2g}" if sd is not None and np.isfinite(sd) else ""
    return f"{estimate(mean)}{spread}"
