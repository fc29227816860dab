"""Helpers of the screenshot scripts: wait for background jobs, save a widget as PNG."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget


def wait_until(condition: Callable[[], bool], timeout: float = 300.0,
               what: str = "a background job") -> None:
    """Process events until ``condition()`` holds; TimeoutError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not finish in time")
        QApplication.processEvents()
        time.sleep(0.01)


def settle(seconds: float) -> None:
    """Process events for ``seconds`` (jobs that give no completion signal)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.02)


def save_png(widget: QWidget, path: Path, show: bool = False) -> Path:
    """Render ``widget`` (after pending events) to ``path``; returns the path."""
    if show:
        widget.show()
    for _ in range(5):
        QApplication.processEvents()
    if not widget.grab().save(str(path)):
        raise OSError(f"could not write {path}")
    return path
