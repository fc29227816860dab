"""What keeps the Risk perspective responsive: plot items made once and given new data,
progress that does not repaint the window at once, analyses that give way to a busy GUI
thread and that start after the perspective's first paint."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from PySide6.QtWidgets import QVBoxLayout, QWidget

from arxpy.errors import CancelledError
from arxpy.example import example_project
from arxpy.gui.risk import RiskPerspective, courtesy
from arxpy.gui.risk.controls import SettingsBar
from arxpy.gui.risk.courtesy import MAX_PAUSE, PAUSE, CourteousToken, EventLoopBeat, courteous
from arxpy.gui.risk.histogram_view import RiskHistogram
from arxpy.gui.state import AppState
from arxpy.gui.workers import JobProgressBar, JobWorker
from arxpy.jobs import CancelToken
from arxpy.risk import ClassSizeHistogram
from arxpy.risk.sample import RISK_BIN_LOWER, RISK_BIN_UPPER, risk_distribution


def _distribution(class_sizes):
    return risk_distribution(ClassSizeHistogram.from_class_sizes(np.array(class_sizes)))


def _percent_per_interval(class_sizes, shown: int) -> np.ndarray:
    """Brute force: each record's risk 1/size, counted in its interval (lower, upper]."""
    risks = np.repeat(1.0 / np.array(class_sizes, float), class_sizes)
    counts = [np.sum((risks > lo) & (risks <= hi)) for lo, hi in zip(RISK_BIN_LOWER,
                                                                      RISK_BIN_UPPER,
                                                                      strict=True)]
    return 100.0 * np.array(counts[-shown:]) / risks.size


def _items(plot) -> list:
    return list(plot.items)


def test_histogram_items_are_made_once_and_take_each_new_analysis(qtbot):
    view = RiskHistogram()
    qtbot.addWidget(view)
    plot = view.plot
    bars = dict(view.bars)
    items = _items(plot)
    input_sizes, output_sizes = [1, 1, 2, 3, 7, 40], [5, 6, 9, 12, 40]
    view.show_distributions(_distribution(input_sizes), None, 0.2)
    assert not bars["output"].isVisible() and bars["input"].isVisible()
    assert [label.text for _, label in view.legend.items] == [
        "Input (original)", "Record-risk threshold (20 %)"]
    for threshold in (0.2, 0.1, 0.2):
        view.show_distributions(_distribution(input_sizes), _distribution(output_sizes),
                                threshold)
    # The same items, none added: a redraw only gives them new data.
    assert _items(plot) == items and view.bars == bars
    assert [label.text for _, label in view.legend.items] == [
        "Input (original)", "Output", "Record-risk threshold (20 %)"]
    for side, sizes in (("input", input_sizes), ("output", output_sizes)):
        drawn = np.asarray(bars[side].opts["width"], float)
        np.testing.assert_allclose(drawn, _percent_per_interval(sizes, drawn.size))
        np.testing.assert_allclose(drawn, view.shown[side])
    # Input above output in each pair of bars.
    assert np.all(np.asarray(bars["input"].opts["y"]) > np.asarray(bars["output"].opts["y"]))
    # The threshold line lies between (20, 25] % and the interval below it.
    labels = view._labels
    y = view.threshold_line.yData[0]
    assert labels[int(np.ceil(y))] == "(20, 25]" and labels[int(np.floor(y))] == "(16.7, 20]"
    view.show_distributions(_distribution(input_sizes), _distribution(output_sizes), 0.1)
    assert view.legend.items[-1][1].text == "Record-risk threshold (10 %)"
    assert _items(plot) == items


@pytest.mark.parametrize("kind", ["risk settings bar", "any job's progress bar"])
def test_progress_does_not_paint_the_rest_of_the_window_at_once(qtbot, kind):
    """QProgressBar.setValue repaints at once, and with it every other dirty widget of the
    window: the risk plot was painted on every progress report (and Utility's views on
    its statistics' reports)."""
    painted = []

    class Probe(QWidget):
        def paintEvent(self, event):  # noqa: N802 - Qt's name
            painted.append(event)

    window = QWidget()
    qtbot.addWidget(window)
    probe = Probe()
    if kind == "risk settings bar":
        widget = SettingsBar()
        bar = widget.progress
        widget.show_busy(True, 0, "Starting")

        def report(percent):
            widget.show_busy(True, percent, "Grouping records")
    else:
        widget = bar = JobProgressBar()
        report = bar.setValue
    probe.setMinimumSize(200, 100)
    layout = QVBoxLayout(window)
    layout.addWidget(probe)
    layout.addWidget(widget)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(20)
    for percent in (10, 40, 70):
        painted.clear()
        probe.update()
        report(percent)
        assert not painted, "a progress report painted another widget at once"
        qtbot.waitUntil(lambda: bool(painted))  # ... it is painted at the next turn
        assert bar.value() == percent and bar.updatesEnabled()


def test_courteous_token_pauses_only_while_the_beat_is_late(qtbot, monkeypatch):
    # The pauses are counted, not timed: a wall-clock bound fails on a loaded machine.
    slept: list[float] = []
    monkeypatch.setattr(courtesy.time, "sleep", slept.append)
    beat = EventLoopBeat()
    token = CourteousToken(CancelToken(), beat)
    beat.last = time.monotonic() - 10.0
    token.raise_if_cancelled()  # the beat is not running: a late timestamp means nothing
    assert slept == []
    beat.start()
    token.raise_if_cancelled()  # fresh beat: no pause
    assert slept == []
    beat.last = time.monotonic() - 0.5  # the GUI thread is busy (here: this test)
    token.raise_if_cancelled()
    assert sum(slept) == pytest.approx(MAX_PAUSE, abs=PAUSE)  # paused, but at most MAX_PAUSE
    assert max(slept) == PAUSE
    # A beat older than GONE: its window went away while the job ran; no more pausing
    # (a job left running would otherwise crawl at MAX_PAUSE per check).
    slept.clear()
    beat.last = time.monotonic() - 5.0
    token.raise_if_cancelled()
    assert slept == []
    beat.stop()


def test_courteous_token_shares_the_cancel_flag():
    beat = EventLoopBeat()
    inner = CancelToken()
    token = CourteousToken(inner, beat)
    assert not token.cancelled
    inner.cancel()
    assert token.cancelled
    with pytest.raises(CancelledError):
        token.raise_if_cancelled()
    other = CancelToken()
    CourteousToken(other, beat).cancel()
    assert other.cancelled


def test_a_courteous_job_waits_while_the_gui_thread_is_busy(qtbot):
    """While the GUI thread does not reach its event loop, the job stops at its checks."""
    beat = EventLoopBeat()
    beat.start()
    qtbot.wait(20)
    checks: list[float] = []
    stop = threading.Event()

    def job(*, progress, cancel):
        while not stop.is_set():
            cancel.raise_if_cancelled()
            checks.append(time.monotonic())
        return len(checks)

    worker = JobWorker(courteous(job, beat))
    worker.start()
    qtbot.wait(50)
    busy_from = time.monotonic()
    time.sleep(0.15)  # the GUI thread is busy: no beat
    busy_to = time.monotonic()
    qtbot.wait(50)
    stop.set()
    assert worker.wait(5)
    beat.stop()
    during = [t for t in checks if busy_from + 0.05 < t < busy_to]
    after = [t for t in checks if busy_to < t]
    assert not during, f"{len(during)} checks passed while the GUI thread was busy"
    assert after, "the job did not go on once the GUI thread was free"


def test_analyses_start_after_the_first_paint(qtbot):
    state = AppState()
    state.set_project(example_project(records=500))
    view = RiskPerspective(state)
    qtbot.addWidget(view)
    view.show()
    # Made (busy, Cancel shown) but not started before the event loop has painted.
    assert view.busy and view.settings_bar.cancel.isVisible()
    assert view.workers and not any(w.running for w in view.workers.values())
    qtbot.waitUntil(lambda: view.analysis("input") is not None and not view.busy,
                    timeout=60_000)
    assert view.analysis("input").records == 500
