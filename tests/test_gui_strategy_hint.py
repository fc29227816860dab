"""A lattice too large for the optimal search: Configure's hint and Run's question
propose Lightning or the genetic strategy with a time limit, and one click switches
(issue 34)."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project
from arxpy.workflows.strategy_proposal import strategy_proposal

QIS = [f"q{i}" for i in range(8)]


def wide_project(strategy: str = "optimal") -> Project:
    """Eight quasi-identifiers with eight levels each: 8^8 = 16,777,216 transformations."""
    frame = pd.DataFrame({q: ["a", "b", "a", "b"] for q in QIS})
    definition = DataDefinition.for_columns(QIS)
    for q in QIS:
        definition = definition.with_attribute(q, type=AttributeType.QUASI_IDENTIFYING)
    hierarchies = {q: Hierarchy([(v, *[v] * 6, "*") for v in ("a", "b")]) for q in QIS}
    settings = {"privacy_models": [{"kind": "k-anonymity", "k": 2}], "strategy": strategy,
                "suppression_limit": 0.0, "quality_model": {"name": "loss"}}
    return Project(frame, definition, hierarchies, settings, name="wide")


def test_proposal_only_for_a_bounded_strategy_on_a_too_large_lattice():
    project = wide_project()
    proposal = strategy_proposal(project.definition, project.hierarchies, project.settings)
    assert proposal is not None and "16,777,216 transformations" in proposal.text
    assert proposal.button_text("lightning") == "Use Lightning (time limit 60 s)"
    assert proposal.settings(project.settings, "genetic")["time_limit"] == 60.0
    timed = {**project.settings, "strategy": "lightning"}
    assert strategy_proposal(project.definition, project.hierarchies, timed) is None
    small = {q: Hierarchy([(v, "*") for v in ("a", "b")]) for q in QIS}
    assert strategy_proposal(project.definition, small, project.settings) is None


def test_configure_hint_and_run_question_switch_the_strategy(window, qtbot, monkeypatch):
    window.set_project(wide_project())
    hint = window.configure.settings_panel.strategy_hint
    assert not hint.isHidden() and "too many for the optimal strategy" in hint.message.text()
    assert hint.buttons["lightning"].text() == "Use Lightning" and "60 s" in hint.message.text()
    qtbot.mouseClick(hint.buttons["lightning"], Qt.MouseButton.LeftButton)
    assert window.state.settings["strategy"] == "lightning"
    assert window.state.settings["time_limit"] == 60.0
    assert hint.isHidden()
    assert window.configure.settings_panel.strategy.currentData() == "lightning"
    window.state.undo_stack.undo()
    assert window.state.settings["strategy"] == "optimal" and not hint.isHidden()

    answers, asked = [None, "genetic"], []
    monkeypatch.setattr("arxpy.gui.main_window.ask_strategy",
                        lambda _parent, proposal: asked.append(proposal) or answers.pop(0))
    assert window.anonymize() is None  # Cancel: nothing runs, nothing changes
    assert asked[0].lattice_size == 8 ** 8 and window.state.settings["strategy"] == "optimal"
    assert window.anonymize() is not None  # genetic: the run starts with it
    assert window.state.settings["strategy"] == "genetic" and len(asked) == 2
    window.stop_run()
    assert window.worker is None


def test_the_question_offers_both_strategies_lightning_first(qtbot):
    from PySide6.QtWidgets import QWidget

    from arxpy.gui.strategy_hint import strategy_question

    project = wide_project()
    proposal = strategy_proposal(project.definition, project.hierarchies, project.settings)
    parent = QWidget()
    qtbot.addWidget(parent)
    box = strategy_question(parent, proposal)
    named = {b.property("strategy"): b for b in box.buttons() if b.property("strategy")}
    assert set(named) == {"lightning", "genetic"}
    assert box.defaultButton() is named["lightning"]
    assert named["genetic"].text() == "Use genetic (time limit 60 s)"
