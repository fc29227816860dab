"""The Configure perspective: attribute panel, settings, hierarchy editor and wizard."""

import pandas as pd
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMessageBox

from arxpy.data.definition import AttributeType, DataDefinition, DataKind
from arxpy.gui.hierarchy_editor import paste_rows
from arxpy.gui.hierarchy_wizard import HierarchyWizard, default_page
from arxpy.gui.main_window import MainWindow
from arxpy.gui.state import default_settings
from arxpy.hierarchy.io import read_hierarchy
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project


def _project() -> Project:
    rows = 60
    data = pd.DataFrame({"age": [str(20 + i % 30) for i in range(rows)],
                         "zip": [f"{10000 + (i % 12) * 7}" for i in range(rows)],
                         "disease": ["flu", "cold", "cough"] * (rows // 3)})
    definition = DataDefinition.for_columns(data.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING)
    hierarchy = Hierarchy([[v, "*"] for v in sorted(set(data["age"]))])
    settings = {**default_settings(), "privacy_models": [{"kind": "k-anonymity", "k": 2}]}
    return Project(data, definition, {"age": hierarchy}, settings, name="Conf")


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    # Closing a modified window asks; tests answer "discard" instead of blocking.
    monkeypatch.setattr("arxpy.gui.project_actions.QMessageBox.question",
                        lambda *args: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(_project(), settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)
    return window


def _choose(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(getattr(data, "value", data)))
    combo.activated.emit(combo.currentIndex())


def test_weight_spin_boxes_show_arx_default_for_an_unset_weight(window):
    # Issue 31: an attribute without a weight weighs 0.5 in ARX and here, and says so.
    panel = window.configure.attribute_panel
    window.configure.select_attribute("age")
    assert panel.weight.value() == 0.5
    table = window.configure.settings_panel.weights
    assert table.cellWidget(0, 1).value() == 0.5


def test_attribute_panel_sets_type_data_type_levels_weight_and_transformation(window):
    panel = window.configure.attribute_panel
    window.configure.select_attribute("zip")
    assert panel.name == "zip" and window.configure.hierarchy_editor.name == "zip"
    _choose(panel.type, AttributeType.QUASI_IDENTIFYING)
    assert window.state.definition["zip"].type is AttributeType.QUASI_IDENTIFYING
    header = window.configure.table.model().headerData(1, Qt.Orientation.Horizontal,
                                                      Qt.ItemDataRole.ToolTipRole)
    assert "Quasi-identifying" in header
    _choose(panel.kind, DataKind.INTEGER)
    assert window.state.definition["zip"].data_type.kind is DataKind.INTEGER
    assert window.windowTitle().startswith("*")
    window.configure.select_attribute("age")
    _choose(panel.max_level, 1)
    panel.weight.setValue(2.5)
    panel.weight.editingFinished.emit()
    age = window.state.definition["age"]
    assert (age.max_level, age.weight) == (1, 2.5)
    # Edit > Undo walks back through every edit, the title loses its marker at the end.
    for _ in range(4):
        window.undo_action.trigger()
    assert window.state.definition == _project().definition
    assert not window.windowTitle().startswith("*")
    window.redo_action.trigger()
    assert window.state.definition["zip"].type is AttributeType.QUASI_IDENTIFYING
    _microaggregate_zip(window)  # in this test: a window costs 1.5 s to set up


def _microaggregate_zip(window) -> None:
    """Issue 34: ARX's Transformation and Function beside the hierarchy; zip has none, and
    needs none while it is aggregated without clustering."""
    from arxpy.gui.attribute_panel import TRANSFORMATIONS

    panel = window.configure.attribute_panel
    window.configure.select_attribute("zip")
    assert not panel.function.isEnabled()
    _choose(panel.transformation, TRANSFORMATIONS["Microaggregation"])
    # A string attribute starts with a function its values allow.
    assert window.state.settings["microaggregation"] == {
        "zip": {"function": "mode", "clustering": False}}
    assert panel.function.isEnabled() and not panel.min_level.isEnabled()
    _choose(panel.function, "set")
    assert window.state.config().microaggregation["zip"].function == "set"
    window.undo_action.trigger()
    assert window.state.settings["microaggregation"]["zip"]["function"] == "mode"
    _choose(panel.transformation, TRANSFORMATIONS["Generalization"])
    assert "microaggregation" not in window.state.settings  # as older projects have it


def test_attribute_panel_warns_about_values_that_do_not_parse(window):
    panel = window.configure.attribute_panel
    window.configure.select_attribute("disease")
    _choose(panel.kind, DataKind.INTEGER)
    assert "'flu'" in panel.message.text()


def test_settings_panel_writes_the_config_shape(window):
    panel = window.configure.settings_panel
    panel.suppression.setValue(5.0)
    panel.strategy.setCurrentIndex(panel.strategy.findData("optimal"))
    assert not panel.time_limit.isEnabled()
    panel.strategy.setCurrentIndex(panel.strategy.findData("genetic"))
    assert panel.time_limit.isEnabled()  # ARX's best-effort strategies are timed
    panel.strategy.setCurrentIndex(panel.strategy.findData("lightning"))
    panel.time_limit.setValue(30.0)
    panel.quality.setCurrentIndex(panel.quality.findData("classification"))
    assert panel.class_attribute.isEnabled() and not panel.aggregate.isEnabled()
    panel.class_attribute.setCurrentText("disease")
    panel.commit()
    settings = window.state.settings
    assert settings["suppression_limit"] == 0.05
    assert (settings["strategy"], settings["time_limit"]) == ("lightning", 30.0)
    assert settings["quality_model"]["name"] == "classification"
    assert settings["quality_model"]["class_attribute"] == "disease"
    window.state.config()  # the engine accepts what the panel wrote
    window.undo_action.trigger()
    assert panel.suppression.value() == 0.0 and panel.quality.currentData() == "loss"


def test_hierarchy_edits_show_problems_block_the_run_and_undo(window, monkeypatch, qtbot):
    editor = window.configure.hierarchy_editor
    model = editor.model
    assert "valid" in editor.status.text() and editor.problems.isHidden()
    model.setData(model.index(0, 0), "999")  # value 20 no longer covered
    assert any("20" in editor.problems.item(i).text() for i in range(editor.problems.count()))
    errors = []
    monkeypatch.setattr("arxpy.gui.main_window.QMessageBox.critical",
                        lambda _p, title, text: errors.append(text))
    window.anonymize()
    qtbot.waitUntil(lambda: window.worker is None)
    assert "hierarch" in errors[0] and "'age'" in errors[0]
    window.undo_action.trigger()
    assert model.data(model.index(0, 0)) == "20"
    assert "valid" in editor.status.text() and editor.problems.count() == 0


def test_levels_rows_and_paste(window):
    editor = window.configure.hierarchy_editor
    editor.add_level()
    assert window.state.hierarchies["age"].height == 3
    editor.remove_level()
    assert window.state.hierarchies["age"].height == 2
    editor.table.setCurrentIndex(editor.model.index(0, 1))
    editor.paste("20-24\n20-24\n")
    rows = window.state.hierarchies["age"].rows
    assert rows[0] == ("20", "20-24") and rows[1] == ("21", "20-24") and rows[2] == ("22", "*")
    editor.table.setCurrentIndex(editor.model.index(0, 0))
    editor.remove_rows()
    assert window.state.hierarchies["age"].rows[0][0] == "21"
    assert paste_rows([("a", "*")], "b\tx\tz", 1, 0) == [["a", "*"], ["b", "x", "z"]]


def test_import_and_export_arx_csv(window, tmp_path):
    editor = window.configure.hierarchy_editor
    target = tmp_path / "age.csv"
    editor.export_csv(str(target))
    assert read_hierarchy(target) == window.state.hierarchies["age"]
    target.write_text("20;*\n", encoding="utf-8")
    editor.import_csv(str(target))
    assert window.state.hierarchies["age"] == Hierarchy([("20", "*")])
    assert any("not" in editor.problems.item(i).text() or "no row" in
               editor.problems.item(i).text() for i in range(editor.problems.count()))
    editor.import_csv(str(tmp_path / "missing.csv"))
    assert "does not exist" in editor.status.text()


def test_interval_wizard_builds_a_hierarchy(window, monkeypatch):
    def accept_intervals(wizard: HierarchyWizard) -> int:
        assert wizard.builder_kind == "interval"  # integers suggest intervals
        wizard.pages["interval"].width.setText("5")
        wizard.pages["interval"].fanouts.setText("2")
        wizard.update_preview()
        assert wizard.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
        assert wizard.preview.item(0, 1).text() == "[20, 25["
        return QDialog.DialogCode.Accepted

    panel = window.configure.attribute_panel
    _choose(panel.kind, DataKind.INTEGER)
    monkeypatch.setattr(HierarchyWizard, "exec", accept_intervals)
    window.configure.hierarchy_editor.open_wizard()
    hierarchy = window.state.hierarchies["age"]
    assert hierarchy.rows[0][:3] == ("20", "[20, 25[", "[20, 30[")
    assert window.state.hierarchy_problems("age") == []
    assert "interval" in window.state.undo_stack.undoText()


def test_wizard_pages_preview_and_reject_bad_parameters(qtbot):
    values = pd.Series(["2020-01-15", "2020-05-02", "2021-11-30"])
    from arxpy.data.definition import DataType

    wizard = HierarchyWizard(values, "admitted", DataType(DataKind.DATE, "%Y-%m-%d"))
    qtbot.addWidget(wizard)
    assert wizard.builder_kind == "date"
    assert wizard.hierarchy is not None and wizard.hierarchy.rows[0][1] == "2020-01"
    wizard.pages["date"].format.setText("%d.%m.%Y")
    wizard.update_preview()
    ok = wizard.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert wizard.hierarchy is None and not ok.isEnabled() and wizard.message.text()
    for kind in ("ordering", "masking", "flat"):
        wizard.choose(kind)
        assert wizard.hierarchy is not None and ok.isEnabled(), kind
    wizard.choose("interval")
    assert wizard.hierarchy is None and "number" in wizard.message.text()
    assert default_page(DataType(DataKind.STRING), pd.Series(["01234", "55555"])) == "masking"


def test_weights_tab_lists_quasi_identifiers(window):
    weights = window.configure.settings_panel.weights
    assert weights.rowCount() == 1 and weights.item(0, 0).text() == "age"
    spin = weights.cellWidget(0, 1)
    spin.setValue(3.0)
    spin.editingFinished.emit()
    assert window.state.definition["age"].weight == 3.0
    assert window.configure.attribute_panel.weight.value() == 3.0
    window.state.set_attribute("zip", type=AttributeType.QUASI_IDENTIFYING)
    assert weights.rowCount() == 2

