"""The main window shell: start page, perspectives, menus, log panel, data table."""

import logging

import pandas as pd
import pytest
from PySide6.QtCore import QPoint, Qt

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.gui.app import versions
from arxpy.gui.configure import ConfigurePerspective
from arxpy.gui.main_window import PERSPECTIVES, MainWindow
from arxpy.gui.table_model import ATTRIBUTE_COLORS, DataFrameModel
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project


def _project(rows: int = 50) -> Project:
    data = pd.DataFrame({"age": [str(20 + i % 50) for i in range(rows)],
                         "disease": ["flu", "cold"] * (rows // 2)})
    definition = DataDefinition.for_columns(data.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING
    )
    hierarchy = Hierarchy([[v, "*"] for v in sorted(set(data["age"]))])
    return Project(data, definition, {"age": hierarchy}, name="Tiny")




def test_start_page_then_project(window):
    assert window.current_perspective() == "Start"
    assert window.stack.currentWidget() is window.start_page
    assert not window.actions_by_name["save"].isEnabled()
    window.set_project(_project())
    tabs = window._tabs
    assert [tabs.tabText(i) for i in range(tabs.count())] == list(PERSPECTIVES)
    assert window.current_perspective() == "Configure"
    assert "Tiny" in window.windowTitle() and not window.windowTitle().startswith("*")
    assert "50 records" in window.statusBar().currentMessage()
    assert isinstance(tabs.widget(0), ConfigurePerspective)
    assert window.configure.attribute_panel.name == "age"  # the first quasi-identifier
    assert window.configure.hierarchy_editor.model.rowCount() == 50
    window.show_perspective(3)
    assert window.current_perspective() == "Risk"


def test_menus_hold_the_promised_actions(window):
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles[:3] == ["File", "Edit", "View"] and titles[-1] == "Help"
    file_menu = window.menuBar().actions()[0].menu()
    texts = [a.text().replace("&", "") for a in file_menu.actions()]
    for expected in ("New", "Open project…", "Import data…", "Open recent", "Save",
                     "Save as…", "Export anonymized data…", "Quit"):
        assert expected in texts
    edit_texts = [a.text() for a in window.menuBar().actions()[1].menu().actions()]
    assert any("Undo" in t for t in edit_texts) and any("Redo" in t for t in edit_texts)


def test_log_panel_shows_records_and_toggles(window, qtbot):
    window.show()
    toggle = window.log_panel.toggleViewAction()
    assert not window.log_panel.isVisible()
    toggle.trigger()
    assert window.log_panel.isVisible()
    logging.getLogger("arxpy.test").info("hello from a test")
    qtbot.waitUntil(lambda: "hello from a test" in window.log_panel.text.toPlainText())


def test_about_lists_library_versions(window, monkeypatch):
    shown = []
    monkeypatch.setattr("arxpy.gui.main_window.QMessageBox.about",
                        lambda _parent, _title, text: shown.append(text))
    window.about()
    info = versions()
    assert {"arxpy", "numpy", "pandas", "PySide6"} <= set(info)
    assert info["numpy"] in shown[0] and info["arxpy"] in shown[0]


def test_table_model_is_virtual_and_colored_by_type(qtbot):
    rows = 1_000_000
    data = pd.DataFrame({"age": ["30"] * rows, "disease": ["flu"] * rows})
    definition = DataDefinition.for_columns(data.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING
    )
    model = DataFrameModel(data, definition)
    assert model.rowCount() == rows
    assert model.data(model.index(rows - 1, 1)) == "flu"
    brush = model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole)
    assert brush.color().name() == ATTRIBUTE_COLORS[AttributeType.QUASI_IDENTIFYING]
    tooltip = model.headerData(0, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "Quasi-identifying" in tooltip and "string" in tooltip


@pytest.mark.perf
def test_million_rows_scroll_without_stalls(window, qtbot):
    import time

    rows = 1_000_000
    data = pd.DataFrame({"age": [str(i % 90) for i in range(rows)], "zip": ["12345"] * rows})
    definition = DataDefinition.for_columns(data.columns)
    window.set_project(Project(data, definition, {}, name="Big"))
    window.resize(1280, 800)
    window.show()
    table = window.configure.table
    bar = table.verticalScrollBar()
    slowest = 0.0
    for value in range(0, bar.maximum(), bar.maximum() // 20):
        started = time.perf_counter()
        bar.setValue(value)
        table.viewport().repaint()
        slowest = max(slowest, time.perf_counter() - started)
    assert slowest < 0.1
    # Clicking a column header selects the attribute without walking a million rows.
    header = table.horizontalHeader()
    started = time.perf_counter()
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(header.sectionViewportPosition(1) + 10, 5))
    assert time.perf_counter() - started < 0.5
    assert window.configure.attribute_panel.name == "zip"


def test_bad_project_shows_dialog_not_traceback(window, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(
        "arxpy.gui.main_window.QMessageBox.critical", lambda *args: shown.append(args[2])
    )
    assert not window.projects.open_project(tmp_path / "missing.arxpy")
    assert shown and "does not exist" in shown[0]
    assert window.project is None


def test_run_app_opens_the_example(qtbot, monkeypatch):
    from PySide6.QtCore import QStandardPaths
    from PySide6.QtWidgets import QApplication

    from arxpy.gui import app as app_module

    QStandardPaths.setTestModeEnabled(True)  # keep the user's settings and data untouched
    seen = []

    def fake_exec() -> int:
        window = next(w for w in QApplication.topLevelWidgets()
                      if isinstance(w, MainWindow) and w.isVisible())
        seen.append((window.current_perspective(), window.project.name))
        window.state.undo_stack.clear()
        window.close()
        return 0

    monkeypatch.setattr(QApplication, "exec", staticmethod(fake_exec))
    assert app_module.run_app(example=True) == 0
    assert seen[0][0] == "Configure" and seen[0][1].startswith("Patient discharge")


def test_clipboard_paste_into_the_hierarchy(window, qtbot):
    from PySide6.QtGui import QGuiApplication

    window.set_project(_project())
    editor = window.configure.hierarchy_editor
    editor.table.setCurrentIndex(editor.model.index(0, 1))
    QGuiApplication.clipboard().setText("young\tall\nyoung\tall\n")
    editor.paste()
    rows = window.state.hierarchies["age"].rows
    assert rows[0] == ("20", "young", "all") and rows[1] == ("21", "young", "all")
    assert rows[2] == ("22", "*")  # ragged now: shown as a problem
    assert any("level" in editor.problems.item(i).text()
               for i in range(editor.problems.count()))
