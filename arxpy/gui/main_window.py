"""The main window: menu bar, the four perspectives, and a status bar.

This is the shell the application issue builds out; for now Configure shows the
project's data and attribute definitions, the other perspectives say what will
appear there.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from arxpy import __version__
from arxpy.errors import ArxpyError
from arxpy.gui.table_model import DataFrameModel
from arxpy.project import PROJECT_SUFFIX, Project

PERSPECTIVES = ("Configure", "Explore", "Utility", "Risk")


class MainWindow(QMainWindow):
    def __init__(self, project: Project | None = None) -> None:
        super().__init__()
        self.project: Project | None = None
        self.resize(1280, 800)
        self._tabs = QTabWidget(documentMode=True)
        self.setCentralWidget(self._tabs)
        self._build_menus()
        self.set_project(project)

    def set_project(self, project: Project | None) -> None:
        self.project = project
        self._tabs.clear()
        if project is None:
            self._tabs.addTab(self._start_page(), "Start")
            self.setWindowTitle("arxpy")
            self.statusBar().showMessage("Open the example or a project to begin.")
            return
        self._tabs.addTab(ConfigurePerspective(project), PERSPECTIVES[0])
        for name in PERSPECTIVES[1:]:
            self._tabs.addTab(_placeholder(name), name)
        self.setWindowTitle(f"{project.name} — arxpy")
        records, columns = project.data.shape
        self.statusBar().showMessage(f"{records:,} records, {columns} attributes")

    def open_example(self) -> None:
        from arxpy.example import example_project

        self._guarded(lambda: self.set_project(example_project()))

    def open_project(self, path: str | Path | None = None) -> None:
        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self, "Open project", "", f"arxpy projects (*{PROJECT_SUFFIX})"
            )
            if not path:
                return
        self._guarded(lambda: self.set_project(Project.load(path)))

    def _guarded(self, action) -> None:
        """Run ``action``; show user errors in a dialog instead of a traceback."""
        try:
            action()
        except ArxpyError as exc:
            QMessageBox.critical(self, "arxpy", str(exc))

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._add_action(file_menu, "&Open project…", self.open_project, QKeySequence.Open)
        self._add_action(file_menu, "Open &example", self.open_example)
        file_menu.addSeparator()
        self._add_action(file_menu, "&Quit", self.close, QKeySequence.Quit)
        help_menu = self.menuBar().addMenu("&Help")
        self._add_action(help_menu, "&About arxpy", self._about)

    def _add_action(self, menu, text: str, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def _start_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title = QLabel("<h2>arxpy</h2><p>De-identification workbench for health data</p>")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(title)
        for text, slot in (
            ("Open the bundled example", self.open_example),
            ("Open a project…", self.open_project),
        ):
            button = QPushButton(text)
            button.setMinimumWidth(260)
            button.clicked.connect(lambda _checked=False, s=slot: s())
            layout.addWidget(button, alignment=Qt.AlignmentFlag.AlignCenter)
        return page

    def _about(self) -> None:
        import numpy
        import pandas
        import PySide6

        QMessageBox.about(
            self,
            "About arxpy",
            f"<b>arxpy {__version__}</b><br>De-identification workbench for health data."
            f"<br><br>PySide6 {PySide6.__version__}, numpy {numpy.__version__}, "
            f"pandas {pandas.__version__}",
        )


class ConfigurePerspective(QSplitter):
    """The input table beside the attribute definitions."""

    def __init__(self, project: Project) -> None:
        super().__init__(Qt.Orientation.Horizontal)
        self.table = QTableView()
        self.table.setModel(DataFrameModel(project.data, project.definition, self.table))
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.addWidget(self.table)
        self.attributes = _attribute_table(project)
        self.addWidget(self.attributes)
        self.setStretchFactor(0, 3)
        self.setStretchFactor(1, 2)


def _attribute_table(project: Project) -> QTableWidget:
    headers = ("Attribute", "Type", "Data type", "Hierarchy levels", "Weight")
    table = QTableWidget(len(project.definition), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    for row, attribute in enumerate(project.definition):
        hierarchy = project.hierarchies.get(attribute.name)
        cells = (
            attribute.name,
            attribute.type.label,
            attribute.data_type.describe(),
            str(hierarchy.height) if hierarchy is not None else "—",
            f"{attribute.weight:g}",
        )
        for column, text in enumerate(cells):
            table.setItem(row, column, QTableWidgetItem(text))
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _placeholder(perspective: str) -> QWidget:
    label = QLabel(f"The {perspective} perspective shows results after an anonymization.")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setEnabled(False)
    return label
