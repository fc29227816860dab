"""The page shown without a project: example, import, open, recent projects."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.gui.plain_text import tooltip


class StartPage(QWidget):
    """Four ways in; emits what the user chose, the window does it."""

    open_example = Signal()
    import_data = Signal()
    open_project = Signal()
    open_recent = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column = QWidget()
        column.setFixedWidth(440)
        layout = QVBoxLayout(column)
        title = QLabel(
            "<h1 style='margin-bottom:0'>arxpy</h1>"
            "<p style='color:#555'>De-identification workbench for health data</p>"
        )
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(title)
        self.buttons: dict[str, QPushButton] = {}
        for key, text, tip, signal in (
            ("example", "Open the bundled example",
             "A synthetic patient-discharge dataset with hierarchies and 5-anonymity",
             self.open_example),
            ("import", "Import data…", "Start a project from a CSV file, an Excel sheet "
             "or a SQLite table", self.import_data),
            ("open", "Open a project…", "Open an .arxpy project file", self.open_project),
        ):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.setMinimumHeight(34)
            button.clicked.connect(lambda _checked=False, s=signal: s.emit())
            layout.addWidget(button)
            self.buttons[key] = button
        self.recent_box = QGroupBox("Recent projects")
        recent_layout = QVBoxLayout(self.recent_box)
        self.recent = QListWidget()
        self.recent.setMaximumHeight(160)
        self.recent.itemActivated.connect(
            lambda item: self.open_recent.emit(item.data(Qt.ItemDataRole.UserRole)))
        recent_layout.addWidget(self.recent)
        layout.addSpacing(12)
        layout.addWidget(self.recent_box)
        outer.addWidget(column)

    def set_recent(self, paths: list[str]) -> None:
        """Show ``paths`` (most recent first); the group hides when there are none."""
        self.recent.clear()
        for path in paths:
            item = QListWidgetItem(f"{Path(path).name}   —   {Path(path).parent}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(tooltip(path))
            self.recent.addItem(item)
        self.recent_box.setVisible(bool(paths))
