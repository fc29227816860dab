"""What a data custodian met in the window (issue 11): warnings, staleness, resets."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtWidgets import QMessageBox

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project


def _project(name: str = "Tiny", rows: int = 40) -> Project:
    data = pd.DataFrame({"age": [str(20 + i % 10) for i in range(rows)],
                         "disease": ["flu", "cold"] * (rows // 2),
                         "note": ["a"] * rows})
    definition = DataDefinition.for_columns(data.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING).with_attribute(
        "disease", type=AttributeType.SENSITIVE)
    hierarchy = Hierarchy([[v, "*"] for v in sorted(set(data["age"]))])
    project = Project(data, definition, {"age": hierarchy}, name=name)
    return project




@pytest.mark.parametrize("name", ["disease", "note"])
def test_attributes_that_need_no_hierarchy_show_no_warning(window, name):
    window.set_project(_project())
    window.configure.select_attribute(name)
    editor = window.configure.hierarchy_editor
    assert editor.current_problems() == []
    assert editor.problems.count() == 0
    assert "No hierarchy needed" in editor.status.text()


def test_quasi_identifier_without_hierarchy_is_still_flagged(window):
    window.set_project(_project())
    window.state.set_attribute("note", type=AttributeType.QUASI_IDENTIFYING)
    window.configure.select_attribute("note")
    editor = window.configure.hierarchy_editor
    assert [p.kind for p in editor.current_problems()] == ["empty"]


def _run(window, qtbot):
    window.anonymize()
    qtbot.waitUntil(lambda: window.worker is None, timeout=30_000)
    assert window.state.result is not None


def _k_project(name: str = "Tiny") -> Project:
    project = _project(name)
    project.settings = {"privacy_models": [{"kind": "k-anonymity", "k": 2}],
                        "quality_model": {"kind": "loss"}, "suppression_limit": 0.0,
                        "strategy": "optimal", "time_limit": None}
    return project


def test_edit_keeps_result_marked_stale_and_undo_restores_result_and_pins(window, qtbot):
    window.show()
    window.set_project(_k_project())
    _run(window, qtbot)
    state = window.state
    result = state.result
    levels = [t.levels for t in result.checked_transformations() if t.state == "anonymous"]
    state.pin(levels[0])
    qtbot.wait(20)  # Explore takes the result in on its own turn of the event loop
    pins = list(state.pinned)
    assert "Optimum" in window.statusBar().currentMessage()

    state.set_attribute("note", type=AttributeType.SENSITIVE)
    state.update_settings(suppression_limit=0.1)
    qtbot.wait(20)
    assert state.result is result and state.pinned == pins  # still shown
    assert window.stale_banner.isVisible()
    banner = window.stale_banner.text()
    assert "stale" in banner and "type of 'note'" in banner and "suppression limit" in banner
    assert "Optimum" not in window.statusBar().currentMessage()
    assert "stale" in window.statusBar().currentMessage()
    assert not window.actions_by_name["export"].isEnabled()

    state.undo_stack.undo()
    assert window.stale_banner.isVisible() and "suppression" not in window.stale_banner.text()
    state.undo_stack.undo()
    qtbot.wait(20)
    assert state.result is result and state.pinned == pins
    assert not state.stale and not window.stale_banner.isVisible()
    assert window.actions_by_name["export"].isEnabled()
    assert "Optimum" in window.statusBar().currentMessage()


def test_every_view_resets_when_another_project_opens(window, qtbot):
    window.show()
    window.set_project(_k_project())
    _run(window, qtbot)
    state = window.state
    state.pin(state.result.optimum.levels)
    window.show_perspective(2)
    utility = window.utility
    for panel in (utility.classification, utility.study):
        panel.controls.set_status("Done.")
    window.projects.open_example()
    qtbot.wait(20)
    assert state.result is None and state.pinned == [] and state.applied is None
    assert window.explore.nodes is None
    for panel in (utility.classification, utility.study):
        assert panel.controls.status.text() == ""
    assert utility.bundle is None and utility.stack.currentIndex() == 0
    assert not window.stale_banner.isVisible()


def _endless_run(frame, definition, hierarchies, config, progress, cancel):
    import time

    while True:
        cancel.raise_if_cancelled()
        time.sleep(0.01)


@pytest.mark.parametrize("action", ["open_example", "new_project", "import_data"])
def test_replacing_the_project_during_a_run_asks_to_cancel_it(window, qtbot, monkeypatch,
                                                             action):
    asked = []

    def answer(_parent, title, text, *args):
        asked.append(title)
        return (QMessageBox.StandardButton.No if title == "Anonymization running"
                else QMessageBox.StandardButton.Discard)

    monkeypatch.setattr("arxpy.gui.project_actions.QMessageBox.question", answer)
    monkeypatch.setattr("arxpy.gui.main_window.checked_anonymize", _endless_run)
    monkeypatch.setattr("arxpy.gui.import_wizard.ImportWizard.exec", lambda self: 0)
    window.set_project(_k_project("First"))
    worker = window.anonymize()
    getattr(window.projects, action)()
    assert asked == ["Anonymization running"]
    assert window.worker is worker and window.state.project.name == "First"  # declined

    monkeypatch.setattr("arxpy.gui.project_actions.QMessageBox.question",
                        lambda *args: QMessageBox.StandardButton.Yes)
    getattr(window.projects, action)()
    assert window.worker is None and worker.wait(1.0)
    assert not window.cancel_button.isVisible()
    assert window.actions_by_name["anonymize"].isEnabled() == window.state.has_project
    assert window.configure.editors.isEnabled()  # the next project is not locked
    qtbot.wait(100)  # the cancelled run's late signals change nothing
    assert window.worker is None


def test_no_stale_status_message_during_a_later_run(window, qtbot, monkeypatch):
    window.set_project(_k_project())
    window.statusBar().showMessage("Anonymization failed")
    monkeypatch.setattr("arxpy.gui.main_window.checked_anonymize", _endless_run)
    window.anonymize()
    assert window.statusBar().currentMessage() == ""
    window.stop_run()


def test_about_names_pyside6_installed_as_essentials(monkeypatch):
    """Issue 11: only PySide6-Essentials is installed; About said 'not installed'."""
    from importlib import metadata

    from arxpy.gui import app

    real = metadata.version

    def version(name):
        if name == "PySide6":  # no meta-package, as with pip install PySide6-Essentials
            raise metadata.PackageNotFoundError(name)
        return "6.11.3" if name == "PySide6-Essentials" else real(name)

    monkeypatch.setattr(app.metadata, "version", version)
    info = app.versions()
    assert info["PySide6"] == "6.11.3"
    assert info["Qt"].count(".") == 2


def test_file_dialogs_remember_the_last_folder_per_kind(window, tmp_path, monkeypatch):
    from arxpy.gui import folders

    starts = []
    chosen = {"data": tmp_path / "raw" / "patients.csv",
              "projects": tmp_path / "work" / "study.arxpy"}
    for path in chosen.values():
        path.parent.mkdir()

    def dialog(kind):
        def ask(_parent, _title, start, _filters):
            starts.append(start)
            return str(chosen[kind]), ""
        return ask

    monkeypatch.setattr(folders.QFileDialog, "getOpenFileName", dialog("data"))
    folders.pick_path(window, "data", False, "Import data", "*")
    monkeypatch.setattr(folders.QFileDialog, "getSaveFileName", dialog("projects"))
    window.pick_file(True, "Save project as", "*", "study.arxpy")
    assert starts[0] == ""  # nothing remembered yet: the working directory
    settings = window.settings
    # Each kind starts where it was last; hierarchies start beside the data.
    assert folders.start_path(settings, "data") == str(chosen["data"].parent)
    assert folders.start_path(settings, "hierarchies") == str(chosen["data"].parent)
    assert folders.start_path(settings, "projects", "x.arxpy") == str(
        chosen["projects"].parent / "x.arxpy")
    assert folders.start_path(settings, "exports") == str(chosen["projects"].parent)
    starts.clear()
    monkeypatch.setattr(folders.QFileDialog, "getOpenFileName", dialog("data"))
    window.configure.hierarchy_editor.name = "age"
    window.set_project(_project())
    window.configure.hierarchy_editor.import_csv()
    assert starts == [str(chosen["data"].parent)]


def test_choosing_an_attribute_selects_and_shows_its_column(window, qtbot):
    from arxpy.example import example_project

    window.resize(1280, 720)
    window.show()
    window.set_project(example_project(records=300))
    configure = window.configure
    table = configure.table
    # Columns are sized to their content: most of the ten attributes fit at 1280 px.
    visible = [c for c in range(table.model().columnCount())
               if 0 <= table.columnViewportPosition(c)
               and table.columnViewportPosition(c) + table.columnWidth(c)
               <= table.viewport().width()]
    assert len(visible) >= 6
    last = window.state.definition.names[-1]
    configure.attribute_panel.select(last)  # the panel's own combo box, not the table
    qtbot.wait(20)
    column = window.state.definition.names.index(last)
    assert table.currentIndex().column() == column
    x = table.columnViewportPosition(column)
    assert 0 <= x and x + table.columnWidth(column) <= table.viewport().width()


def test_risk_cells_say_why_and_line_up():
    import math

    from arxpy.gui.risk.common import fixed_percent
    from arxpy.gui.risk.tables import _uniqueness_cell
    from arxpy.risk.uniqueness import PopulationUniqueness

    assert [fixed_percent(v) for v in (1.0, 0.03125, 0.5)] == ["100.00 %", "3.12 %", "50.00 %"]

    class Analysis:
        population = PopulationUniqueness(1000, 100, {"pitman": 5.0, "zayatz": 3.0,
                                                      "snb": math.nan, "dankar": 5.0},
                                          "pitman")

    cell = _uniqueness_cell("snb", Analysis(), "input")
    assert cell.text().startswith("n/a (") and "no solution" in cell.text()


def test_toolbar_export_opens_the_one_export_dialog_with_the_input_delimiter(
        window, qtbot, tmp_path):
    from arxpy.gui.explore.export_dialog import ExportDialog

    window.show()
    window.set_project(_k_project())
    window.state.input_delimiter = ";"  # as the import wizard records it
    _run(window, qtbot)
    window.actions_by_name["export"].trigger()
    dialog = window.explore.dialog
    assert isinstance(dialog, ExportDialog) and dialog.isVisible()
    assert dialog.delimiter.currentData() == ";"
    target = tmp_path / "released.csv"
    dialog.path.setText(str(target))
    dialog.hierarchies.setChecked(True)
    with qtbot.waitSignal(dialog.exported, timeout=10_000) as blocker:
        dialog.start_export()
    written = blocker.args[0]
    assert target.read_text().splitlines()[0] == "age;disease;note"
    text = dialog.confirmation.text()
    assert all(path.name in text for path in written) and len(written) == 3  # data, age, report
    dialog.confirmation.close()


def test_export_with_a_path_uses_the_engine_export(window, qtbot, tmp_path):
    window.set_project(_k_project())
    _run(window, qtbot)
    target = tmp_path / "out.csv"
    assert window.projects.export_data(target)
    assert target.read_text().splitlines()[0] == "age,disease,note"


def _lattice_view(result):
    """Everything Explore shows of a result: checks, node states, range, optimum."""
    return ([(t.levels, t.state, t.score, t.relative_score, t.suppressed_records)
             for t in result.checked_transformations()],
            result.states_array().tolist(), result.score_range, result.optimum,
            result.transformations_checked, result.optimal)


def test_saved_project_keeps_the_result_and_restores_it_without_searching(
        window, qtbot, tmp_path, monkeypatch):
    import arxpy.engine.anonymizer
    from arxpy.example import example_project

    window.show()
    window.set_project(example_project(records=500))
    _run(window, qtbot)
    state = window.state
    result = state.result
    others = [t.levels for t in result.checked_transformations()
              if t.state == "anonymous" and t.levels != result.optimum.levels]
    state.select(others[0], apply=True)
    state.pin(others[1])
    state.pin(result.optimum.levels)
    target = tmp_path / "kept.arxpy"
    assert window.projects.save_to(target)
    expected = _lattice_view(result)

    def no_search(*_args, **_kwargs):
        raise AssertionError("opening a saved project searched the lattice")

    monkeypatch.setattr(arxpy.engine.anonymizer, "run_search", no_search)
    window.projects.new_project()
    assert window.projects.open_project(target)
    qtbot.waitUntil(lambda: window.worker is None and state.result is not None, timeout=30_000)
    assert state.result is not result
    assert _lattice_view(state.result) == expected
    assert state.applied == others[0]
    assert state.pinned == [others[1], result.optimum.levels]
    assert "Restored the saved result" in window.statusBar().currentMessage()
    # Releases are computed afresh from the data: the same table as before saving.
    assert state.result.release(others[0]).table.equals(result.release(others[0]).table)


def test_saved_result_of_changed_data_is_not_restored(window, qtbot, tmp_path):
    window.set_project(_k_project())
    _run(window, qtbot)
    target = tmp_path / "kept.arxpy"
    assert window.projects.save_to(target)
    project = Project.load(target)
    project.data.loc[0, "disease"] = "measles"  # the data changed outside the application
    project.save(target)
    window.projects.new_project()
    assert window.projects.open_project(target)
    assert window.worker is None and window.state.result is None
    message = window.statusBar().currentMessage()
    assert "not restored" in message and "data or the configuration changed" in message


def test_saved_result_of_a_changed_configuration_is_not_restored(window, qtbot, tmp_path):
    window.set_project(_k_project())
    _run(window, qtbot)
    target = tmp_path / "kept.arxpy"
    assert window.projects.save_to(target)
    project = Project.load(target)
    project.settings["privacy_models"] = [{"kind": "k-anonymity", "k": 3}]
    project.save(target)
    window.projects.new_project()
    assert window.projects.open_project(target)
    assert window.worker is None and window.state.result is None
    assert "data or the configuration changed" in window.statusBar().currentMessage()


def test_a_forged_saved_result_is_refused_when_rechecked(window, qtbot, tmp_path):
    """The fingerprint can be recomputed by anyone: the optimum's stored verdict is
    checked against the data before the result is shown."""
    from arxpy.engine.stored import _pack, _unpack

    window.set_project(_k_project())
    _run(window, qtbot)
    target = tmp_path / "kept.arxpy"
    assert window.projects.save_to(target)
    project = Project.load(target)
    checks = project.saved_result["outcome"]["checks"]
    scores = _unpack(checks["score"], "score", "<f8", None)
    checks["score"] = _pack(scores + 0.5)
    project.save(target)
    window.projects.new_project()
    assert window.projects.open_project(target)
    qtbot.waitUntil(lambda: window.worker is None, timeout=30_000)
    assert window.state.result is None and window.state.has_project
    message = window.statusBar().currentMessage()
    assert "does not match this data" in message and "Anonymize again" in message


def test_stale_result_is_not_saved(window, qtbot, tmp_path):
    window.set_project(_k_project())
    _run(window, qtbot)
    window.state.update_settings(suppression_limit=0.2)
    target = tmp_path / "stale.arxpy"
    assert window.projects.save_to(target)
    assert Project.load(target).saved_result is None
