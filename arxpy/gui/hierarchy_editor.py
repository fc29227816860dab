"""The hierarchy editor: the selected quasi-identifier's hierarchy as an editable table.

Every edit (cell, rows, levels, paste, import, wizard) builds a new immutable
:class:`Hierarchy` and hands it to the application state as one undoable step.
Validation problems are listed under the table and their rows tinted; they block
anonymization until fixed (see :meth:`AppState.config`).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.data.definition import AttributeType
from arxpy.errors import ArxpyError
from arxpy.gui.folders import pick_path
from arxpy.gui.message_lines import ReservedLines
from arxpy.gui.state import AppState
from arxpy.hierarchy.io import read_hierarchy, write_hierarchy
from arxpy.hierarchy.model import Hierarchy
from arxpy.hierarchy.validation import HierarchyProblem

_Index = QModelIndex | QPersistentModelIndex
PROBLEM_BRUSH = QBrush(QColor("#f8d7d3"))
#: Lines of problems the list shows at least, and its largest height (it scrolls).
PROBLEM_ROWS_MIN = 2
PROBLEMS_HEIGHT = 90
MISSING_CELL_BRUSH = QBrush(QColor("#e8e8e8"))


class HierarchyTableModel(QAbstractTableModel):
    """Rows of a hierarchy; editing a cell calls ``on_edit`` with the new hierarchy."""

    def __init__(self, on_edit: Callable[[Hierarchy, str], None], parent=None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, ...]] = []
        self._height = 0
        self._problem_rows: set[int] = set()
        self._on_edit = on_edit

    def set_hierarchy(self, hierarchy: Hierarchy | None, problems: list[HierarchyProblem]) -> None:
        self.beginResetModel()
        self._rows = list(hierarchy.rows) if hierarchy is not None else []
        self._height = hierarchy.height if hierarchy is not None else 0
        self._problem_rows = {p.row - 1 for p in problems if p.row is not None}
        self.endResetModel()

    @property
    def rows(self) -> list[tuple[str, ...]]:
        return list(self._rows)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._height

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self._rows[index.row()]
        inside = index.column() < len(row)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return row[index.column()] if inside else ""
        if role == Qt.ItemDataRole.BackgroundRole:
            if not inside:
                return MISSING_CELL_BRUSH
            return PROBLEM_BRUSH if index.row() in self._problem_rows else None
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return f"Level-{section}" if orientation == Qt.Orientation.Horizontal else section + 1

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return super().flags(index) | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        rows = [list(r) for r in self._rows]
        row = rows[index.row()]
        row.extend([""] * (index.column() + 1 - len(row)))  # editing fills a ragged row
        if row[index.column()] == str(value):
            return False
        row[index.column()] = str(value)
        self._on_edit(Hierarchy(rows), f"Edit cell {index.row() + 1}, level {index.column()}")
        return True


def paste_rows(rows: list[tuple[str, ...]], text: str, row: int, column: int) -> list[list[str]]:
    """``rows`` with tab- (or ``;``-) separated ``text`` written from cell (row, column),
    adding rows and levels as needed; other cells stay as they were."""
    lines = [line for line in text.replace("\r\n", "\n").split("\n") if line != ""]
    separator = "\t" if any("\t" in line for line in lines) else ";"
    out = [list(r) for r in rows]
    for offset, line in enumerate(lines):
        cells = line.split(separator)
        while len(out) <= row + offset:
            out.append([""] * max(column + len(cells), max((len(r) for r in out), default=0)))
        target = out[row + offset]
        target.extend([""] * (column + len(cells) - len(target)))
        target[column:column + len(cells)] = cells
    return out


class HierarchyEditor(QWidget):
    """Table, tool buttons and the problem list for the hierarchy of one attribute."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.name: str | None = None
        self.model = HierarchyTableModel(self._commit, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setDefaultSectionSize(130)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        # Its own word-wrapped line: a long attribute name must not widen the window.
        self.title = QLabel(wordWrap=True)
        # Room for two lines whatever it says, so nothing moves when a message comes.
        self.status = ReservedLines(2)
        # The list of problems only when there are some; it takes its room from the
        # table above it (see _layout), never from the window.
        self.problems = QListWidget()
        self.problems.setWordWrap(True)
        self.problems.setMinimumHeight(PROBLEM_ROWS_MIN * self.problems.fontMetrics().lineSpacing()
                                       + 8)
        self.problems.setMaximumHeight(PROBLEMS_HEIGHT)
        self.problems.itemClicked.connect(self._show_problem_row)
        self.buttons: dict[str, QToolButton] = {}
        self._layout()
        QShortcut(QKeySequence.StandardKey.Paste, self.table, activated=self.paste)
        state.hierarchy_changed.connect(self._hierarchy_changed)
        state.definition_changed.connect(self.refresh)

    def _layout(self) -> None:
        bar = QHBoxLayout()
        bar.addStretch(1)
        for key, text, tip, slot in (
            ("wizard", "Create…", "Build the hierarchy with the wizard", self.open_wizard),
            ("import", "Import…", "Load an ARX hierarchy CSV file", self.import_csv),
            ("export", "Export…", "Save the hierarchy as an ARX CSV file", self.export_csv),
            ("add_level", "+ Level", "Add a level above the top, every value '*'",
             self.add_level),
            ("remove_level", "− Level", "Remove the top level", self.remove_level),
            ("add_row", "+ Row", "Add a row below the selected one", self.add_row),
            ("remove_rows", "− Rows", "Remove the selected rows", self.remove_rows),
            ("paste", "Paste", "Paste tab-separated cells at the selected cell", self.paste),
        ):
            button = QToolButton(text=text, toolTip=tip, autoRaise=True)
            button.clicked.connect(lambda _checked=False, s=slot: s())
            bar.addWidget(button)
            self.buttons[key] = button
        # Table and problems share one box whose minimum height counts the problems
        # whether shown or not: a hierarchy turning invalid shortens the table instead of
        # raising the window's minimum height (and pushing the Run button off a 720-pixel
        # screen).
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addWidget(self.table, 1)
        body_layout.addWidget(self.problems)
        body.setMinimumHeight(self.table.minimumSizeHint().height() + body_layout.spacing()
                              + self.problems.minimumHeight())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(bar)
        layout.addWidget(body, 1)
        layout.addWidget(self.status)

    # --- showing -------------------------------------------------------------------------

    def show_attribute(self, name: str | None) -> None:
        """Edit the hierarchy of ``name`` (any attribute; meaningful for quasi-identifiers)."""
        self.name = name
        self.refresh()

    def _hierarchy_changed(self, name: str) -> None:
        if name == self.name:
            self.refresh()

    def current_problems(self) -> list[HierarchyProblem]:
        if self.name is None or not self.state.has_project:
            return []
        if self.name not in self.state.hierarchies and not self._needs_hierarchy():
            return []  # only quasi-identifiers need one
        return self.state.hierarchy_problems(self.name)

    def _needs_hierarchy(self) -> bool:
        if self.name is None or not self.state.has_project:
            return True
        return self.state.definition[self.name].type is AttributeType.QUASI_IDENTIFYING

    def refresh(self) -> None:
        has = self.state.has_project and self.name is not None
        hierarchy = self.state.hierarchies.get(self.name) if has else None
        problems = self.current_problems() if has else []
        self.model.set_hierarchy(hierarchy, problems)
        self._show_problems(problems, hierarchy)
        self._update_title(hierarchy)
        for key in ("export", "add_level", "remove_level", "remove_rows"):
            self.buttons[key].setEnabled(hierarchy is not None)
        for key in ("wizard", "import", "add_row", "paste"):
            self.buttons[key].setEnabled(has)

    def _update_title(self, hierarchy: Hierarchy | None) -> None:
        if self.name is None:
            self.title.setText("")
            return
        attribute = self.state.definition[self.name]
        role = "" if attribute.type is AttributeType.QUASI_IDENTIFYING else \
            f" — used only when '{html.escape(self.name, quote=False)}' is quasi-identifying"
        size = f"{len(hierarchy)} values, {hierarchy.height} levels" if hierarchy else "none"
        self.title.setText(f"<b>Hierarchy</b> ({size}){role}")

    def say(self, text: str, color: str = "#a61b1b") -> None:
        """One line under the table (an import error, the validity of the hierarchy)."""
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {color}")

    def _show_problems(self, problems: list[HierarchyProblem], hierarchy: Hierarchy | None) -> None:
        self.problems.clear()
        self.problems.setVisible(bool(problems))
        if hierarchy is None and not self._needs_hierarchy():
            kind = self.state.definition[self.name].type.value
            self.say(f"No hierarchy needed: '{self.name}' is {kind}. Give it one only to "
                     "make it quasi-identifying later.", "#555")
        elif hierarchy is None:
            self.say("No hierarchy yet: create one with the wizard, import an ARX CSV file, "
                     "or add rows and paste cells.", "#555")
        elif not problems:
            self.say("✓ The hierarchy is valid and covers every value of the data.", "#1e7b34")
        else:
            self.say(f"⚠ {len(problems)} problem(s) block anonymization until fixed; click one "
                     "to see its row.")
        for problem in problems:
            item = QListWidgetItem(f"⚠ {problem.message}")
            item.setForeground(QColor("#a61b1b"))
            item.setData(Qt.ItemDataRole.UserRole, problem.row)
            self.problems.addItem(item)
        # As tall as the problems (at most PROBLEMS_HEIGHT; it scrolls): the table keeps
        # the rest.
        needed = sum(self.problems.sizeHintForRow(row) for row in range(len(problems)))
        self.problems.setMaximumHeight(min(max(needed + 2 * self.problems.frameWidth() + 2,
                                               self.problems.minimumHeight()),
                                           PROBLEMS_HEIGHT))

    def _show_problem_row(self, item: QListWidgetItem) -> None:
        row = item.data(Qt.ItemDataRole.UserRole)
        if row:
            self.table.selectRow(row - 1)
            self.table.scrollTo(self.model.index(row - 1, 0))

    # --- editing -------------------------------------------------------------------------

    def _commit(self, hierarchy: Hierarchy | None, text: str) -> None:
        if self.name is None:
            return
        try:
            self.state.set_hierarchy(self.name, hierarchy, f"{text} ('{self.name}')")
        except ArxpyError as exc:
            self.say(f"⚠ {exc}")

    def _rows(self) -> list[list[str]]:
        return [list(r) for r in self.model.rows]

    def _height(self) -> int:
        return max((len(r) for r in self.model.rows), default=1)

    def add_level(self) -> None:
        height = self._height()
        rows = [r + [""] * (height - len(r)) + ["*"] for r in self._rows()]
        self._commit(Hierarchy(rows), "Add level")

    def remove_level(self) -> None:
        height = self._height()
        if height <= 1:
            return
        self._commit(Hierarchy([r[: height - 1] for r in self._rows()]), "Remove level")

    def add_row(self) -> None:
        rows = self._rows()
        selected = self.table.currentIndex()
        at = selected.row() + 1 if selected.isValid() else len(rows)
        rows.insert(at, [""] * self._height())
        self._commit(Hierarchy(rows), "Add row")
        self.table.setCurrentIndex(self.model.index(at, 0))

    def remove_rows(self) -> None:
        chosen = {i.row() for i in self.table.selectionModel().selectedIndexes()}
        if not chosen and self.table.currentIndex().isValid():
            chosen = {self.table.currentIndex().row()}
        if chosen:
            rows = [r for i, r in enumerate(self._rows()) if i not in chosen]
            self._commit(Hierarchy(rows) if rows else None, f"Remove {len(chosen)} row(s)")

    def paste(self, text: str | None = None) -> None:
        """Paste ``text`` (default: the clipboard) at the current cell."""
        text = QGuiApplication.clipboard().text() if text is None else text
        if not text.strip():
            return
        current = self.table.currentIndex()
        row, column = (current.row(), current.column()) if current.isValid() else (0, 0)
        self._commit(Hierarchy(paste_rows(self.model.rows, text, row, column)), "Paste")

    def import_csv(self, path: str | None = None) -> None:
        if path is None:
            path = pick_path(self, "hierarchies", False, "Import hierarchy",
                             "ARX hierarchies (*.csv);;All files (*)")
            if not path:
                return
        try:
            hierarchy = read_hierarchy(path)
        except ArxpyError as exc:
            self.say(f"⚠ {exc}")
            return
        self._commit(hierarchy, "Import hierarchy")

    def export_csv(self, path: str | None = None) -> None:
        hierarchy = self.state.hierarchies.get(self.name) if self.name else None
        if hierarchy is None:
            return
        if path is None:
            path = pick_path(self, "hierarchies", True, "Export hierarchy",
                             "ARX hierarchies (*.csv)", f"{self.name}.csv")
            if not path:
                return
        try:
            write_hierarchy(hierarchy, path)
        except ArxpyError as exc:
            self.say(f"⚠ {exc}")

    def open_wizard(self) -> None:
        from arxpy.gui.hierarchy_wizard import HierarchyWizard

        if self.name is None:
            return
        wizard = HierarchyWizard(self.state.data[self.name], self.name,
                                 self.state.definition[self.name].data_type, self)
        if wizard.exec() == QDialog.DialogCode.Accepted and wizard.hierarchy is not None:
            self._commit(wizard.hierarchy, f"Create hierarchy ({wizard.builder_kind})")
