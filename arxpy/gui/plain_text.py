"""Messages that carry user data are shown as plain text, never interpreted as HTML.

Qt guesses whether a string is rich text; a data value such as ``<a href=...>`` in an
error message would otherwise render as a live link or a heading, and a column named
``<img src=...>`` could load a local image. pyqtgraph renders every title, axis label
and legend entry as HTML. Names and values therefore reach a label as plain text
(:func:`plain_label`), a tooltip through :func:`tooltip`, a plot through
:func:`set_title` / :func:`set_axis_label`, and rich text only through ``html.escape``.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def escaped(message: str) -> str:
    """``message`` as rich text that displays exactly the original characters.

    For Qt's static message boxes, which guess the format: the result always reads as
    rich text, and every ``<``, ``>`` and ``&`` of the message is escaped.
    """
    body = html.escape(message, quote=False).replace("\n", "<br>")
    return f"<p style='white-space:pre-wrap'>{body}</p>"


def tooltip(text: str) -> str:
    """A tooltip that shows ``text`` exactly: Qt reads a tooltip starting with something
    like a tag (a column named ``<img src=...>``) as HTML."""
    return escaped(text) if text else ""


def set_title(plot: Any, text: str, **options: Any) -> None:
    """``plot.setTitle`` with ``text`` shown as written (pyqtgraph renders titles as
    HTML, so an attribute name in a title must be escaped)."""
    plot.setTitle(html.escape(text, quote=False), **options)


def set_axis_label(plot: Any, axis: str, text: str, **options: Any) -> None:
    """``plot.setLabel`` with ``text`` shown as written (axis labels are HTML too)."""
    plot.setLabel(axis, html.escape(text, quote=False), **options)


def plain_label(label: QLabel) -> QLabel:
    """Make ``label`` show its text verbatim (for messages that may contain data)."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
