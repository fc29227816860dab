"""The window's Run action for methods other than the lattice search: start the chosen
method as a background job with the window's progress bar and Cancel button, and keep
its release as a run of the state."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pandas as pd
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from arxpy.data.definition import DataDefinition
from arxpy.errors import ArxpyError
from arxpy.gui.plain_text import escaped
from arxpy.gui.workers import JobWorker
from arxpy.methods.base import Method
from arxpy.release import Release
from arxpy.workflows.identifier_settings import refuse_treated_claims
from arxpy.workflows.method_choice import LATTICE, build_method
from arxpy.workflows.runs import DEFAULT_KEPT_RUNS, MethodRun, run_label, run_method_job

if TYPE_CHECKING:
    from arxpy.gui.main_window import MainWindow

log = logging.getLogger(__name__)


def kept_runs(settings: QSettings) -> int:
    """How many runs the window keeps: setting ``runs/keep`` (at least 1), default 20."""
    try:
        return max(1, int(settings.value("runs/keep", DEFAULT_KEPT_RUNS)))
    except (TypeError, ValueError):
        return DEFAULT_KEPT_RUNS


class MethodRunActions:
    """Starts method runs for ``window`` and takes in their releases."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def start(self) -> JobWorker | None:
        """Run the chosen method on a worker thread; None (and a message) if its
        parameters are unusable."""
        window, state = self.window, self.window.state
        # The form's own check first: a value it keeps as the project gave it (k = 0,
        # NaN, an attribute the data lack) is refused here, never rewritten and run.
        problem = window.configure.method_panel.check()
        try:
            if problem:
                raise ArxpyError(problem)
            method = build_method(state.settings)
            # The inputs as they are now, identifiers treated: the release describes these.
            data, definition = state.release_inputs()
        except ArxpyError as exc:
            window.error("Cannot run yet", str(exc))
            return None
        if not self.may_drop(state.run_to_drop()):
            return None
        log.info("Method run started: %s", method.to_dict())
        return window.start_run(
            run_method_job, lambda release: self.finished(method, data, definition, release),
            f"Running {method.label}…", method=method, frame=data, definition=definition,
            hierarchies=state.release_hierarchies())

    def may_drop(self, run: MethodRun | None) -> bool:
        """Before a run that will push ``run`` out of the full list: ask (True: go on)."""
        if run is None:
            return True
        keep = self.window.state.max_runs
        answer = QMessageBox.question(
            self.window, "Runs list full",
            escaped(f"The window keeps the last {keep} runs. This run will remove the oldest "
                    f"one that is not pinned: '{run.label}'. Pin a run in Explore to keep "
                    "it. Run anyway?"),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def finished(self, method: Method, data: pd.DataFrame, definition: DataDefinition,
                 release: Release) -> None:
        window, state = self.window, self.window.state
        window._end_run()
        if state.revision != window._run_revision or not state.has_project \
                or data is not state.release_inputs()[0]:
            window.statusBar().showMessage("The configuration changed during the run; "
                                           "run again.")
            return
        try:
            refuse_treated_claims(state.identifier_plan.treated, release.claims)
        except ArxpyError as exc:
            window.error("Run refused", str(exc))
            return
        label = run_label(method, [r.label for r in state.runs])
        state.add_run(MethodRun(method, release, data, definition, label))
        statistics = release.statistics
        text = (f"{label}: {statistics.n_classes:,} groups, smallest "
                f"{statistics.min_size:,}, {release.elapsed_seconds:.2f} s")
        log.info("Method run finished: %s", text)
        window.statusBar().showMessage(text)
        window._update_actions()
        window.show_perspective(1)

    def method_chosen(self, name: str) -> None:
        """The Run action says what it runs: the lattice search or the chosen method."""
        action = self.window.actions_by_name["anonymize"]
        if name == LATTICE:
            action.setText("&Anonymize")
            action.setStatusTip("Search for the best transformation")
        else:
            action.setText("&Run method")
            action.setStatusTip(f"Run {self.window.configure.method_panel.method_label()}")
        action.setToolTip(action.statusTip())
