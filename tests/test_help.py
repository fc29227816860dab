"""Help in the application: every perspective, method and model has a topic, the
glossary answers every term a topic points to, and the GUI and the CLI show the same."""

from __future__ import annotations

import subprocess
import sys

import pytest

from arxpy.cli import main
from arxpy.help import (
    GLOSSARY,
    PERSPECTIVES,
    glossary,
    method_topic,
    model_topic,
    perspective_topic,
)
from arxpy.methods import method_classes
from arxpy.privacy import privacy_model_classes
from arxpy.quality import quality_model_classes


def _all_topics():
    yield from (perspective_topic(name) for name in PERSPECTIVES)
    yield from (method_topic(cls) for cls in method_classes().values())
    yield from (model_topic(cls, "privacy") for cls in privacy_model_classes().values())
    yield from (model_topic(cls, "quality") for cls in quality_model_classes().values())


@pytest.mark.parametrize("name", sorted(method_classes()))
def test_every_method_says_when_to_choose_it_and_explains_every_setting(name):
    cls = method_classes()[name]
    topic = method_topic(cls)
    assert cls.guidance and cls.guidance in topic.paragraphs
    assert [heading.casefold() for heading, _ in topic.sections] == \
        [(p.label or p.name.replace("_", " ")).casefold() for p in cls.params]
    assert all(text.strip() for _, text in topic.sections), "a setting without a word"


def test_every_privacy_and_quality_model_has_a_description():
    for family, classes in (("privacy", privacy_model_classes()),
                            ("quality", quality_model_classes())):
        for cls in classes.values():
            assert model_topic(cls, family).paragraphs[0].strip(), cls.label


def test_every_gui_perspective_has_help():
    from arxpy.gui.main_window import PERSPECTIVES as SHOWN

    assert set(SHOWN) | {"Start"} <= set(PERSPECTIVES)


def test_every_term_a_topic_points_to_is_in_the_glossary():
    for topic in _all_topics():
        missing = [term for term in topic.terms if term not in GLOSSARY]
        assert not missing, (topic.key, missing)


def test_glossary_finds_terms_by_part_and_refuses_unknown_ones():
    assert [term for term, _ in glossary("risk")] == \
        ["journalist risk", "marketer risk", "prosecutor risk"]
    with pytest.raises(Exception, match="No glossary entry for 'zzz'"):
        glossary("zzz")


def test_cli_glossary_prints_the_guis_texts(capsys):
    assert main(["glossary", "k-anonymity"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("k-anonymity\n")
    assert " ".join(out.split()[1:]) == " ".join(GLOSSARY["k-anonymity"].split())
    assert main(["glossary", "zzz"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_cli_methods_says_when_to_choose_each(capsys):
    assert main(["methods", "kpbms"]) == 0
    assert "When: " + method_classes()["kpbms"].guidance in capsys.readouterr().out


def test_output_cut_short_by_its_reader_ends_without_a_traceback(monkeypatch, capsys):
    """`arxpy methods | head -1`: the reader goes away; no traceback, status 141."""
    import os

    read, write = os.pipe()

    class GoneReader:  # standard output whose reader has closed the pipe
        def write(self, _text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

        def fileno(self):
            return write

    monkeypatch.setattr(sys, "stdout", GoneReader())
    try:
        assert main(["methods"]) == 141
    finally:
        os.close(read)
        os.close(write)
    assert "Traceback" not in capsys.readouterr().err


def test_a_closed_pipe_ends_the_program_quietly():
    """The same through a real pipe closed before anything was written."""
    process = subprocess.Popen([sys.executable, "-m", "arxpy", "methods"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # before Python has even started: every write fails
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141
    assert "Traceback" not in err


# --- the GUI -------------------------------------------------------------------------


def test_help_text_is_escaped():
    from arxpy.gui.help import topic_html
    from arxpy.help import Topic

    page = topic_html(Topic("x", "<b>title</b>", ('<img src="a.png">',),
                            (("<i>h</i>", "x < y"),)))
    assert "<img" not in page and "&lt;img" in page and "<i>h" not in page


def test_f1_and_the_question_mark_show_the_current_perspective(window, qtbot):
    from arxpy.example import example_project
    from arxpy.gui.help import HelpWindow

    window.actions_by_name["help"].trigger()  # the start page has its own help
    help_window = window.findChild(HelpWindow)
    assert help_window.isVisible()
    assert perspective_topic("Start").title in help_window.browser.toPlainText()
    window.set_project(example_project(records=200))
    window.show_perspective(3)
    window.help_button.click()
    assert perspective_topic("Risk").title in help_window.browser.toPlainText()
    assert window.findChildren(HelpWindow) == [help_window], "one help window, reused"


def test_a_glossary_link_shows_the_term(window):
    from PySide6.QtCore import QUrl

    from arxpy.gui.help import help_window

    shown = help_window(window)
    shown.show_topic(perspective_topic("Explore"))
    shown.browser.anchorClicked.emit(QUrl("term:pin"))
    text = shown.browser.toPlainText()
    assert GLOSSARY["pin"] in text and GLOSSARY["run"] not in text
    assert shown.search.text() == "pin"


def test_the_method_question_mark_follows_the_chosen_method(window):
    from arxpy.example import example_project
    from arxpy.gui.help import HelpWindow
    from arxpy.workflows.method_choice import METHOD_KEY

    window.set_project(example_project(records=200))
    panel = window.configure.method_panel
    for name in ("generalization", "mdav"):
        window.state.update_settings("choose", **{METHOD_KEY: name})
        assert panel.method_name == name
        panel.help_button.click()
        text = window.findChild(HelpWindow).browser.toPlainText()
        assert method_classes()[name].label in text
        assert method_classes()[name].guidance[:40] in " ".join(text.split())
