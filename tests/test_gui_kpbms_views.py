"""The kPB-MS result views (issue 16, spec 003 §7): each builds from a real run and fits a
laptop screen, the privacy badge comes from a recount that catches a release breaking
its claim (checked against the independent audit, tests/audit.py), the tables show the
release's traces, and the evaluation runs in the background with progress and cancel."""

from __future__ import annotations

import dataclasses
import html

import audit as anonymity
import numpy as np
import pandas as pd
import pytest
from conftest import event_loop_gaps
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from arxpy.analysis.kpbms_evaluation import Anonymized, evaluate_kpbms
from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.gui.methods.kpbms_evaluation_view import EvaluationView, parse_ks, result_rows
from arxpy.gui.methods.kpbms_views import (
    PatternsView,
    SelectionView,
    SuppressionView,
    recount_kpbms,
)
from arxpy.gui.methods.views import result_views
from arxpy.methods import run_method
from arxpy.methods.kpbms import LossLimitError
from arxpy.workflows.kpbms_evaluation import kpbms_anonymizer, kpbms_evaluation_job
from arxpy.workflows.runs import MethodRun
from screenshots.methods import kpbms_run

#: Room a view may ask for inside the window's tab at 1280x720.
MAX_WIDTH, MAX_HEIGHT = 1000, 620


@pytest.fixture(scope="module")
def run():
    return kpbms_run(n=800, k=5)  # 3 iterations, trimmed and emptied patterns, MDL cuts


def _shown(qtbot, widget: QWidget, size=(1280, 720)) -> QWidget:
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_every_kpbms_view_builds_and_fits_a_laptop_screen(qtbot, run):
    views = result_views("kpbms")
    assert [title for title, _ in views] == ["Feature selection", "kPB-MS", "Patterns",
                                             "Published table", "Evaluation"]
    for title, factory in views:
        widget = _shown(qtbot, factory(run))
        hint = widget.minimumSizeHint()
        assert hint.width() <= MAX_WIDTH, f"{title} needs {hint.width()} px"
        assert hint.height() <= MAX_HEIGHT, f"{title} needs {hint.height()} px"
        clashes = [name for name in vars(widget) if hasattr(QWidget, name)
                   and not isinstance(getattr(QWidget, name), Signal)]
        assert not clashes, f"{title} shadows QWidget.{clashes[0]}"


def test_badge_recount_agrees_with_the_independent_audit(run):
    check = recount_kpbms(run)
    published = run.release.export_table()
    columns = list(run.release.selected_features) + ["outcome"]
    assert check.columns == tuple(columns)
    assert check.smallest == anonymity.k_anonymity(published, columns) >= run.method.k
    assert check.holds and run.release.anonymous
    (claim_check,) = run.release.verify().checks
    assert f"smallest class {check.smallest:,} records" in claim_check.finding
    by_pattern = published.groupby(list(run.release.selected_features))["outcome"]
    assert check.homogeneous == int((by_pattern.nunique() == 1).sum()) > 0


def test_badge_catches_a_release_that_breaks_its_claim(run):
    """The badge recounts the published records: a record put back by mistake shows."""
    release = run.release
    dropped = np.flatnonzero(release.drop_reason == "class")[0]
    table = release.table.copy()
    table.iloc[dropped] = [_category(run, dropped, name)
                           for name in release.selected_features] + [
        run.data.loc[dropped, "outcome"]]
    suppressed = release.suppressed.copy()
    suppressed[dropped] = False
    broken = dataclasses.replace(release, table=table, suppressed=suppressed)
    check = recount_kpbms(MethodRun(run.method, broken, run.data, run.definition, "broken"))
    assert not check.holds and check.smallest < run.method.k
    assert not broken.anonymous  # the one verdict, shown by the badge, catches it too
    assert broken.verify().headline.startswith("NOT anonymous: 1 of 1 claim does not hold")


def _category(run, row: int, name: str) -> str:
    """The released category of ``row``'s feature ``name`` (MDL interval or value)."""
    from arxpy.data.mdl import apply_cuts

    cuts = run.release.cut_points.get(name)
    value = run.data.loc[[row], name]
    return apply_cuts(value, cuts).iloc[0] if cuts is not None else str(value.iloc[0])


def test_selection_view_shows_the_trace_and_ranking(qtbot, run):
    view = _shown(qtbot, SelectionView(run))
    trace = run.release.selection
    rows = view.forward.rowCount()
    assert rows == len(trace.forward) + 1 + (trace.rejected is not None)
    assert [view.forward.item(r + 1, 1).text() for r in range(len(trace.forward))] == \
        [f for _, f, _ in trace.forward]
    ranking = [view.ranking.item(r, 1).text() for r in range(view.ranking.rowCount())]
    assert ranking == trace.ranking
    released = [view.ranking.item(r, 3).text() for r in range(len(ranking))]
    kept = len(run.release.selected_features)
    assert released == ["yes"] * kept + ["dropped by kPB-MS"] * (len(ranking) - kept)


def test_suppression_view_tabulates_every_prefix_and_the_drops(qtbot, run):
    view = _shown(qtbot, SuppressionView(run))
    iterations = run.release.iterations
    assert view.table.rowCount() == len(iterations) == 3
    verdicts = [view.table.item(r, 7).text() for r in range(3)]
    assert verdicts == ["over t", "over t", "pass"]
    # Every dropped record is counted once, under one reason.
    whole = int(view.figures.text("Dropped: significant change").replace(",", ""))
    below = int(view.figures.text("Dropped: class below k").replace(",", ""))
    assert whole + below == run.release.suppressed_records
    released = int(view.figures.text("Records released").replace(",", ""))
    assert released == len(run.release.export_table())


def test_patterns_view_filters_by_action_and_counts_records(qtbot, run):
    view = _shown(qtbot, PatternsView(run))
    patterns = run.release.patterns
    before = [c for c in patterns.columns if c.startswith("before:")]
    assert view.frame["records"].sum() == len(run.data)
    assert (view.frame["records"].to_numpy() == view.frame[before].sum(axis=1)).all()
    view.filter.setCurrentText("Removed whole")
    visible = [r for r in range(len(view.frame)) if not view.view.isRowHidden(r)]
    assert len(visible) == run.release.patterns_removed
    assert all(view.frame.loc[r, "action"].startswith("removed") for r in visible)
    assert visible == list(range(len(visible)))  # removed patterns come first
    view.filter.setCurrentText("Every pattern")
    assert f"{len(patterns)} of {len(patterns)}" in view.count.text()


def test_parse_ks_refuses_what_it_cannot_use():
    assert parse_ks("1, 3,5,3") == [1, 3, 5]
    for text in ("", "0,3", "a"):
        with pytest.raises(ConfigurationError):
            parse_ks(text)


def _small():
    return kpbms_run(n=300, k=3)


def test_evaluation_job_uses_the_runs_settings():
    """The job with the run's method gives what the analysis gives with an anonymizer
    written here from the method's public surface."""
    small = _small()
    method = small.method
    params = {**method.get_params(), "discretize": "none", "continuous": None}

    def anonymize(table, k):
        try:
            release = run_method("kpbms", table, DataDefinition.for_columns(table.columns),
                                 {**params, "k": k})
        except LossLimitError:
            return None
        return Anonymized(release.selected_features, ~release.suppressed, release.loss)

    job = kpbms_evaluation_job(method, small.data, small.definition, [1, 5, 40],
                               ["c45", "knn"], folds=3)
    frame = small.data
    direct = evaluate_kpbms(frame, "outcome", anonymize, [1, 5, 40], ["c45", "knn"],
                            folds=3, seed=method.seed, discretization=method.discretize)
    assert job.to_dict() == direct.to_dict()
    assert next(c for c in job.cases if c.k == 40).verdict == "infeasible"
    assert kpbms_anonymizer(method)(frame, 1).loss == 0  # k = 1: selection only


def test_evaluation_runs_in_the_background_and_tabulates(qtbot):
    view = _shown(qtbot, EvaluationView(_small()))
    view.ks.setText("1,3,60")
    view.folds.setValue(3)
    view.trees.setValue(10)
    for name in ("svm", "rf"):
        view.classifiers[name].setChecked(False)
    view.start()
    assert view.controls.running
    qtbot.waitUntil(lambda: not view.controls.running, timeout=60_000)
    evaluation = view.evaluation
    assert evaluation is not None and list(evaluation.full) == ["knn", "c45"]
    rows = result_rows(evaluation, ["knn", "c45"])
    assert view.table.rowCount() == len(rows)
    assert [view.table.item(r, 0).text() for r in range(len(rows))][-1] == "k = 60"
    assert view.table.item(len(rows) - 1, 1).text() == "infeasible"
    share = evaluation.share_not_worse
    assert f"{share:.0%}" in view.share.text() and "74 %" in view.share.text()


def test_evaluation_can_be_cancelled_and_refuses_bad_settings(qtbot):
    view = _shown(qtbot, EvaluationView(_small()))
    view.ks.setText("0")
    view.start()
    assert not view.controls.running and "at least one k" in view.controls.status.text()
    view.ks.setText("1,3,5,10,20")
    view.trees.setValue(2000)
    view.start()
    view.controls.cancel()
    qtbot.waitUntil(lambda: not view.controls.running, timeout=30_000)
    assert view.evaluation is None and view.controls.status.text() == "Cancelled."


def test_selection_rows_name_the_published_features_per_k():
    from arxpy.gui.methods.kpbms_evaluation_view import selection_rows

    small = _small()
    evaluation = kpbms_evaluation_job(small.method, small.data, small.definition, [1, 60],
                                      ["c45"], folds=3)
    rows = dict((k, (features, loss)) for k, features, loss in selection_rows(evaluation))
    one = run_method("kpbms", small.data, small.definition, {**small.method.get_params(),
                                                              "k": 1})
    assert rows["k = 1"] == (", ".join(one.selected_features), "0.0 %")
    assert rows["k = 60"] == ("no feature prefix within t", "—")


def test_kpbms_form_with_no_candidate_ticked_means_every_feature(qtbot):
    """An empty optional attribute list is "not given" (the method's default: every
    feature), not an empty feature set the method would refuse."""
    from PySide6.QtCore import Qt

    from arxpy.gui.param_form import ParamForm
    from arxpy.methods import method_classes, method_from_dict

    params = method_classes()["kpbms"].params
    form = ParamForm(params, {"class_attribute": "outcome"}, ["age", "bmi", "outcome"])
    qtbot.addWidget(form)
    values = form.values()
    assert "qis" not in values and "continuous" not in values
    assert method_from_dict({"name": "kpbms", **values}).qis is None
    form.widgets["qis"].item(1).setCheckState(Qt.CheckState.Checked)
    assert form.values()["qis"] == ["bmi"]


def test_kpbms_form_hint_names_the_class_and_the_default_candidates():
    from arxpy.workflows.form_hints import form_hint

    hint = form_hint("kpbms", {"class_attribute": "outcome"})
    assert "every attribute but outcome" in hint and "outcome is part of the quasi" in hint
    assert "No candidate" not in form_hint("kpbms", {"class_attribute": "outcome",
                                                     "qis": ["age"]})


def test_published_table_is_the_export_and_names_every_drop(qtbot, run):
    from arxpy.gui.methods.kpbms_views import PublishedTableView

    view = _shown(qtbot, PublishedTableView(run))
    exported = run.release.export_table()
    assert view.view.model().rowCount() == len(exported)
    assert view.published.equals(exported.reset_index(drop=True))
    view.holder.setChecked(True)
    model = view.view.model()
    assert model.rowCount() == len(run.data)
    reasons = view.everything["dropped"]
    assert ((reasons != "") == run.release.suppressed).all()
    assert (reasons != "").sum() == len(run.data) - len(exported)
    assert set(reasons) <= {"", "class below k", "whole pattern removed"}
    kept = view.everything.loc[~run.release.suppressed].drop(columns="dropped")
    assert kept.reset_index(drop=True).equals(view.published)  # same categories as released
    assert not (view.everything == "*").any().any()


def test_views_of_a_selection_only_run_with_equal_frequency_bins(qtbot):
    """k = 1 drops nothing and tests nothing; every view still builds and says so."""
    from arxpy.methods.kpbms.devdata import screening_data
    from screenshots.methods import _run

    one = _run("kpbms", screening_data(300, 1), {"class_attribute": "outcome", "k": 1,
                                                 "discretize": "eqfreq", "bins": 3,
                                                 "cv_folds": 0}, "k=1")
    assert one.release.cut_points["glucose"] and len(one.release.cut_points["glucose"]) == 2
    for title, factory in result_views("kpbms"):
        widget = _shown(qtbot, factory(one))
        assert widget.minimumSizeHint().height() <= MAX_HEIGHT, title
    selection = SelectionView(one)
    qtbot.addWidget(selection)
    assert selection.plot.getPlotItem().getAxis("left").labelText == "PBCA"
    suppression = SuppressionView(one)
    qtbot.addWidget(suppression)
    assert suppression.figures.text("Loss") == "0.0 %"
    assert [suppression.table.item(0, 7).text()] == ["pass"]


@pytest.mark.perf
def test_evaluation_keeps_the_event_loop_responsive(qtbot):
    view = _shown(qtbot, EvaluationView(kpbms_run(n=1500, k=5)))
    view.trees.setValue(50)
    view.folds.setValue(5)
    with event_loop_gaps() as gaps:
        view.controls.run_button.click()
        qtbot.waitUntil(lambda: not view.controls.running, timeout=300_000)
    assert view.evaluation is not None
    assert max(gaps) < 0.3, f"event loop blocked for {max(gaps):.3f} s"


def test_selection_view_warns_about_a_many_valued_feature(qtbot):
    from PySide6.QtWidgets import QLabel

    from screenshots.methods import _run

    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"visit": [f"v{i // 2}" for i in range(200)],
                          "class": rng.choice(["a", "b"], 200)})
    visits = _run("kpbms", frame, {"class_attribute": "class", "k": 1, "cv_folds": 0,
                                   "discretize": "none"}, "visits")
    view = _shown(qtbot, SelectionView(visits))
    banners = [html.unescape(label.text()) for label in view.findChildren(QLabel)
               if label.objectName() == "privacyCaveat"]
    assert len(banners) == 1 and "'visit' has 100 categories for 200 records" in banners[0]
    assert not SelectionView(kpbms_run(n=300, k=3)).findChildren(QLabel, "privacyCaveat")


def test_configure_previews_the_cut_points_the_run_uses(run, monkeypatch):
    from arxpy.workflows import form_hints

    values = {"class_attribute": "outcome", "k": 5}
    hint = form_hints.form_hint("kpbms", values, run.data, run.definition)
    cuts = run.release.cut_points["glucose"]
    assert f"glucose: cuts {', '.join(f'{c:g}' for c in cuts)} → <={cuts[0]:g}" in hint
    assert "Cut points (MDL" in hint and "outcome is part of the quasi" in hint
    assert "Cut points" not in form_hints.form_hint("kpbms", values)  # no project open
    bins = form_hints.form_hint("kpbms", {**values, "discretize": "eqfreq", "bins": 3},
                                run.data, run.definition)
    glucose = next(line for line in bins.splitlines() if line.startswith("glucose"))
    assert "equal frequency, 3 bins" in bins and glucose.count(";") == 1  # 2 cuts, 3 bins
    none = form_hints.form_hint("kpbms", {**values, "discretize": "none"}, run.data,
                                run.definition)
    assert "Cut points" not in none
    monkeypatch.setattr(form_hints, "PREVIEW_CELLS", 10)
    big = form_hints.form_hint("kpbms", {**values, "bins": 4, "discretize": "eqfreq"},
                               run.data, run.definition)
    assert "computed when the method runs" in big
