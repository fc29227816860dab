"""The session without Qt (arxpy.workflows.session): undoable edits as commands, the
clean marker, runs with the keep-limit, pins, staleness and the change events."""

from __future__ import annotations

import pandas as pd
import pytest

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import MASK, MaskRule, Treatment
from arxpy.jobs import CancelToken
from arxpy.methods.topcoding import TopBottomCoding
from arxpy.project import Project
from arxpy.workflows.commands import Change, CommandStack
from arxpy.workflows.identifier_settings import with_treatment
from arxpy.workflows.runs import MethodRun, run_method_job
from arxpy.workflows.session import Session, default_settings


def tiny_project() -> Project:
    data = pd.DataFrame({"pid": [f"p{i}" for i in range(20)],
                         "age": [str(20 + i % 10) for i in range(20)],
                         "sex": ["M", "F"] * 10})
    definition = DataDefinition.for_columns(data.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING).with_attribute(
        "pid", type=AttributeType.IDENTIFYING)
    hierarchy = Hierarchy([[v, "*"] for v in sorted(set(data["age"]))])
    settings = {**default_settings(), "privacy_models": [{"kind": "k-anonymity", "k": 2}]}
    return Project(data, definition, {"age": hierarchy}, settings, name="Tiny")


@pytest.fixture
def session() -> tuple[Session, list[tuple]]:
    """An open tiny project, and the events it tells from then on."""
    session = Session()
    session.set_project(tiny_project())
    events: list[tuple] = []
    session.listen(lambda name, *args: events.append((name, *args)))
    return session, events


@pytest.fixture(scope="module")
def release():
    """One top-coding release of the tiny table (what every test run carries)."""
    project = tiny_project()
    return run_method_job(TopBottomCoding(attribute="age", top=25), project.data,
                          project.definition, {}, progress=lambda f, m: None,
                          cancel=CancelToken())


def a_run(session: Session, release, label: str) -> MethodRun:
    return MethodRun(TopBottomCoding(attribute="age", top=25), release, session.data,
                     session.definition, label)


def test_the_command_stack_undoes_redoes_and_keeps_the_clean_index():
    value, told = {}, []
    stack = CommandStack()
    stack.listen(lambda: told.append(stack.undo_text))

    def step(text: str, old: int, new: int) -> Change:
        return Change(text, lambda v: value.__setitem__("v", v), old, new)

    stack.push(step("one", 0, 1))
    stack.push(step("two", 1, 2))
    assert value == {"v": 2} and stack.undo_text == "two" and not stack.is_clean
    stack.undo()
    assert value == {"v": 1} and (stack.undo_text, stack.redo_text) == ("one", "two")
    stack.set_clean()
    stack.undo()
    assert value == {"v": 0} and not stack.can_undo and not stack.is_clean
    stack.redo()
    assert value == {"v": 1} and stack.is_clean
    stack.push(step("three", 1, 3))  # drops "two"; the clean index stays below
    assert not stack.can_redo and stack.count == 2 and not stack.is_clean
    stack.undo()
    assert stack.is_clean and value == {"v": 1}
    stack.undo()
    stack.push(step("four", 0, 4))  # drops the saved state: clean is out of reach
    assert not stack.is_clean and stack.count == 1
    stack.undo()
    assert not stack.is_clean
    assert told == ["one", "two", "one", "one", "", "one", "three", "one", "", "four", ""]


def test_a_macro_is_one_step():
    stack, value = CommandStack(), {}
    with stack.macro("both"):
        stack.push(Change("a", lambda v: value.__setitem__("a", v), None, 1))
        stack.push(Change("b", lambda v: value.__setitem__("b", v), None, 2))
    assert stack.count == 1 and stack.undo_text == "both" and value == {"a": 1, "b": 2}
    stack.undo()
    assert value == {"a": None, "b": None}


def test_edits_undo_and_redo_with_their_events_and_the_modified_marker(session):
    session, events = session
    session.set_attribute("sex", type=AttributeType.QUASI_IDENTIFYING)
    assert events == [("definition",), ("modified", True)]
    assert session.modified and session.history.undo_text == "Change type of 'sex'"
    session.set_hierarchy("age", None)
    assert events[-1] == ("hierarchy", "age") and "age" not in session.hierarchies
    session.update_settings(suppression_limit=0.1)
    assert events[-1] == ("settings",) and session.settings["suppression_limit"] == 0.1
    session.history.undo()
    session.history.undo()
    assert session.settings["suppression_limit"] == 0.0 and "age" in session.hierarchies
    session.history.undo()
    assert session.definition.quasi_identifiers == ["age"] and not session.modified
    assert events[-1] == ("modified", False)
    session.history.redo()
    assert session.definition.quasi_identifiers == ["age", "sex"] and session.modified


def test_saving_marks_clean_and_a_new_project_clears_the_history(session, tmp_path):
    session, events = session
    session.update_settings(strategy="heuristic")
    session.mark_saved(tmp_path / "p.arxpy")
    assert not session.modified and ("path",) in events
    session.history.undo()
    assert session.modified  # the saved state was after the edit
    session.set_project(tiny_project(), modified=True)
    assert session.history.count == 0 and session.modified and session.path is None
    assert [e[0] for e in events[-9:]] == ["project", "key", "result", "transformation",
                                           "pinned", "runs", "release", "path", "modified"]


def test_a_role_change_ends_the_treatment_in_the_same_undoable_step(session):
    session, _ = session
    treatment = Treatment("pid", MASK, rule=MaskRule.parse("keep-last:1"))
    session.set_identifier_plan(with_treatment(session.identifier_plan, "pid", treatment))
    session.set_attribute("pid", type=AttributeType.INSENSITIVE)
    assert session.identifier_plan.treatments == ()
    assert session.history.count == 2  # the plan, then role and treatment as one step
    session.history.undo()
    assert session.identifier_plan.treatments == (treatment,)
    assert session.definition["pid"].type is AttributeType.IDENTIFYING


def test_an_edit_makes_the_result_stale_and_undo_current_again(session):
    from arxpy.engine import anonymize

    session, events = session
    result = anonymize(session.data, session.definition, session.hierarchies,
                       session.config())
    session.set_result(result)
    assert session.applied == result.optimum.levels and not session.stale
    session.update_settings(suppression_limit=0.05)
    assert ("stale",) in events and session.stale_changes() == ["suppression limit"]
    assert session.current_release().result is result  # kept on screen while stale
    session.history.undo()
    assert not session.stale


def test_runs_keep_at_most_the_limit_but_never_pinned_or_current(session, release):
    session, events = session
    session.max_runs = 2
    first, second = a_run(session, release, "first"), a_run(session, release, "second")
    session.add_run(first)
    session.add_run(second, select=False)
    first = session.pin_run(first)
    assert first.pinned and session.runs == [first, second] and session.modified
    assert ("runs",) in events and ("pinned",) in events and ("release",) in events
    session.add_run(a_run(session, release, "third"))  # second goes: first is pinned
    assert [r.label for r in session.runs] == ["first", "third"]
    assert session.current_run.label == "third"


def test_rename_and_remove_carry_the_pins_and_the_current_run(session, release):
    session, events = session
    run = a_run(session, release, "old")
    session.add_run(run)
    run = session.pin_run(run)
    with pytest.raises(ConfigurationError, match="needs a name"):
        session.rename_run(run, "  ")
    renamed = session.rename_run(run, "new")
    assert [p.run for p in session.pins] == ["new"] and session.current_run is renamed
    other = a_run(session, release, "other")
    session.add_run(other, select=False)
    with pytest.raises(ConfigurationError, match="Another run is called 'other'"):
        session.rename_run(renamed, "other")
    events.clear()
    session.remove_run(renamed)
    assert session.pins == [] and session.current_run is other
    assert [e[0] for e in events] == ["pinned", "runs", "release", "stale"]


def test_candidates_pin_and_unpin(session, release):
    session, events = session
    run = a_run(session, release, "run")
    session.add_run(run)
    run = session.pin_candidate(run, None)
    assert run.pinned and [p.name for p in session.pins] == ["run"]
    session.unpin_candidate(session.pins[0])
    assert session.pins == [] and not session.runs[0].pinned
    assert events.count(("pinned",)) == 2


def test_the_session_announces_a_selection(session):
    session, events = session
    session.select((1,))
    session.select((1,), apply=True)
    assert session.selected == session.applied == (1,)
    assert events == [("transformation",), ("transformation",), ("release",)]
