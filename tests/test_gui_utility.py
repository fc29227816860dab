"""The Utility perspective on a small example: statistics input vs output, distribution,
contingency, classification run in the background (equal to the headless figure, and
cancellable) and the study panel."""

import gc

import numpy as np
import pandas as pd
import pytest
from conftest import event_loop_gaps
from PySide6.QtWidgets import QApplication

import arxpy.privacy  # noqa: F401  (registers the privacy models)
import arxpy.quality  # noqa: F401  (registers the quality models)
from arxpy.analysis import ClassificationConfig, ClassifierSpec, bin_values
from arxpy.analysis.classification import evaluate_classification
from arxpy.data.definition import AttributeType
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.example import example_project
from arxpy.gui.state import AppState
from arxpy.gui.utility import UtilityPerspective
from arxpy.gui.utility.common import percent

RECORDS = 3000
#: Age in 5-year intervals, so that output numbers come from interval midpoints.
WITH_AGE_INTERVALS = (0, 1, 1, 1, 2, 4, 2, 2)


@pytest.fixture(scope="module")
def example():
    project = example_project(records=RECORDS)
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    return project, result


@pytest.fixture
def view(qtbot, example):
    project, result = example
    state = AppState()
    state.set_project(project)
    state.set_result(result)
    perspective = UtilityPerspective(state)
    qtbot.addWidget(perspective)
    perspective.resize(1280, 800)
    perspective.show()
    qtbot.waitUntil(lambda: perspective.bundle is not None, timeout=30_000)
    yield perspective
    _dispose(perspective)


def _dispose(widget):
    """Delete the widget while Qt runs; pyqtgraph items left to the interpreter's exit
    can be torn down in an order that crashes it."""
    widget.close()
    widget.deleteLater()
    QApplication.processEvents()
    gc.collect()


def _apply(qtbot, view, levels):
    view.state.select(levels, apply=True)
    qtbot.waitUntil(lambda: view.bundle is not None and view.bundle.levels == levels,
                    timeout=30_000)


def _table(table):
    return {table.item(r, 0).text(): [table.item(r, c).text() for c in
                                      range(1, table.columnCount())]
            for r in range(table.rowCount())}


def test_without_result_shows_placeholder(qtbot, example):
    state = AppState()
    state.set_project(example[0])
    perspective = UtilityPerspective(state)
    qtbot.addWidget(perspective)
    assert perspective.stack.currentIndex() == 0
    assert perspective.applied is None
    _dispose(perspective)


def test_statistics_table_holds_input_and_output_of_numeric_attribute(qtbot, view, example):
    project, result = example
    _apply(qtbot, view, WITH_AGE_INTERVALS)
    view.summary.select("Age")
    rows = _table(view.summary.table)
    ages = pd.to_numeric(project.data["Age"])
    suppressed = result.release(WITH_AGE_INTERVALS).suppressed
    assert rows["Records"] == [f"{RECORDS:,}", f"{int((~suppressed).sum()):,}"]
    assert rows["Mean"][0] == f"{ages.mean():,.2f}"
    assert rows["Median"][0] == f"{ages.median():,.2f}".rstrip("0").rstrip(".")
    # Output: 5-year intervals [a, a+5[ stand for their midpoints a + 2.5.
    published = ages[~suppressed]
    midpoints = (published // 5) * 5 + 2.5
    assert rows["Mean"][1] == f"{midpoints.mean():,.2f}"
    assert rows["Computed from"] == ["values", "interval midpoints"]
    assert "interval stands for its midpoint" in view.summary.explanation.text()


def test_distribution_and_contingency_cover_all_records(qtbot, view, example):
    _apply(qtbot, view, WITH_AGE_INTERVALS)
    view.distribution.select("Age")
    published = int((~view.bundle.statistics.suppressed).sum())
    assert view.distribution.tables["input"]["count"].sum() == RECORDS
    assert view.distribution.tables["output"]["count"].sum() == published
    # Output bars are the intervals, in order of their values.
    labels = list(view.distribution.tables["output"]["value"])
    lows = [int(label[1:].split(",")[0]) for label in labels]
    assert labels[0] == "[0, 5[" and lows == sorted(lows) and len(lows) > 10
    view.contingency.select("Age", "Hospital ID")
    for side, table in view.contingency.tables.items():
        lows = [float(str(v)[1:].split(",")[0]) for v in table.index]  # ages binned by 5
        assert lows == sorted(lows) and table.shape[0] <= 25
        assert table.to_numpy().sum() == pytest.approx(1.0)
        assert table.shape[1] <= 25  # 60 hospitals: the rest summed as 'other'
        assert view.contingency.images[side].image.shape == table.shape


def test_class_sizes_and_quality(view, example):
    _, result = example
    bundle = view.bundle
    sizes = bundle.statistics.class_sizes
    assert sizes["size"].min() >= 5  # 5-anonymity holds for the published records
    assert view.classes.quality.rowCount() == len(result.quasi_identifiers)


def _headless(project, levels, suppressed, config, bins):
    frame = project.data.copy()
    frame["Charge"] = bin_values(frame["Charge"], bins)
    return evaluate_classification(frame, project.definition, project.hierarchies, config,
                                   levels, suppressed)


def test_classification_run_equals_headless_figure(qtbot, view, example):
    project, result = example
    panel = view.classification
    panel.form.set_class_attribute("Charge", "10000, 50000")
    panel.form.set_features(["Age", "Sex", "County", "Length of stay"])
    panel.form.set_classifier("logistic", C=0.5)
    panel.form.folds.setValue(4)
    panel.form.seed.setValue(3)
    panel.controls.run_button.click()
    qtbot.waitUntil(lambda: panel.performance is not None, timeout=60_000)
    config = ClassificationConfig("Charge", ("Age", "Sex", "County", "Length of stay"),
                                  ClassifierSpec("logistic", {"C": 0.5}, seed=3), folds=4,
                                  seed=3)
    levels = dict(zip(result.quasi_identifiers, view.state.applied, strict=True))
    suppressed = result.release(view.state.applied).suppressed
    expected = _headless(project, levels, suppressed, config, [10000, 50000])
    assert panel.performance.accuracy == expected.accuracy
    assert panel.results.headlines["accuracy"].value.text() == percent(expected.accuracy)
    assert panel.results.headlines["baseline"].value.text() == \
        percent(expected.baseline_accuracy)
    assert panel.results.headlines["relative"].value.text() == \
        percent(expected.relative_accuracy)
    assert panel.results.per_class.rowCount() == 3
    curves = [i for i in panel.results.roc.getPlotItem().listDataItems() if i.name()]
    assert len(curves) == 6  # 3 classes x (trained on input, trained on output)


@pytest.mark.perf
def test_classification_run_keeps_the_event_loop_responsive(qtbot, view):
    panel = view.classification
    panel.form.set_class_attribute("Charge", "10000, 50000")
    panel.form.set_features(["Age", "Sex", "County", "Length of stay"])
    with event_loop_gaps() as gaps:
        panel.controls.run_button.click()
        qtbot.waitUntil(lambda: panel.performance is not None, timeout=60_000)
    assert max(gaps) < 0.3, f"event loop blocked for {max(gaps):.3f} s"


def test_classification_cancel(qtbot, view):
    panel = view.classification
    panel.form.set_class_attribute("Charge", "10000, 50000")
    panel.form.set_classifier("forest", n_estimators=300)
    panel.controls.run_button.click()
    assert panel.controls.running
    panel.controls.cancel_button.click()
    qtbot.waitUntil(lambda: not panel.controls.running, timeout=10_000)
    assert panel.performance is None
    assert panel.controls.status.text() == "Cancelled."
    assert panel.controls.run_button.isEnabled()


def test_unreadable_bins_are_reported_without_running(view):
    panel = view.classification
    panel.form.set_class_attribute("Charge", "ten thousand")
    assert panel.run() is None
    assert "Cannot read the class bins" in panel.controls.status.text()
    panel.form.set_class_attribute("Charge", "")
    assert panel.run() is None
    assert "distinct values" in panel.controls.status.text()


def test_new_transformation_clears_classification(qtbot, view):
    panel = view.classification
    panel.form.set_class_attribute("Sex")
    panel.run()
    qtbot.waitUntil(lambda: panel.performance is not None, timeout=60_000)
    _apply(qtbot, view, WITH_AGE_INTERVALS)
    assert panel.performance is None


def test_study_panel_on_a_small_lattice(qtbot):
    project = example_project(records=1500)
    keep = {"Age", "Sex", "County"}
    definition = project.definition
    for name in definition.quasi_identifiers:
        if name not in keep:
            definition = definition.with_attribute(name, type=AttributeType.INSENSITIVE)
    project.definition = definition
    project.hierarchies = {k: v for k, v in project.hierarchies.items() if k in keep}
    result = anonymize(project.data, definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    state = AppState()
    state.set_project(project)
    state.set_result(result)
    view = UtilityPerspective(state)
    qtbot.addWidget(view)
    view.classification.form.set_class_attribute("Charge", "10000, 50000")
    view.study.run()
    qtbot.waitUntil(lambda: view.study.study is not None, timeout=60_000)
    study = view.study.study
    assert study.lattice_size == 5 * 2 * 3
    assert view.study.table.rowCount() == 4
    for model, widget in view.study.plots.items():
        scatter = widget.getPlotItem().listDataItems()[0]
        assert len(scatter.data) == int(study.evaluated[model].notna().sum())
    assert np.isfinite(study.best_relative_accuracy)
    _dispose(view)


def test_contingency_sides_have_their_own_scale_and_cell_tooltips(qtbot, view):
    """Issue 11: one shared scale left the input uniformly dark; cells had no tooltips."""
    _apply(qtbot, view, WITH_AGE_INTERVALS)
    contingency = view.contingency
    contingency.select("Age", "Sex")
    for side, table in contingency.tables.items():
        assert contingency.color_bars[side].levels()[1] == pytest.approx(table.to_numpy().max())
    assert contingency.color_bars["input"].levels() != contingency.color_bars["output"].levels()
    table = contingency.tables["input"]
    text = contingency.cell_text("input", 0, 1)
    assert f"Age = {table.index[0]}" in text and f"Sex = {table.columns[1]}" in text
    assert f"{100 * table.iat[0, 1]:.2f} %" in text
    assert contingency.cell_text("input", table.shape[0], 0) is None


def test_contingency_labels_every_column(qtbot, view):
    from arxpy.gui.utility.contingency_view import column_ticks

    _apply(qtbot, view, WITH_AGE_INTERVALS)
    contingency = view.contingency
    contingency.select("Age", "Hospital ID")
    columns = contingency.tables["input"].shape[1]
    ticks = contingency.plots["input"].getPlotItem().getAxis("bottom")._tickLevels[0]
    assert [position for position, _ in ticks] == list(range(columns))
    if contingency.column_legend.text():  # numbered columns are named under the plots
        assert contingency.column_legend.text().count(" = ") >= columns
    # Short enough labels are shown whole; long ones shortened with an ellipsis.
    assert column_ticks(["F", "M"], 400) == [(0.0, "F"), (1.0, "M")]
    assert column_ticks(["a very long value"] * 4, 400)[0][1].endswith("…")


def test_distribution_labels_the_other_bar(qtbot, view):
    from arxpy.gui.utility.common import keep_other, thinned_ticks

    view.distribution.select("Hospital ID")
    table = view.distribution.tables["input"]
    labels = list(table["value"])
    assert labels[-1].startswith("other")
    for side in ("input", "output"):
        plot = view.distribution.plots[side].getPlotItem()
        ticks = [t for axis in ("left", "bottom")
                 for level in (plot.getAxis(axis)._tickLevels or []) for t in level]
        if view.distribution.tables[side]["value"].iloc[-1].startswith("other"):
            assert any(text.startswith("other") for _, text in ticks)
    crowded = [f"value {i}" for i in range(24)] + ["other (36 values)"]
    assert keep_other(thinned_ticks(crowded, 30, room=300), crowded)[-1] == (
        24.0, "other (36 values)")


def test_data_tab_groups_rows_by_output_class_and_shades_them(qtbot, view):
    """Issue 11: input and output tables in Utility, output rows shaded by class."""
    from PySide6.QtCore import Qt as QtNS

    data = view.data_tables
    view.tabs.setCurrentWidget(data)
    model = data.tables.output_model
    qtbot.waitUntil(lambda: model.rowCount() == RECORDS, timeout=20_000)
    qis = view.applied.result.quasi_identifiers
    columns = [model.headerData(c, QtNS.Orientation.Horizontal) for c in
               range(model.columnCount())]
    rows = [[model.data(model.index(r, c)) for c in range(model.columnCount())]
            for r in range(model.rowCount())]
    frame = pd.DataFrame(rows, columns=columns)
    suppressed = np.array([model.headerData(r, QtNS.Orientation.Vertical).endswith("✕")
                           for r in range(model.rowCount())])
    kept = frame[~suppressed]
    keys = [tuple(r) for r in kept[qis].itertuples(index=False)]
    # Each class's rows are contiguous, and consecutive classes alternate their shade.
    boundaries = [i for i in range(1, len(keys)) if keys[i] != keys[i - 1]]
    assert len(set(keys)) == len(boundaries) + 1
    brushes = [model.data(model.index(r, 0), QtNS.ItemDataRole.BackgroundRole)
               for r in range(len(keys))]
    for i in boundaries[:20]:
        assert (brushes[i] is None) != (brushes[i - 1] is None)
    assert suppressed[len(keys):].all()  # suppressed rows last
    # The input table shows the same records in the same order.
    inputs = data.tables.input_model
    first = [inputs.data(inputs.index(0, c)) for c in range(inputs.columnCount())]
    original = view.state.data.astype(str)
    assert (original == first).all(axis=1).any()


def test_classification_overview_lists_every_target(qtbot, view):
    """Issue 11: ARX's overview, every candidate target's accuracies in one table."""
    from arxpy.gui.utility.overview import candidate_targets

    panel = view.classification
    targets = dict(candidate_targets(panel.applied))
    assert "Sex" in targets and targets["Sex"] is None
    assert targets["Charge"]  # a number with many values is binned (at its tertiles)
    # A quasi-identifier generalized to its top level has one output value: not a target.
    for name, level in panel.applied.level_map.items():
        top = panel.applied.hierarchies[name].height - 1
        if level >= top:
            assert name not in targets
    panel.form.set_classifier("bayes")  # fast: the overview trains one per target
    panel.form.folds.setValue(2)
    worker = panel.run_overview()
    assert worker is not None
    qtbot.waitUntil(lambda: not panel.overview.controls.running, timeout=240_000)
    rows = {row.attribute: row for row in panel.overview.rows}
    assert set(rows) == set(targets)
    table = panel.overview.table
    assert table.rowCount() == len(targets)
    sex = rows["Sex"]
    # Independently of the overview: the detailed evaluation of the same target agrees.
    config = ClassificationConfig("Sex", None, panel.form.classifier_spec(), folds=2,
                                  seed=panel.form.seed.value())
    applied = panel.applied
    direct = evaluate_classification(applied.frame, applied.definition, applied.hierarchies,
                                     config, applied.level_map, applied.suppressed())
    assert sex.anonymized == pytest.approx(direct.accuracy)
    assert sex.baseline == pytest.approx(direct.baseline_accuracy)


def test_curve_legends_sit_under_the_plots(qtbot, view):
    """Issue 11: legends off the curves: named under the plots, none inside them."""
    panel = view.classification
    panel.form.set_class_attribute("Sex")
    panel.form.set_classifier("bayes")
    panel.run()
    qtbot.waitUntil(lambda: not panel.controls.running, timeout=120_000)
    results = panel.results
    for widget, label in zip((results.roc, results.pr), results.legends, strict=True):
        assert widget.getPlotItem().legend is None
        assert "trained on input" in label.text() and "trained on output" in label.text()
