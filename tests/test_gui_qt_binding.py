"""The Qt binding itself: a regression guard for reference-count bugs seen in the wild."""

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    changed = Signal(bool)


def test_signal_emission_keeps_reference_counts(qtbot):
    # PySide6 6.12.0 dropped a reference to True on every emit(); the application emits
    # thousands of signals in a session, and the interpreter aborted (bool_dealloc).
    emitter = _Emitter()
    received = []
    emitter.changed.connect(received.append)
    before = sys.getrefcount(True), sys.getrefcount(None)
    for _ in range(200):
        emitter.changed.emit(True)
    received.clear()
    assert (sys.getrefcount(True), sys.getrefcount(None)) == before
