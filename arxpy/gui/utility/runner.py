"""Run / Cancel buttons, a progress bar and a status line around a view's background job."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from arxpy.gui.workers import JobProgressBar, JobWorker, ViewJob


class JobControls(QWidget):
    """Run and Cancel buttons, a progress bar and a status line around a view's
    :class:`ViewJob`.

    Emits ``finished(result)`` on success; failures and cancellation are shown in the
    status line. Only one job runs at a time: a new one replaces the running one.
    """

    finished = Signal(object)
    run_requested = Signal()

    def __init__(self, run_text: str = "Run", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = ViewJob(self)
        self.run_button = QPushButton(run_text)
        self.run_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = JobProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setVisible(False)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.run_button.clicked.connect(self.run_requested.emit)
        self.cancel_button.clicked.connect(self.cancel)
        self.job.busy.connect(self._busy)
        self.job.progress.connect(self._progress)
        self.job.finished.connect(self._done)
        self.job.failed.connect(lambda message: self.set_status(message, error=True))
        self.job.cancelled.connect(lambda: self.set_status("Cancelled."))
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)

    @property
    def worker(self) -> JobWorker | None:
        return self.job.worker

    @property
    def running(self) -> bool:
        return self.job.running

    def start(self, function: Callable[..., Any], **kwargs: Any) -> JobWorker:
        """Run ``function(**kwargs, progress=..., cancel=...)`` on a worker thread."""
        worker = self.job.start(function, **kwargs)
        self.progress.setValue(0)
        self.set_status("Starting…")
        return worker

    def cancel(self) -> None:
        if self.job.running:
            self.job.cancel()
            self.set_status("Cancelling…")

    def reset(self) -> None:
        """Forget the last job (its "Done." or error) when what it analysed is gone."""
        self.job.forget()
        self.set_status("")

    def set_status(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color: #b00020" if error else "color: #333")
        self.status.setText(text)

    def _busy(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy)

    def _progress(self, percent: int, message: str) -> None:
        self.progress.setValue(percent)
        self.set_status(message)

    def _done(self, result: Any) -> None:
        self.set_status("Done.")
        self.finished.emit(result)
