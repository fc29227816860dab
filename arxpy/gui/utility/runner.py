"""Run / Cancel buttons, a progress bar and a status line around one background job."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from arxpy.gui.workers import JobProgressBar, JobWorker


class JobControls(QWidget):
    """Starts a job through :class:`JobWorker`, shows its progress, lets the user cancel.

    Emits ``finished(result)`` on success; failures and cancellation are shown in the
    status line. Only one job runs at a time.
    """

    finished = Signal(object)
    run_requested = Signal()

    def __init__(self, run_text: str = "Run", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.worker: JobWorker | None = None
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
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)

    @property
    def running(self) -> bool:
        # Until the worker's end has been signalled, not merely until its thread ended.
        return self.worker is not None

    def start(self, function: Callable[..., Any], **kwargs: Any) -> JobWorker:
        """Run ``function(**kwargs, progress=..., cancel=...)`` on a worker thread."""
        if self.worker is not None:
            self.worker.cancel()
        worker = JobWorker(function, self, **kwargs)
        worker.progress.connect(self._progress)
        worker.finished.connect(lambda result: self._done(worker, result))
        worker.failed.connect(lambda message: self._ended(worker, message, error=True))
        worker.cancelled.connect(lambda: self._ended(worker, "Cancelled."))
        self.worker = worker
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.set_status("Starting…")
        worker.start()
        return worker

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.set_status("Cancelling…")

    def reset(self) -> None:
        """Forget the last job (its "Done." or error) when what it analysed is gone."""
        if self.worker is not None:
            self.worker.cancel()
            self.worker = None
        self._idle()
        self.set_status("")

    def set_status(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color: #b00020" if error else "color: #333")
        self.status.setText(text)

    def _progress(self, percent: int, message: str) -> None:
        self.progress.setValue(percent)
        self.set_status(message)

    def _done(self, worker: JobWorker, result: Any) -> None:
        worker.deleteLater()
        if worker is not self.worker:
            return  # a job replaced by a newer one
        self._idle()
        self.set_status("Done.")
        self.finished.emit(result)

    def _ended(self, worker: JobWorker, message: str, error: bool = False) -> None:
        worker.deleteLater()
        if worker is not self.worker:
            return
        self._idle()
        self.set_status(message, error)

    def _idle(self) -> None:
        self.worker = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
