"""Result views of disassociation (issue 15, spec ``002-disassociation.md`` §6): the
publication with the independent k^m verdict and its export, the cluster browser
(:mod:`arxpy.gui.methods.cluster_browser`), query error and MRE against a proxy
baseline with the code counts, and the combination risk of the input.

Every figure that needs the original codes, the checker or reconstructions comes from
a background job (:mod:`arxpy.workflows.disassociation_jobs`) started when its view is
first shown.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy.analysis.setvalued_risk import CombinationRisk
from arxpy.analysis.setvalued_utility import MRE_BINS
from arxpy.data.disassociated import (
    ITEM_FILLS,
    RECONSTRUCTION_NOTE,
    reconstruction_paths,
    write_published,
    write_reconstructions,
)
from arxpy.gui.code_sets import codes_tooltip, display_code
from arxpy.gui.folders import pick_path
from arxpy.gui.methods.cluster_browser import ClusterBrowser
from arxpy.gui.methods.common import (
    Figures,
    SizeHistogram,
    caveat_banner,
    frame_view,
    number,
)
from arxpy.gui.methods.disassociation_risk_chart import bin_legend, draw_combination_chart
from arxpy.gui.methods.views import register_result_view
from arxpy.gui.plain_text import tooltip
from arxpy.gui.utility.common import (
    GREEN,
    INPUT_COLOR,
    OUTPUT_COLOR,
    VERMILLION,
    bar_chart,
    fill_table,
    legend,
    note,
    plot_widget,
    read_only_table,
    thinned_ticks,
)
from arxpy.gui.utility.runner import JobControls
from arxpy.gui.workers import JobWorker, ViewJob
from arxpy.methods.disassociation import CAVEAT
from arxpy.workflows.disassociation_jobs import (
    BASELINES,
    PublicationSummary,
    UtilityComparison,
    risk_job,
    summary_job,
    utility_job,
)
from arxpy.workflows.runs import MethodRun

METHOD = "disassociation"
#: What the release's table is, said on every view that could be mistaken for it.
TABLE_NOTE = ("Only the codes attribute is published, as the document below; the table "
              "Utility, Risk and Export show is one random reconstruction of it (synthetic "
              "possible original records, not the real data).")
_BADGE_STYLE = "color: white; background: {}; padding: 4px 8px; border-radius: 4px"
_PLACE_COLORS = {"record chunk": INPUT_COLOR, "shared chunk": GREEN,
                 "item chunk": OUTPUT_COLOR}


def _badge(text: str, colour: str) -> QLabel:
    label = QLabel(f"<b>{html.escape(text)}</b>")
    label.setWordWrap(True)
    label.setStyleSheet(_BADGE_STYLE.format(colour))
    return label


def _set_badge(label: QLabel, text: str, colour: str) -> None:
    label.setText(f"<b>{html.escape(text)}</b>")
    label.setStyleSheet(_BADGE_STYLE.format(colour))


class PublicationView(QWidget):
    """Badge of the independent k^m checker, the structure's figures, where the codes'
    occurrences went, cluster sizes against k, and the export of the document and of
    labelled synthetic reconstructions."""

    FIGURES = (("Records", "in the publication"),
               ("Clusters", "clusters of at least k records"),
               ("Joint clusters", "clusters sharing chunks (REFINE)"),
               ("Record chunks", "each k^m-anonymous"),
               ("Shared chunks", "chunks spanning a joint cluster"),
               ("Item-chunk-only codes", "their counts are lost"))

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.summary: PublicationSummary | None = None
        self.job = ViewJob(self)  # the summary and the independent check
        self.job.finished.connect(self._show)
        self.job.failed.connect(lambda message: _set_badge(
            self.badge, f"The check could not run: {message}", VERMILLION))
        self.exports: list[JobWorker] = []  # writes the user asked for run to the end
        k, m = run.release.published["k"], run.release.published["m"]
        self.badge = _badge(f"Checking {k}^{m}-anonymity of every chunk independently…",
                            "#666666")
        self.figures = Figures([(t, "…", e) for t, e in self.FIGURES], columns=6)
        self.places = note()
        self.histogram_box = QVBoxLayout()
        layout = QVBoxLayout(self)
        layout.addWidget(caveat_banner(CAVEAT))
        layout.addWidget(self.badge)
        layout.addWidget(self.figures)
        layout.addWidget(self.places)
        layout.addLayout(self.histogram_box, 1)
        layout.addLayout(self._export_row())

    # --- the summary job -------------------------------------------------------------------

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self.summary is None and not self.job.running:
            self.start()

    def start(self) -> JobWorker:
        """Count the publication and run the independent checker in the background."""
        return self.job.start(summary_job, run=self.run)

    @property
    def worker(self) -> JobWorker | None:
        return self.job.worker

    def _show(self, summary: PublicationSummary) -> None:
        self.summary = summary
        check = summary.check
        _set_badge(self.badge, ("✔ Verified independently: " if check.ok else "✘ ")
                   + check.describe(), "#1a7f37" if check.ok else "#b3261e")
        lines = []  # the badge's tooltip (codes as text, never HTML)
        if not check.ok and check.itemset_violations:
            first = check.itemset_violations[0]
            lines.append(f"First violation: {first.location}: {', '.join(first.itemset)} in "
                         f"{first.count} subrecords")
        figures = summary.figures
        for title, key in (("Records", "records"), ("Clusters", "clusters"),
                           ("Joint clusters", "joint_clusters"),
                           ("Record chunks", "record_chunks"),
                           ("Shared chunks", "shared_chunks"),
                           ("Item-chunk-only codes", "item_chunk_only_codes")):
            self.figures.values[title].setText(f"{figures[key]:,}")
        self.figures.values["Item-chunk-only codes"].setToolTip(
            tooltip(codes_tooltip(summary.item_only_codes, most=40)))
        shares = summary.occurrence_shares
        self.places.setText(
            "<b>Where the input's code occurrences are published:</b> " + ", ".join(
                f"<span style='color:{_PLACE_COLORS[place]}'>■</span> {place}s "
                f"<b>{100 * share:.1f} %</b>" for place, share in shares.items())
            + " (record and shared chunks keep exact counts; item chunks keep only the "
            "codes).")
        self.histogram_box.addWidget(SizeHistogram(summary.cluster_sizes,
                                                   self.run.release.published["k"],
                                                   "cluster"), 1)
        timings = ", ".join(f"{phase} {seconds:.2f} s"
                            for phase, seconds in self.run.release.timings.items())
        lines.append(f"Run time {self.run.release.elapsed_seconds:.2f} s ({timings}); "
                     f"independent check {check.elapsed_seconds:.2f} s.")
        self.badge.setToolTip(tooltip("\n".join(lines)))

    # --- export ----------------------------------------------------------------------------

    def _export_row(self) -> QHBoxLayout:
        self.count = QSpinBox(minimum=1, maximum=100, value=1)
        self.count.setToolTip("Number of reconstruction files (FILE-1.csv .. FILE-R.csv)")
        self.fill = QComboBox()
        self.fill.addItems(ITEM_FILLS)
        self.fill.setToolTip("Records given each item-chunk code: one, or uniform in "
                             "1..min(k-1, cluster size)")
        save_document = QPushButton("Save published document (JSON)…")
        save_document.clicked.connect(lambda: self.save_published())
        save_samples = QPushButton("Save synthetic reconstructions (CSV)…")
        save_samples.clicked.connect(lambda: self.save_reconstructions())
        self.export_status = note("The document is what you publish. Reconstructions, like "
                                  "the table Utility, Risk and Export show, are synthetic, "
                                  "not the real data.")
        self.export_status.setToolTip(f"{TABLE_NOTE} Reconstructions are "
                                      f"{RECONSTRUCTION_NOTE}.")
        row = QHBoxLayout()
        row.addWidget(QLabel("<b>Export:</b>"))
        row.addWidget(save_document)
        row.addSpacing(12)
        row.addWidget(QLabel("Reconstructions:"))
        row.addWidget(self.count)
        row.addWidget(QLabel("item fill:"))
        row.addWidget(self.fill)
        row.addWidget(save_samples)
        row.addWidget(self.export_status, 1)
        return row

    def save_published(self, path: str | Path | None = None) -> JobWorker | None:
        """Write the published document to ``path`` (asked for when None)."""
        path = path or pick_path(self, "exports", True, "Save the published document",
                                 "JSON (*.json)", "published.json")
        if not path:
            return None
        text = self.run.release.published_json()
        return self._export(lambda progress=None, cancel=None: write_published(text, path),
                            f"Saved the published document to {path}.")

    def save_reconstructions(self, path: str | Path | None = None) -> JobWorker | None:
        """Write the chosen number of synthetic reconstructions beside ``path``."""
        path = path or pick_path(self, "exports", True, "Save synthetic reconstructions",
                                 "CSV (*.csv)", "reconstruction-synthetic.csv")
        if not path:
            return None
        targets = reconstruction_paths(path, self.count.value())
        method, release, fill = self.run.method, self.run.release, self.fill.currentText()

        def work(progress=None, cancel=None) -> None:
            write_reconstructions(release.published, targets, release.seed, fill,
                                  method.codes_column, method.delimiter)

        names = ", ".join(t.name for t in targets[:3]) + (" …" if len(targets) > 3 else "")
        return self._export(work, f"Saved {len(targets)} synthetic reconstruction(s) "
                            f"({names}): {RECONSTRUCTION_NOTE}.")

    def _export(self, work, done: str) -> JobWorker:
        self.export_status.setText("Writing…")
        worker = JobWorker(work, self)
        worker.finished.connect(lambda _: self.export_status.setText(html.escape(done)))
        worker.failed.connect(lambda message: self.export_status.setText(
            f"<span style='color:#b3261e'>{html.escape(message)}</span>"))
        self.exports.append(worker)
        worker.finished.connect(lambda _: self.exports.remove(worker))
        worker.failed.connect(lambda _: self.exports.remove(worker))
        worker.start()
        return worker


# --- utility ---------------------------------------------------------------------------------

class UtilityView(QWidget):
    """ARE of W1/W2 against a proxy baseline, MRE per constraint, code counts."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.result: UtilityComparison | None = None
        method_policy = run.method.policy if run.method.policy != "none" else "hierarchy:1"
        self.policy = QLineEdit(method_policy)
        self.policy.setToolTip("Constraints for MRE: hierarchy:1|2|3, sim:N, sup:S, "
                               "file:U.json")
        self.reconstructions = QSpinBox(minimum=1, maximum=50, value=5)
        self.fill = QComboBox()
        self.fill.addItems(ITEM_FILLS)
        self.baseline = QComboBox()
        for key, label in BASELINES.items():
            self.baseline.addItem(label, key)
        self.w2 = QSpinBox(minimum=4, maximum=20000, value=1000, singleStep=100)
        self.controls = JobControls("Compute")
        self.controls.run_requested.connect(self.start)
        self.controls.finished.connect(self._show)
        # The plots are made when the view is first shown (about 40 ms each): a run's
        # views are all built when it is selected, most never looked at.
        self.plot_specs = {
            "are_plot": ("Average relative error (ARE) of COUNT queries", "", "ARE"),
            "mre_plot": ("MRE per utility constraint (paper's intervals)", "MRE %",
                         "% of constraints"),
            "codes_plot": ("Most frequent codes: records holding each", "", "records")}
        self.plot_boxes = {name: QVBoxLayout() for name in self.plot_specs}
        self.are_plot = self.mre_plot = self.codes_plot = None
        self.are_table = read_only_table(("Workload", "Queries", "ARE", "± sd",
                                          "Baseline ARE", "Welch p"))
        self.mre_table = read_only_table(("Constraint", "Codes", "Original", "MRE %"))
        self.mre_table.setSortingEnabled(True)
        header = self.mre_table.horizontalHeader()
        for column in (2, 3):
            header.setSectionResizeMode(column, header.ResizeMode.ResizeToContents)
        self.codes_view_box = QVBoxLayout()
        self.explanation = note()
        self.tabs = QTabWidget()
        are_side = QWidget()
        are_layout = QVBoxLayout(are_side)
        are_layout.setContentsMargins(0, 0, 0, 0)
        are_layout.addWidget(self.are_table, 1)
        are_layout.addWidget(self.explanation)
        self.tabs.addTab(self._pair(self.plot_boxes["are_plot"], are_side),
                         "Query error (ARE)")
        self.tabs.addTab(self._pair(self.plot_boxes["mre_plot"], self.mre_table),
                         "MRE per constraint")
        codes = QWidget()
        codes_layout = QHBoxLayout(codes)
        codes_layout.addLayout(self.plot_boxes["codes_plot"], 3)
        codes_layout.addLayout(self.codes_view_box, 2)
        self.tabs.addTab(codes, "Code counts")
        form = QHBoxLayout()
        for label, widget in (("Policy", self.policy), ("Reconstructions", self.reconstructions),
                              ("Item fill", self.fill), ("Baseline", self.baseline),
                              ("W2 queries", self.w2)):
            form.addWidget(QLabel(label))
            form.addWidget(widget)
        form.addWidget(self.controls, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.tabs, 1)

    @staticmethod
    def _pair(plot: QVBoxLayout, table: QWidget) -> QWidget:
        page = QWidget()
        row = QHBoxLayout(page)
        row.addLayout(plot, 3)
        row.addWidget(table, 2)
        return page

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        make_plots(self)
        if self.result is None and not self.controls.running:
            self.start()

    def start(self) -> None:
        self.controls.start(utility_job, run=self.run, policy=self.policy.text().strip(),
                            reconstructions=self.reconstructions.value(),
                            item_fill=self.fill.currentText(),
                            baseline=self.baseline.currentData(), w2_queries=self.w2.value())

    def _show(self, result: UtilityComparison) -> None:
        self.result = result
        self._show_are(result)
        self._show_mre(result)
        self._show_codes(result)
        base = result.baseline
        baseline_text = (f" Baseline {html.escape(base['baseline'])}: "
                         f"{base['codes_suppressed']:,} of {base['codes']:,} codes suppressed "
                         f"({base['suppressed_percent']:.1f} %); disassociation suppresses "
                         "none." if base else "")
        self.explanation.setText(
            f"C<sub>A</sub> is counted on {result.reconstructions} random reconstructions "
            f"(item fill '{result.item_fill}') and compared with the original counts "
            "C<sub>O</sub>: ARE = mean |C<sub>A</sub> − C<sub>O</sub>| / C<sub>O</sub>. W1: "
            "frequent itemsets at each support; W2: random co-occurring itemsets of 1-4 "
            "codes. Welch p: the two methods' per-query errors differ by chance with this "
            "probability." + baseline_text)

    def _show_are(self, result: UtilityComparison) -> None:
        labels, dis, base, rows = [], [], [], []
        for name, comparison in result.workloads.items():
            errors = comparison.errors
            groups = ([(f"W1 {name[3:]} %", errors["disassociation"].are,
                        errors["baseline"].are if "baseline" in errors else None)]
                      if name.startswith("w1") else
                      [(f"W2 size {s}", v, errors["baseline"].by_size().get(s)
                        if "baseline" in errors else None)
                       for s, v in errors["disassociation"].by_size().items()])
            labels += [g[0] for g in groups]
            dis += [g[1] for g in groups]
            base += [g[2] for g in groups]
            p = (comparison.welch or {}).get("p")
            rows.append((name, len(errors["disassociation"].queries),
                         number(errors["disassociation"].are, 3),
                         number(errors["disassociation"].are_sd, 2),
                         number(errors["baseline"].are, 3) if "baseline" in errors else "—",
                         _p_value(p)))
        fill_table(self.are_table, rows, bold_first=True)
        _grouped_bars(self.are_plot, labels,
                      {"Disassociation": dis, "Baseline": base}, (INPUT_COLOR, OUTPUT_COLOR))

    def _show_mre(self, result: UtilityComparison) -> None:
        mre = result.mre
        if mre is None:
            self.mre_plot.getPlotItem().clear()
            fill_table(self.mre_table, [(f"The policy '{result.policy}' has no constraint "
                                         "matching the data.", "", "", "")])
            return
        bar_chart(self.mre_plot, list(MRE_BINS), [mre.histogram[b] for b in MRE_BINS],
                  INPUT_COLOR)
        self.mre_plot.getPlotItem().setTitle(
            f"MRE per constraint: {number(mre.within())} % of {len(mre.constraints)} within "
            "[−5, 5) %", color="#222", size="10pt")
        self.mre_table.setSortingEnabled(False)
        fill_table(self.mre_table, [
            (description, ", ".join(display_code(c) for c in codes[:6])
             + (f" (+{len(codes) - 6})" if len(codes) > 6 else ""),
             int(original), round(float(value), 2))
            for description, codes, original, value in zip(
                result.constraint_descriptions, mre.constraints, mre.original_matches,
                mre.mre, strict=True)])
        for row in range(self.mre_table.rowCount()):  # numbers sort as numbers
            for column in (2, 3):
                item = self.mre_table.item(row, column)
                item.setData(Qt.ItemDataRole.EditRole, float(item.text()))
        self.mre_table.setSortingEnabled(True)

    def _show_codes(self, result: UtilityComparison) -> None:
        counts = result.code_counts
        top = counts.head(20)
        _grouped_bars(self.codes_plot, [display_code(c) for c in top["code"]],
                      {"Original": top["original"].tolist(),
                       "Reconstructed (mean)": top["reconstructed"].tolist()},
                      (INPUT_COLOR, OUTPUT_COLOR), room=self.codes_plot.width() - 80)
        shown = counts.assign(code=[display_code(c) for c in counts["code"]])
        while self.codes_view_box.count():
            self.codes_view_box.takeAt(0).widget().deleteLater()
        lost = int((counts["chunks"] == "item").sum())
        self.codes_view_box.addWidget(note(
            f"Codes in record and shared chunks keep their exact counts; item-chunk codes "
            f"are placed once per cluster in a reconstruction ('{result.item_fill}'). "
            f"{lost:,} codes are published only in item chunks."))
        view = frame_view(shown, _cell)
        header = view.horizontalHeader()
        for column, width in enumerate((70, 70, 95, 95)):
            header.setSectionResizeMode(column, header.ResizeMode.Interactive)
            view.setColumnWidth(column, width)
        self.codes_view_box.addWidget(view, 1)


def _p_value(p: float | None) -> str:
    if p is None:
        return "—"
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def _cell(value: Any) -> str:
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    if isinstance(value, float | np.floating):
        return "—" if np.isnan(value) else f"{float(value):,.2f}".rstrip("0").rstrip(".")
    return str(value)


def _grouped_bars(widget: pg.PlotWidget, labels: list[str],
                  series: dict[str, list[float | None]], colors: tuple[str, ...],
                  room: int | None = None) -> None:
    """Side-by-side bars per label, one colour per series (None: no bar); with ``room``
    (pixels along the axis) only as many labels as fit."""
    plot = widget.getPlotItem()
    plot.clear()
    drawn = {name: values for name, values in series.items()
             if any(v is not None for v in values)}
    if not labels or not drawn:
        return
    box = legend(widget, (-10, 10))  # the plot's one legend, emptied for this drawing
    box.clear()
    width = 0.8 / len(drawn)
    top = 0.0
    for i, ((name, values), color) in enumerate(zip(drawn.items(), colors, strict=False)):
        x = np.arange(len(labels)) - 0.4 + width * (i + 0.5)
        heights = np.array([np.nan if v is None else float(v) for v in values])
        keep = ~np.isnan(heights)
        bars = pg.BarGraphItem(x=x[keep], height=heights[keep], width=width * 0.95,
                               brush=pg.mkBrush(color), pen=pg.mkPen(color))
        plot.addItem(bars)
        box.addItem(bars, name)
        top = max(top, float(np.nanmax(heights)) if keep.any() else 0.0)
    plot.getAxis("bottom").setTicks([thinned_ticks(labels, 40, room=room)])
    plot.setXRange(-0.6, len(labels) - 0.4, padding=0)
    high = max(top, 1e-9) * 1.35  # the legend sits in the top band
    plot.setYRange(0, high, padding=0)


# --- risk ------------------------------------------------------------------------------------

class CombinationRiskView(QWidget):
    """The input's re-identification risk from code combinations (the paper's Fig. 12),
    the records at risk for k and m, record lengths and the most frequent pairs."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.result: CombinationRisk | None = None
        self.k = QSpinBox(minimum=2, maximum=1000, value=run.method.k)
        self.m = QSpinBox(minimum=1, maximum=5, value=run.method.m)
        self.controls = JobControls("Compute")
        self.controls.run_requested.connect(self.start)
        self.controls.finished.connect(self._show)
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.plot_specs = {
            "chart": ("Distinct combinations of 1-5 codes by the number of records holding "
                      "them", "codes in the combination", "% of distinct combinations"),
            "lengths": ("Codes per record", "codes", "records")}
        self.plot_boxes = {name: QVBoxLayout() for name in self.plot_specs}
        self.chart = self.lengths = None
        self.pairs = read_only_table(("Pair of codes", "Records"))
        self.cap_note = note()
        top = QHBoxLayout()
        form = QFormLayout()
        form.addRow("k", self.k)
        form.addRow("m", self.m)
        top.addLayout(form)
        top.addWidget(self.controls)
        top.addWidget(self.headline, 1)
        side = QVBoxLayout()
        side.addLayout(self.plot_boxes["lengths"], 1)
        side.addWidget(self.pairs, 1)
        self.bins = note()
        chart = QVBoxLayout()
        chart.addLayout(self.plot_boxes["chart"], 1)
        chart.addWidget(self.bins)
        body = QHBoxLayout()
        body.addLayout(chart, 3)
        body.addLayout(side, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(body, 1)
        layout.addWidget(self.cap_note)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        make_plots(self)
        if self.result is None and not self.controls.running:
            self.start()

    def start(self) -> None:
        self.controls.start(risk_job, run=self.run, k=self.k.value(), m=self.m.value())

    def _show(self, result: CombinationRisk) -> None:
        self.result = result
        self.headline.setText(
            f"<b>{result.records_at_risk_percent:.1f} %</b> of the input's records hold a "
            f"combination of at most {result.m} codes shared by fewer than {result.k} "
            "records: these are the records "
            f"{result.k}<sup>{result.m}</sup>-anonymity protects. "
            f"{result.unique_share(2):.1f} % of the distinct pairs of codes occur in one "
            "record only.")
        draw_combination_chart(self.chart, result, result.k)
        self.bins.setText(bin_legend(result.k))
        lengths = result.length_counts
        bar_chart(self.lengths, [str(i) for i in range(len(lengths))], lengths, INPUT_COLOR)
        fill_table(self.pairs, [(" + ".join(display_code(c) for c in pair), f"{n:,}")
                                for pair, n in result.top_pairs])
        self.cap_note.setText(
            "Counted on the run's input (the original codes). "
            + (f"Combinations of 4 or more codes of the {result.capped_records:,} records with "
               f"more than {result.cap} codes are counted on a random {result.cap} of their "
               "codes (the exact count is exponential)." if result.capped_records else ""))


def make_plots(view: QWidget) -> None:
    """Create ``view``'s plots named in ``view.plot_specs`` (title, x and y labels) in
    their ``view.plot_boxes``, once."""
    for name, (title, x_label, y_label) in view.plot_specs.items():
        if getattr(view, name) is None:
            plot = plot_widget(title, x_label, y_label)
            setattr(view, name, plot)
            view.plot_boxes[name].addWidget(plot)


def _browser(run: MethodRun) -> ClusterBrowser:
    return ClusterBrowser(run.release.published)


register_result_view([METHOD], "Disassociation", PublicationView)
register_result_view([METHOD], "Clusters", _browser)
register_result_view([METHOD], "Query error and MRE", UtilityView)
register_result_view([METHOD], "Combination risk", CombinationRiskView)
