import pandas as pd
from PySide6.QtCore import Qt

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.gui.main_window import PERSPECTIVES, ConfigurePerspective, MainWindow
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


def test_start_page_then_project(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    assert window._tabs.tabText(0) == "Start"
    window.set_project(_project())
    assert [window._tabs.tabText(i) for i in range(window._tabs.count())] == list(PERSPECTIVES)
    assert "Tiny" in window.windowTitle()
    assert "50 records" in window.statusBar().currentMessage()
    configure = window._tabs.widget(0)
    assert isinstance(configure, ConfigurePerspective)
    assert configure.attributes.item(0, 1).text() == "Quasi-identifying"
    assert configure.attributes.item(0, 3).text() == "2"


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


def test_bad_project_shows_dialog_not_traceback(qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(
        "arxpy.gui.main_window.QMessageBox.critical", lambda *args: shown.append(args[2])
    )
    window = MainWindow()
    qtbot.addWidget(window)
    window.open_project(tmp_path / "missing.arxpy")
    assert shown and "does not exist" in shown[0]
    assert window.project is None
