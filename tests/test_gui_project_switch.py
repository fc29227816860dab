"""Every view follows the current project (issue 30): after switching projects with
Explore's Compare, Utility (statistics, classification, study) and Risk open, and after
running everything on the previous project, no view shows a figure, title or attribute
of a project opened before.

Two checks per switch: right after it, every text of the window equals what a window
that opened the new project first shows (so nothing of the old project is left, and
nothing is missing); and after the new project's own runs, no text names an attribute
of an earlier project.
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pandas as pd
import pytest
from gui_texts import shown_texts, where
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.example import example_project
from arxpy.gui.main_window import MainWindow
from arxpy.gui.state import default_settings
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project

WAIT_MS = 60_000


def _bands(values: pd.Series, width: int) -> Hierarchy:
    rows = []
    for value in sorted(set(values), key=int):
        low = int(value) // width * width
        rows.append([value, f"[{low}, {low + width}[", f"[{low // (2 * width) * 2 * width}, "
                     f"{low // (2 * width) * 2 * width + 2 * width}[", "*"])
    return Hierarchy(rows)


def _groups(values: pd.Series, groups: dict[str, str]) -> Hierarchy:
    return Hierarchy([[value, groups[value], "*"] for value in sorted(set(values))])


def _project(name: str, data: pd.DataFrame, quasi: dict[str, Hierarchy],
             numeric: tuple[str, ...], k: int = 3) -> Project:
    definition = DataDefinition.for_columns(data.columns)
    for column in numeric:
        definition = definition.with_attribute(column, data_type=DataType(DataKind.INTEGER))
    for column in quasi:
        definition = definition.with_attribute(column, type=AttributeType.QUASI_IDENTIFYING)
    settings = {**default_settings(), "suppression_limit": 0.05,
                "privacy_models": [{"kind": "k-anonymity", "k": k}]}
    return Project(data, definition, quasi, settings, name=name)


def clinic(records: int = 200) -> Project:
    """A small generated table: two quasi-identifiers, a small lattice (the study runs
    in a second)."""
    rng = np.random.default_rng(30)
    data = pd.DataFrame({
        "Body weight": rng.integers(40, 120, records).astype(str),
        "Ward": rng.choice(["North", "South", "East", "West"], records),
        "Smoker": rng.choice(["yes", "no"], records),
        "Cholesterol": rng.integers(120, 300, records).astype(str),
        "Outcome": rng.choice(["recovered", "readmitted"], records, p=[0.7, 0.3]),
    })
    wards = {"North": "North-South", "South": "North-South", "East": "East-West",
             "West": "East-West"}
    return _project("Clinic", data, {"Body weight": _bands(data["Body weight"], 10),
                                     "Ward": _groups(data["Ward"], wards)},
                    ("Body weight", "Cholesterol"))


def registry(records: int = 150) -> Project:
    """Another generated table, with attributes of its own."""
    rng = np.random.default_rng(31)
    data = pd.DataFrame({
        "Region": rng.choice(["Alpine", "Coastal", "Lowland"], records),
        "Birth year": rng.integers(1940, 2000, records).astype(str),
        "Diagnosis": rng.choice(["asthma", "diabetes", "gout"], records),
        "Visits": rng.integers(1, 30, records).astype(str),
    })
    regions = {"Alpine": "Inland", "Lowland": "Inland", "Coastal": "Coast"}
    return _project("Registry", data, {"Region": _groups(data["Region"], regions),
                                       "Birth year": _bands(data["Birth year"], 5)},
                    ("Birth year", "Visits"))


def example(records: int = 400) -> Project:
    return example_project(records=records)


#: (project, class attribute of the classification, run the study) in the order opened.
PROJECTS = ((clinic, "Outcome", True), (example, "Sex", False), (registry, "Diagnosis", False))


@pytest.fixture
def make_window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr("arxpy.gui.project_actions.QMessageBox.question",
                        lambda *args: QMessageBox.StandardButton.Discard)
    made = []

    def make() -> MainWindow:
        folder = tmp_path / f"window{len(made)}"
        settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings, recovery_dir=folder / "recovery")
        qtbot.addWidget(window)
        window.resize(1280, 720)
        window.show()
        made.append(window)
        return window

    return make


def _idle(window, qtbot) -> None:
    """Wait until no job of any view runs."""
    qtbot.waitUntil(lambda: window.worker is None and not window.risk.busy
                    and window.utility.worker is None
                    and not window.utility.classification.controls.running
                    and not window.utility.study.controls.running, timeout=WAIT_MS)
    qtbot.wait(50)  # Explore's jobs report on their own turn


def _look(window, qtbot) -> None:
    """Show Explore's Compare, Utility and Risk as a user switching projects would."""
    window.show_perspective(1)
    window.explore.tabs.setCurrentWidget(window.explore.compare)
    window.show_perspective(2)
    window.show_perspective(3)
    _idle(window, qtbot)


def _run_everything(window, qtbot, class_attribute: str, study: bool) -> None:
    """Anonymize, pin two candidates, compute Utility (statistics, classification and,
    on a small lattice, the study), Risk, and a method run compared with the lattice."""
    state = window.state
    window.anonymize()
    _idle(window, qtbot)
    anonymous = [t.levels for t in state.result.checked_transformations()
                 if t.state == "anonymous"]
    for levels in anonymous[:2]:
        state.pin(levels)
    _look(window, qtbot)
    window.show_perspective(2)
    qtbot.waitUntil(lambda: window.utility.bundle is not None, timeout=WAIT_MS)
    classification = window.utility.classification
    classification.form.set_class_attribute(class_attribute)
    classification.run()
    qtbot.waitUntil(lambda: classification.performance is not None, timeout=WAIT_MS)
    if study:
        window.utility.study.run()
        qtbot.waitUntil(lambda: window.utility.study.study is not None, timeout=WAIT_MS)
    window.show_perspective(3)
    _idle(window, qtbot)
    panel = window.configure.method_panel
    panel.combo.setCurrentIndex(panel.combo.findData("mdav"))
    window.anonymize()
    _idle(window, qtbot)
    page = window.runs_page
    # Through the selection model: selectRow follows the keyboard modifiers, which an
    # earlier test's Ctrl-click can leave pressed on the offscreen platform.
    page.select_runs(state.runs[:2])  # the lattice search and the MDAV run
    page.compare_selected()
    qtbot.waitUntil(lambda: page.compare_table.rowCount() > 0, timeout=WAIT_MS)
    state.show_runs(False)
    _look(window, qtbot)


def _names(project: Project) -> set[str]:
    return set(project.data.columns)


def _naming(texts: list[str], names: set[str]) -> dict[str, list[str]]:
    found = {}
    for name in names:
        pattern = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])")
        hits = [t for t in texts if pattern.search(t)]
        if hits:
            found[name] = hits[:3]
    return found


def test_views_follow_the_project_across_three_projects(make_window, qtbot):
    window = make_window()
    earlier: set[str] = set()
    for index, (make, class_attribute, study) in enumerate(PROJECTS):
        project = make()
        window.set_project(copy.deepcopy(project))
        _look(window, qtbot)
        if index:
            fresh = make_window()
            fresh.set_project(copy.deepcopy(project))
            _look(fresh, qtbot)
            mine, theirs = shown_texts(window), shown_texts(fresh)
            seen_there, seen_here = set(theirs), set(mine)
            left_over = [t for t in mine if t not in seen_there]
            missing = [t for t in theirs if t not in seen_here]
            assert not left_over and not missing, (
                f"after switching to {project.name}: shown but not in a fresh window "
                f"{[(t, where(window, t)[:2]) for t in left_over[:8]]}; missing "
                f"{[(t, where(fresh, t)[:2]) for t in missing[:8]]}")
            fresh.close()
        _run_everything(window, qtbot, class_attribute, study)
        texts = shown_texts(window)
        named = _naming(texts, earlier - _names(project))
        assert not named, f"{project.name} shows attributes of earlier projects: {named}"
        earlier |= _names(project)
