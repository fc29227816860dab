"""The Explore perspective on the example project: select, apply, pin, compare, export."""

from __future__ import annotations

import time

import audit as anonymity
import numpy as np
import pandas as pd
import pytest
from conftest import ADULT_DIR as ADULT
from PySide6.QtCore import QPoint, Qt

import arxpy.privacy  # noqa: F401  (registers the models)
import arxpy.quality  # noqa: F401
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.errors import ConfigurationError
from arxpy.gui.explore import ExplorePerspective
from arxpy.gui.explore.filters import NodeFilter
from arxpy.gui.explore.lattice_view import LatticeView, choose_rows, layout
from arxpy.gui.state import AppState
from arxpy.release import SUPPRESSED_VALUE
from arxpy.search import ANONYMOUS
from arxpy.workflows.lattice_nodes import LatticeNodes

K = 5


@pytest.fixture(scope="module")
def example(example_run):
    return example_run


@pytest.fixture
def view(qtbot, example):
    project, result = example
    state = AppState()
    state.set_project(project)
    perspective = ExplorePerspective(state)
    qtbot.addWidget(perspective)
    perspective.resize(1300, 820)
    perspective.show()
    state.set_result(result)
    qtbot.waitUntil(lambda: perspective.list.model.nodes is not None, timeout=5000)
    return perspective


def _non_optimal_anonymous(result, count=1):
    best = result.optimum.levels
    anonymous = [t for t in result.checked_transformations() if t.state == "anonymous"]
    found = [t.levels for t in sorted(anonymous, key=lambda t: (t.score, t.levels))
             if t.levels != best and t.suppressed_records]
    assert len(found) >= count
    return found[:count]


def _click_node(qtbot, lattice: LatticeView, levels, double=False):
    lattice.set_filter(NodeFilter(frozenset({ANONYMOUS})))  # fewer nodes: exact clicks
    lattice.zoom(1.0)
    row = lattice.nodes.row_of(levels)
    position = int(np.flatnonzero(lattice.rows == row)[0])
    px, py = lattice.to_pixels()
    point = QPoint(round(px[position]), round(py[position]))
    assert lattice.node_at(point.toPointF()) == row
    if double:
        qtbot.mouseDClick(lattice, Qt.MouseButton.LeftButton, pos=point)
    else:
        qtbot.mouseClick(lattice, Qt.MouseButton.LeftButton, pos=point)


def test_lattice_holds_every_transformation_with_its_state(view, example):
    _, result = example
    nodes = view.nodes
    assert nodes.n == result.lattice_size and nodes.complete
    assert len(view.lattice.rows) == result.lattice_size and view.lattice.message == ""
    for levels in list(result._outcome.checks)[:40]:
        row = nodes.row_of(levels)
        state = result.transformation(levels)
        assert nodes.state_label(row) == state.state
        if state.score is None:  # not anonymous: no score, as in ARX
            assert state.state == "not anonymous" and np.isnan(nodes.scores[row])
        else:
            assert nodes.scores[row] == pytest.approx(state.score)
    assert nodes.levels_of(nodes.optimum) == result.optimum.levels


def test_layout_rows_are_heights_and_positions_distinct(example):
    _, result = example
    nodes = LatticeNodes.from_result(result)
    rows = np.arange(nodes.n)
    x, y = layout(nodes, rows)
    np.testing.assert_array_equal(y, nodes.heights)
    assert len({(a, b) for a, b in zip(x, y, strict=True)}) == nodes.n


def test_cap_keeps_best_and_says_so(example):
    _, result = example
    nodes = LatticeNodes.from_result(result)
    rows, message = choose_rows(nodes, NodeFilter(), cap=100)
    assert len(rows) == 100 and "100" in message and "narrow the filter" in message
    assert nodes.optimum in rows
    assert np.all(nodes.states[rows] == ANONYMOUS) or ANONYMOUS not in nodes.states[
        np.setdiff1d(np.arange(nodes.n), rows)]


def test_click_selects_and_double_click_applies(qtbot, view, example):
    _, result = example
    [levels] = _non_optimal_anonymous(result)
    _click_node(qtbot, view.lattice, levels)
    assert view.state.selected == levels and view.state.applied == result.optimum.levels
    _click_node(qtbot, view.lattice, levels, double=True)
    assert view.state.applied == levels
    qtbot.waitUntil(lambda: view.properties.value("Smallest class (k achieved)") is not None,
                    timeout=5000)
    assert int(view.properties.value("Smallest class (k achieved)").replace(",", "")) >= K
    assert view.properties.value("Hospital ID").startswith(str(levels[0]))


def test_filter_applies_to_lattice_and_list(view):
    view.filters.state_boxes[2].setChecked(False)  # hide not anonymous
    view.filters.state_boxes[0].setChecked(False)  # hide not checked
    anonymous = int((view.nodes.states == ANONYMOUS).sum())
    assert len(view.lattice.rows) == anonymous == view.list.model.rowCount()
    view.filters.levels.cellWidget(1, 1).setValue(3)  # Age from level 3
    assert np.all(view.nodes.levels[view.lattice.rows, 1] >= 3)
    assert len(view.lattice.rows) == view.list.model.rowCount() < anonymous
    view.filters.reset()
    assert len(view.lattice.rows) == view.nodes.n


def test_list_sorts_by_score(view):
    model = view.list.model
    score_column = len(view.nodes.names) + 1
    model.sort(score_column, Qt.SortOrder.AscendingOrder)
    scores = view.nodes.scores[model.rows]
    known = scores[~np.isnan(scores)]
    assert np.all(np.diff(known) >= 0) and np.isnan(scores[-1])
    assert model.data(model.index(0, score_column)) == f"{known[0]:.6g}"


def test_pin_three_compare_and_apply_from_the_comparison(qtbot, view, example):
    _, result = example
    pins = [result.optimum.levels, *_non_optimal_anonymous(result, 2)]
    for levels in pins:
        view.pin(levels)
    assert view.state.pinned == pins and view.tabs.tabText(2) == "Compare (3)"
    view.tabs.setCurrentWidget(view.compare)
    qtbot.waitUntil(lambda: len(view.compare.candidates) == 3, timeout=10000)
    table = view.compare.table
    assert table.columnCount() == 3
    labels = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
    risk = labels.index("Highest prosecutor risk")
    for column, levels in enumerate(pins):
        classes, kept = result.classes_of(levels)
        sizes = classes.sizes[kept]
        assert table.item(risk, column).text().endswith(f"{100 / sizes.min():.2f} %")
    assert "least information loss: <b>A</b>" in view.compare.verdict.text()
    view.compare.apply_button(2).click()
    assert view.state.applied == pins[2]
    # A fourth pin is fine, a fifth is refused with a message.
    extra = [t.levels for t in result.checked_transformations() if t.levels not in pins][:2]
    view.pin(extra[0])
    view.pin(extra[1])
    assert len(view.state.pinned) == 4 and "At most 4" in view.message.text()
    with pytest.raises(ConfigurationError):
        view.state.pin(extra[1])


def test_export_from_dialog_matches_engine_and_holds_k(qtbot, view, example, tmp_path):
    _, result = example
    [levels] = _non_optimal_anonymous(result)
    view.apply(levels)
    dialog = view.export_dialog()
    target = tmp_path / "anonymized.csv"
    dialog.path.setText(str(target))
    assert dialog.as_star.isChecked() and not dialog.keep_order.isChecked()
    dialog.keep_order.setChecked(True)  # compared row by row with the engine below
    with qtbot.waitSignal(dialog.exported, timeout=10000) as blocker:
        dialog.start_export()
    written = blocker.args[0]
    assert target in written and (tmp_path / "anonymized_report.html").exists()
    frame = pd.read_csv(target, dtype=str, keep_default_na=False)
    engine = result.release(levels).table.reset_index(drop=True)
    pd.testing.assert_frame_equal(frame, engine.astype(str))
    qis = result.quasi_identifiers
    starred = (frame[qis] == SUPPRESSED_VALUE).all(axis=1)
    assert starred.sum() == result.transformation(levels).suppressed_records > 0
    assert anonymity.k_anonymity(frame.loc[~starred], qis) >= K
    # Exporting again asks first; declining writes nothing.
    before = target.stat().st_mtime_ns
    again = view.export_dialog()
    again.path.setText(str(target))
    again.removed.setChecked(True)
    again.confirm_overwrite = lambda existing: False
    again.start_export()
    assert "Nothing was written" in again.status.text()
    assert target.stat().st_mtime_ns == before
    again.confirm_overwrite = lambda existing: True
    with qtbot.waitSignal(again.exported, timeout=10000):
        again.start_export()
    removed = pd.read_csv(target, dtype=str, keep_default_na=False)
    assert len(removed) == result.records - starred.sum()
    assert anonymity.k_anonymity(removed, qis) >= K


def test_input_output_table_marks_suppressed_rows(qtbot, view, example):
    _, result = example
    [levels] = _non_optimal_anonymous(result)
    view.apply(levels)
    assert view._io_levels is None  # nothing computed while the tab is hidden
    view.tabs.setCurrentWidget(view.io_table)
    output = view.io_table.output_model
    qtbot.waitUntil(lambda: output.rowCount() == result.records
                    and view._io_levels == levels, timeout=5000)
    suppressed = result.release(levels).suppressed
    marked = [r for r in range(output.rowCount())
              if output.headerData(r, Qt.Orientation.Vertical).endswith("✕")]
    assert marked == list(np.flatnonzero(suppressed))
    view.io_table.input_view.verticalScrollBar().setValue(40)
    assert view.io_table.output_view.verticalScrollBar().value() == 40


@pytest.mark.perf
def test_lattice_zoom_redraws_quickly(view):
    lattice = view.lattice
    lattice.grab()
    for factor in (2.0, 8.0, 0.25):
        started = time.perf_counter()
        lattice.zoom(factor)
        lattice.grab()
        assert time.perf_counter() - started < 1.0


@pytest.mark.perf
@pytest.mark.skipif(not (ADULT / "adult.csv").exists(), reason=f"Adult data not at {ADULT}")
def test_adult_lattice_renders_and_zooms_within_a_second(qtbot):
    from conftest import load_adult

    frame, definition, hierarchies = load_adult()
    result = anonymize(frame, definition, hierarchies, AnonymizationConfig.from_dict(
        {"privacy_models": [{"kind": "k-anonymity", "k": 5}], "suppression_limit": 0.02}))
    assert result.lattice_size == 12_960
    lattice = LatticeView()
    qtbot.addWidget(lattice)
    lattice.resize(1200, 800)
    lattice.show()
    started = time.perf_counter()
    lattice.set_nodes(LatticeNodes.from_result(result))
    lattice.grab()
    first = time.perf_counter() - started
    assert len(lattice.rows) == 12_960 and first < 1.0
    for factor in (2.0, 4.0, 8.0, 16.0):
        started = time.perf_counter()
        lattice.zoom(factor)
        lattice.grab()
        assert time.perf_counter() - started < 1.0
        lattice.fit()


def test_compare_scores_a_pinned_transformation_the_search_did_not_score(example):
    # As ARX, the search scores only anonymous transformations; Compare still shows the
    # configured model's score (and where it falls) for one that is not anonymous.
    from arxpy.gui.explore.compare import compute_candidates

    _, result = example
    levels = next(t.levels for t in result.checked_transformations()
                  if t.state == "not anonymous")
    (candidate,) = compute_candidates(result, [levels])
    expected = result.score_under(levels, result.config.quality_model)
    assert candidate.state == "not anonymous"
    assert candidate.score == expected and candidate.relative == result.relative(expected)
