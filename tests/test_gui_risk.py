"""The Risk perspective: figures shown equal the headless analyses, monitors, population,
threshold, transformation changes, cancel and a responsive event loop."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import QElapsedTimer, QTimer

import arxpy.privacy  # noqa: F401  (registers the privacy models)
import arxpy.quality  # noqa: F401  (registers the quality models)
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.errors import ConfigurationError
from arxpy.example import example_project
from arxpy.gui.risk import RiskPerspective
from arxpy.gui.risk.common import EXCEEDED_COLOR, MET_COLOR, VALUE_ROLE, percent
from arxpy.gui.state import AppState
from arxpy.gui.workers import JobWorker
from arxpy.jobs import CancelToken
from arxpy.risk import (
    NO_LIMITS,
    PopulationModel,
    PopulationSetting,
    analyze_risk,
    population_uniqueness,
    risk_limits,
    sample_risks,
)
from arxpy.workflows.risk_jobs import analyze_output

RECORDS = 3000


def _wait(qapp, condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the risk analyses did not finish in time"
        qapp.processEvents()
        time.sleep(0.005)


@pytest.fixture(scope="module")
def setup(qapp):
    """Example project, its anonymization, and the perspective with both sides analysed."""
    project = example_project(records=RECORDS)
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    assert result.optimum is not None
    state = AppState()
    state.set_project(project)
    state.set_result(result)
    view = RiskPerspective(state)
    view.resize(1280, 800)
    view.show()
    _wait(qapp, lambda: view.analysis("output") is not None and view.analysis("input")
          is not None and not view.busy)
    yield state, view
    _dispose(qapp, view)


@pytest.fixture(scope="module")
def expected(setup):
    """The headless figures of input and output (no QI or HIPAA work: not compared)."""
    state, _ = setup
    qis = state.definition.quasi_identifiers
    output = state.result.release(state.applied)
    limits = risk_limits(output.claims) if output.anonymous else NO_LIMITS
    return {
        "input": analyze_risk(state.data, qis, qi_max_size=0, hipaa=False),
        "output": analyze_risk(output.table, state.result.quasi_identifiers,
                               suppressed=output.suppressed, limits=limits, qi_max_size=0,
                               hipaa=False),
    }


def _dispose(qapp, view) -> None:
    """Stop every job (cancelled ones too), then delete the view while Qt runs; left to
    the garbage collector, a view with a job thread still running can crash Qt."""
    view.cancel()
    for worker in view.findChildren(JobWorker):
        worker.wait(30)
    view.close()
    view.deleteLater()
    qapp.processEvents()


@pytest.fixture
def open_view(qapp):
    """Opens (shows) a perspective over ``state``; disposes of it after the test."""
    views = []

    def open_(state):
        view = RiskPerspective(state)
        views.append(view)
        view.show()
        return view

    yield open_
    for view in views:
        _dispose(qapp, view)


def _cell(view, key, side):
    row = view.attacker_rows[key]
    return view.attackers.item(row, 1 if side == "input" else 2)


@pytest.mark.parametrize("side", ["input", "output"])
def test_attacker_table_shows_analyze_risk_figures(setup, expected, side):
    _, view = setup
    risks = expected[side].risks
    p = risks.prosecutor
    for measure, value in (("Highest risk", p.highest), ("Average risk", p.average),
                           ("Records affected by highest risk", p.records_at_highest),
                           ("Estimated risk", p.estimated)):
        item = _cell(view, ("prosecutor", measure), side)
        assert item.data(VALUE_ROLE) == pytest.approx(value, rel=1e-12), measure
        assert item.text() == percent(value)
    assert _cell(view, ("marketer", "Estimated risk"), side).data(VALUE_ROLE) == \
        pytest.approx(risks.marketer_estimated)
    analysed = _cell(view, ("sample", "Records analysed (not suppressed)"), side)
    assert analysed.data(VALUE_ROLE) == expected[side].records_analyzed


def test_output_is_less_risky_and_histogram_matches(setup, expected):
    _, view = setup
    assert expected["output"].risks.prosecutor.highest <= 0.2  # 5-anonymity
    assert expected["input"].risks.prosecutor.highest == 1.0
    for side in ("input", "output"):
        shown = view.histogram.shown[side]
        fraction = expected[side].distribution.fraction
        # Every record is drawn; the hidden lowest intervals hold none.
        assert shown.sum() == pytest.approx(100.0)
        np.testing.assert_allclose(shown, 100 * fraction[fraction.size - shown.size:])


def test_uniqueness_table_shows_estimates(setup, expected):
    _, view = setup
    for side, column in (("input", 1), ("output", 2)):
        population = expected[side].population
        for estimator in ("pitman", "zayatz", "snb", "dankar"):
            item = view.uniqueness.item(view.uniqueness_rows[estimator], column)
            assert item.data(VALUE_ROLE) == pytest.approx(population.fraction(estimator))
        size = view.uniqueness.item(view.uniqueness_rows["population"], column)
        assert size.data(VALUE_ROLE) == 317_238_626


def test_monitor_turns_red_above_and_green_below(setup, expected):
    _, view = setup
    monitor = view.monitors.widgets["highest"]
    value = expected["output"].risks.prosecutor.highest  # watched: the output
    assert monitor.value == pytest.approx(value)
    monitor.set_threshold(value / 2)
    assert monitor.exceeded is True
    assert EXCEEDED_COLOR in monitor.styleSheet() and "exceeded" in monitor.verdict.text()
    monitor.set_threshold(min(value * 1.5, 1.0))
    assert monitor.exceeded is False
    assert MET_COLOR in monitor.styleSheet() and "met" in monitor.verdict.text()
    uniqueness = view.monitors.widgets["uniqueness"]
    assert uniqueness.value == pytest.approx(expected["output"].population.dankar)


def test_threshold_recounts_records_at_risk(setup, expected):
    _, view = setup
    bar = view.settings_bar
    bar.threshold.setValue(0.5)  # percent: records with risk above 0.005
    try:
        for side in ("input", "output"):
            want = sample_risks(expected[side].histogram, 0.005).prosecutor
            item = _cell(view, ("prosecutor", "Records with risk above 0.5 %"), side)
            assert item.data(VALUE_ROLE) == pytest.approx(want.records_above_threshold)
        assert view.monitors.widgets["at_risk"].value == pytest.approx(
            sample_risks(expected["output"].histogram, 0.005).prosecutor.records_above_threshold)
    finally:
        bar.threshold.setValue(20.0)


def test_population_preset_recomputes_uniqueness(qapp, setup, expected):
    _, view = setup
    view.settings_bar.population.set_region("germany")
    assert view.busy
    rows, table = view.uniqueness_rows, view.uniqueness
    _wait(qapp, lambda: not view.busy)
    assert not view.error, view.error
    assert table.item(rows["population"], 1).data(VALUE_ROLE) == 80_767_000
    want = population_uniqueness(expected["input"].histogram,
                                 PopulationModel.from_region("germany"))
    for estimator in ("pitman", "zayatz", "dankar"):
        assert table.item(rows[estimator], 1).data(VALUE_ROLE) == \
            pytest.approx(want.fraction(estimator))
    assert want.zayatz != pytest.approx(expected["input"].population.zayatz, rel=1e-9, abs=0)
    view.settings_bar.population.set_region("usa")
    _wait(qapp, lambda: not view.busy)
    assert table.item(rows["zayatz"], 1).data(VALUE_ROLE) == \
        pytest.approx(expected["input"].population.zayatz)


def test_applied_transformation_change_recomputes_output(qapp, setup):
    state, view = setup
    optimum = state.applied
    other = tuple(state.result.lattice.top)
    state.select(other, apply=True)
    try:
        _wait(qapp, lambda: not view.busy and view.sides["output"] is not None)
        assert view.sides["output"].levels == other
        want = analyze_output(state.result, other, view.settings_bar.options(),
                              progress=lambda f, m: None, cancel=CancelToken()).analysis
        item = _cell(view, ("prosecutor", "Highest risk"), "output")
        assert item.data(VALUE_ROLE) == pytest.approx(want.risks.prosecutor.highest)
        assert "[" + ", ".join(map(str, other)) + "]" in view.heading.text()
    finally:
        state.select(optimum, apply=True)
        _wait(qapp, lambda: not view.busy and view.sides["output"] is not None)


def test_input_only_before_a_run(qtbot, open_view):
    state = AppState()
    state.set_project(example_project(records=500))
    view = open_view(state)
    assert "only the input" in view.heading.text()
    assert view.attackers.isColumnHidden(2) and not view.attackers.isColumnHidden(1)
    qtbot.waitUntil(lambda: view.analysis("input") is not None and not view.busy, timeout=60000)
    assert view.analysis("output") is None
    assert view.monitors.widgets["highest"].side == "input"
    assert view.monitors.widgets["highest"].value == pytest.approx(
        view.analysis("input").risks.prosecutor.highest)


def test_cancel_stops_the_analyses(qtbot, open_view):
    state = AppState()
    state.set_project(example_project(records=RECORDS))
    view = open_view(state)  # the input analysis starts
    assert view.busy and view.settings_bar.cancel.isVisible()
    # Cancelled at once: the analysis (well under a second since the solver's fixed
    # start points) must not get the chance to finish first.
    view.settings_bar.cancel.click()
    assert not view.busy and view.analysis("input") is None
    assert not view.settings_bar.progress.isVisible()


# The analyses hold the GIL for at most ~35 ms at a time on this sample (the Pitman fit's
# trigamma goes through the reflection formula, see arxpy/risk/estimators.py), and their
# results are drawn over several event-loop turns.
@pytest.mark.perf
def test_event_loop_stays_responsive_during_the_analyses(qtbot, open_view):
    state = AppState()
    state.set_project(example_project(records=60_000))  # analyses long enough to watch
    gaps, clock = [], QElapsedTimer()
    timer = QTimer()
    timer.timeout.connect(lambda: gaps.append(clock.restart()))
    view = open_view(state)
    # Measured once the newly shown perspective has been laid out and painted (a one-off
    # cost of showing it), while the analyses still run in the background.
    qtbot.waitExposed(view)
    qtbot.wait(200)
    assert view.busy, "the analyses ended before the measurement began"
    clock.start()
    timer.start(10)
    qtbot.waitUntil(lambda: view.analysis("input") is not None and not view.busy,
                    timeout=60000)
    timer.stop()
    assert len(gaps) > 20
    assert max(gaps) < 100, f"the event loop was blocked for {max(gaps)} ms"


def test_population_setting_models():
    assert PopulationSetting("region", "uk").model(10).size == 63_705_000
    assert PopulationSetting("size", 5000).model(10).size == 5000
    assert PopulationSetting("fraction", 0.1).model(300).size == 3000
    with pytest.raises(ConfigurationError, match="Unknown population setting"):
        PopulationSetting("planet", 1).model(10)
    with pytest.raises(ConfigurationError, match="sampling fraction"):
        PopulationSetting("fraction", 0.0).model(10)


def test_applied_output_hipaa_follows_the_generalized_zip():
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.example import example_project
    from arxpy.jobs import CancelToken
    from arxpy.workflows.risk_jobs import RiskOptions, analyze_output

    project = example_project(records=500)
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    names = result.quasi_identifiers
    levels = tuple(3 if n == "ZIP code" else (0 if n == "County" else 1) for n in names)
    side = analyze_output(result, levels, RiskOptions(qi_max_size=0),
                          progress=lambda *_: None, cancel=CancelToken())
    flagged = {m.attribute for m in side.analysis.hipaa.matches}
    assert "ZIP code" not in flagged  # "75***" in the output
    assert "County" in flagged  # left at level 0: still the input's values


def test_cumulative_risk_shows_records_above_each_level_with_a_table(setup, expected):
    """Issue 11: ARX's cumulative distribution of record risk, plot or table."""
    _, view = setup
    panel = view.distribution
    panel.set_mode("cumulative")
    try:
        for side in ("input", "output"):
            shown = panel.plot_view.shown[side]
            # Independently: the share of records whose risk exceeds each lower bound.
            sizes = expected[side].histogram
            risks = np.repeat(1.0 / sizes.sizes, sizes.sizes * sizes.counts)
            from arxpy.risk.sample import RISK_BIN_LOWER
            lower = RISK_BIN_LOWER[RISK_BIN_LOWER.size - shown.size:]
            want = [100 * float((risks > bound).mean()) for bound in lower]
            np.testing.assert_allclose(shown, want, atol=1e-9)
            assert np.all(np.diff(shown) <= 1e-12)  # never rises with the risk level
        panel.set_view("table")
        assert panel.stack.currentWidget() is panel.table
        last = panel.table.rowCount() - 1
        assert panel.table.item(last, 0).text().startswith("> ")
        assert float(panel.table.item(0, 1).text()) == pytest.approx(
            panel.plot_view.shown["input"][0], abs=0.005)
    finally:
        panel.set_mode("distribution")
        panel.set_view("plot")
