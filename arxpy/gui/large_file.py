"""File > Anonymize a large file…: the current project's configuration on a CSV or Parquet
file of the same columns, through a record engine (issue 17).

The file is never loaded into the window: the engine counts its distinct rows, the
search runs on that histogram, and the engine writes the output
(:func:`arxpy.engine.scaled.anonymize_file`, a background job with progress and cancel).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from arxpy.engine.backends.base import ENGINES, create_engine, engine_missing, is_parquet_path
from arxpy.engine.scaled import FileRun, anonymize_file
from arxpy.gui.folders import path_row, pick_path
from arxpy.gui.plain_text import plain_label
from arxpy.gui.workers import JobDialog, JobProgressBar, JobWorker

ENGINE_LABELS = {"memory": "In memory", "duckdb": "DuckDB (out of core)",
                 "spark": "Spark (distributed)"}
DATA_FILTERS = "Data files (*.csv *.tsv *.txt *.parquet *.pq);;All files (*)"
OUTPUT_FILTERS = "CSV (*.csv);;Parquet (*.parquet)"


class LargeFileDialog(JobDialog):
    """Choose a file, an engine and an output; run; show the optimum and timings."""

    def __init__(self, definition: Any, hierarchies: dict, config: Any,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Anonymize a large file")
        self._definition, self._hierarchies, self._config = definition, hierarchies, config
        self.job.progress.connect(self._progress)
        self.job.finished.connect(self._finished)
        self.job.failed.connect(lambda message: self.status.setText(f"Failed: {message}"))
        self.job.cancelled.connect(
            lambda: self.status.setText("Cancelled; nothing was written."))
        self.outcome: FileRun | None = None

        models = ", ".join(m.describe() for m in config.privacy_models)
        intro = plain_label(QLabel(
            f"Runs this project's configuration ({len(definition.quasi_identifiers)} "
            f"quasi-identifiers; {models}; {config.quality_model.label}) on a CSV or "
            "Parquet file with the same columns. The file is not loaded: the engine counts "
            "its distinct rows, the search runs on those counts, and the engine writes the "
            "anonymized file."))
        intro.setWordWrap(True)

        self.data_edit, data_row = path_row("Choose…", self._choose_data)
        self.output_edit, output_row = path_row("Choose…", self._choose_output)
        self.engine_combo = QComboBox()
        hints = []
        for name in ENGINES:
            self.engine_combo.addItem(ENGINE_LABELS.get(name, name), name)
            missing = engine_missing(name)
            if missing:
                item = self.engine_combo.model().item(self.engine_combo.count() - 1)
                item.setEnabled(False)
                item.setToolTip(f"Not installed: {missing}")
                hints.append(f"{ENGINE_LABELS.get(name, name)}: {missing}")
        usable = [i for i in range(self.engine_combo.count())
                  if self.engine_combo.model().item(i).isEnabled()]
        duckdb = self.engine_combo.findData("duckdb")
        self.engine_combo.setCurrentIndex(duckdb if duckdb in usable else usable[0])
        form = QFormLayout()
        form.addRow("Data file:", data_row)
        form.addRow("Engine:", self.engine_combo)
        if hints:
            note = plain_label(QLabel("Not installed — " + "; ".join(hints)))
            note.setWordWrap(True)
            note.setEnabled(False)
            form.addRow("", note)
        form.addRow("Output file:", output_row)

        self.progress = JobProgressBar(textVisible=True)
        self.status = plain_label(QLabel("Choose the data file and where to write the output."))
        self.status.setWordWrap(True)
        self.results = QGroupBox("Result")
        self.result_form = QFormLayout(self.results)
        self.results.hide()

        self.job_buttons("Run", cancel=self.cancel)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.results)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.resize(640, self.heightForWidth(640))

    def _choose_data(self) -> None:
        path = pick_path(self, "data", False, "Data file to anonymize", DATA_FILTERS)
        if path:
            self.data_edit.setText(path)
            if not self.output_edit.text():
                source = Path(path)
                suffix = ".parquet" if is_parquet_path(source) else ".csv"
                self.output_edit.setText(
                    str(source.with_name(f"{source.stem}-anonymized{suffix}")))

    def _choose_output(self) -> None:
        path = pick_path(self, "exports", True, "Write the anonymized file", OUTPUT_FILTERS,
                         Path(self.output_edit.text()).name)
        if path:
            self.output_edit.setText(path)

    # -- the run ---------------------------------------------------------------------

    def run(self) -> JobWorker | None:
        """Start the job (None if a path is missing or a run is going on)."""
        data, output = self.data_edit.text().strip(), self.output_edit.text().strip()
        if self.job.running:
            return None
        if not data or not output:
            self.status.setText("Choose the data file and the output file first.")
            return None
        if Path(data).resolve() == Path(output).resolve():
            self.status.setText("The output would overwrite the data file; choose another name.")
            return None
        engine_name = self.engine_combo.currentData()
        worker = self.job.start(_run_file, data=data, output=output,
                                engine_name=engine_name, definition=self._definition,
                                hierarchies=self._hierarchies, config=self._config)
        self.status.setText(f"Running with {ENGINE_LABELS.get(engine_name, engine_name)}…")
        return worker

    @property
    def worker(self) -> JobWorker | None:
        return self.job.worker

    def cancel(self) -> None:
        if self.job.running:
            self.job.cancel()
            self.status.setText("Cancelling…")

    def _set_running(self, running: bool) -> None:
        super()._set_running(running)
        for widget in (self.data_edit, self.output_edit, self.engine_combo):
            widget.setEnabled(not running)
        if running:
            self.progress.setValue(0)
            self.results.hide()

    def _progress(self, percent: int, message: str) -> None:
        self.progress.setValue(percent)
        self.status.setText(message)

    def _finished(self, outcome: FileRun) -> None:
        self.outcome = outcome
        self.status.setText("Done.")
        self.progress.setValue(100)
        self.show_outcome(outcome)

    def show_outcome(self, outcome: FileRun) -> None:
        while self.result_form.rowCount():
            self.result_form.removeRow(0)
        result, written = outcome.run.result, outcome.written
        best = result.optimum
        levels = ", ".join(f"{name} {level}" for name, level in
                           zip(result.quasi_identifiers, best.levels, strict=True))
        rows = [
            ("Transformation:", levels),
            ("Score:", f"{best.score:.6g} ({self._config.quality_model.label})"),
            ("Suppressed:", f"{written.suppressed:,} of {result.records:,} records"),
            ("Distinct rows:", f"{len(outcome.run.histogram.counts):,} "
                               f"(the search ran on these)"),
            ("Time:", ", ".join(f"{step} {seconds:.1f} s"
                                for step, seconds in outcome.seconds.items())),
            ("Written:", f"{written.path} ({written.records:,} rows)"),
        ]
        for label, text in rows:
            value = plain_label(QLabel(text))
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.result_form.addRow(label, value)
        self.results.show()
        self.resize(self.width(), max(self.height(), self.heightForWidth(self.width())))


def _run_file(data: str, output: str, engine_name: str, definition: Any, hierarchies: dict,
              config: Any, progress: Any = None, cancel: Any = None) -> FileRun:
    """The job: a plain function on the worker thread."""
    return anonymize_file(data, output, definition, hierarchies, config,
                          create_engine(engine_name), progress=progress, cancel=cancel)
