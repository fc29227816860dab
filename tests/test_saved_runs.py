"""Method runs saved with the project: computed again on open and kept only when they
give the release that was saved; a hostile or outdated record is refused with a reason."""

from __future__ import annotations

import copy

import pytest

from arxpy.example import example_project
from arxpy.methods import method_from_dict
from arxpy.project import Project
from arxpy.workflows.saved_runs import (
    MAX_SAVED_RUNS,
    input_fingerprint,
    restore_runs,
    run_record,
)


@pytest.fixture(scope="module")
def project():
    example = example_project()
    example.data = example.data.sample(400, random_state=2).reset_index(drop=True)
    return example


def _record(project, spec, label="run", pinned=False):
    method = method_from_dict(spec)
    release = method.run(project.data, project.definition, hierarchies=project.hierarchies)
    printed = input_fingerprint(project.data, project.definition, project.hierarchies)
    return run_record(method, release, label, [None] if pinned else [], printed), release


def _restore(project, records):
    return restore_runs(records, project.data, project.definition, project.hierarchies)


def test_runs_come_back_with_the_same_release_through_a_project_file(project, tmp_path):
    drawn, release = _record(project, {"name": "condensation", "k": 5}, "drawn seed", True)
    assert drawn["method"]["seed"] == release.seed is not None  # the seed it drew
    boxes, boxed = _record(project, {"name": "intervals", "attributes": ["Age"], "k": 4})
    project = copy.copy(project)
    project.saved_runs = [drawn, boxes]
    path = project.save(tmp_path / "p.arxpy")
    loaded = Project.load(path)
    restored, problems = _restore(loaded, loaded.saved_runs)
    assert problems == []
    assert [r.label for r in restored] == ["drawn seed", "run"]
    assert [r.pinned for r in restored] == [True, False]
    assert restored[0].release.output_sha256 == release.output_sha256
    assert restored[1].release.output_sha256 == boxed.output_sha256


def test_records_that_do_not_fit_are_refused_with_the_reason(project):
    good, _ = _record(project, {"name": "mdav", "k": 5, "seed": 1}, "good")
    forged_k = copy.deepcopy(good) | {"label": "k two"}
    forged_k["method"]["k"] = 2  # the declaration refuses it before anything runs
    other_data = copy.deepcopy(good) | {"label": "moved", "fingerprint": "0" * 64}
    other_release = copy.deepcopy(good) | {"label": "swapped", "output_sha256": "f" * 64}
    broken = {"version": 99}
    restored, problems = _restore(project, [good, forged_k, other_data, other_release,
                                            broken, "not a record"])
    assert [r.label for r in restored] == ["good"]
    assert any("run 'k two'" in p and "k must be a whole number at least 3" in p
               for p in problems)
    assert any("run 'moved'" in p and "changed since it ran" in p for p in problems)
    assert any("run 'swapped'" in p and "another release" in p for p in problems)
    assert sum("unknown layout" in p for p in problems) == 2


def test_a_file_cannot_ask_for_unbounded_work(project):
    good, _ = _record(project, {"name": "mdav", "k": 5, "seed": 1})
    records = [good | {"label": f"run {i}"} for i in range(MAX_SAVED_RUNS + 3)]
    restored, problems = _restore(project, records)
    assert len(restored) == MAX_SAVED_RUNS
    assert f"the first {MAX_SAVED_RUNS} were restored" in problems[0]
