"""A result stored whole and reopened without searching (arxpy.engine.stored)."""

from __future__ import annotations

import base64
import copy
import json
import zlib

import numpy as np
import pytest

import arxpy.engine.anonymizer
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine import stored as stored_module
from arxpy.engine.stored import ResultTooLarge, reopen_result, store_outcome
from arxpy.errors import ProjectError
from arxpy.example import example_project
from arxpy.project import ArchiveLimits, Project


@pytest.fixture(scope="module")
def run():
    project = example_project(records=300)
    config = AnonymizationConfig.from_dict(project.settings)
    result = anonymize(project.data, project.definition, project.hierarchies, config)
    return project, config, result


def _reopen(project, config, stored, **kwargs):
    return reopen_result(project.data, project.definition, project.hierarchies, config,
                         stored, **kwargs)


def _through_json(record):
    return json.loads(json.dumps(record))


def test_a_reopened_result_is_the_stored_one_without_a_search(run, monkeypatch):
    project, config, result = run
    stored = _through_json(store_outcome(result))

    def no_search(*_args, **_kwargs):
        raise AssertionError("reopening searched the lattice")

    monkeypatch.setattr(arxpy.engine.anonymizer, "run_search", no_search)
    again = _reopen(project, config, stored)
    assert again.optimum == result.optimum
    assert again.score_range == result.score_range
    assert again.checked_transformations() == result.checked_transformations()
    assert np.array_equal(again.states_array(), result.states_array())
    for mine, theirs in zip(again.scores_array(), result.scores_array(), strict=True):
        assert np.array_equal(mine, theirs, equal_nan=True)
    assert again.to_dict() == result.to_dict()
    # Releases are computed again from the data, and judged again.
    assert again.release().table.equals(result.release().table)
    assert again.release().anonymous is True


def test_stored_scores_keep_every_bit(run):
    _project, _config, result = run
    stored = _through_json(store_outcome(result))
    packed = stored["checks"]["score"]
    scores = stored_module._unpack(packed, "score", "<f8", None)
    assert scores.tobytes() == np.array(
        [c.score for c in result.outcome.checks.values()]).tobytes()


def _with(stored, path, value):
    out = copy.deepcopy(stored)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def _bomb(dtype, shape):
    """A packed array whose data inflates far beyond what its shape needs."""
    return {"dtype": dtype, "shape": shape,
            "data": base64.b64encode(zlib.compress(b"\0" * (1 << 20))).decode()}


@pytest.mark.parametrize("path, value, words", [
    (("version",), 99, "unknown layout"),
    (("top",), [9, 9, 9], "top are"),
    (("optimal",), "yes", "'optimal'"),
    (("rollups",), -3, "'rollups'"),
    (("checks", "score"), {"dtype": "<i8", "shape": [1], "data": ""}, "not of type"),
    (("checks", "score", "data"), "not base64!", "cannot be decoded"),
    (("checks", "score", "shape"), [10**12], "too large"),
    (("checks", "classes"), None, "not of type"),
    (("notes",), {"x": "1"}, "not numbers"),
    (("optimum",), [99, 99], "not a transformation"),
])
def test_damaged_records_are_refused_with_what_is_wrong(run, path, value, words):
    project, config, result = run
    stored = _with(_through_json(store_outcome(result)), path, value)
    with pytest.raises(ProjectError, match="damaged") as error:
        _reopen(project, config, stored)
    assert words in str(error.value)


def test_an_array_that_inflates_beyond_its_shape_is_refused(run):
    project, config, result = run
    stored = _through_json(store_outcome(result))
    n = stored["checks"]["score"]["shape"][0]
    stored["checks"]["score"] = _bomb("<f8", [n])
    with pytest.raises(ProjectError, match="holds .* bytes, not the"):
        _reopen(project, config, stored)


def test_an_optimum_that_is_not_anonymous_is_refused(run):
    project, config, result = run
    stored = _through_json(store_outcome(result))
    not_anonymous = next(t.levels for t in result.checked_transformations()
                         if t.state == "not anonymous")
    stored["optimum"] = list(not_anonymous)
    with pytest.raises(ProjectError, match="optimum is not among"):
        _reopen(project, config, stored)


def test_a_forged_verdict_of_a_named_transformation_is_refused(run):
    """A hostile file can recompute any fingerprint: every stored check is judged again,
    named or not (the lattice view would otherwise show the file's word)."""
    project, config, result = run
    stored = _through_json(store_outcome(result))
    anonymous = stored_module._unpack(stored["checks"]["anonymous"], "anonymous", "|b1", None)
    levels = stored_module._unpack(stored["checks"]["levels"], "levels", "<i8", None, 2)
    forged = int(np.flatnonzero(~anonymous)[0])
    anonymous = anonymous.copy()
    anonymous[forged] = True
    stored["checks"]["anonymous"] = stored_module._pack(anonymous)
    with pytest.raises(ProjectError, match="does not match this data"):
        _reopen(project, config, stored)
    with pytest.raises(ProjectError, match="does not match this data"):
        _reopen(project, config, stored, verify=[tuple(levels[forged])])


def test_a_forged_score_of_any_node_is_refused(run):
    project, config, result = run
    stored = _through_json(store_outcome(result))
    anonymous = stored_module._unpack(stored["checks"]["anonymous"], "anonymous", "|b1", None)
    levels = stored_module._unpack(stored["checks"]["levels"], "levels", "<i8", None, 2)
    scores = stored_module._unpack(stored["checks"]["score"], "score", "<f8", None).copy()
    other = next(i for i in np.flatnonzero(anonymous)
                 if tuple(levels[i]) != result.optimum.levels)
    scores[other] *= 0.5
    stored["checks"]["score"] = stored_module._pack(scores)
    with pytest.raises(ProjectError, match="does not match this data"):
        _reopen(project, config, stored)


def test_a_worse_transformation_named_the_optimum_is_refused(run):
    """The top is anonymous and checked, but it is not the best: the file may not say so."""
    project, config, result = run
    stored = _through_json(store_outcome(result))
    anonymous = stored_module._unpack(stored["checks"]["anonymous"], "anonymous", "|b1", None)
    levels = stored_module._unpack(stored["checks"]["levels"], "levels", "<i8", None, 2)
    keys = stored_module._unpack(stored["checks"]["key"], "key", "<f8", None, 2)
    best = min(tuple(keys[i]) for i in np.flatnonzero(anonymous))
    worse = next(i for i in np.flatnonzero(anonymous) if tuple(keys[i]) > best)
    stored["optimum"] = [int(v) for v in levels[worse]]
    with pytest.raises(ProjectError, match="is not the best anonymous transformation"):
        _reopen(project, config, stored)


@pytest.mark.parametrize("forged_score", [0.0, float("nan")], ids=["a number", "none"])
def test_a_forged_score_of_the_optimum_is_refused(run, forged_score):
    # Only transformations that are not anonymous go without a score.
    project, config, result = run
    stored = _through_json(store_outcome(result))
    scores = stored_module._unpack(stored["checks"]["score"], "score", "<f8", None).copy()
    levels = stored_module._unpack(stored["checks"]["levels"], "levels", "<i8", None, 2)
    optimum = [tuple(row) for row in levels.tolist()].index(result.optimum.levels)
    scores[optimum] = forged_score
    stored["checks"]["score"] = stored_module._pack(scores)
    with pytest.raises(ProjectError, match="does not match this data"):
        _reopen(project, config, stored)


def test_a_result_with_too_many_checks_is_not_stored(run, monkeypatch):
    _project, _config, result = run
    monkeypatch.setattr(stored_module, "MAX_STORED_CHECKS", len(result.outcome.checks) - 1)
    with pytest.raises(ResultTooLarge, match="a project file keeps"):
        store_outcome(result)


def test_result_member_is_read_within_its_bound(run, tmp_path):
    project, _config, result = run
    project = copy.copy(project)
    project.saved_result = {"version": 2, "outcome": store_outcome(result)}
    path = project.save(tmp_path / "p.arxpy")
    assert Project.load(path).saved_result == _through_json(project.saved_result)
    with pytest.raises(ProjectError, match="result.json declares more than"):
        Project.load(path, ArchiveLimits(max_result_bytes=1000))


@pytest.mark.parametrize("strategy", ["heuristic", "exhaustive", "genetic"])
def test_every_strategy_reopens_as_it_was(strategy):
    project = example_project(records=200)
    definition = project.definition
    for name in definition.quasi_identifiers[2:]:  # a small lattice: two attributes vary
        top = project.hierarchies[name].height - 1
        definition = definition.with_attribute(name, min_level=top, max_level=top)
    project = copy.copy(project)
    project.definition = definition
    config = AnonymizationConfig.from_dict({**project.settings, "strategy": strategy,
                                            "time_limit": 5.0, "genetic_iterations": 5})
    result = anonymize(project.data, definition, project.hierarchies, config)
    again = _reopen(project, config, _through_json(store_outcome(result)))
    assert again.to_dict() == result.to_dict()
    assert again.checked_transformations() == result.checked_transformations()
    assert np.array_equal(again.states_array(), result.states_array())
