"""The kPB-MS evaluation tab (spec 003 §7): the paper's k sweep as a background job with
progress and cancel, a table like the paper's (accuracy mean ± sd per classifier, the
paired t-test p, worse marked), the share of k > 1 cases not significantly worse, and
accuracy against k per classifier with the full-data accuracy as a dashed line."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
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

from arxpy.analysis.kpbms_evaluation import KpbmsEvaluation
from arxpy.errors import ConfigurationError
from arxpy.gui.methods.common import SERIES_COLORS
from arxpy.gui.methods.kpbms_views import fit_table
from arxpy.gui.plain_text import tooltip
from arxpy.gui.utility.common import VERMILLION, fill_table, note, plot_widget, read_only_table
from arxpy.gui.utility.runner import JobControls
from arxpy.workflows.kpbms_evaluation import kpbms_evaluation_job
from arxpy.workflows.runs import MethodRun

#: The paper's classifiers and how the tab names them.
CLASSIFIER_TITLES = {"svm": "SVM", "knn": "kNN", "c45": "C4.5", "rf": "Random forest"}
#: The paper's k values (Sec. 6).
PAPER_KS = "1,3,5,10,20"
PROTOCOL_TITLES = {
    "paper": "paper: anonymize once before CV (as published; feature selection sees the "
             "test folds)",
    "nested": "nested: discretize and anonymize inside each training fold (leak-free)",
}


#: How the table marks a verdict (similar: nothing).
VERDICT_MARKS = {"worse": " *", "better": " +"}


def parse_ks(text: str) -> list[int]:
    """Whole numbers of at least 1 separated by commas, in order, without repeats."""
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise ConfigurationError(f"Give k values as whole numbers separated by commas, "
                                 f"e.g. {PAPER_KS}.") from None
    if not values or min(values) < 1:
        raise ConfigurationError(f"Give at least one k of 1 or more, e.g. {PAPER_KS}.")
    return list(dict.fromkeys(values))


def result_rows(evaluation: KpbmsEvaluation, classifiers: list[str]
                ) -> list[tuple[str, ...]]:
    """The paper-style rows: full data, then per k the mean ± sd (``*`` worse, ``+``
    better) and below it the paired t-test p."""
    rows = [("full data", *(f"{np.mean(evaluation.full[c]):.3f} ± "
                            f"{np.std(evaluation.full[c], ddof=1):.3f}" for c in classifiers))]
    for k in dict.fromkeys(case.k for case in evaluation.cases):
        cases = [next(c for c in evaluation.cases if c.k == k and c.classifier == name)
                 for name in classifiers]
        if all(case.mean is None for case in cases):
            rows.append((f"k = {k}", *["infeasible"] * len(cases)))
            continue
        rows.append((f"k = {k}", *("infeasible" if case.mean is None else
                                   f"{case.mean:.3f} ± {case.sd:.3f}"
                                   f"{VERDICT_MARKS.get(case.verdict, '  ')}"
                                   for case in cases)))
        rows.append(("   p", *("" if case.p_value is None else f"{case.p_value:.3g}"
                               for case in cases)))
    return rows


def selection_rows(evaluation: KpbmsEvaluation) -> list[tuple[str, str, str]]:
    """Per k: the features kPB-MS published (each distinct set when folds differ) and
    the loss (mean over the folds in the nested protocol), or why there is none."""
    rows = []
    for k in dict.fromkeys(case.k for case in evaluation.cases):
        case = next(c for c in evaluation.cases if c.k == k)
        sets = list(dict.fromkeys(tuple(f) for f in case.features))
        if case.verdict == "infeasible" or not sets:
            rows.append((f"k = {k}", "no feature prefix within t", "—"))
            continue
        shown = " | ".join(", ".join(s) for s in sets)
        rows.append((f"k = {k}", shown if len(sets) == 1 else f"varies: {shown}",
                     f"{100 * float(np.mean(case.loss)):.1f} %"))
    return rows


class EvaluationView(QWidget):
    """Settings of the sweep, Run / Cancel with progress, the table and the chart."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.evaluation: KpbmsEvaluation | None = None
        self.ks = QLineEdit(PAPER_KS)
        self.ks.setMaximumWidth(140)
        self.classifiers = {name: QCheckBox(title) for name, title in CLASSIFIER_TITLES.items()}
        for box in self.classifiers.values():
            box.setChecked(True)
        self.folds = QSpinBox()
        self.folds.setRange(2, max(2, min(20, len(run.data))))
        self.folds.setValue(min(10, self.folds.maximum()))
        self.trees = QSpinBox()
        self.trees.setRange(10, 2000)
        self.trees.setSingleStep(50)
        self.trees.setValue(500)
        self.trees.setToolTip("Trees of the random forest (the paper's R default: 500)")
        self.protocol = QComboBox()
        for key, title in PROTOCOL_TITLES.items():
            self.protocol.addItem(title, key)
        self.controls = JobControls("Run evaluation")
        self.controls.run_requested.connect(self.start)
        self.controls.finished.connect(self._show)
        self.table = read_only_table(("", *CLASSIFIER_TITLES.values()))
        self.selections = read_only_table(("", "Published features", "Loss"))
        self.share = QLabel()
        self.share.setWordWrap(True)
        self.share.setTextFormat(Qt.TextFormat.RichText)
        self.plot = plot_widget("Accuracy against k (dashed: full data)", "k",
                                "mean accuracy over the test folds")
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self._layout(run)

    def _layout(self, run: MethodRun) -> None:
        settings = QHBoxLayout()
        settings.addWidget(QLabel("k values"))
        settings.addWidget(self.ks)
        for box in self.classifiers.values():
            settings.addWidget(box)
        settings.addWidget(QLabel("Folds"))
        settings.addWidget(self.folds)
        settings.addWidget(QLabel("Trees"))
        settings.addWidget(self.trees)
        settings.addStretch(1)
        protocol = QHBoxLayout()
        protocol.addWidget(QLabel("Protocol"))
        protocol.addWidget(self.protocol, 1)
        method = run.method
        self.results = QWidget()  # shown once there are results: empty axes explain nothing
        self.results.hide()
        results = QHBoxLayout(self.results)
        results.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        left.addWidget(self.table)
        left.addWidget(self.share)
        left.addWidget(QLabel("<b>What kPB-MS published at each k</b>"))
        left.addWidget(self.selections, 1)
        results.addLayout(left, 3)
        right = QVBoxLayout()
        right.addWidget(self.plot, 1)
        right.addWidget(self.legend)
        results.addLayout(right, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(note(
            "Stratified cross-validation with the same test folds for the full and the "
            "anonymized data (Aristodimou et al., Sec. 6): each test fold keeps all its "
            "records, projected on the selected features; training uses the fold's "
            "records kPB-MS kept. This run's settings are used (maximum loss t = "
            f"{method.max_loss:g}, α = {method.alpha:g}, discretization "
            f"'{method.discretize}', seed {method.seed}). A paired t-test on the fold "
            "accuracies marks a case <b>*</b> significantly worse or <b>+</b> better "
            "(p &lt; 0.05); an infeasible k (no feature prefix within t) counts as worse. "
            "Random forests dominate the time: fewer trees run faster."))
        layout.addLayout(settings)
        layout.addLayout(protocol)
        layout.addWidget(self.controls)
        self.placeholder = note(
            "Press <b>Run evaluation</b> to cross-validate the classifiers on the full data "
            "and on kPB-MS's output at each k. This runs in the background and can be "
            "cancelled; its table and chart appear here.")
        layout.addWidget(self.placeholder, 1, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.results, 1)

    def chosen_classifiers(self) -> list[str]:
        return [name for name, box in self.classifiers.items() if box.isChecked()]

    def start(self) -> None:
        """Start the sweep in the background; a setting it cannot use is explained."""
        try:
            ks = parse_ks(self.ks.text())
            classifiers = self.chosen_classifiers()
            if not classifiers:
                raise ConfigurationError("Tick at least one classifier.")
        except ConfigurationError as exc:
            self.controls.set_status(str(exc), error=True)
            return
        run = self.run
        self.controls.start(kpbms_evaluation_job, method=run.method, data=run.data,
                            definition=run.definition, ks=ks, classifiers=classifiers,
                            folds=self.folds.value(), protocol=self.protocol.currentData(),
                            trees=self.trees.value())

    def _show(self, evaluation: KpbmsEvaluation) -> None:
        self.evaluation = evaluation
        self.placeholder.hide()
        self.results.show()
        classifiers = list(evaluation.full)
        self.table.setColumnCount(len(classifiers) + 1)
        self.table.setHorizontalHeaderLabels(["", *(CLASSIFIER_TITLES.get(c, c)
                                                    for c in classifiers)])
        rows = result_rows(evaluation, classifiers)
        fill_table(self.table, rows, bold_first=True)
        for row, cells in enumerate(rows):
            if cells[0].strip() == "p":  # the t-test row reads as a footnote to the k above
                for column in range(len(cells)):
                    self.table.item(row, column).setForeground(QColor("#666"))
        fit_table(self.table, stretch=tuple(range(1, len(classifiers) + 1)))
        fill_table(self.selections, selection_rows(evaluation), bold_first=True)
        header = self.selections.horizontalHeader()
        for column, mode in enumerate((header.ResizeMode.ResizeToContents,
                                       header.ResizeMode.Stretch,
                                       header.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(column, mode)
        for row in range(self.selections.rowCount()):
            item = self.selections.item(row, 1)
            item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(tooltip(item.text()))
        share = evaluation.share_not_worse
        cases = sum(c.k > 1 for c in evaluation.cases)
        self.share.setText(
            "No k above 1 was evaluated." if share is None else
            f"Not significantly worse than the full data in <b>{share:.0%}</b> of the "
            f"{cases} cases with k &gt; 1 ({evaluation.protocol} protocol, "
            f"{evaluation.folds} folds). The paper reports 74 % on its five datasets; "
            "this is what your data gives.")
        self._draw(evaluation, classifiers)

    def _draw(self, evaluation: KpbmsEvaluation, classifiers: list[str]) -> None:
        plot = self.plot.getPlotItem()
        plot.clear()
        ks = sorted({c.k for c in evaluation.cases})
        where = {k: float(i) for i, k in enumerate(ks)}  # evenly spaced: 1, 3, 5, 10, 20
        entries, infeasible = [], set()
        for i, name in enumerate(classifiers):
            color = SERIES_COLORS[i % len(SERIES_COLORS)]
            points = [(where[c.k], c.mean) for c in evaluation.cases
                      if c.classifier == name and c.mean is not None]
            infeasible |= {c.k for c in evaluation.cases if c.classifier == name
                           and c.mean is None}
            if points:
                x, y = (np.array(v, dtype=float) for v in zip(*points, strict=True))
                plot.plot(x, y, pen=pg.mkPen(color, width=2), symbol="o", symbolSize=7,
                          symbolBrush=color, symbolPen=None)
            plot.addItem(pg.InfiniteLine(float(np.mean(evaluation.full[name])), angle=0,
                                         pen=pg.mkPen(color, style=Qt.PenStyle.DashLine)))
            entries.append(f"<span style='color:{color}; font-size: 14pt'>■</span> "
                           f"{html.escape(CLASSIFIER_TITLES.get(name, name))}")
        for k in sorted(infeasible):
            plot.addItem(pg.InfiniteLine(where[k], angle=90, pen=pg.mkPen(
                VERMILLION, width=1, style=Qt.PenStyle.DotLine)))
        if infeasible:
            entries.append(f"<span style='color:{VERMILLION}'>┆</span> infeasible k: "
                           f"{', '.join(map(str, sorted(infeasible)))}")
        plot.getAxis("bottom").setTicks([[(where[k], str(k)) for k in ks]])
        plot.setXRange(-0.5, len(ks) - 0.5, padding=0)
        self.legend.setText(" &nbsp; ".join(entries))
