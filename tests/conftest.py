"""Shared fixtures. Qt runs on the offscreen platform in every test."""

from __future__ import annotations

import gc
import os
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
#: The Adult benchmark data lives beside the repository and is never committed.
ADULT_DIR = REPO.parent / "shared" / "data" / "adult"
ADULT_MISSING = f"Adult benchmark data not found at {ADULT_DIR}"


def load_adult(quasi_identifiers=None):
    """Adult as (frame, definition, hierarchies); all nine attributes QIs by default."""
    import pandas as pd

    from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
    from arxpy.hierarchy.io import read_hierarchy

    frame = pd.read_csv(ADULT_DIR / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    qis = list(frame.columns) if quasi_identifiers is None else list(quasi_identifiers)
    hierarchies = {c: read_hierarchy(ADULT_DIR / f"adult_hierarchy_{c}.csv") for c in qis}
    definition = DataDefinition(
        AttributeDefinition(
            c, AttributeType.QUASI_IDENTIFYING if c in qis else AttributeType.INSENSITIVE
        )
        for c in frame.columns
    )
    return frame, definition, hierarchies


@pytest.fixture
def gc_paused():
    """No automatic collection while a test presses Ctrl-C in its own process.

    Python runs the SIGINT handler at the next bytecode, which may be inside a gc
    callback (hypothesis installs one); an exception there is swallowed as
    "unraisable", and a test waiting for the KeyboardInterrupt would never see it.
    """
    enabled = gc.isenabled()
    gc.disable()
    yield
    if enabled:
        gc.enable()


@pytest.fixture(scope="session")
def adult_dir() -> Path:
    if not (ADULT_DIR / "adult.csv").exists():
        pytest.skip(ADULT_MISSING)
    return ADULT_DIR


@pytest.fixture(scope="session")
def adult(adult_dir):
    """Adult with all nine attributes as quasi-identifiers (skips when absent)."""
    return load_adult()


def classes_from_matrix(matrix, values=None, data_type=None, hierarchy=None, name="disease"):
    """Equivalence classes and encoded data from a (classes x values) count matrix of the
    tracked attribute ``name``; every row sums above 0. ``values`` label the columns."""
    import numpy as np

    from arxpy.data.definition import DataType
    from arxpy.lattice.classes import Distribution, EquivalenceClasses
    from arxpy.lattice.encoding import EncodedData, TrackedAttribute

    matrix = np.asarray(matrix, dtype=np.int64)
    n_classes, n_values = matrix.shape
    cls, value = np.nonzero(matrix)
    dist = Distribution(cls, value, matrix[cls, value], n_values)
    classes = EquivalenceClasses(
        (0,), np.arange(n_classes).reshape(-1, 1), matrix.sum(axis=1), {name: dist}
    )
    codes = np.repeat(np.tile(np.arange(n_values), n_classes), matrix.ravel())
    labels = [f"v{i}" for i in range(n_values)] if values is None else list(values)
    tracked = TrackedAttribute(name, codes, labels, data_type or DataType(), hierarchy)
    return classes, EncodedData(int(matrix.sum()), [], {name: tracked})


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    """A main window with its own settings and recovery folder; a question about
    discarding changes is answered "discard" instead of blocking the test."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMessageBox

    from arxpy.gui.main_window import MainWindow

    monkeypatch.setattr("arxpy.gui.project_actions.QMessageBox.question",
                        lambda *args: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)
    return window


@pytest.fixture(scope="session")
def example_run():
    """The bundled example (2,000 records) and the result of its default anonymization,
    shared by the GUI tests that only look at them."""
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.example import example_project

    project = example_project(records=2000)
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    return project, result


@contextmanager
def event_loop_gaps():
    """Seconds between ticks of a 10 ms Qt timer while the block runs: the longest is
    how long the event loop was blocked (perf tests of background jobs).

    What earlier tests left behind is torn down first (widgets awaiting deletion, then a
    full collection): a whole main window closed by the previous test was otherwise
    destroyed and collected during this test's first tick (0.5-0.7 s measured).
    """
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent, QTimer

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick():
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(10)
    try:
        yield gaps
    finally:
        timer.stop()
