"""A note shown where a perspective has nothing to show yet (before a run)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
)

PLACEHOLDER_TEXT = {
    "Utility": "After an anonymization, input and output appear here side by side: summary "
               "statistics, distributions, contingency tables and classification performance.",
}


def placeholder(perspective: str) -> QLabel:
    """A centered note saying what the perspective will show."""
    label = QLabel(f"<h3>{perspective}</h3><p>{PLACEHOLDER_TEXT[perspective]}</p>")
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setStyleSheet("color: #666; padding: 60px 160px")
    return label
