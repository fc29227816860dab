"""The condensation and interval-generalisation result views (issues 13 and 14): each
builds from a real run, shows the run's own figures, runs its background jobs to the end
or to a cancel, and fits a laptop screen."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from conftest import event_loop_gaps
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QWidget

import arxpy.gui.methods.condensation_views  # noqa: F401  (registers the views)
import arxpy.gui.methods.interval_views  # noqa: F401
from arxpy.analysis.model_preservation import ModelSpec
from arxpy.gui.methods.condensation_views import (
    CondensationOverview,
    StatisticsView,
    SurvivalView,
)
from arxpy.gui.methods.interval_views import (
    BoxesView,
    KSweepView,
    RecordsView,
    StatisticsPanel,
)
from arxpy.gui.methods.preservation_view import ModelPreservationView
from arxpy.gui.methods.screenshots import condensation_run, interval_run
from arxpy.gui.methods.views import result_views

REPO = Path(__file__).resolve().parents[1]
#: Room a view may ask for inside the window's tab at 1280x720.
MAX_WIDTH = 1000


@pytest.fixture(scope="module")
def improved():
    return condensation_run(n=400, k=20)


@pytest.fixture(scope="module")
def mdav():
    return condensation_run(n=400, k=20, method="mdav")


@pytest.fixture(scope="module")
def intervals():
    return interval_run(n=150, k=4)


def _shown(qtbot, widget: QWidget, size=(1280, 720)) -> QWidget:
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.mark.parametrize("which", ["improved", "mdav", "intervals"])
def test_every_registered_view_builds_and_fits_a_laptop_screen(qtbot, request, which):
    run = request.getfixturevalue(which)
    views = result_views(run.method.name)
    assert len(views) >= 4
    for title, factory in views:
        widget = _shown(qtbot, factory(run))
        hint = widget.minimumSizeHint()
        assert hint.width() <= MAX_WIDTH, f"{title} needs {hint.width()} px"
        assert hint.height() <= 620, f"{title} needs {hint.height()} px"
        # A widget attribute named like a QWidget method (e.g. "event") crashes Qt.
        clashes = [name for name in vars(widget) if hasattr(QWidget, name)
                   and not isinstance(getattr(QWidget, name), Signal)]
        assert not clashes, f"{title} shadows QWidget.{clashes[0]}"


def test_overview_shows_the_releases_moved_records_and_clipping(qtbot, improved):
    view = _shown(qtbot, CondensationOverview(improved))
    release = improved.release
    assert view.figures.text("Records moved") == f"{release.moved_records:,}"
    sizes = np.bincount(release.input_groups[release.input_groups >= 0])
    assert view.figures.text("Smallest cluster") == f"{sizes.min():,}"
    assert view.figures.text("Clusters") == f"{len(sizes):,}"
    shown = {view.clipping.item(r, 0).text(): view.clipping.item(r, 2).text()
             for r in range(view.clipping.rowCount())}
    kinds = {b.name: b.kind for b in release.encoded.blocks}
    for name, count in release.clipped.items():
        assert shown[name] == ("—" if kinds[name] == "categorical" else f"{count:,}")
    caveat = view.findChild(QWidget, "privacyCaveat")
    assert "survival time and vital status exactly" in caveat.text()


def test_survival_view_draws_identical_curves_for_improved(qtbot, improved):
    view = _shown(qtbot, SurvivalView(improved))
    assert view.comparison is not None
    assert view.comparison.max_difference == 0.0
    assert len(view.plot.getPlotItem().listDataItems()) == 2
    assert "0.0000" in view.message.text()


def test_survival_view_asks_for_the_pair_when_the_method_has_none(qtbot, mdav):
    view = _shown(qtbot, SurvivalView(mdav))
    assert view.comparison is None
    assert "Choose the survival time" in view.message.text()
    view.time.setCurrentText("SurvInterval")
    view.event_column.setCurrentText("VitalStat")
    view.event_value.setCurrentText("0")
    assert view.comparison is not None and view.comparison.max_difference > 0
    view.time.setCurrentText("Stage")
    assert view.comparison is None and "must be numeric" in view.message.text()


def test_statistics_view_computes_in_the_background(qtbot, mdav):
    view = _shown(qtbot, StatisticsView(mdav))
    qtbot.waitUntil(lambda: view.statistics is not None, timeout=10_000)
    assert view.table.rowCount() == len(view.statistics)
    rows = {(view.table.item(r, 0).text(), view.table.item(r, 1).text()): r
            for r in range(view.table.rowCount())}
    row = rows[("DiagAge", "mean")]
    table = mdav.release.table
    expected = pd.to_numeric(table["DiagAge"]).mean()  # shuffling keeps the mean
    assert float(view.table.item(row, 3).text().replace(",", "")) == \
        pytest.approx(expected, rel=1e-3)
    assert view.privacy_table.rowCount() == len(view.privacy)


def _run_preservation(qtbot, view, repeats=2):
    view.repeats.setValue(repeats)
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.controls.running, timeout=60_000)
    assert view.controls.status.text() == "Done.", view.controls.status.text()
    qtbot.waitUntil(lambda: not view.report.drawing, timeout=5_000)


def test_model_preservation_runs_and_tabulates_every_coefficient(qtbot, improved):
    view = _shown(qtbot, ModelPreservationView(improved))
    analyses = view.panel.analyses()
    assert [a.type for a in analyses] == ["cox", "ols"]
    _run_preservation(qtbot, view)
    report = view.report
    assert report.summary.rowCount() == len(analyses)
    report.model.setCurrentText("linear")
    linear = next(a for a in analyses if a.name == "linear")
    # Independent fit of the original linear model with statsmodels: dummies against the
    # first level in sorted order, as the recipient's model declares by default.
    rows = improved.data[improved.data["VitalStat"] == "0"]
    design = pd.DataFrame(index=rows.index)
    for name in linear.covariates:
        if name == "DiagAge":
            design[name] = pd.to_numeric(rows[name])
            continue
        for level in sorted(set(improved.data[name]))[1:]:
            design[f"{name}[{level}]"] = (rows[name] == level).astype(float)
    design = design.loc[:, design.nunique() > 1]
    fit = sm.OLS(pd.to_numeric(rows["SurvInterval"]), sm.add_constant(design)).fit()
    table = report.coefficients
    assert table.rowCount() == len(fit.params) - 1
    cells = {table.item(r, 0).text(): r for r in range(table.rowCount())}
    age = cells["DiagAge"]
    assert float(table.item(age, 1).text()) == pytest.approx(fit.params["DiagAge"], rel=5e-3)
    for name, r in cells.items():
        p = float(table.item(r, 3).text().split()[0])
        assert ("⚠" in table.item(r, 3).text()) == (0.01 <= p <= 0.10), name


def test_model_preservation_compares_sibling_methods(qtbot, improved):
    view = _shown(qtbot, ModelPreservationView(improved))
    view.compare["mdav"].setChecked(True)
    _run_preservation(qtbot, view, repeats=1)
    assert set(view.results) == {improved.method.label, "Microaggregation MDAV (arxpy extra)"}
    assert view.report.summary.rowCount() == 2 * len(view.panel.analyses())
    bars = [i for i in view.report.charts["pct_sig_changed"].getPlotItem().items
            if type(i).__name__ == "BarGraphItem"]
    assert len(bars) == 2


def test_model_preservation_compares_the_k_anonymity_baseline(qtbot, improved):
    view = _shown(qtbot, ModelPreservationView(improved))
    view.compare["k-anonymity-baseline"].setChecked(True)
    _run_preservation(qtbot, view, repeats=2)
    assert set(view.results) == {improved.method.label, "k-anonymity (ARX-style)"}
    fits = view.results["k-anonymity (ARX-style)"].models[0].fits
    assert len(fits) == 2 and fits[0] is fits[1]  # deterministic: one run, fitted once
    assert view.report.summary.rowCount() == 2 * len(view.panel.analyses())


def test_model_preservation_can_be_cancelled(qtbot, improved):
    view = _shown(qtbot, ModelPreservationView(improved))
    view.repeats.setValue(200)
    view.controls.run_button.click()
    assert view.controls.running
    view.controls.cancel_button.click()
    qtbot.waitUntil(lambda: not view.controls.running, timeout=10_000)
    assert view.controls.status.text() == "Cancelled."
    assert view.results is None


def test_analyses_panel_refuses_an_outcome_as_covariate_and_loads_files(qtbot, improved):
    view = _shown(qtbot, ModelPreservationView(improved))
    panel = view.panel
    panel.list.setCurrentRow(1)  # the linear model of SurvInterval
    item = panel.covariates.findItems("SurvInterval", Qt.MatchFlag.MatchExactly)[0]
    item.setCheckState(Qt.CheckState.Checked)
    view.controls.run_button.click()
    assert not view.controls.running
    assert "cannot also be a covariate" in view.controls.status.text()
    panel.load(REPO / "docs" / "examples" / "condensation-analyses.json")
    specs = panel.analyses()
    assert [s.name for s in specs] == ["linear", "logistic", "cox"]
    panel.list.setCurrentRow(2)
    panel.name.setText("survival")  # an edit keeps the file's reference levels
    assert panel.analyses()[2].categorical["Stage"] == "Local"
    assert panel.analyses()[2].name == "survival"
    assert not panel.form.isRowVisible(panel.response)
    panel.list.setCurrentRow(1)
    assert panel.form.isRowVisible(panel.threshold)


def test_boxes_view_recounts_the_boxes(qtbot, intervals):
    view = _shown(qtbot, BoxesView(intervals))
    shared = intervals.release.table.groupby(["bp", "glu"]).size()
    assert view.figures.text("Boxes") == f"{len(shared):,}"
    assert view.figures.text("Smallest box") == f"{shared.min():,}"
    assert shared.min() >= intervals.method.k
    assert view.figures.text("Leftovers") == \
        f"{len(intervals.data) - intervals.method.k * len(shared):,}"
    assert "real values of boundary records" in \
        view.findChild(QWidget, "privacyCaveat").text()


def test_records_view_has_one_row_per_record_containing_its_value(qtbot, intervals):
    view = _shown(qtbot, RecordsView(intervals))
    frame = view.frame
    assert view.view.model().rowCount() == len(intervals.data)
    for name in ("bp", "glu"):
        values = pd.to_numeric(intervals.data[name]).to_numpy(float)
        assert (frame[name].to_numpy() == values).all()
        assert ((frame[f"{name}_lo"] <= values) & (values <= frame[f"{name}_hi"])).all()


def test_statistics_panel_contains_the_true_values(qtbot, intervals):
    view = _shown(qtbot, StatisticsPanel(intervals))
    qtbot.waitUntil(lambda: view.result is not None, timeout=20_000)
    table = view.table
    assert table.rowCount() == len(view.result) >= 10
    bp = pd.to_numeric(intervals.data["bp"]).to_numpy(float)
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount())}
    lo, hi = (float(x.replace(",", "")) for x in
              table.item(rows["mean(bp)"], 1).text().strip("[]").split(", "))
    assert lo <= bp.mean() <= hi
    assert all(table.item(r, 6).text() == "yes" for r in range(table.rowCount()))
    view.holder.setChecked(False)
    assert table.item(0, 5).text() == "hidden"


def test_k_sweep_runs_every_k_and_can_be_cancelled(qtbot, intervals):
    view = _shown(qtbot, KSweepView(intervals))
    view.k_max.setValue(6)
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.controls.running, timeout=30_000)
    assert sorted(set(view.sweep["k"])) == [2, 3, 4, 5, 6]
    assert len(view.plot.getPlotItem().listDataItems()) == 2  # bp and glu
    slow = _shown(qtbot, KSweepView(interval_run(n=1500, k=5, statistic="variance:bp")))
    slow.k_max.setValue(200)
    slow.controls.run_button.click()
    slow.controls.cancel_button.click()
    qtbot.waitUntil(lambda: not slow.controls.running, timeout=10_000)
    assert slow.controls.status.text() == "Cancelled."
    assert slow.sweep is None


def test_suggested_analyses_without_survival_use_a_numeric_response():
    from arxpy.gui.methods.analyses_panel import suggested_analyses

    data = pd.DataFrame({"dead": ["0", "1", "0"], "age": ["30", "40", "50"],
                         "sex": ["F", "M", "F"]})
    specs = suggested_analyses(data, ["dead", "age", "sex"], None, None, None)
    assert specs == [ModelSpec("linear", "ols", ("dead", "sex"), response="age")]


def test_model_preservation_compares_k_values(qtbot, improved):
    view = _shown(qtbot, ModelPreservationView(improved))
    view.ks.setText("10, x")
    view.controls.run_button.click()
    assert not view.controls.running
    assert "whole numbers" in view.controls.status.text()
    view.ks.setText("10, 40")
    _run_preservation(qtbot, view, repeats=1)
    label = improved.method.label
    assert list(view.results) == [f"{label}, k=10", f"{label}, k=40"]
    assert view.report.method.count() == 2


def test_k_sweep_follows_a_targeted_covariance(qtbot):
    run = interval_run(n=60, k=3, statistic="covariance:bp,glu")
    view = _shown(qtbot, KSweepView(run))
    view.k_max.setValue(4)
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.controls.running, timeout=30_000)
    assert set(view.sweep["statistic"]) == {"mean", "sd", "cov"}
    view.statistic.setCurrentText("cov")
    assert len(view.plot.getPlotItem().listDataItems()) == 1  # the one pair


def test_records_view_hides_original_values_on_request(qtbot, intervals):
    view = _shown(qtbot, RecordsView(intervals))
    view.holder.setChecked(False)
    hidden = [view.frame.columns[c] for c in range(view.frame.shape[1])
              if view.view.isColumnHidden(c)]
    assert hidden == ["bp", "glu"]


def test_each_condensation_method_states_its_own_caveat(qtbot, mdav):
    view = _shown(qtbot, CondensationOverview(mdav))
    text = view.findChild(QWidget, "privacyCaveat").text()
    assert "group mean" in text and "no re-identification risk bound" in text
    assert view.figures.text("Records moved") == "0"


@pytest.mark.perf
def test_model_preservation_keeps_the_event_loop_responsive(qtbot):
    view = _shown(qtbot, ModelPreservationView(condensation_run(n=3000, k=60)))
    view.repeats.setValue(4)
    with event_loop_gaps() as gaps:
        view.controls.run_button.click()
        qtbot.waitUntil(lambda: not view.controls.running, timeout=120_000)
        qtbot.waitUntil(lambda: not view.report.drawing, timeout=5_000)
    assert view.results is not None
    assert max(gaps) < 0.3, f"event loop blocked for {max(gaps):.3f} s"


def test_suppressed_records_are_not_given_to_the_recipients_models():
    from arxpy.methods import method_from_dict
    from arxpy.workflows.model_preservation import Repetitions

    data = condensation_run(n=300, k=10).data.copy()
    data.loc[5:, "VitalStat"] = "0"
    data.loc[:4, "VitalStat"] = "1"  # a status subset below k: suppressed
    run = condensation_run(n=300, k=10)
    method = method_from_dict({**run.method.to_dict(), "small_subset": "suppress"})
    table = Repetitions(method, data, run.definition, released_only=True)(3)
    assert len(table) == len(data) - 5
    assert not (table == "*").any().any()


@pytest.mark.slow
def test_screenshots_render_every_view(tmp_path):
    from arxpy.gui.methods.screenshots import render_method_views

    written = render_method_views(tmp_path, (1280, 720))
    names = {p.name for p in written}
    assert "methods-intervals-k-sweep.png" in names
    assert "methods-improved-condensation-model-preservation-coefficients.png" in names
    assert "methods-kpbms-evaluation.png" in names
    assert all(p.stat().st_size > 10_000 for p in written)


def test_closing_a_view_cancels_its_running_job(qtbot, improved):
    from PySide6.QtWidgets import QApplication

    view = ModelPreservationView(improved)
    view.repeats.setValue(200)
    view.controls.run_button.click()
    worker = view.controls.worker
    assert worker is not None and worker.running
    view.deleteLater()
    qtbot.waitUntil(lambda: worker._token.cancelled, timeout=5_000)
    QApplication.processEvents()
    assert worker.wait(10.0)  # the job's thread ends instead of running 200 repetitions


def test_k_sweep_names_the_largest_k_within_width_limits(qtbot, intervals):
    from arxpy.analysis.interval_statistics import width_evaluator
    from arxpy.methods.interval_boxes import largest_feasible_k

    view = _shown(qtbot, KSweepView(intervals))
    view.k_max.setValue(8)
    view.limits_text.setText("mean:bp=")
    view.controls.run_button.click()
    assert not view.controls.running and "width limit" in view.controls.status.text()
    limits = {"mean:bp": 5.0, "sd:glu": 50.0}
    view.limits_text.setText("mean:bp=5, sd:glu=50")
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.controls.running, timeout=30_000)
    expected = largest_feasible_k(intervals.method, intervals.data, limits,
                                  width_evaluator(["bp", "glu"], limits), 8).best_k
    assert view.best_k == expected == 4  # not merely the first or the last k
    assert (f"Largest k within every width limit: {expected}." if expected else
            "Not releasable") in view.controls.status.text()


def test_statistics_panel_reports_an_unknown_statistic(qtbot, intervals):
    view = _shown(qtbot, StatisticsPanel(intervals))
    qtbot.waitUntil(lambda: view.result is not None, timeout=20_000)
    rows = view.table.rowCount()
    view.statistics.setText("mean,wobble")
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.controls.running, timeout=10_000)
    assert "Unknown statistic 'wobble'" in view.controls.status.text()
    assert view.table.rowCount() == rows  # the last good table stays


def test_interval_plots_draw_each_records_interval_and_every_box(qtbot, intervals):
    from arxpy.gui.methods.interval_views import _plots

    view = _shown(qtbot, _plots(intervals))
    segments = view.one_d.getPlotItem().listDataItems()[0]
    x, y = segments.getData()
    lo, hi = x[0::2], x[1::2]
    assert (y[0::2] == y[1::2]).all()  # horizontal segments, one per record
    assert len(lo) == len(intervals.data)  # 150 records: all shown
    values = pd.to_numeric(intervals.data["bp"]).to_numpy(float)
    cells = set(intervals.release.table["bp"])
    assert {f"[{a:g}, {b:g}]" for a, b in zip(lo, hi, strict=True)} == cells
    circles = [i for i in view.one_d.getPlotItem().items
               if type(i).__name__ == "ScatterPlotItem" and i.opts["symbol"] == "o"][0]
    shown = circles.getData()[0]
    assert sorted(shown) == sorted(values)
    assert (lo <= shown).all() and (shown <= hi).all()
    boxes = intervals.release.table.groupby(["bp", "glu"]).ngroups
    assert view.two_d_note.text().startswith(f"{boxes:,} of {boxes:,} boxes")
    view.y_attribute.setCurrentText("bp")
    assert "two different attributes" in view.two_d_note.text()
