"""Messages that carry user data are shown as plain text, never interpreted as HTML.

Qt guesses whether a string is rich text; a data value such as ``<a href=...>`` in an
error message would otherwise render as a live link or a heading.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def escaped(message: str) -> str:
    """``message`` as rich text that displays exactly the original characters.

    For Qt's static message boxes, which guess the format: the result always reads as
    rich text, and every ``<``, ``>`` and ``&`` of the message is escaped.
    """
    body = html.escape(message, quote=False).replace("\n", "<br>")
    return f"<p style='white-space:pre-wrap'>{body}</p>"


def plain_label(label: QLabel) -> QLabel:
    """Make ``label`` show its text verbatim (for messages that may contain data)."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
