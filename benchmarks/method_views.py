"""How long the condensation, interval and disassociation result views take to build on
large releases, and how long the event loop waits during a model-preservation
comparison and during the disassociation views' background jobs.

Run from the repository root::

    QT_QPA_PLATFORM=offscreen python benchmarks/method_views.py

- build: every registered view of an interval release of 50,000 records (k = 5) and of
  an improved-condensation release of the lung-cancer size (17,421 records, k = 174):
  time to construct the widget and to show it at 1280x720.
  Disassociation: 50,000 synthetic patients over 631 ICD-9 codes (k = 5, m = 2,
  hierarchy level 1).
- event loop: the longest pause of a 10 ms timer while a comparison of R = 4
  repetitions runs on 3,000 records (k = 60) and its results are drawn; and while the
  disassociation views of the 50,000-record release run their jobs (the independent
  k^m check, the cluster index, then ARE/MRE with R = 5 against B-gen) and draw.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def build_times() -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    import arxpy.gui.methods  # noqa: F401  (registers the views)
    from arxpy.gui.methods.views import result_views
    from screenshots.methods import condensation_run, interval_run

    app = QApplication.instance() or QApplication(sys.argv[:1])
    quiet = threading.active_count()
    for run in (interval_run(n=50_000, k=5), condensation_run(n=17_421, k=174),
                _large_disassociation()):
        print(f"{run.label}, {len(run.data):,} records (method ran "
              f"{run.release.elapsed_seconds:.2f} s)")
        for title, factory in result_views(run.method.name):
            started = time.perf_counter()
            widget = factory(run)
            built = time.perf_counter() - started
            widget.resize(1280, 720)
            started = time.perf_counter()
            widget.show()
            app.processEvents()
            shown = time.perf_counter() - started
            print(f"  {title:<20} build {1000 * built:6.0f} ms   show {1000 * shown:6.0f} ms")
            widget.close()
            widget.deleteLater()
            # Outside a running event loop deletions wait for this; a deleted view
            # cancels its jobs, which must not compete with the next view's timing.
            app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            _wait_for_threads(quiet)


def _wait_for_threads(count: int, timeout: float = 60.0) -> None:
    """Until the jobs a view started have ended (a cancelled one stops at its next
    check), so they do not slow down the next view's timing."""
    deadline = time.monotonic() + timeout
    while threading.active_count() > count and time.monotonic() < deadline:
        time.sleep(0.05)


def event_loop_pause() -> None:
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.methods.preservation_view import ModelPreservationView
    from arxpy.gui.rendering import wait_until
    from screenshots.methods import condensation_run

    app = QApplication.instance() or QApplication(sys.argv[:1])
    view = ModelPreservationView(condensation_run(n=3000, k=60))
    view.resize(1280, 720)
    view.show()
    app.processEvents()
    view.repeats.setValue(4)
    with event_loop_gaps() as gaps:
        started = time.perf_counter()
        view.start()
        wait_until(lambda: not view.controls.running and not view.report.drawing)
    print(f"comparison R = 4 on 3,000 records: {time.perf_counter() - started:.1f} s, "
          f"longest event-loop pause {1000 * max(gaps):.0f} ms")


@contextmanager
def event_loop_gaps():
    """Seconds between the beats of a 10 ms Qt timer while the block runs (a list,
    filled as it runs): the longest is the longest pause of the event loop."""
    from PySide6.QtCore import QTimer

    gaps, last = [], [time.perf_counter()]

    def tick() -> None:
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


_DISASSOCIATION = []


def _large_disassociation():
    """The 50,000-record disassociation run (made once)."""
    from screenshots.methods import disassociation_run

    if not _DISASSOCIATION:
        _DISASSOCIATION.append(disassociation_run(n=50_000, codes=631))
    return _DISASSOCIATION[0]


def disassociation_pause() -> None:
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.methods.cluster_browser import ClusterBrowser
    from arxpy.gui.methods.disassociation_views import PublicationView, UtilityView
    from arxpy.gui.rendering import wait_until

    app = QApplication.instance() or QApplication(sys.argv[:1])
    run = _large_disassociation()
    print(f"{run.label}, {len(run.data):,} records (method ran "
          f"{run.release.elapsed_seconds:.2f} s)")
    with event_loop_gaps() as gaps:
        views = [PublicationView(run), ClusterBrowser(run.release.published)]
        started = time.perf_counter()
        for view in views:
            view.resize(1280, 720)
            view.show()
        wait_until(lambda: views[0].summary is not None and views[1].grid_model is not None,
                   timeout=300)
        check = time.perf_counter() - started
        utility = UtilityView(run)
        utility.resize(1280, 720)
        started = time.perf_counter()
        utility.show()
        wait_until(lambda: utility.result is not None, timeout=600)
    app.processEvents()
    print(f"  k^m check and cluster index {check:.1f} s, ARE/MRE (R = 5, B-gen) "
          f"{time.perf_counter() - started:.1f} s; longest event-loop pause "
          f"{1000 * max(gaps):.0f} ms")


if __name__ == "__main__":
    event_loop_pause()  # first: jobs the build views start would compete with it
    disassociation_pause()
    build_times()
