"""The Risk perspective: re-identification risks of the input and of the applied
transformation's output, side by side.

Top to bottom: what is compared (or why only the input is shown), the settings bar
(population, record-risk threshold, combination size, progress and Cancel), threshold
monitors, then the risk distribution beside tabs with the attacker models, population
uniqueness, quasi-identifiers and HIPAA identifiers. Every analysis runs as a job on a
worker thread (:class:`~arxpy.gui.workers.JobWorker`) that gives way to the GUI thread
while it is busy (:mod:`arxpy.gui.risk.courtesy`); the views only draw results. An
analysis runs when the perspective is visible and its input changed: the input when the
project or its definition changes, the output when the applied transformation changes.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from arxpy.errors import ArxpyError
from arxpy.gui.risk import tables
from arxpy.gui.risk.common import EXCEEDED_COLOR, note, side_label
from arxpy.gui.risk.controls import SettingsBar
from arxpy.gui.risk.courtesy import EventLoopBeat, courteous
from arxpy.gui.risk.histogram_view import RiskDistributionPanel
from arxpy.gui.risk.monitors import MonitorStrip
from arxpy.gui.state import AppState
from arxpy.gui.workers import JobWorker
from arxpy.risk import RiskAnalysis
from arxpy.workflows.current_release import CurrentRelease
from arxpy.workflows.identifier_settings import IDENTIFIERS
from arxpy.workflows.risk_jobs import (
    RiskOptions,
    RiskSide,
    analyze_current,
    analyze_input,
    input_table,
    with_population,
)

SIDES = ("input", "output")


class RiskPerspective(QWidget):
    """Risks of input and output; observes ``state`` and never changes it."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.sides: dict[str, RiskSide | None] = dict.fromkeys(SIDES)
        self.workers: dict[str, JobWorker] = {}
        self._options: dict[str, RiskOptions] = {}  # what each running job was started with
        self._progress: dict[str, tuple[int, str]] = {}
        self._dirty: set[str] = set(SIDES)
        self.error = ""
        self._shown_output = self._output_key()
        #: The redraw in progress over several event-loop turns (see _redraw_later).
        self._steps: Iterator[None] | None = None
        self._step_timer = QTimer(self)
        self._step_timer.setInterval(1)  # a zero timer would run before due timers
        self._step_timer.timeout.connect(self._next_step)
        #: Runs while analyses do; they give way to the GUI thread when it falls behind.
        self._beat = EventLoopBeat(self)
        #: Jobs made while the perspective is being shown, started after its first paint.
        self._held: list[JobWorker] = []
        self._holding = False
        self._release_timer = QTimer(self)
        self._release_timer.setSingleShot(True)
        self._release_timer.setInterval(0)  # posted paint events go before timers
        self._release_timer.timeout.connect(self._start_held)
        self._build()
        state.project_changed.connect(self._input_changed)
        state.definition_changed.connect(self._input_changed)
        # The input analysis reads the treated table: a new key or plan changes it.
        state.key_changed.connect(lambda: self._invalidate("input"))
        state.settings_changed.connect(self._plan_changed)
        self._input_plan = self._identifiers_setting()
        state.result_changed.connect(self._output_changed)
        state.transformation_changed.connect(self._output_changed)
        state.release_changed.connect(self._output_changed)
        self._redraw()

    # --- layout --------------------------------------------------------------------------

    def _build(self) -> None:
        self.heading = note()
        self.settings_bar = SettingsBar()
        self.monitors = MonitorStrip()
        self.distribution = RiskDistributionPanel()
        self.histogram = self.distribution.plot_view
        self.attackers = tables.attacker_table()
        self.uniqueness = tables.uniqueness_table()
        self.quasi_identifiers = tables.quasi_identifier_table()
        self.hipaa = tables.hipaa_table()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.attackers, "Attacker models")
        self.tabs.addTab(self._with_note(self.uniqueness, _UNIQUENESS_NOTE),
                         "Population uniqueness")
        self.tabs.addTab(self._with_note(self.quasi_identifiers, _QI_NOTE), "Quasi-identifiers")
        self.tabs.addTab(self._with_note(self.hipaa, _HIPAA_NOTE), "HIPAA identifiers")
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.distribution)
        splitter.addWidget(self.tabs)
        splitter.setSizes([560, 700])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.heading)
        layout.addWidget(self.settings_bar)
        layout.addWidget(self.monitors)
        layout.addWidget(splitter, 1)
        bar = self.settings_bar
        bar.population_changed.connect(self._population_changed)
        bar.threshold_changed.connect(self._threshold_changed)
        bar.qi_size_changed.connect(self._qi_size_changed)
        bar.cancel_requested.connect(self.cancel)
        self.monitors.changed.connect(self._redraw_monitors)

    @staticmethod
    def _with_note(table: QWidget, text: str) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(note(text))
        layout.addWidget(table, 1)
        return page

    # --- what to analyse -----------------------------------------------------------------

    def analysis(self, side: str) -> RiskAnalysis | None:
        """The finished analysis of ``side`` ("input" or "output"), None if none yet."""
        found = self.sides.get(side)
        return found.analysis if found is not None else None

    @property
    def busy(self) -> bool:
        """An analysis runs or its result has not been drawn yet."""
        return bool(self.workers) or self._steps is not None

    def _quasi_identifiers(self) -> list[str]:
        return self.state.definition.quasi_identifiers if self.state.has_project else []

    def _applied(self) -> CurrentRelease | None:
        """The current release (applied transformation or method run), if any."""
        return self.state.current_release()

    def _output_key(self) -> tuple | None:
        current = self._applied()
        return current.key if current is not None else None

    def _input_changed(self) -> None:
        self._shown_output = self._output_key()
        self._invalidate("input")
        self._invalidate("output")

    def _identifiers_setting(self) -> Any:
        return self.state.settings.get(IDENTIFIERS) if self.state.has_project else None

    def _plan_changed(self) -> None:
        if self._identifiers_setting() != self._input_plan:
            self._input_plan = self._identifiers_setting()
            self._invalidate("input")

    def _output_changed(self) -> None:
        # A new result or another applied transformation; the same one again is no change.
        if self._output_key() != self._shown_output:
            self._shown_output = self._output_key()
            self._invalidate("output")

    def _invalidate(self, side: str) -> None:
        self.sides[side] = None
        self._dirty.add(side)
        self._cancel_side(side)
        if self.isVisible():
            self._run_dirty()
        self._redraw_later()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            # Started at once, the analyses would contend for the GIL with the
            # perspective's first paint (40-50 ms at full HD); they start right after it.
            self._holding = True
            try:
                self._run_dirty()
            finally:
                self._holding = False
            self._release_timer.start()
            self._redraw_later()

    def _start_held(self) -> None:
        held, self._held = self._held, []
        for worker in held:
            worker.start()

    def _run_dirty(self) -> None:
        if self._dirty:
            self.error = ""
        for side in sorted(self._dirty):
            self._dirty.discard(side)
            self._start_analysis(side)

    def _start_analysis(self, side: str) -> None:
        options = self.settings_bar.options()
        if side == "input":
            if not self._quasi_identifiers():
                return
            try:  # the treated table releases are made of, not the original identifiers
                frame, qis = input_table(self.state)
            except ArxpyError as exc:
                self.error = f"The input analysis needs the treated table: {exc}"
                self._redraw_later()
                return
            self._start(side, analyze_input, options, frame=frame, quasi_identifiers=qis,
                        options=options)
        elif self._applied() is not None:
            self._start(side, analyze_current, options, current=self._applied(),
                        options=options)

    # --- jobs ----------------------------------------------------------------------------

    def _start(self, slot: str, function: Any, settings: RiskOptions, **kwargs: Any) -> None:
        """Run ``function(**kwargs)`` as the job of ``slot`` ("input"/"output"), replacing
        (cancelling) the slot's running job; ``settings`` are the options it uses."""
        self._cancel_side(slot)
        worker = JobWorker(courteous(function, self._beat), self, **kwargs)
        self.workers[slot] = worker
        self._options[slot] = settings
        self._progress[slot] = (0, "Starting")
        worker.progress.connect(lambda p, m, w=worker: self._on_progress(slot, w, p, m))
        worker.finished.connect(lambda r, w=worker: self._on_finished(slot, w, r))
        worker.failed.connect(lambda m, w=worker: self._on_failed(slot, w, m))
        worker.cancelled.connect(lambda w=worker: self._forget(slot, w))
        if self._holding:
            self._held.append(worker)
        else:
            worker.start()
        self._beat.start()
        self._show_progress()

    def _cancel_side(self, side: str) -> None:
        worker = self.workers.pop(side, None)
        self._options.pop(side, None)
        self._progress.pop(side, None)
        if worker in self._held:  # never started: no signal will come
            self._held.remove(worker)
            worker.deleteLater()
        elif worker is not None:
            worker.cancel()  # its late signals are ignored: it is no longer current
        self._show_progress()

    def cancel(self) -> None:
        """Stop every running analysis (what finished stays shown)."""
        for side in list(self.workers):
            self._cancel_side(side)
        self._redraw()

    def _current(self, side: str, worker: JobWorker) -> bool:
        return self.workers.get(side) is worker

    def _forget(self, side: str, worker: JobWorker) -> None:
        if self._current(side, worker):
            self.workers.pop(side)
            self._options.pop(side, None)
            self._progress.pop(side, None)
        worker.deleteLater()
        self._show_progress()

    def _on_progress(self, side: str, worker: JobWorker, percent: int, message: str) -> None:
        if self._current(side, worker):
            self._progress[side] = (percent, message)
            self._show_progress()

    def _on_failed(self, side: str, worker: JobWorker, message: str) -> None:
        if self._current(side, worker):
            self.error = f"The {side} analysis failed: {message}"
        self._forget(side, worker)
        self._redraw_later()

    def _on_finished(self, side: str, worker: JobWorker, found: RiskSide) -> None:
        if not self._current(side, worker):
            worker.deleteLater()
            return
        started = self._options.get(side)
        self._forget(side, worker)
        now = self.settings_bar.options()
        if started is not None and started.threshold != now.threshold:
            found = found.with_threshold(now.threshold)
        self.sides[side] = found
        if started is not None and started.population != now.population:
            self._start(side, with_population, now, side=found, setting=now.population)
        self._redraw_later()

    def _show_progress(self) -> None:
        if not self.workers:
            self._beat.stop()
        if not self._progress:
            self.settings_bar.show_busy(False)
            return
        percent = min(p for p, _ in self._progress.values())
        message = "; ".join(f"{side}: {m}" for side, (_, m) in sorted(self._progress.items()))
        self.settings_bar.show_busy(True, percent, message)

    # --- settings ------------------------------------------------------------------------

    def _population_changed(self) -> None:
        options = self.settings_bar.options()
        for side in SIDES:
            running = side in self.workers
            if running and self._options[side].population != options.population:
                self._dirty.add(side)  # the full analysis restarts with the new population
            elif not running and self.sides[side] is not None:
                self._start(side, with_population, options, side=self.sides[side],
                            setting=options.population)
        if self._dirty:
            self._run_dirty()
            self._redraw_later()

    def _threshold_changed(self) -> None:
        threshold = self.settings_bar.options().threshold
        for side, found in self.sides.items():
            if found is not None:
                self.sides[side] = found.with_threshold(threshold)
        self._redraw()

    def _qi_size_changed(self) -> None:
        for side in SIDES:
            self._invalidate(side)

    # --- drawing -------------------------------------------------------------------------

    def _redraw(self) -> None:
        """Redraw everything now (after an edit whose effect must show at once)."""
        for _ in self._redraw_steps():
            pass
        self._steps = None
        self._step_timer.stop()

    def _redraw_later(self) -> None:
        """Redraw over several event-loop turns, one view (or a slice of the
        quasi-identifier table) per turn: drawing everything at once took 60-170 ms of
        the GUI thread while the other side's analysis still ran. A redraw in progress
        starts again from the top; :attr:`busy` holds until it is done."""
        self._steps = self._redraw_steps()
        self._step_timer.start()

    def _next_step(self) -> None:
        if self._steps is None or next(self._steps, StopIteration) is StopIteration:
            self._steps = None
            self._step_timer.stop()

    def _redraw_steps(self) -> Iterator[None]:
        """Each step reads the analyses afresh, so a step never draws a stale side."""
        self.heading.setText(self._heading_text())
        self._redraw_monitors()
        yield
        threshold = self.settings_bar.options().threshold
        analyses = {side: self.analysis(side) for side in SIDES}
        self.distribution.show_distributions(
            analyses["input"].distribution if analyses["input"] else None,
            analyses["output"].distribution if analyses["output"] else None, threshold)
        yield
        analyses = {side: self.analysis(side) for side in SIDES}
        self.attacker_rows = tables.fill_attacker_table(self.attackers, analyses, threshold)
        self.uniqueness_rows = tables.fill_uniqueness_table(self.uniqueness, analyses)
        yield
        yield from tables.quasi_identifier_table_steps(
            self.quasi_identifiers, {side: self.analysis(side) for side in SIDES})
        output = self.sides["output"]
        columns = None
        current = self._applied()
        if output is not None and current is not None:
            columns = list(current.release().table.columns)
        tables.fill_hipaa_table(self.hipaa, {side: self.analysis(side) for side in SIDES},
                                columns)

    def _redraw_monitors(self) -> None:
        self.monitors.show_analyses(self.analysis("input"), self.analysis("output"))

    def _output_verdict(self) -> str | None:
        side = self.sides.get("output")
        return side.verdict if side is not None else None

    def _heading_text(self) -> str:
        if not self.state.has_project:
            return "Open or import a project to analyse its re-identification risks."
        if not self._quasi_identifiers():
            return ("No attribute is quasi-identifying: mark the attributes an attacker could "
                    "know as quasi-identifying (Configure) to analyse risks.")
        # Linked tables: the privacy models and these figures judge one row per patient.
        per_patient = bool(self.state.events)
        text = side_label("input", "Input") + (" (patient-level view)" if per_patient
                                               else " (original data)")
        applied = self._applied()
        if applied is None:
            text += (" &nbsp;—&nbsp; <i>only the input is shown: run an anonymization (and "
                     "apply a transformation) or a method to compare it with the output.</i>")
        else:
            text += " &nbsp; vs. &nbsp; " + side_label("output", "Output") + \
                f" of {html.escape(applied.label, quote=False)}"
            analysis = self.analysis("output")
            if analysis is not None:
                suppressed = analysis.records - analysis.records_analyzed
                unit = "patients" if per_patient else "records"
                text += (f" ({suppressed:,} suppressed {unit} left out)" if suppressed
                         else f" (no {unit} suppressed)")
            verdict = self._output_verdict()
            if verdict:  # the release's one verdict, as Explore and Compare show it
                text += f"<br><b>{html.escape(verdict, quote=False)}</b>"
            if not applied.is_lattice:
                text += ("<br><i>Classes here are records sharing every released "
                         "quasi-identifier value; the method's own groups are in Explore › "
                         "Groups.</i>")
        if self.error:
            text += (f"<br><span style='color:{EXCEEDED_COLOR}'>"
                     f"{html.escape(self.error, quote=False)}</span>")
        return text


_UNIQUENESS_NOTE = ("Share of the population estimated to be unique on the quasi-identifiers "
                    "(Pitman, Zayatz, SNB; Dankar et al. choose among them by sampling "
                    "fraction). Set the population above.")
_QI_NOTE = ("Distinction: distinct value combinations over records. Separation: share of "
            "record pairs the attributes tell apart. High values mark strong "
            "quasi-identifiers. Click a header to sort.")
_HIPAA_NOTE = ("Attributes whose names or values look like one of HIPAA Safe Harbor's 18 "
               "identifiers; they must be removed or generalized.")
