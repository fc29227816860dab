"""File > Anonymize a large file…: the project's configuration on a file through a record
engine, as a background job; the result equals the in-memory search's."""

from __future__ import annotations

import pytest

from arxpy.data.csv_io import read_csv, sniff_csv
from arxpy.engine import anonymize

pytest.importorskip("duckdb", reason="the dialog's default engine needs arxpy[duckdb]")


@pytest.fixture
def dialog(window, qtbot):
    window.projects.open_example()
    dialog = window.anonymize_large_file()
    assert dialog is not None
    qtbot.addWidget(dialog)
    return window, dialog


def test_large_file_run_matches_the_in_memory_search(dialog, qtbot, tmp_path):
    window, dialog = dialog
    state = window.state
    data = tmp_path / "big.parquet"
    state.data.to_parquet(data, index=False)
    assert dialog.engine_combo.currentData() == "duckdb"
    dialog.data_edit.setText(str(data))
    dialog.output_edit.setText(str(tmp_path / "out.csv"))
    assert dialog.run() is not None
    assert not dialog.run_button.isEnabled() and dialog.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=60_000)
    reference = anonymize(state.data, state.definition, state.hierarchies,
                          state.config(check_hierarchies=False))
    result = dialog.outcome.run.result
    assert result.optimum.levels == reference.optimum.levels
    assert result.optimum.score == reference.optimum.score
    assert dialog.outcome.written.suppressed == reference.optimum.suppressed_records
    written = read_csv(tmp_path / "out.csv", sniff_csv(tmp_path / "out.csv", delimiter=";"))
    assert len(written) == len(state.data)
    assert dialog.results.isVisibleTo(dialog) and dialog.run_button.isEnabled()


def test_large_file_refuses_missing_paths_and_overwriting_the_data(dialog, tmp_path):
    _, dialog = dialog
    assert dialog.run() is None
    assert "Choose the data file" in dialog.status.text()
    dialog.data_edit.setText(str(tmp_path / "d.csv"))
    dialog.output_edit.setText(str(tmp_path / "d.csv"))
    assert dialog.run() is None
    assert "overwrite the data file" in dialog.status.text()


def test_large_file_reports_a_failure(dialog, qtbot, tmp_path):
    _, dialog = dialog
    dialog.data_edit.setText(str(tmp_path / "missing.csv"))
    dialog.output_edit.setText(str(tmp_path / "out.csv"))
    dialog.run()
    qtbot.waitUntil(lambda: dialog.worker is None, timeout=30_000)
    assert dialog.status.text().startswith("Failed:") and "missing.csv" in dialog.status.text()
    assert not (tmp_path / "out.csv").exists()


def test_large_file_cancel_stops_the_job(dialog, qtbot, tmp_path, monkeypatch):
    import time

    def endless(*args, progress=None, cancel=None, **kwargs):
        while True:
            progress(0.3, "Counting distinct rows")
            cancel.raise_if_cancelled()
            time.sleep(0.01)

    monkeypatch.setattr("arxpy.gui.large_file.anonymize_file", endless)
    _, dialog = dialog
    dialog.data_edit.setText(str(tmp_path / "d.parquet"))
    dialog.output_edit.setText(str(tmp_path / "out.csv"))
    dialog.run()
    qtbot.waitUntil(lambda: dialog.progress.value() == 30, timeout=10_000)
    assert "Counting distinct rows" in dialog.status.text()
    dialog.cancel()
    qtbot.waitUntil(lambda: dialog.worker is None, timeout=10_000)
    assert dialog.status.text() == "Cancelled; nothing was written."
    assert dialog.run_button.isEnabled() and not dialog.cancel_button.isEnabled()
