"""The Newton-Raphson solver behind Pitman and SNB: ARX's start points, valid roots, budget."""

from __future__ import annotations

import numpy as np
import pytest

from arxpy.risk import ClassSizeHistogram, PopulationModel, population_uniqueness
from arxpy.risk import solver as solver_module
from arxpy.risk.solver import ARX_START_VALUES, SolverConfig, find_root


def linear(root: tuple[float, float]):
    """f(x) = x - root: Newton converges in one step from anywhere."""
    def function(x: np.ndarray):
        return np.asarray(x) - np.asarray(root), np.eye(2)
    return function


def recording(function, points: list[tuple[float, float]]):
    """Wrap ``function`` to record every point it is evaluated at."""
    def wrapped(x: np.ndarray):
        points.append((float(x[0]), float(x[1])))
        return function(x)
    return wrapped


def test_start_values_are_arx_grid_in_arx_order():
    grid = [0.0, 0.33, 0.66, 0.99]
    assert len(ARX_START_VALUES) == 16
    expected = [(a, b) for a in grid for b in grid]
    # Flattened: pytest.approx compares numbers, not nested tuples.
    assert [v for pair in ARX_START_VALUES for v in pair] == pytest.approx(
        [v for pair in expected for v in pair])
    assert all(len(pair) == 2 for pair in ARX_START_VALUES)
    assert SolverConfig().iterations_total == 17 * 1000


def test_failed_first_try_retries_from_arx_start_points_in_order():
    starts: list[tuple[float, float]] = []
    # The root (5, 5) lies where the constraint forbids every step: every try fails after
    # evaluating its start only.
    outcome = find_root(recording(linear((5.0, 5.0)), starts), (-1.0, -1.0),
                        constraint=lambda x: bool(x[0] < 2))
    assert not outcome.found and not outcome.stopped_early
    assert starts == [(-1.0, -1.0), *ARX_START_VALUES]


def test_root_outside_the_valid_range_fails_its_try():
    # f has roots at alpha = -2 and alpha = 0.5 (theta = 1); Newton from alpha = -3 finds
    # -2 first. Rejecting it, the solver goes on to the fixed start points and finds 0.5.
    def function(x: np.ndarray):
        t, a = x
        values = np.array([t - 1.0, (a + 2.0) * (a - 0.5)])
        return values, np.array([[1.0, 0.0], [0.0, 2.0 * a + 1.5]])

    anything = find_root(function, (1.0, -3.0))
    assert anything.root == pytest.approx([1.0, -2.0])
    valid = find_root(function, (1.0, -3.0), valid=lambda x: bool(0 < x[1] < 1))
    assert valid.root == pytest.approx([1.0, 0.5])


def test_constraint_failures_do_not_escape_the_time_budget(monkeypatch):
    # A fake clock: every evaluation costs 0.1 s; every try ends on the constraint at
    # once. The 17 tries would take 3.4 s; the budget of 1 s must stop the solve.
    clock = {"now": 0.0}
    monkeypatch.setattr(solver_module.time, "monotonic", lambda: clock["now"])
    evaluations = []

    def slow(x: np.ndarray):
        clock["now"] += 0.1
        evaluations.append(1)
        return np.asarray(x) - 5.0, np.eye(2)

    outcome = find_root(slow, (-1.0, -1.0), SolverConfig(seconds_total=1.0),
                        constraint=lambda x: False)
    assert outcome.stopped_early and not outcome.found
    assert len(evaluations) <= 11  # 1 s of 0.1 s evaluations, plus the one that crossed it


def test_all_unique_records_are_estimated_within_budget(monkeypatch):
    # Issue 12: 200,000 unique records once took 44 s of failed tries. Count the solver's
    # evaluations instead of timing them: ARX's bound is 17 tries per solve.
    calls = []
    original = solver_module._try

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(solver_module, "_try", counting)
    histogram = ClassSizeHistogram.from_class_sizes(np.ones(200_000, dtype=np.int64))
    result = population_uniqueness(histogram, PopulationModel(317_238_626))
    assert len(calls) <= 3 * 17  # Pitman closed and iterative, SNB
    assert result.dankar_model == "zayatz"


def test_report_says_which_estimates_stopped_early(monkeypatch):
    clock = {"now": 0.0}

    def ticking() -> float:
        clock["now"] += 0.6  # every look at the clock: more than the per-solve budget
        return clock["now"]

    monkeypatch.setattr(solver_module.time, "monotonic", ticking)
    sizes = np.array([1] * 40 + [2] * 12 + [3] * 5 + [5] * 2 + [9])
    result = population_uniqueness(ClassSizeHistogram.from_class_sizes(sizes),
                                   PopulationModel(10_000))
    assert set(result.stopped_early) >= {"pitman", "snb"}
    assert result.to_dict()["stopped_early"] == list(result.stopped_early)
    assert not result.available("pitman")


def test_risk_view_says_an_estimate_stopped_early(qapp):
    from types import SimpleNamespace

    from arxpy.gui.risk.tables import _uniqueness_cell
    from arxpy.risk.uniqueness import PopulationUniqueness

    population = PopulationUniqueness(
        10_000, 100, {"pitman": float("nan"), "zayatz": 5.0, "snb": float("nan"),
                      "dankar": 5.0}, "zayatz", stopped_early=("pitman",))
    analysis = SimpleNamespace(population=population)
    assert _uniqueness_cell("pitman", analysis, "input").text() == "n/a (stopped)"
    assert _uniqueness_cell("snb", analysis, "input").text() == "n/a (no solution)"
