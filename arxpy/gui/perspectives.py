"""Placeholders for perspectives still to be built."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
)

PLACEHOLDER_TEXT = {
    "Explore": "After an anonymization, the search lattice appears here: every transformation "
               "with its state and score, a filter, and a list of candidates to compare.",
    "Utility": "After an anonymization, input and output appear here side by side: summary "
               "statistics, distributions, contingency tables and classification performance.",
    "Risk": "After an anonymization, re-identification risks of input and output appear "
            "here: the distribution of prosecutor risk and an overview of risk measures.",
}


def placeholder(perspective: str) -> QLabel:
    """A centered note saying what the perspective will show."""
    label = QLabel(f"<h3>{perspective}</h3><p>{PLACEHOLDER_TEXT[perspective]}</p>")
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setStyleSheet("color: #666; padding: 60px 160px")
    return label
