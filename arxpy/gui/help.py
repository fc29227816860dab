"""The help window and the "?" buttons that open it (texts from :mod:`arxpy.help`).

One help window per main window, reused: a "?" shows its topic there, the glossary is
a page of the same window, so help never piles up dialogs. Every text is escaped:
parameter help and labels come from declarations, which may be a plugin's.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.errors import ConfigurationError
from arxpy.help import Topic, glossary


def topic_html(topic: Topic) -> str:
    """The topic as (escaped) rich text."""
    parts = [f"<h2>{html.escape(topic.title)}</h2>"]
    parts += [f"<p>{html.escape(text)}</p>" for text in topic.paragraphs]
    if topic.sections and topic.sections_heading:
        parts.append(f"<h3>{html.escape(topic.sections_heading)}</h3>")
    for heading, text in topic.sections:
        parts.append(f"<p><b>{html.escape(heading)}</b><br>{html.escape(text)}</p>")
    if topic.terms:
        links = ", ".join(f'<a href="term:{html.escape(term)}">{html.escape(term)}</a>'
                          for term in topic.terms)
        parts.append(f"<p><i>In the glossary:</i> {links}</p>")
    return "".join(parts)


def glossary_html(term: str | None = None) -> str:
    """The glossary (every entry, or those matching ``term``) as rich text."""
    try:
        entries = glossary(term or None)
    except ConfigurationError:  # nothing matches: say so in the page itself
        return f"<p>No glossary entry contains “{html.escape(term or '')}”.</p>"
    return "<h2>Glossary</h2>" + "".join(
        f'<p><a name="{html.escape(name)}"></a><b>{html.escape(name)}</b>: '
        f"{html.escape(text)}</p>" for name, text in entries)


class HelpWindow(QDialog):
    """A non-modal window showing one help topic or the glossary."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("arxpy help")
        self.setModal(False)
        self.resize(560, 520)
        self.browser = QTextBrowser(openLinks=False)
        self.browser.anchorClicked.connect(lambda url: self.show_glossary(url.path()))
        self.search = QLineEdit(placeholderText="Search the glossary",
                                clearButtonEnabled=True)
        self.search.textChanged.connect(self._search)
        glossary_button = QPushButton("Glossary")
        glossary_button.clicked.connect(lambda: self.show_glossary())
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        row = QHBoxLayout()
        row.addWidget(self.search, 1)
        row.addWidget(glossary_button)
        row.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addLayout(row)

    def show_topic(self, topic: Topic) -> None:
        self.browser.setHtml(topic_html(topic))
        self._present()

    def show_glossary(self, term: str | None = None) -> None:
        self.search.blockSignals(True)
        self.search.setText(term or "")
        self.search.blockSignals(False)
        self.browser.setHtml(glossary_html(term))
        self._present()

    def _search(self, text: str) -> None:
        self.browser.setHtml(glossary_html(text.strip() or None))

    def _present(self) -> None:
        self.show()
        self.raise_()
        self.activateWindow()


def help_window(owner: QWidget) -> HelpWindow:
    """The help window of ``owner``'s top-level window (made on first use)."""
    top = owner.window()
    window = top.findChild(HelpWindow, options=Qt.FindChildOption.FindDirectChildrenOnly)
    return window or HelpWindow(top)


def help_button(topic: Callable[[], Topic], tip: str = "What is this?") -> QToolButton:
    """A "?" button showing ``topic()`` (called on click, so it can follow a choice)."""
    button = QToolButton(text="?")
    button.setToolTip(tip)
    button.setAccessibleName("Help")
    button.setAutoRaise(True)
    button.setStyleSheet("QToolButton { font-weight: bold; color: #1a5fb4; }")
    button.clicked.connect(lambda: help_window(button).show_topic(topic()))
    return button
