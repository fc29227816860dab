"""The desktop application under hostile files: a dialog, never a crash, and data values
shown as plain text (issue 12, items 5 and 8)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox

from arxpy.gui.main_window import MainWindow
from arxpy.gui.plain_text import escaped, plain_label

from .hostile import good_manifest, write_project

HOSTILE_NAME = "<h1>Boom</h1><a href='https://evil.example/'>click</a>"




@pytest.fixture
def dialogs(monkeypatch):
    shown: list[str] = []
    monkeypatch.setattr("arxpy.gui.main_window.QMessageBox.critical",
                        lambda _parent, _title, text: shown.append(text))
    return shown


BAD_PROJECTS = [
    {"raw_manifest": b"[]"},
    {"raw_manifest": b"null"},
    {"raw_manifest": b"\xff\xfe"},
    {"manifest": good_manifest(schema_version=True)},
    {"manifest": good_manifest(settings={"privacy_models": [{"kind": "k-anonymity",
                                                             "k": "abc"}]})},
    {"manifest": good_manifest(settings={"privacy_models": [{"kind": "k-anonymity"}],
                                         "strategy": "fastest"})},
    {"members": {"data.csv": b"\x00\x01"}},
]


def test_file_open_shows_a_dialog(window, dialogs, tmp_path):
    for i, bad in enumerate(BAD_PROJECTS):  # one window for all: windows are slow to make
        path = write_project(tmp_path / f"bad{i}.arxpy", **bad)
        assert not window.projects.open_project(path)
        assert len(dialogs) == i + 1 and f"bad{i}.arxpy" in dialogs[i]
        assert window.project is None


def test_gui_command_with_a_bad_project_starts_and_shows_the_error(dialogs, tmp_path,
                                                                   monkeypatch):
    from PySide6.QtCore import QStandardPaths

    from arxpy.gui import app as app_module

    QStandardPaths.setTestModeEnabled(True)
    path = write_project(tmp_path / "bad.arxpy", raw_manifest=b'"project"')
    seen = []

    def fake_exec() -> int:
        window = next(w for w in QApplication.topLevelWidgets()
                      if isinstance(w, MainWindow) and w.isVisible())
        seen.append(window.project)
        window.close()
        return 0

    monkeypatch.setattr(QApplication, "exec", staticmethod(fake_exec))
    assert app_module.run_app(project_path=path) == 0
    assert seen == [None] and dialogs and "top level" in dialogs[0]


def test_error_dialog_shows_data_values_as_text(window, dialogs, tmp_path):
    definition = good_manifest()["definition"]
    definition[1] = {**definition[1], "type": HOSTILE_NAME}
    path = write_project(tmp_path / "bad.arxpy",
                         raw_manifest=json.dumps(good_manifest(definition=definition)).encode())
    assert not window.projects.open_project(path)
    text = dialogs[0]
    assert "<h1>" not in text and "<a href" not in text
    assert "&lt;h1&gt;Boom&lt;/h1&gt;" in text


def test_escaped_message_renders_the_original_characters(qtbot):
    box = QMessageBox(QMessageBox.Icon.Critical, "t", escaped(f"Bad value {HOSTILE_NAME}\nok"))
    qtbot.addWidget(box)
    label = box.findChild(QLabel, "qt_msgbox_label")
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    document.setHtml(label.text())
    assert document.toPlainText() == f"Bad value {HOSTILE_NAME}\nok"


def test_plain_label_does_not_interpret_markup(qtbot):
    label = plain_label(QLabel())
    qtbot.addWidget(label)
    label.setText(HOSTILE_NAME)
    assert label.textFormat() == label.textFormat().PlainText
    assert label.hasSelectedText() is False and label.text() == HOSTILE_NAME


def test_attribute_panel_message_is_plain_text(window):
    from arxpy.gui.attribute_panel import AttributePanel

    panel = window.findChild(AttributePanel)
    assert panel.message.textFormat() == panel.message.textFormat().PlainText
