"""What a data custodian met in the window (issue 11): warnings, staleness, resets."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.gui.main_window import MainWindow
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


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr("arxpy.gui.project_actions.QMessageBox.question",
                        lambda *args: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)
    return window


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
