"""Privacy models panel and dialogs: parameters, inline validation, add/edit/remove."""

import json

import pandas as pd
import pytest
from PySide6.QtWidgets import QDialog, QDialogButtonBox

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.gui.privacy_dialog import PrivacyModelDialog
from arxpy.gui.privacy_panel import PrivacyModelsPanel
from arxpy.gui.state import AppState, default_settings
from arxpy.privacy import privacy_model_classes, privacy_model_kinds
from arxpy.project import Project


@pytest.fixture
def state(qtbot):
    data = pd.DataFrame({"age": [str(20 + i % 10) for i in range(30)],
                         "disease": ["flu", "cold", "cough"] * 10})
    definition = DataDefinition.for_columns(data.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING)
    state = AppState()
    state.set_project(Project(data, definition, {}, default_settings(), name="P"))
    return state


def _ok(dialog: PrivacyModelDialog):
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)


def test_every_registered_model_has_a_dialog(state, qtbot):
    state.set_attribute("disease", type=AttributeType.SENSITIVE)
    panel = PrivacyModelsPanel(state)
    qtbot.addWidget(panel)
    labels = [a.text() for a in panel.add_menu.actions()]
    assert labels == [cls.label for cls in privacy_model_classes().values()]
    assert set(privacy_model_classes()) == set(privacy_model_kinds())
    for kind, cls in privacy_model_classes().items():
        dialog = PrivacyModelDialog(state, kind)
        qtbot.addWidget(dialog)
        assert set(dialog.widgets) == {p.name for p in cls.params}
        assert dialog.windowTitle() == f"Add {cls.label}"
        # Defaults (with the sensitive attribute chosen) make a valid model, except where
        # the model needs a choice the user must make (a population).
        either_or = kind in ("population-uniqueness", "k-map", "delta-presence",
                             "profitability-journalist", "no-attack-profitability-journalist")
        # ARX's defaults derive k = 118 (ε = 2, δ = 1e-6) and k = 76 (adversary gain 300,
        # cost 4), more than these 30 records.
        too_few = kind in ("differential-privacy", "no-attack-profitability")
        assert _ok(dialog).isEnabled() != (either_or or too_few), (kind, dialog.message.text())
        if too_few:
            k = 118 if kind == "differential-privacy" else 76
            assert f"needs classes of {k} records" in dialog.message.text()


def test_declared_ranges_bound_the_fields(state, qtbot):
    state.set_attribute("disease", type=AttributeType.SENSITIVE)
    dialog = PrivacyModelDialog(state, "t-closeness")
    qtbot.addWidget(dialog)
    t = dialog.widgets["t"]
    assert (t.minimum(), t.maximum()) == (0.0, 1.0)
    distance = dialog.widgets["distance"]
    assert [distance.itemText(i) for i in range(distance.count())] == \
        ["equal", "hierarchical", "ordered"]
    risk = PrivacyModelDialog(state, "average-risk")
    qtbot.addWidget(risk)
    threshold = risk.widgets["threshold"]
    assert 0 < threshold.minimum() and threshold.maximum() < 1  # open range (0, 1)
    dialog = PrivacyModelDialog(state, "t-closeness",
                                {"kind": "t-closeness", "attribute": "disease", "t": 0.3,
                                 "distance": "ordered"})
    qtbot.addWidget(dialog)
    assert dialog.model_dict() == {"kind": "t-closeness", "attribute": "disease", "t": 0.3,
                                   "distance": "ordered"}


def test_k_may_not_exceed_the_records(state, qtbot):
    dialog = PrivacyModelDialog(state, "k-anonymity")
    qtbot.addWidget(dialog)
    assert _ok(dialog).isEnabled() and dialog.model_dict() == {"kind": "k-anonymity", "k": 5}
    dialog.widgets["k"].setValue(31)
    assert not _ok(dialog).isEnabled() and "30" in dialog.message.text()


def test_l_diversity_needs_a_sensitive_attribute_and_enough_values(state, qtbot):
    dialog = PrivacyModelDialog(state, "recursive-cl-diversity")
    qtbot.addWidget(dialog)
    assert not _ok(dialog).isEnabled() and "sensitive" in dialog.message.text()
    state.set_attribute("disease", type=AttributeType.SENSITIVE)
    dialog = PrivacyModelDialog(state, "recursive-cl-diversity")
    qtbot.addWidget(dialog)
    assert _ok(dialog).isEnabled()
    dialog.widgets["l"].setValue(4)  # 'disease' has 3 distinct values
    assert not _ok(dialog).isEnabled()
    assert "at most 3" in dialog.message.text()
    dialog.widgets["l"].setValue(3)
    assert _ok(dialog).isEnabled() and dialog.message.text() == ""
    assert dialog.model_dict() == {"kind": "recursive-cl-diversity", "attribute": "disease",
                                   "c": 4.0, "l": 3}


def test_model_errors_are_shown_inline(state, qtbot):
    state.set_attribute("disease", type=AttributeType.SENSITIVE)
    dialog = PrivacyModelDialog(state, "entropy-l-diversity")
    qtbot.addWidget(dialog)
    dialog.widgets["l"].setValue(3.5)  # ceil(3.5) = 4 distinct values needed
    assert not _ok(dialog).isEnabled() and "disease" in dialog.message.text()


def test_panel_adds_edits_and_removes_with_undo(state, qtbot, monkeypatch):
    panel = PrivacyModelsPanel(state)
    qtbot.addWidget(panel)
    answers = iter([7, 4])

    def run(dialog: PrivacyModelDialog) -> int:
        dialog.widgets["k"].setValue(next(answers))
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(PrivacyModelDialog, "exec", run)
    panel.add("k-anonymity")
    assert state.settings["privacy_models"] == [{"kind": "k-anonymity", "k": 7}]
    assert panel.table.item(0, 1).text() == "7-anonymity"
    dialog = panel.dialog("k-anonymity")  # a second k-anonymity is refused
    assert not _ok(dialog).isEnabled() and "already" in dialog.message.text()
    panel.table.selectRow(0)
    panel.edit_selected()
    assert state.settings["privacy_models"] == [{"kind": "k-anonymity", "k": 4}]
    panel.table.selectRow(0)
    panel.remove_selected()
    assert state.settings["privacy_models"] == [] and panel.table.rowCount() == 0
    state.undo_stack.undo()
    state.undo_stack.undo()
    assert panel.table.item(0, 1).text() == "7-anonymity"


def test_models_whose_attribute_is_not_sensitive_are_flagged(state, qtbot):
    state.set_attribute("disease", type=AttributeType.SENSITIVE)
    state.update_settings(privacy_models=[{"kind": "distinct-l-diversity",
                                           "attribute": "disease", "l": 2}])
    panel = PrivacyModelsPanel(state)
    qtbot.addWidget(panel)
    assert "not sensitive" not in panel.table.item(0, 1).toolTip()
    state.set_attribute("disease", type=AttributeType.INSENSITIVE)
    assert "not sensitive" in panel.table.item(0, 1).toolTip()


def test_either_or_parameters_are_left_out_when_not_given(state, qtbot):
    dialog = PrivacyModelDialog(state, "population-uniqueness")
    qtbot.addWidget(dialog)
    assert dialog.model_dict() == {"kind": "population-uniqueness", "threshold": 0.01,
                                   "estimator": "dankar"}
    assert "population" in dialog.message.text() and not _ok(dialog).isEnabled()
    dialog.widgets["population_size"].setValue(100_000)
    assert dialog.model_dict()["population_size"] == 100_000 and "region" not in \
        dialog.model_dict()
    assert _ok(dialog).isEnabled()
    dialog.widgets["region"].setCurrentText("usa")
    assert dialog.model_dict()["region"] == "usa" and not _ok(dialog).isEnabled()
    dialog.widgets["population_size"].setValue(0)  # back to "not given"
    assert "population_size" not in dialog.model_dict() and _ok(dialog).isEnabled()


def test_delta_presence_subset_by_a_filter_builder(state, qtbot, tmp_path):
    population = tmp_path / "population.csv"
    state.data.to_csv(population, index=False)
    dialog = PrivacyModelDialog(state, "delta-presence")
    qtbot.addWidget(dialog)
    dialog.widgets["population"].setText(str(population))
    assert _ok(dialog).isEnabled()  # the data as the research subset, no selector
    builder = dialog.subset_dialog()
    qtbot.addWidget(builder)
    column = str(state.data.columns[0])
    value = str(state.data[column].iloc[0])
    builder.rows[0][0].setCurrentText(column)
    builder.rows[0][2].setText(value)
    expected = int((state.data[column].astype(str) == value).sum())
    assert builder.matching() == expected
    assert f"{expected:,} of {len(state.data):,} population records" in builder.count.text()
    builder.rows[0][0].setCurrentText(column)
    builder.rows[0][1].setCurrentText("in")
    builder.rows[0][2].setText("no such value")
    assert builder.matching() == 0 and not builder.buttons.button(
        QDialogButtonBox.StandardButton.Ok).isEnabled()
    builder.rows[0][1].setCurrentText("=")
    builder.rows[0][2].setText(value)
    dialog.widgets["subset_filter"].setText(json.dumps(builder.conditions()))
    assert dialog.model_dict()["subset_filter"] == [
        {"attribute": column, "operator": "=", "value": value}]
    assert _ok(dialog).isEnabled(), dialog.message.text()
