"""How long the event loop stalls while the new views of issue #11 are visited, and where
each stall comes from.

Replays the perf test ``tests/test_gui_fit.py::
test_visiting_the_new_views_keeps_the_event_loop_responsive`` (the bundled example,
2,000 records: Explore, ten selections, Utility and its data tab, the Risk perspective's
analyses, the cumulative risk table) with the same 10 ms heartbeat, ``--runs`` times,
and prints the worst gap of each phase per run. With ``--probe`` a watchdog thread
samples every thread's Python stack every 2 ms; for each gap over ``--over`` ms it
prints where the main thread was and which thread held the GIL (a thread whose stack
did not move while the watchdog itself could not run).

Run from the repository root::

    QT_QPA_PLATFORM=offscreen python benchmarks/risk_responsiveness.py --runs 5
    QT_QPA_PLATFORM=offscreen python benchmarks/risk_responsiveness.py --probe
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

PHASES = ("explore", "select", "utility", "utility data", "risk analyses", "cumulative")


@dataclass
class Sample:
    at: float
    stacks: dict[str, tuple[str, ...]]  # thread name -> innermost frames, innermost first


@dataclass
class StackProbe:
    """A watchdog thread that samples every other thread's Python stack."""

    interval: float = 0.002
    depth: int = 12
    samples: list[Sample] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="probe", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.is_set():
            names = {t.ident: t.name for t in threading.enumerate()}
            stacks = {}
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                found = []
                while frame is not None and len(found) < self.depth:
                    code = frame.f_code
                    found.append(f"{_short(code.co_filename)}:{frame.f_lineno} {code.co_name}")
                    frame = frame.f_back
                stacks[names.get(ident, str(ident))] = tuple(found)
            self.samples.append(Sample(time.perf_counter(), stacks))
            time.sleep(self.interval)

    def explain(self, start: float, end: float) -> list[str]:
        """Lines saying where the threads were between ``start`` and ``end``."""
        inside = [s for s in self.samples if start <= s.at <= end]
        lines = [f"    {len(inside)} samples"]
        main = Counter(s.stacks.get("MainThread", ("?",))[:6] for s in inside)
        for stack, count in main.most_common(5):
            lines.append(f"    main x{count}: " + " < ".join(stack))
        # The watchdog's own late samples: some thread held the GIL throughout.
        before = [s for s in self.samples if s.at < start][-1:]
        chain = before + inside
        for previous, current in zip(chain, chain[1:], strict=False):
            late = current.at - previous.at
            if late < 0.02:
                continue
            still = [name for name, stack in current.stacks.items()
                     if name != "MainThread" and previous.stacks.get(name) == stack]
            lines.append(f"    watchdog starved {1000 * late:.0f} ms; unmoved workers: ")
            for name in still:
                lines.append(f"      {name}: " + " < ".join(current.stacks[name][:4]))
            if not still:
                lines.append("      (none unmoved) main: "
                             + " < ".join(current.stacks.get("MainThread", ("?",))[:4]))
        others = Counter((name, stack[:2]) for s in inside for name, stack in s.stacks.items()
                         if name != "MainThread")
        for (name, stack), count in others.most_common(4):
            lines.append(f"    {name} x{count}: " + " < ".join(stack))
        return lines


def _short(filename: str) -> str:
    """``gui/risk/perspective.py`` rather than a bare ``perspective.py``."""
    parts = Path(filename).parts
    return "/".join(parts[-3:] if "arxpy" in parts else parts[-1:])


def one_run(result, project, probe: StackProbe | None, over: float) -> dict[str, float]:
    """The perf test's sequence; returns the worst gap (ms) of each phase."""
    from PySide6.QtCore import QElapsedTimer, QSettings, QTimer
    from PySide6.QtTest import QTest

    from arxpy.gui.main_window import MainWindow

    def wait_until(condition, timeout=60.0):
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("the views did not finish in time")
            QTest.qWait(10)

    with tempfile.TemporaryDirectory() as folder:
        settings = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings, recovery_dir=Path(folder) / "recovery")
        window.resize(1920, 1080)
        window.show()
        window.set_project(project)
        window.state.set_result(result)
        phase = ["start"]
        # (time, gap ms, phase, main thread's CPU seconds, process CPU seconds)
        ticks: list[tuple[float, int, str, float, float]] = []
        clock = QElapsedTimer()
        timer = QTimer()
        timer.timeout.connect(lambda: ticks.append((time.perf_counter(), clock.restart(),
                                                    phase[0], time.thread_time(),
                                                    time.process_time())))
        clock.start()
        timer.start(10)
        phase[0] = "explore"
        window.show_perspective(1)
        QTest.qWait(300)
        phase[0] = "select"
        for t in result.checked_transformations()[:10]:
            window.state.select(t.levels)
            QTest.qWait(30)
        phase[0] = "utility"
        window.show_perspective(2)
        QTest.qWait(300)
        phase[0] = "utility data"
        window.utility.tabs.setCurrentWidget(window.utility.data_tables)
        wait_until(lambda: window.utility.data_tables.tables.output_model.rowCount() > 0)
        phase[0] = "risk analyses"
        window.show_perspective(3)
        wait_until(lambda: window.risk.analysis("output") is not None and not window.risk.busy)
        phase[0] = "cumulative"
        window.risk.distribution.set_mode("cumulative")
        window.risk.distribution.set_view("table")
        QTest.qWait(100)
        timer.stop()
        window.close()
        window.deleteLater()
        QTest.qWait(50)
    worst = dict.fromkeys(PHASES, 0.0)
    for previous, (at, gap, name, main_cpu, all_cpu) in zip(ticks, ticks[1:], strict=False):
        worst[name] = max(worst.get(name, 0.0), gap)
        if probe is not None and gap > over:
            # Main CPU far below the gap: the main thread waited (for the GIL or a core).
            print(f"  gap {gap} ms in {name}: main thread CPU "
                  f"{1000 * (main_cpu - previous[3]):.0f} ms, process CPU "
                  f"{1000 * (all_cpu - previous[4]):.0f} ms")
            print("\n".join(probe.explain(at - gap / 1000.0, at)))
    return worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--probe", action="store_true", help="explain the gaps")
    parser.add_argument("--over", type=float, default=50.0,
                        help="explain gaps longer than this (ms)")
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.example import example_project

    QApplication.instance() or QApplication(sys.argv[:1])
    project = example_project(records=2000)
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    probe = StackProbe() if args.probe else None
    if probe is not None:
        probe.start()
    print("worst event-loop gap per phase [ms]")
    print("run  " + "  ".join(f"{p:>13}" for p in PHASES))
    worsts = []
    for run in range(args.runs):
        worst = one_run(result, project, probe, args.over)
        worsts.append(max(worst.values()))
        print(f"{run + 1:>3}  " + "  ".join(f"{worst[p]:>13.0f}" for p in PHASES))
    if probe is not None:
        probe.stop()
    worsts.sort()
    print(f"worst gap of each run [ms]: {worsts}; median {worsts[len(worsts) // 2]:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
