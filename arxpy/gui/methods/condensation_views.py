"""Result views of condensation, improved condensation, TFRP and MDAV (issue 13, spec
``000-condensation.md`` §6): the run's figures and clipping counts with the privacy
caveat, Kaplan-Meier curves original vs anonymized, basic statistics, and the
model-preservation report (:mod:`arxpy.gui.methods.preservation_view`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.condensation_report import (
    input_order,
    released_statistics,
    survival_comparison,
)
from arxpy.analysis.release_fidelity import CONDITIONAL_PRIVACY_ESTIMATOR
from arxpy.errors import ArxpyError
from arxpy.gui.methods.common import (
    Figures,
    SizeHistogram,
    caveat_banner,
    number,
)
from arxpy.gui.methods.preservation_view import ModelPreservationView
from arxpy.gui.methods.views import register_result_view
from arxpy.gui.plain_text import set_axis_label
from arxpy.gui.utility.common import (
    INPUT_COLOR,
    OUTPUT_COLOR,
    bar_chart,
    fill_table,
    legend_row,
    note,
    plot_widget,
    read_only_table,
    tint_headers,
)
from arxpy.gui.workers import JobWorker, ViewJob
from arxpy.methods.condensation import CAVEAT
from arxpy.workflows.model_preservation import CONDENSATION_METHODS
from arxpy.workflows.runs import MethodRun

IMPROVED = "improved-condensation"
#: What each method's rows are, for the overview.
ROWS_ARE = {
    IMPROVED: "synthetic rows from each cluster's mean and covariance; vital status kept "
              "per record, original survival times put back by rank within each cluster",
    "condensation": "synthetic rows from each cluster's mean and covariance",
    "tfrp": "every attribute replaced by its group mean",
    "mdav": "every attribute replaced by its group mean",
}


#: The caveat shown with each method's release (spec §6 for improved condensation).
CAVEATS = {
    IMPROVED: CAVEAT[0].upper() + CAVEAT[1:],
    "condensation": "Every cluster holds at least k records, but the released rows are "
                    "synthetic and need not form classes of k over the quasi-identifiers: no "
                    "re-identification risk bound is claimed (the Risk perspective shows the "
                    "release's own classes).",
    "tfrp": "Every group holds at least k records and every attribute is replaced by its "
            "group mean; no re-identification risk bound is claimed beyond the group size "
            "(the Risk perspective shows the release's own classes).",
}
CAVEATS["mdav"] = CAVEATS["tfrp"]


def _caveat(run: MethodRun) -> QLabel:
    return caveat_banner(CAVEATS.get(run.method.name, CAVEATS["condensation"]))


class CondensationOverview(QWidget):
    """Run figures (clusters, smallest cluster against k, records moved in step 2c,
    suppressed records, run time), clipping counts per attribute and the caveat."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        release, k = run.release, run.method.k
        groups = np.asarray(getattr(release, "input_groups", release.groups))
        sizes = np.bincount(groups[groups >= 0]) if (groups >= 0).any() else np.zeros(0, int)
        sizes = sizes[sizes > 0]
        moved = getattr(release, "moved_records", 0)
        moved_note = ("records moved from clusters above k to fill clusters below k "
                      "(Alg. 2 step 2c)" if run.method.name == IMPROVED else
                      "only improved condensation moves records (step 2c)")
        smallest = int(sizes.min()) if len(sizes) else 0
        self.figures = Figures([
            ("Records", f"{len(release.table):,}", "rows in the release"),
            ("Clusters", f"{len(sizes):,}",
             f"mean size {number(sizes.mean()) if len(sizes) else '—'}"),
            ("Smallest cluster", f"{smallest:,}",
             f"k = {k}: {'every cluster holds at least k' if smallest >= k else 'BELOW k'}"),
            ("Records moved", f"{moved:,}", moved_note),
            ("Suppressed", f"{int(np.sum(release.suppressed)):,}",
             "records of a status subset smaller than k (policy 'suppress')"
             if run.method.name == IMPROVED else "this method suppresses no records"),
            ("Run time", f"{release.elapsed_seconds:.2f} s", f"seed {release.seed}"),
        ], columns=3)
        self.clipping = read_only_table(["Attribute", "Kind", "Values clipped",
                                         "Share of records"])
        fill_table(self.clipping, clipping_rows(release), bold_first=True)
        lower = QHBoxLayout()
        clipping = QVBoxLayout()
        clipping.addWidget(QLabel("<b>Clipping</b>"))
        clipping.addWidget(note("Decoded values outside an attribute's observed range are "
                                "clipped to it (integers are also rounded); the counts say "
                                "how often the synthetic data left the permissible domain. "
                                "Categorical values are the largest one-hot entry and are "
                                "never clipped."))
        clipping.addWidget(self.clipping, 1)
        lower.addLayout(clipping, 3)
        lower.addWidget(SizeHistogram(sizes, k, "cluster"), 2)
        layout = QVBoxLayout(self)
        layout.addWidget(_caveat(run))
        layout.addWidget(_wrapped(f"<b>{run.method.label}</b>: "
                                  f"{ROWS_ARE.get(run.method.name, '')}."))
        layout.addWidget(self.figures)
        layout.addLayout(lower, 1)


def clipping_rows(release) -> list[tuple[str, str, str, str]]:
    """(attribute, kind, values clipped, share of records) per condensed attribute."""
    encoded = getattr(release, "encoded", None)
    kinds = {b.name: b.kind for b in encoded.blocks} if encoded is not None else {}
    clipped = dict(getattr(release, "clipped", {}))
    n = max(len(release.table), 1)
    return [(name, kinds.get(name, ""),
             "—" if kinds.get(name) == "categorical" else f"{count:,}",
             "—" if kinds.get(name) == "categorical" else f"{100 * count / n:.2f} %")
            for name, count in clipped.items()]


def _wrapped(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    return label


def survival_defaults(run: MethodRun) -> tuple[str | None, str | None, str | None]:
    """Time, event attribute and event value: the method's own (improved condensation)
    or ``None`` for the user to choose."""
    params = run.method.get_params()
    return params.get("time"), params.get("status"), params.get("event_value")


class SurvivalView(QWidget):
    """Kaplan-Meier curves of the original and the anonymized data for a time/event pair."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.comparison = None
        columns = [c for c in run.release.table.columns if c in run.data.columns]
        self.time, self.event_column, self.event_value = QComboBox(), QComboBox(), QComboBox()
        self.time.addItems(["(choose)", *columns])
        self.event_column.addItems(["(choose)", *columns])
        time, event, value = survival_defaults(run)
        self.time.setCurrentText(time or "(choose)")
        self.event_column.setCurrentText(event or "(choose)")
        self._fill_values(value)
        self.plot = plot_widget("Kaplan-Meier survival", "time", "survival probability")
        self.message = note()
        form = QFormLayout()
        form.addRow("Survival time", self.time)
        form.addRow("Event attribute", self.event_column)
        form.addRow("Event value", self.event_value)
        top = QHBoxLayout()
        top.addLayout(form)
        top.addWidget(self.message, 1)
        layout = QVBoxLayout(self)
        if run.method.name == IMPROVED:
            layout.addWidget(_caveat(run))
        layout.addLayout(top)
        layout.addWidget(legend_row())
        layout.addWidget(self.plot, 1)
        self.time.currentTextChanged.connect(self.redraw)
        self.event_column.currentTextChanged.connect(self._event_changed)
        self.event_value.currentTextChanged.connect(self.redraw)
        self._drawn = False

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if not self._drawn:  # computed when first seen, not when the tab is made
            self.redraw()

    def _event_changed(self) -> None:
        self._fill_values(None)
        self.redraw()

    def _fill_values(self, preferred: str | None) -> None:
        name = self.event_column.currentText()
        values = sorted(set(self.run.data[name].astype(str))) \
            if name in self.run.data.columns else []
        self.event_value.blockSignals(True)
        self.event_value.clear()
        self.event_value.addItems(values[:50])
        if preferred in values:
            self.event_value.setCurrentText(preferred)
        elif "1" in values:
            self.event_value.setCurrentText("1")
        self.event_value.blockSignals(False)

    def redraw(self) -> None:
        """Recompute both curves (product-limit estimates are cheap) and draw them."""
        self._drawn = True
        plot = self.plot.getPlotItem()
        plot.clear()
        self.comparison = None
        time, event = self.time.currentText(), self.event_column.currentText()
        if time == "(choose)" or event == "(choose)" or not self.event_value.currentText():
            self.message.setText("Choose the survival time, the event attribute and the value "
                                 "that means the event (for example death).")
            return
        try:
            self.comparison = survival_comparison(self.run.data, input_order(self.run.release),
                                                  time, event, self.event_value.currentText())
        except ArxpyError as exc:
            self.message.setText(str(exc))
            return
        for table, color, width in ((self.comparison.original, INPUT_COLOR, 4),
                                    (self.comparison.anonymized, OUTPUT_COLOR, 2)):
            x, y = _steps(table)
            plot.plot(x, y, pen=pg.mkPen(color, width=width))
        plot.setYRange(0, 1.02, padding=0)
        set_axis_label(plot, "bottom", time, color="#222")
        self.message.setText(self._explanation())

    def _explanation(self) -> str:
        gap = self.comparison.max_difference
        text = f"Largest difference between the curves: <b>{gap:.4f}</b>."
        if self.run.method.name == IMPROVED and gap == 0:
            text += (" The curves coincide by construction: every survival time and status "
                     "is released exactly.")
        left_out = len(self.run.data) - self.comparison.anonymized_records
        if left_out:
            text += f" {left_out:,} suppressed records are not in the anonymized curve."
        return text


def _steps(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """A right-continuous step function from (0, 1) through every event time."""
    times = np.concatenate([[0.0], table["time"].to_numpy(float)])
    survival = np.concatenate([[1.0], table["survival"].to_numpy(float)])
    x = np.repeat(times, 2)[1:]
    y = np.repeat(survival, 2)[:-1]
    return x, y


class StatisticsView(QWidget):
    """Basic statistics per attribute (mean, sum, median, category shares; Δ%) and the
    conditional privacy of each numeric attribute, computed in the background when first
    shown."""

    COLUMNS = ("Attribute", "Statistic", "Original", "Anonymized", "Δ %")

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.statistics: pd.DataFrame | None = None
        self.privacy: dict[str, float] | None = None
        self.job = ViewJob(self)
        self.table = read_only_table(self.COLUMNS)
        tint_headers(self.table, {2: INPUT_COLOR, 3: OUTPUT_COLOR})
        self.privacy_table = read_only_table(("Attribute", "Π(A|B)", "Π(A) unreleased",
                                              "Kept"))
        self.status = note("Computing…")
        side = QVBoxLayout()
        side.addWidget(QLabel("<b>Conditional privacy</b>"))
        side.addWidget(note("Π(A|B) = 2<sup>h(A|B)</sup>: how uncertain an original value A "
                            "stays given its synthetic row B; larger is more private, 0 when B "
                            "gives A away. Π(A) is the same without the release and 'Kept' "
                            f"their ratio. Estimator: {CONDITIONAL_PRIVACY_ESTIMATOR}."
                            + (" For improved condensation the time pairing is arbitrary "
                               "(times are reassigned by rank)."
                               if run.method.name == IMPROVED else "")))
        side.addWidget(self.privacy_table, 1)
        self.privacy_chart = plot_widget("Share of Π(A) kept (Gal et al. Fig. 4)", "",
                                         "Π(A|B) / Π(A), %")
        side.addWidget(self.privacy_chart, 2)
        body = QHBoxLayout()
        body.addWidget(self.table, 3)
        body.addLayout(side, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addLayout(body, 1)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self.statistics is None and not self.job.running:
            self.start()

    def start(self) -> JobWorker:
        """Compute in the background; the tables fill when it finishes."""
        return self.job.start(_statistics_job, run=self.run, on_finished=self._show,
                              on_failed=self.status.setText)

    @property
    def worker(self) -> JobWorker | None:
        return self.job.worker

    def _show(self, result) -> None:
        self.statistics, self.privacy = result
        rows = [(r.attribute, _statistic(r.statistic), number(r.original),
                 number(r.anonymized), _change(r.change_pct))
                for r in self.statistics.itertuples()]
        fill_table(self.table, rows, bold_first=True)
        for row in range(len(rows)):
            self.table.item(row, 1).setTextAlignment(Qt.AlignmentFlag.AlignLeft
                                                     | Qt.AlignmentFlag.AlignVCenter)
        # Without the release, the Gaussian estimator gives sqrt(2 pi e) sd(A).
        alone = {a: unconditional_privacy(self.run.data[a]) for a in self.privacy}
        fill_table(self.privacy_table, [
            (a, number(v), number(alone[a]), f"{100 * v / alone[a]:.0f} %" if alone[a] else "—")
            for a, v in self.privacy.items()], bold_first=True)
        kept = [100 * v / alone[a] if alone[a] else 0.0 for a, v in self.privacy.items()]
        bar_chart(self.privacy_chart, list(self.privacy), kept, OUTPUT_COLOR)
        self.privacy_chart.getPlotItem().setYRange(0, 100, padding=0.02)
        suppressed = int(np.sum(self.run.release.suppressed))
        self.status.setText("Original against released rows" + (
            f"; the {suppressed:,} suppressed records are left out of both sides."
            if suppressed else "."))


def _statistics_job(run: MethodRun, progress=None, cancel=None):
    if progress is not None:
        progress(0.0, "Computing basic statistics")
    return released_statistics(run.data, run.release)


def _statistic(name: str) -> str:
    return f"{name} (%)" if name.startswith("share ") else name


def unconditional_privacy(column: pd.Series) -> float:
    """Π(A) = 2^h(A) of the Gaussian estimator: what Π(A|B) is when B tells nothing."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(float)
    return float(np.sqrt(2 * np.pi * np.e * values.var(ddof=1))) if len(values) > 1 else 0.0


def _change(value: float) -> str:
    if value is None or not np.isfinite(value):
        return "—" if value is None or np.isnan(value) else "∞"
    return f"{value:+.2f}"


register_result_view(CONDENSATION_METHODS, "Condensation", CondensationOverview)
register_result_view(CONDENSATION_METHODS, "Survival curves", SurvivalView)
register_result_view(CONDENSATION_METHODS, "Basic statistics", StatisticsView)
register_result_view(CONDENSATION_METHODS, "Model preservation", ModelPreservationView)
