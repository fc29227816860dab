"""A dockable panel showing arxpy's log records (Python ``logging``)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDockWidget, QPlainTextEdit, QWidget

#: Keep the panel bounded: older lines scroll away.
MAX_LINES = 5000
#: Lines the docked panel shows at least.
MIN_LINES = 3


class _Relay(QObject):
    """Carries formatted records to the GUI thread (queued when emitted elsewhere)."""

    line = Signal(str)


class QtLogHandler(logging.Handler):
    """A logging handler that appends each record to a text widget, from any thread."""

    def __init__(self, widget: QPlainTextEdit) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s",
                                            "%H:%M:%S"))
        self.relay = _Relay()
        self.relay.line.connect(widget.appendPlainText, Qt.ConnectionType.QueuedConnection)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.relay.line.emit(self.format(record))
        except RuntimeError:  # the widget is gone (window closed); nothing to show
            pass


class LogPanel(QDockWidget):
    """The "Log" dock; attaches a handler to the ``arxpy`` logger while it exists."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Log", parent)
        self.setObjectName("log-panel")
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setMaximumBlockCount(MAX_LINES)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        # A few lines at least, not a scroll area's default: docked, it adds to the
        # window's minimum height, which must stay within a 720-pixel screen.
        self.text.setMinimumHeight(self.text.fontMetrics().lineSpacing() * MIN_LINES
                                   + 2 * self.text.frameWidth() + 4)
        self.setWidget(self.text)
        self.handler = QtLogHandler(self.text)
        self._logger = logging.getLogger("arxpy")
        self._logger.addHandler(self.handler)
        if self._logger.level == logging.NOTSET or self._logger.level > logging.INFO:
            self._logger.setLevel(logging.INFO)
        self.destroyed.connect(lambda *_: self._logger.removeHandler(self.handler))

    def detach(self) -> None:
        """Stop receiving records (called when the window closes)."""
        self._logger.removeHandler(self.handler)
