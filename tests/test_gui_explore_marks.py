"""Explore as a custodian reads it: relative scores, the list's order and marks, properties."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.gui.explore import ExplorePerspective
from arxpy.gui.state import AppState


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
    perspective.resize(1280, 720)
    perspective.show()
    state.set_result(result)
    qtbot.waitUntil(lambda: perspective.list.model.nodes is not None, timeout=5000)
    return perspective


def test_relative_scores_span_the_anonymous_transformations(example):
    """As ARX: the optimum at 0 %, the worst anonymous transformation at 100 %."""
    _, result = example
    anonymous = [t for t in result.checked_transformations() if t.state == "anonymous"]
    scores = [t.score for t in anonymous]
    assert result.optimum.relative_score == 0.0
    worst = max(anonymous, key=lambda t: t.score)
    assert worst.relative_score == pytest.approx(1.0)
    for t in anonymous:
        expected = (t.score - min(scores)) / (max(scores) - min(scores))
        assert t.relative_score == pytest.approx(expected)


def test_list_puts_the_optimum_first_and_marks_it(view, example, qtbot):
    _, result = example
    model = view.list.model
    assert model.levels_at(0) == result.optimum.levels
    header = model.headerData(0, Qt.Orientation.Vertical, Qt.ItemDataRole.DisplayRole)
    assert "optimum" in header and "applied" in header  # the optimum is applied at first
    # Anonymous before the rest; within them by score.
    states = view.nodes.states[model.rows]
    anonymous = states == states[0]
    first_other = int(np.argmin(anonymous)) if not anonymous.all() else len(states)
    assert anonymous[:first_other].all()
    scores = view.nodes.scores[model.rows[1:first_other]]
    known = ~np.isnan(scores)
    assert np.all(np.diff(scores[known]) >= 0)
    assert known[:int(known.sum())].all()  # scores not computed (inferred states) last


def test_list_marks_applied_and_pinned_rows(view, example):
    _, result = example
    model, state = view.list.model, view.state
    others = [t.levels for t in result.checked_transformations()
              if t.state == "anonymous" and t.levels != result.optimum.levels][:2]
    view.apply(others[0])
    state.pin(others[1])

    def header_of(levels):
        position = int(np.flatnonzero(model.rows == view.nodes.row_of(levels))[0])
        return str(model.headerData(position, Qt.Orientation.Vertical,
                                    Qt.ItemDataRole.DisplayRole))

    assert header_of(others[0]) == "applied"
    assert header_of(others[1]) == "pinned"
    assert header_of(result.optimum.levels) == "★ optimum"


def test_scores_have_full_precision_on_demand(view):
    model = view.list.model
    score_column = len(view.nodes.names) + 1
    row = int(model.rows[0])
    tip = model.data(model.index(0, score_column), Qt.ItemDataRole.ToolTipRole)
    assert float(tip) == float(view.nodes.scores[row])  # exact, not 6 significant digits


def test_properties_list_classes_and_risks_once(view, qtbot, example):
    _, result = example
    state = view.state
    levels = result.optimum.levels
    for _ in range(3):  # the same transformation shown again, as signals do
        view.on_transformation()
    state.select(levels)
    properties = view.properties
    qtbot.waitUntil(lambda: properties.value("Equivalence classes") is not None, timeout=10_000)
    qtbot.wait(400)  # every late summary would have arrived by now
    labels = [properties.table.item(r, 0).text() for r in range(properties.table.rowCount())]
    assert labels.count("Equivalence classes") == 1
    assert labels.count("Highest prosecutor risk") == 1


def test_hasse_view_shows_focus_neighbours_and_optimum_with_labels(view, example):
    from arxpy.gui.explore.hasse_view import neighbourhood

    _, result = example
    nodes = view.nodes
    hasse = view.hasse
    shown = hasse.shown
    optimum = nodes.optimum
    assert optimum in shown.rows.tolist()
    # The optimum is focused by default: its predecessors and successors are drawn, as
    # many as a row holds; the rest is counted.
    levels = np.array(result.optimum.levels)
    drawn = [nodes.levels[r] for r in shown.rows]
    neighbours = [lv for lv in drawn if np.abs(lv - levels).sum() == 1]
    assert neighbours
    for a, b in shown.edges:  # edges join transformations one step apart only
        assert np.abs(nodes.levels[shown.rows[a]] - nodes.levels[shown.rows[b]]).sum() == 1
    assert hasse.label(optimum) == "".join(str(v) for v in result.optimum.levels)
    # At most what fits per height.
    small = neighbourhood(nodes, optimum, np.ones(nodes.n, bool), per_row=3)
    heights = nodes.heights[small.rows]
    assert max(np.bincount(heights)) <= 3 and sum(small.left_out.values()) > 0


def test_clicking_a_hasse_node_selects_it(view, qtbot):
    from PySide6.QtCore import QPoint

    hasse = view.hasse
    view.tabs.setCurrentIndex(0)
    qtbot.wait(10)
    px, py = hasse.positions()
    target = int(np.flatnonzero(hasse.shown.rows != view.nodes.optimum)[0])
    row = int(hasse.shown.rows[target])
    qtbot.mouseClick(hasse, Qt.MouseButton.LeftButton,
                     pos=QPoint(round(px[target]), round(py[target])))
    assert view.state.selected == view.nodes.levels_of(row)
    assert row in hasse.shown.rows.tolist()  # the clicked node became the focus
    # Clicking in the minimap (the whole lattice) selects too.
    assert view.neighbourhood.minimap is view.lattice


@pytest.mark.perf
def test_hasse_view_of_the_adult_lattice_stays_responsive(qtbot, adult):
    import time

    from arxpy.gui.explore.hasse_view import HasseView
    from arxpy.workflows.lattice_nodes import LatticeNodes

    frame, definition, hierarchies = adult
    result = anonymize(frame, definition, hierarchies, AnonymizationConfig.from_dict(
        {"privacy_models": [{"kind": "k-anonymity", "k": 5}], "suppression_limit": 0.02}))
    assert result.lattice_size == 12_960
    nodes = LatticeNodes.from_result(result)
    hasse = HasseView()
    qtbot.addWidget(hasse)
    hasse.resize(900, 600)
    hasse.show()
    hasse.set_nodes(nodes)
    slowest = 0.0
    for row in range(0, nodes.n, nodes.n // 20):
        started = time.perf_counter()
        hasse.set_marks(nodes.levels_of(row), None, [])
        hasse.grab()
        slowest = max(slowest, time.perf_counter() - started)
    assert slowest < 0.1, f"refocusing took {1000 * slowest:.0f} ms"


def test_list_shows_state_and_score_without_scrolling_at_1280(view, qtbot):
    view.tabs.setCurrentWidget(view.list)
    qtbot.wait(20)
    table = view.list.table
    score = len(view.nodes.names) + 1
    assert table.columnViewportPosition(score) + table.columnWidth(score) <= \
        table.viewport().width()
    assert view.nodes.names[1] in view.list.model.headerData(1, Qt.Orientation.Horizontal,
                                                             Qt.ItemDataRole.ToolTipRole)
