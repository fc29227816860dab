"""Projects in the window: save, open, save as, modified marker, prompt, recent, autosave."""

import pandas as pd
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.gui.main_window import MainWindow
from arxpy.gui.state import default_settings
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project

Button = QMessageBox.StandardButton


def _project() -> Project:
    data = pd.DataFrame({"age": [str(30 + i % 5) for i in range(20)], "sex": ["M", "F"] * 10})
    definition = DataDefinition.for_columns(data.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING)
    hierarchy = Hierarchy([[v, "*"] for v in sorted(set(data["age"]))])
    return Project(data, definition, {"age": hierarchy}, default_settings(), name="Saved")


class Answers:
    """Stands in for QMessageBox.question: records the prompts, gives queued answers."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.queue: list[Button] = []

    def __call__(self, _parent, _title, text, *args) -> Button:
        self.asked.append(text)
        return self.queue.pop(0) if self.queue else Button.Discard


@pytest.fixture
def answers(monkeypatch):
    answers = Answers()
    monkeypatch.setattr("arxpy.gui.project_actions.QMessageBox.question", answers)
    return answers


@pytest.fixture
def make_window(qtbot, tmp_path, answers):
    def make() -> MainWindow:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery")
        qtbot.addWidget(window)
        return window
    return make


def test_save_open_and_save_as(make_window, tmp_path, monkeypatch):
    window = make_window()
    window.set_project(_project())
    window.state.set_attribute("sex", type=AttributeType.SENSITIVE)
    assert window.windowTitle().startswith("*Saved")
    first = tmp_path / "first.arxpy"
    monkeypatch.setattr(MainWindow, "pick_file", lambda *args: str(tmp_path / "first"))
    assert window.projects.save()  # no path yet: asks where, adds the suffix
    assert window.state.path == first and not window.windowTitle().startswith("*")
    assert Project.load(first).definition["sex"].type is AttributeType.SENSITIVE
    window.state.update_settings(suppression_limit=0.1)
    assert window.projects.save()  # saves in place now
    assert Project.load(first).settings["suppression_limit"] == 0.1
    second = tmp_path / "second.arxpy"
    monkeypatch.setattr(MainWindow, "pick_file", lambda *args: str(second))
    assert window.projects.save_as()
    assert window.state.path == second and "second.arxpy" in window.windowTitle()
    assert window.projects.recent()[:2] == [str(second.resolve()), str(first.resolve())]
    reopened = make_window()
    assert reopened.start_page.recent.count() == 2
    assert reopened.projects.open_project(first)
    assert reopened.state.project == Project.load(first) and not reopened.state.modified


def test_prompt_before_discarding_changes(make_window, answers, tmp_path, monkeypatch):
    window = make_window()
    window.set_project(_project())
    window.projects.new_project()  # unmodified: no question
    assert answers.asked == [] and window.project is None
    window.set_project(_project())
    window.state.set_attribute("sex", type=AttributeType.SENSITIVE)
    answers.queue = [Button.Cancel]
    window.projects.new_project()
    assert len(answers.asked) == 1 and "Saved" in answers.asked[0]
    assert window.project is not None  # cancelled: nothing lost
    target = tmp_path / "kept.arxpy"
    monkeypatch.setattr(MainWindow, "pick_file", lambda *args: str(target))
    answers.queue = [Button.Save]
    window.projects.open_example()
    assert Project.load(target).definition["sex"].type is AttributeType.SENSITIVE
    assert window.project.name.startswith("Patient discharge")


def test_closing_with_changes_can_be_cancelled(make_window, answers):
    window = make_window()
    window.show()
    window.set_project(_project())
    window.state.set_attribute("sex", type=AttributeType.SENSITIVE)
    answers.queue = [Button.Cancel]
    assert not window.close() and window.isVisible()
    answers.queue = [Button.Discard]
    assert window.close()


def test_autosave_recovery_after_a_crash(make_window, tmp_path, answers):
    window = make_window()
    window.set_project(_project(), tmp_path / "work.arxpy")
    assert not window.autosave.timer.isActive()
    window.state.set_attribute("sex", type=AttributeType.SENSITIVE)
    assert window.autosave.timer.isActive()  # runs while modified
    window.autosave.timer.timeout.emit()  # what the timer does every minute
    assert window.autosave.file.exists()
    # A crash: this window never saves or closes cleanly, its copy stays behind.
    window.autosave.timer.stop()
    window.state.modified_changed.disconnect(window.autosave._modified_changed)

    answers.queue = [Button.Yes]
    restored = make_window()
    assert restored.projects.offer_recovery()
    assert "Saved" in answers.asked[-1]
    assert restored.state.definition["sex"].type is AttributeType.SENSITIVE
    assert restored.state.path == tmp_path / "work.arxpy" and restored.state.modified
    assert restored.windowTitle().startswith("*")
    restored.projects.save()  # a clean save removes the recovery copy
    assert not restored.autosave.file.exists()
    assert Project.load(tmp_path / "work.arxpy").definition["sex"].type is AttributeType.SENSITIVE
    assert not make_window().projects.offer_recovery()  # nothing left to offer


def test_declining_recovery_removes_the_copy(make_window, answers):
    window = make_window()
    window.set_project(_project(), modified=True)
    assert window.autosave.save_now() is not None
    answers.queue = [Button.No]
    other = make_window()
    assert not other.projects.offer_recovery()
    assert not other.autosave.file.exists() and other.project is None
