"""Edit › Apply policy preset… (issue 35): the dialog lists each rule where it applies
with its reason, applying is one undoable step, and Configure shows the rule beside the
attribute it governs."""

from __future__ import annotations

from arxpy.data.definition import AttributeType
from arxpy.example import example_project


def _rows(dialog) -> list[tuple[str, str, str]]:
    table = dialog.rules
    return [tuple(table.item(r, c).text() for c in range(3)) for r in range(table.rowCount())]


def test_preset_dialog_shows_rules_and_applies_them_as_one_undoable_step(window):
    window.set_project(example_project(300))
    before = (window.state.definition, dict(window.state.hierarchies),
              dict(window.state.settings))
    dialog = window.apply_preset()
    rows = {r[0]: r for r in _rows(dialog)}
    assert set(rows) == {"Age", "ZIP code", "County", "Admission quarter"}
    assert "000" in rows["ZIP code"][1] and "20,000" in rows["ZIP code"][2]
    assert rows["County"][1] == "removed from the release"

    dialog.choice.setCurrentIndex(1)  # Expert Determination: its thresholds as parameters
    dialog.highest.setValue(0.2)
    dialog.use_average.setChecked(True)
    assert {r[1] for r in _rows(dialog)} == {"highest prosecutor risk at most 0.2",
                                             "average prosecutor risk at most 0.05"}
    dialog.choice.setCurrentIndex(2)  # no direct identifier in the example: nothing to do
    assert not _rows(dialog) and "Nothing to apply" in dialog.status.text()

    dialog.choice.setCurrentIndex(0)
    dialog.apply()
    state = window.state
    assert state.definition["County"].type is AttributeType.IDENTIFYING
    assert state.hierarchies["ZIP code"].rows[0][1].endswith("**")
    assert state.settings["policy_preset"]["name"] == "safe-harbor"
    assert state.undo_stack.undoText() == "Apply policy preset 'safe-harbor'"
    panel = window.configure.attribute_panel
    panel.select("ZIP code")
    assert panel.preset_rule.isVisibleTo(panel)
    assert "first three digits" in panel.preset_rule.text()
    assert "20,000" in panel.preset_rule.toolTip()

    state.undo_stack.undo()
    assert (state.definition, dict(state.hierarchies), dict(state.settings)) == before
    assert not panel.preset_rule.isVisibleTo(panel)
