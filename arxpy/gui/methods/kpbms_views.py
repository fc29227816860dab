"""Result views of kPB-MS (issue 16, spec ``003-kpbms.md`` §7): the PB-FSS selection trace
with its step chart, the kPB-MS iterations against the loss limit with a privacy badge
recounted from the released records, the per-pattern table and the published table
with the reasons records were dropped. The evaluation tab is
:mod:`arxpy.gui.methods.kpbms_evaluation_view`.

Everything shown is a field of the :class:`~arxpy.methods.kpbms.KpbmsRelease`, except
the badge, which trusts none of the method's bookkeeping.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.mdl import discretize
from arxpy.gui.methods.common import Figures, FrameModel, caveat_banner, frame_view, number
from arxpy.gui.methods.run_views import verdict_badge
from arxpy.gui.methods.views import register_result_view
from arxpy.gui.plain_text import tooltip
from arxpy.gui.utility.common import (
    GREEN,
    INPUT_COLOR,
    OUTPUT_COLOR,
    VERMILLION,
    fill_table,
    note,
    plot_widget,
    read_only_table,
)
from arxpy.workflows.form_hints import cuts_text
from arxpy.workflows.runs import MethodRun

METHODS = ("kpbms",)


# --- the independent check (no Qt) ---------------------------------------------------


@dataclass(frozen=True)
class KpbmsCheck:
    """k-anonymity over (selected features + class), recounted from the released
    records: the groups, the smallest one, the patterns released with one class."""

    columns: tuple[str, ...]
    k: int
    groups: int
    smallest: int | None
    homogeneous: int
    records: int

    @property
    def holds(self) -> bool:
        return self.smallest is None or self.smallest >= self.k  # nothing released: vacuous


def recount_kpbms(run: MethodRun) -> KpbmsCheck:
    """Group the published table by every released column (the selected features and
    the class) and count; ``k`` is the run's parameter, not the release's claim."""
    release = run.release
    table = release.export_table(remove_suppressed=True)
    columns = list(release.table.columns)
    features = [c for c in columns if c != run.method.class_attribute]
    if table.empty:
        return KpbmsCheck(tuple(columns), run.method.k, 0, None, 0, 0)
    sizes = table.groupby(columns, sort=False, dropna=False).size()
    classes = table.groupby(features, sort=False, dropna=False)[
        run.method.class_attribute].nunique(dropna=False)
    return KpbmsCheck(tuple(columns), run.method.k, int(len(sizes)), int(sizes.min()),
                      int((classes == 1).sum()), int(len(table)))


def _heading(text: str) -> QLabel:
    return QLabel(f"<b>{html.escape(text)}</b>")


def fit_table(table, stretch: tuple[int, ...] = (), least: int = 7) -> None:
    """Size columns to their contents (the ``stretch`` ones share the rest); the table
    is at most as tall as its rows (no empty grid) and at least as tall as ``least`` of
    them, so a long one grows with the window and scrolls on a laptop screen."""
    header = table.horizontalHeader()
    for column in range(table.columnCount()):
        header.setSectionResizeMode(column, header.ResizeMode.Stretch if column in stretch
                                    else header.ResizeMode.ResizeToContents)
    frame = header.sizeHint().height() + 2 * table.frameWidth() + 2
    heights = [table.rowHeight(r) for r in range(table.rowCount())]
    table.setMinimumHeight(frame + sum(heights[:least]))
    table.setMaximumHeight(frame + sum(heights))


def _left_align(table, columns: tuple[int, ...]) -> None:
    for row in range(table.rowCount()):
        for column in columns:
            table.item(row, column).setTextAlignment(Qt.AlignmentFlag.AlignLeft
                                                     | Qt.AlignmentFlag.AlignVCenter)


# --- PB-FSS ------------------------------------------------------------------------


class SelectionView(QWidget):
    """PB-FSS (Algorithm 1): the forward steps as a step chart of CV-PBCA, the
    redundancy checks, the ranking with each feature's contribution, the discretization
    cut points and the bias warning for many-valued features."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        release, method = run.release, run.method
        trace = release.selection
        self.plot = plot_widget("Forward selection (Alg. 1 step 1)", "step",
                                "CV-PBCA" if method.cv_folds else "PBCA")
        self._draw(trace)
        self.forward = read_only_table(("Step", "Added feature", "Score", "Gain"))
        previous, rows = trace.baseline, [("0", "none (majority class)",
                                           f"{trace.baseline:.4f}", "")]
        for step, feature, score in trace.forward:
            rows.append((str(step), feature, f"{score:.4f}", f"{score - previous:+.4f}"))
            previous = score
        if trace.rejected is not None:
            name, score = trace.rejected
            rows.append(("stop", f"{name} (best next, no gain)", f"{score:.4f}",
                         f"{score - previous:+.4f}"))
        fill_table(self.forward, rows)
        _left_align(self.forward, (1,))
        self.redundancy = read_only_table(("Feature", "Score with", "Score without",
                                           "Redundant"))
        fill_table(self.redundancy, [(f, f"{a:.4f}", f"{b:.4f}", "removed" if r else "kept")
                                     for f, a, b, r in trace.redundancy], bold_first=True)
        released = set(release.selected_features)
        self.ranking = read_only_table(("Rank", "Feature", "Contribution", "Released"))
        fill_table(self.ranking, [
            (str(i + 1), name, f"{trace.contributions.get(name, float('nan')):.4f}",
             "yes" if name in released else "dropped by kPB-MS")
            for i, name in enumerate(trace.ranking)])
        _left_align(self.ranking, (1,))
        layout = QVBoxLayout(self)
        bias = [w for w in release.warnings if "categories" in w]
        for warning in bias:
            layout.addWidget(caveat_banner(warning[0].upper() + warning[1:] + "."))
        layout.addWidget(note(
            f"Score of a feature set: {self._score_name(method)}. Step 1 adds the feature "
            "that raises the score most until none does; step 2 drops a feature whose "
            f"removal does not lower it (rule '{method.redundancy}'); step 3 ranks by "
            "backward elimination: the contribution is the score lost when the feature "
            "was removed at its elimination step. kPB-MS drops features from the bottom "
            "of the ranking."))
        left = QVBoxLayout()
        left.addWidget(self.plot, 1)
        left.addWidget(_heading("Discretization"))
        left.addWidget(note(self._cuts_text(release.cut_points, method)))
        right = QVBoxLayout()
        for title, table in (("Forward steps", self.forward),
                             ("Ranking (most important first)", self.ranking),
                             ("Redundancy checks (step 2)", self.redundancy)):
            # Three tables beside the chart: five rows each fit 720 pixels; more scroll.
            fit_table(table, stretch=(1,) if table is not self.redundancy else (0,), least=5)
            right.addWidget(_heading(title))
            right.addWidget(table, 1)
        if not trace.redundancy:  # one feature selected: it is never removed
            self.redundancy.hide()
            right.addWidget(note("Nothing to check: a single feature is never removed."))
        right.addStretch(1)
        body = QHBoxLayout()
        body.addLayout(left, 3)
        body.addLayout(right, 2)
        layout.addLayout(body, 1)

    @staticmethod
    def _score_name(method) -> str:
        if not method.cv_folds:
            return "PBCA on all records (resubstitution, Eq. 1)"
        return (f"PBCA cross-validated over {method.cv_folds} stratified folds (seed "
                f"{method.seed}; an unseen pattern is predicted as "
                f"{'the training majority' if method.unseen == 'majority' else 'wrong'})")

    @staticmethod
    def _cuts_text(cuts, method) -> str:
        if method.discretize == "none":
            return "None: every value is a category."
        return html.escape(cuts_text(cuts, method.discretize, method.bins)).replace(
            "\n", "<br>")

    def _draw(self, trace) -> None:
        plot = self.plot.getPlotItem()
        scores = [trace.baseline] + [score for _, _, score in trace.forward]
        steps = np.arange(len(scores), dtype=float)
        plot.plot(np.append(steps - 0.5, steps[-1] + 0.5), np.asarray(scores),
                  stepMode="center", pen=pg.mkPen(INPUT_COLOR, width=3))
        plot.plot(steps, scores, pen=None, symbol="o", symbolSize=7,
                  symbolBrush=INPUT_COLOR, symbolPen=None)
        names = ["none"] + [feature for _, feature, _ in trace.forward]
        if trace.rejected is not None:  # the candidate that did not raise the score
            name, score = trace.rejected
            x = float(len(scores))
            plot.plot([x - 0.5, x + 0.5], [score, score],
                      pen=pg.mkPen(VERMILLION, width=2, style=Qt.PenStyle.DashLine))
            names.append(f"{name}: no gain")
            scores = [*scores, score]
        rejected = trace.rejected is not None
        for x, (name, score) in enumerate(zip(names, scores, strict=True)):
            last = rejected and x == len(names) - 1
            # Alternately above and below the steps, so long names of many steps do not
            # overlap; the rejected candidate's name ends at the plot's right edge.
            anchor = (1.0 if last else 0.5, 1.2 if x % 2 == 0 else -0.3)
            label = pg.TextItem(name, color=VERMILLION if last else "#222", anchor=anchor)
            label.setPos(float(x) + (0.5 if last else 0.0), score)
            plot.addItem(label)
        plot.getAxis("bottom").setTicks([[(float(i), str(i)) for i in range(len(names))]])
        low, high = min(scores), max(scores)
        margin = max(0.02, 0.25 * (high - low))
        plot.setYRange(low - margin, high + margin, padding=0)
        plot.setXRange(-0.7, len(names) - 0.3, padding=0)


# --- kPB-MS -------------------------------------------------------------------------


class SuppressionView(QWidget):
    """kPB-MS (Algorithm 2): the privacy badge from an independent recount, the run's
    figures (loss against t, dropped records by reason) and one row per feature prefix
    tried, with a chart of the loss against the number of features."""

    COLUMNS = ("Features", "Feature set", "Loss", "Patterns", "Removed", "Trimmed",
               "Dropped", "Against t")

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        release, method = run.release, run.method
        self.check = recount_kpbms(run)
        self.badge = verdict_badge(run.release.verdict)
        reasons = {r: int(np.sum(release.drop_reason == r)) for r in ("pattern", "class")}
        patterns = release.patterns
        significant = int((patterns["p"] < method.alpha).sum()) if len(patterns) else 0
        emptied = release.patterns_removed - significant
        n = release.records
        self.figures = Figures([
            ("Records released", f"{n - release.suppressed_records:,}",
             f"of {n:,}; only the selected features and '{method.class_attribute}'"),
            ("Loss", f"{100 * release.loss:.1f} %",
             f"maximum t = {100 * method.max_loss:g} %"),
            ("Dropped: significant change", f"{reasons['pattern']:,}",
             f"records of {significant:,} patterns removed whole (Fisher p < {method.alpha:g})"),
            ("Dropped: class below k", f"{reasons['class']:,}",
             f"{release.patterns_trimmed:,} patterns trimmed, {emptied:,} with every class "
             f"below k = {method.k}"),
            ("Homogeneous groups", f"{self.check.homogeneous:,}",
             "released patterns with a single class (recounted)"),
            ("Groups", f"{self.check.groups:,}",
             "(pattern, class) groups among released records (recounted)"),
        ], columns=3)
        self.table = read_only_table(self.COLUMNS)
        fill_table(self.table, [
            (str(len(it.features)), ", ".join(it.features), f"{100 * it.loss:.1f} %",
             f"{it.patterns:,}", f"{it.patterns_removed:,}", f"{it.patterns_trimmed:,}",
             f"{it.records_dropped:,}", "pass" if it.passed else "over t")
            for it in release.iterations])
        _left_align(self.table, (1,))
        for row in range(self.table.rowCount()):  # a long feature list is cut in the cell
            item = self.table.item(row, 1)
            item.setToolTip(tooltip(item.text()))
        fit_table(self.table, stretch=(1,))
        self.plot = plot_widget("Loss per feature prefix", "features kept", "loss (%)")
        self._draw(release.iterations, method.max_loss)
        layout = QVBoxLayout(self)
        layout.addWidget(self.badge)
        if self.check.homogeneous:
            layout.addWidget(caveat_banner(
                f"The class is part of the quasi-identifier. {self.check.homogeneous} "
                f"released pattern(s) have a single '{method.class_attribute}' value, so "
                "anyone who knows a person's values of the selected features and that the "
                "person is in the data learns the class (attribute disclosure)."))
        layout.addWidget(self.figures)
        body = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(_heading("Iterations"))
        left.addWidget(self.table)
        left.addWidget(note(
            "One row per feature prefix tried, from the whole ranking down: kPB-MS drops the "
            "least important feature while the loss (records dropped / all records) exceeds "
            "t, and publishes the first prefix within t (green in the chart). <i>Removed</i>: "
            "patterns dropped whole; <i>trimmed</i>: patterns that lost only their classes "
            "below k. The loss need not fall steadily as features go: the whole-pattern rule "
            "can make a shorter prefix lose more."))
        left.addStretch(1)
        body.addLayout(left, 3)
        body.addWidget(self.plot, 2)
        layout.addLayout(body, 1)

    def _draw(self, iterations, max_loss: float) -> None:
        plot = self.plot.getPlotItem()
        x = np.array([len(it.features) for it in iterations], dtype=float)
        y = np.array([100 * it.loss for it in iterations])
        plot.plot(x, y, pen=pg.mkPen(OUTPUT_COLOR, width=2), symbol="o", symbolSize=8,
                  symbolBrush=[pg.mkBrush(GREEN if it.passed else VERMILLION)
                               for it in iterations], symbolPen=None)
        plot.addItem(pg.InfiniteLine(100 * max_loss, angle=0, label=f"t = {100 * max_loss:g} %",
                                     pen=pg.mkPen(VERMILLION, width=2,
                                                  style=Qt.PenStyle.DashLine),
                                     labelOpts={"position": 0.85, "color": VERMILLION}))
        if len(x):
            plot.getAxis("bottom").setTicks([[(v, str(int(v))) for v in sorted(set(x))]])
            plot.setXRange(x.min() - 0.5, x.max() + 0.5, padding=0)
        plot.setYRange(0, max(float(y.max()) if len(y) else 0, 100 * max_loss) * 1.15 + 1,
                       padding=0)


# --- per pattern ------------------------------------------------------------------------

#: The pattern filter's choices and the actions each shows.
PATTERN_FILTERS = {"Every pattern": ("kept", "trimmed", "removed"),
                   "Changed (trimmed or removed)": ("trimmed", "removed"),
                   "Removed whole": ("removed",), "Trimmed": ("trimmed",)}


#: Order of the actions in the table: what changed first.
ACTION_ORDER = {"removed": 0, "trimmed": 1, "kept": 2}


def pattern_frame(patterns: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """The per-pattern table as shown: pattern values, records, class counts before and
    after, Fisher p (marked where estimated) and the action with its reason; removed
    patterns first, then trimmed, then kept, larger patterns first within each."""
    before = [c for c in patterns.columns if c.startswith("before:")]
    p = patterns["p"].to_numpy(dtype=float)
    out = patterns.drop(columns=["p", "exact_p", "action"]).copy()
    out.insert(len(out.columns) - 2 * len(before), "records",
               patterns[before].sum(axis=1).astype(int))
    out["Fisher p"] = ["—" if np.isnan(v) else f"{number(v)}{'' if exact else ' (estimated)'}"
                       for v, exact in zip(p, patterns["exact_p"], strict=True)]
    out["action"] = [_action_text(a, v, alpha) for a, v in zip(patterns["action"], p,
                                                                strict=True)]
    order = np.lexsort((-out["records"].to_numpy(),
                        patterns["action"].map(ACTION_ORDER).to_numpy()))
    return out.iloc[order].reset_index(drop=True)


def _action_text(action: str, p: float, alpha: float) -> str:
    if action == "removed":
        return "removed: significant change" if p < alpha else "removed: every class < k"
    return "trimmed: classes < k" if action == "trimmed" else "kept"


class PatternsView(QWidget):
    """One row per pattern of the selected features: class counts before and after
    zeroing the classes below k (the rows of the Fisher table), p and the action."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        release, method = run.release, run.method
        self.frame = pattern_frame(release.patterns, method.alpha)
        self.filter = QComboBox()
        self.filter.addItems(list(PATTERN_FILTERS))
        self.filter.currentTextChanged.connect(self._filtered)
        self.count = QLabel()
        self.view = frame_view(self.frame)
        header = self.view.horizontalHeader()
        # Sized once from the first rows: resizing to contents on every layout reads
        # every cell (a second at thousands of patterns).
        header.setSectionResizeMode(header.ResizeMode.Interactive)
        header.setResizeContentsPrecision(40)
        self.view.resizeColumnsToContents()
        header.setStretchLastSection(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Show"))
        top.addWidget(self.filter)
        top.addWidget(self.count, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(note(
            f"For each pattern of ({', '.join(release.selected_features)}): "
            f"<i>before</i> counts the records of each class, <i>after</i> sets classes "
            f"with fewer than k = {method.k} records to 0. A two-sided Fisher exact test on "
            f"that 2 × {sum(c.startswith('before:') for c in self.frame.columns)} table "
            f"decides: p &lt; α = {method.alpha:g} removes the whole pattern (the class "
            "distribution would change significantly), otherwise only the classes below k "
            "are removed (trimmed). p is marked 'estimated' where the exact enumeration "
            "was too large and a seeded sample was used."))
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        self._filtered(self.filter.currentText())

    def _filtered(self, choice: str) -> None:
        actions = PATTERN_FILTERS[choice]
        shown = self.frame["action"].str.split(":").str[0].isin(actions).to_numpy()
        for row, visible in enumerate(shown):
            self.view.setRowHidden(row, not visible)
        self.count.setText(f"{int(shown.sum()):,} of {len(self.frame):,} patterns")


#: How the published-table view names why a record was dropped.
DROP_REASONS = {"pattern": "whole pattern removed", "class": "class below k"}


class PublishedTableView(QWidget):
    """The published table (selected features and the class of the kept records, as
    exported) and, for the data holder, every input record with why it was dropped."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        release = run.release
        self.published = release.export_table(remove_suppressed=True).reset_index(drop=True)
        reason = pd.Series(release.drop_reason).map(DROP_REASONS).fillna("")
        # Dropped rows are '*' in the release; the data holder sees their categories.
        columns = list(release.table.columns)
        cuts = {a: c for a, c in release.cut_points.items() if a in columns}
        self.everything = discretize(run.data[columns], cuts).astype(str).reset_index(
            drop=True).assign(dropped=reason.to_numpy())
        self.view = frame_view(self.published)
        self.holder = QCheckBox("Show dropped records and why (data holder only)")
        self.holder.toggled.connect(self._show_dropped)
        counts = reason.value_counts()
        layout = QVBoxLayout(self)
        layout.addWidget(note(
            f"{len(self.published):,} of {release.records:,} records are published, with "
            f"only ({', '.join(release.table.columns)}). Dropped: "
            + ", ".join(f"{int(counts.get(text, 0)):,} {text}"
                        for text in DROP_REASONS.values())
            + ". The reasons stay here and in the report; the exported file holds the "
            "published records only."))
        layout.addWidget(self.holder)
        layout.addWidget(self.view, 1)

    def _show_dropped(self, shown: bool) -> None:
        self.view.setModel(FrameModel(self.everything if shown else self.published, self.view))


def _evaluation(run: MethodRun) -> QWidget:
    from arxpy.gui.methods.kpbms_evaluation_view import EvaluationView

    return EvaluationView(run)


register_result_view(METHODS, "Feature selection", SelectionView)
register_result_view(METHODS, "kPB-MS", SuppressionView)
register_result_view(METHODS, "Patterns", PatternsView)
register_result_view(METHODS, "Published table", PublishedTableView)
register_result_view(METHODS, "Evaluation", _evaluation)
