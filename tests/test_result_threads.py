"""A Result is a value: views on worker threads compute candidates at the same time.

Releases, classes and scores are computed from the run's stored data with a search
context of each call's own, so concurrent calls give what sequential ones give, and a
slow release never holds up another view (the lock the Result once shared made every
view wait for the one computing).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import arxpy.engine.result as result_module
from arxpy.engine import AnonymizationConfig, anonymize, apply
from arxpy.example import example_project
from arxpy.quality import Loss
from arxpy.search import SearchContext


def fresh_run():
    project = example_project(records=600)
    config = AnonymizationConfig.from_dict(project.settings)
    result = anonymize(project.data, project.definition, project.hierarchies, config)
    return project, config, result


@pytest.fixture(scope="module")
def run():
    return fresh_run()


def candidates(result, n: int = 12) -> list[tuple[int, ...]]:
    """Checked transformations spread over the lattice, the optimum among them."""
    checked = [t.levels for t in result.checked_transformations()]
    picked = checked[:: max(1, len(checked) // n)][:n]
    return list(dict.fromkeys([result.optimum.levels, *picked]))


def test_concurrent_releases_equal_sequential_ones(run) -> None:
    project, config, result = run
    levels = candidates(result)
    assert len(levels) >= 6
    with ThreadPoolExecutor(max_workers=8) as pool:
        concurrent = list(pool.map(result.release, levels * 2))
    for release, each in zip(concurrent, levels * 2, strict=True):
        # The reference is apply(): its own encoding and context, no Result involved.
        expected = apply(project.data, project.definition, project.hierarchies, config, each)
        assert release.table.equals(expected.table)
        assert np.array_equal(release.suppressed, expected.suppressed)
        assert release.output_sha256 == expected.output_sha256


def test_concurrent_classes_and_scores_equal_sequential_ones(run) -> None:
    _, _, result = run
    levels = candidates(result)
    model = Loss(0.3)

    def look(each):
        classes, kept = result.classes_of(each)
        return classes.sizes.copy(), kept.copy(), result.score_under(each, model)

    sequential = [look(each) for each in levels]
    with ThreadPoolExecutor(max_workers=8) as pool:
        concurrent = list(pool.map(look, levels * 3))
    for got, expected in zip(concurrent, sequential * 3, strict=True):
        assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])
        assert got[2] == expected[2]
    assert model._n == 0.0  # the caller's model was never prepared


def test_a_slow_release_holds_up_no_other_view(monkeypatch) -> None:
    _, _, result = fresh_run()  # nothing released yet
    slow, *others = candidates(result)[:3]
    result.release(others[0])  # cached: a view asking again must not wait either
    entered, gate = threading.Event(), threading.Event()
    release_of = result_module.release_of

    def blocking(context, frame, definition, config, levels, **kwargs):
        if levels == slow:
            entered.set()
            gate.wait(10)
        return release_of(context, frame, definition, config, levels, **kwargs)

    monkeypatch.setattr(result_module, "release_of", blocking)
    stuck = threading.Thread(target=result.release, args=(slow,))
    stuck.start()
    try:
        assert entered.wait(10)
        done = []

        def other_views():
            done.append(result.release(others[0]))
            done.append(result.release(others[1]))
            done.append(result.classes_of(others[1]))
            done.append(result.score_under(others[1], Loss()))

        worker = threading.Thread(target=other_views)
        worker.start()
        worker.join(5)
        assert len(done) == 4, "another view waited for the slow release"
    finally:
        gate.set()
        stuck.join(10)
    assert result.release(slow).transformation == dict(zip(result.quasi_identifiers, slow,
                                                           strict=True))


def test_a_result_keeps_no_search_context(run) -> None:
    _, _, result = run
    assert not any(isinstance(value, SearchContext) for value in vars(result).values())
    assert result.context() is not result.context()
