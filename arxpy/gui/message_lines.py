"""Labels for messages that come and go without moving the controls around them.

A message that appears (a stale result, a validation error) must not push the fields
below it down under the pointer, nor raise the window's minimum height above a
1280x720 screen. :class:`ElidedLine` is one line that never asks for more width than
it gets (the rest of its text in the tooltip); :class:`ReservedLines` keeps room for a
few lines whether or not it shows a message. Both show their text verbatim (a message
may quote data, which must never be read as HTML).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyle, QStyleOption, QWidget


class ElidedLine(QLabel):
    """One line of plain text, cut with "…" where it does not fit; ``text()`` and the
    tooltip keep the whole text. Its minimum width is small, so it never widens the
    window. With ``reserve`` it keeps its line while hidden."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *,
                 reserve: bool = False) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        # As wide as its text where there is room, narrower where there is not.
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        policy.setRetainSizeWhenHidden(reserve)
        self.setSizePolicy(policy)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self.setToolTip(text if text else "")
        self.update()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), 80), hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        # The style sheet's background and border, then the text cut to the width.
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_Widget, option, painter, self)
        rect = self.contentsRect()
        text = QFontMetrics(self.font()).elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                                   rect.width())
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         text)
        painter.end()


class ReservedLines(QLabel):
    """A word-wrapped, plain-text message that always takes the height of ``lines``
    lines, shown, hidden or empty, so nothing around it moves when a message appears. A longer
    message is cut; its tooltip holds all of it."""

    def __init__(self, lines: int = 2, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lines = lines
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        policy.setRetainSizeWhenHidden(True)  # hidden, it still keeps its room
        self.setSizePolicy(policy)
        self._fit_height()

    def _fit_height(self) -> None:
        margins = self.contentsMargins()
        self.setFixedHeight(QFontMetrics(self.font()).lineSpacing() * self.lines
                            + margins.top() + margins.bottom() + 2)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self.setToolTip(text)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() in (event.Type.FontChange, event.Type.StyleChange):
            self._fit_height()
