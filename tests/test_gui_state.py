"""The application state: undoable edits, modified flag, checks before a run."""

import pandas as pd
import pytest

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.errors import ConfigurationError, DefinitionError, HierarchyError
from arxpy.gui.state import AppState, default_settings
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project


def tiny_project(rows: int = 40) -> Project:
    data = pd.DataFrame({"age": [str(20 + i % 10) for i in range(rows)],
                         "sex": ["M", "F"] * (rows // 2),
                         "disease": ["flu", "cold", "cough", "flu"] * (rows // 4)})
    definition = DataDefinition.for_columns(data.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING)
    hierarchy = Hierarchy([[v, "*"] for v in sorted(set(data["age"]))])
    settings = {**default_settings(), "privacy_models": [{"kind": "k-anonymity", "k": 2}]}
    return Project(data, definition, {"age": hierarchy}, settings, name="Tiny")


@pytest.fixture
def state(qtbot):
    state = AppState()
    state.set_project(tiny_project())
    return state


def test_attribute_edit_is_undoable_and_marks_modified(state, qtbot):
    assert not state.modified
    with qtbot.waitSignal(state.modified_changed) as signal:
        state.set_attribute("sex", type=AttributeType.QUASI_IDENTIFYING)
    assert signal.args == [True]
    assert state.definition["sex"].type is AttributeType.QUASI_IDENTIFYING
    state.undo_stack.undo()
    assert state.definition["sex"].type is AttributeType.INSENSITIVE
    assert not state.modified
    state.undo_stack.redo()
    assert state.definition.quasi_identifiers == ["age", "sex"]
    assert "sex" in state.undo_stack.undoText()


def test_impossible_edit_changes_nothing(state):
    with pytest.raises(DefinitionError):
        state.set_attribute("age", weight=-1.0)
    assert state.undo_stack.count() == 0 and not state.modified


def test_hierarchy_and_settings_edits_undo(state, qtbot):
    old = state.hierarchies["age"]
    new = Hierarchy([r + ("**",) for r in old.rows])
    with qtbot.waitSignal(state.hierarchy_changed) as signal:
        state.set_hierarchy("age", new)
    assert signal.args == ["age"] and state.hierarchies["age"] == new
    state.update_settings(suppression_limit=0.1)
    assert state.settings["suppression_limit"] == 0.1
    state.undo_stack.undo()
    assert state.settings["suppression_limit"] == 0.0
    state.undo_stack.undo()
    assert state.hierarchies["age"] == old
    state.set_hierarchy("age", None)
    assert "age" not in state.hierarchies
    state.undo_stack.undo()
    assert state.hierarchies["age"] == old


def test_saving_clears_modified_and_new_imports_start_modified(state, tmp_path):
    state.set_attribute("sex", type=AttributeType.SENSITIVE)
    state.mark_saved(tmp_path / "p.arxpy")
    assert not state.modified and state.path == tmp_path / "p.arxpy"
    state.set_project(tiny_project(), modified=True)
    assert state.modified and state.path is None


def test_config_blocks_broken_hierarchies_and_missing_qis(state):
    assert state.config().privacy_models[0].k == 2
    state.set_hierarchy("age", Hierarchy([("20", "*")]))  # does not cover 21..29
    with pytest.raises(HierarchyError) as info:
        state.config()
    assert "'age'" in str(info.value) and info.value.problems
    state.undo_stack.undo()
    state.set_attribute("age", type=AttributeType.INSENSITIVE)
    with pytest.raises(ConfigurationError, match="quasi-identifying"):
        state.config()


def test_an_edit_marks_the_result_stale_and_undo_makes_it_current(state, qtbot):
    from arxpy.engine import anonymize

    result = anonymize(state.data, state.definition, state.hierarchies, state.config())
    state.set_result(result)
    assert state.selected == state.applied == result.optimum.levels
    assert not state.stale
    with qtbot.waitSignal(state.stale_changed):
        state.update_settings(suppression_limit=0.05)
    # Kept on screen, but marked with what changed (issue 11, item 3).
    assert state.result is result and state.applied == result.optimum.levels
    assert state.stale_changes() == ["suppression limit"]
    state.undo_stack.undo()
    assert state.result is result and not state.stale


def test_undo_actions_follow_the_session_history(state, qtbot):
    """The window's Edit menu actions, made by the adapter as QUndoStack made them."""
    from PySide6.QtCore import QObject

    owner = QObject()
    undo = state.undo_stack.createUndoAction(owner, "&Undo")
    redo = state.undo_stack.createRedoAction(owner, "&Redo")
    assert (undo.text(), undo.isEnabled(), redo.isEnabled()) == ("&Undo", False, False)
    with qtbot.waitSignal(state.hierarchy_changed) as signal:
        state.set_hierarchy("age", None)
    assert signal.args == ["age"]
    assert undo.text() == "&Undo Edit hierarchy of 'age'" and undo.isEnabled()
    undo.trigger()
    assert "age" in state.hierarchies and state.session.hierarchies is state.hierarchies
    assert redo.text() == "&Redo Edit hierarchy of 'age'" and not undo.isEnabled()
