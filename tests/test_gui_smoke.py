"""The non-interactive checks of the desktop start-up (`arxpy gui --smoke-test`,
`--startup-time`) that the desktop bundle's smoke test runs frozen, here from source."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pandas as pd
import pytest
from conftest import REPO

from arxpy.cli import main
from arxpy.example import COLUMNS, SETTINGS, example_definition


def run_gui(tmp_path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m arxpy gui ARGS`` offscreen, with its own home (settings, autosave)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(home),
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local")}
    return subprocess.run([sys.executable, "-m", "arxpy", "gui", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def check_k_anonymous_release(path, records: int) -> None:
    """Independent of arxpy: every released class of quasi-identifier values has at least
    k records; suppressed records (every quasi-identifier '*') stay within the limit."""
    k = SETTINGS["privacy_models"][0]["k"]
    # The delimiter is the input's (sniffed: the example project's data uses ';').
    table = pd.read_csv(path, dtype=str, keep_default_na=False, sep=None, engine="python")
    assert list(table.columns) == list(COLUMNS)
    assert len(table) == records
    qis = example_definition().quasi_identifiers
    suppressed = (table[qis] == "*").all(axis=1)
    assert suppressed.sum() <= SETTINGS["suppression_limit"] * records
    sizes = table[~suppressed].groupby(qis).size()
    assert sizes.min() >= k
    # Generalized, not merely copied: some quasi-identifier lost detail.
    assert (table[qis] == "*").any().any() or table["ZIP code"].str.contains(r"\*").any()


def test_smoke_test_anonymizes_the_example_and_exports_it(tmp_path):
    out = tmp_path / "released.csv"
    done = run_gui(tmp_path, "--example", "--smoke-test", str(out))
    assert done.returncode == 0, done.stderr
    assert "smoke test passed" in done.stdout
    check_k_anonymous_release(out, records=40_000)
    # A non-interactive run leaves no autosaved copy to be offered at the next start.
    assert not list((tmp_path / "home").rglob("*.autosave*"))


def smoke_in_process(window, qtbot, monkeypatch, out, project=None) -> int:
    """The smoke test on ``window`` in this process (the window test fixture: its own
    settings and recovery folder), opening ``project`` first; returns its exit code.
    These need no process of their own: the example's run above and the start-up time
    below cover the command's start-up in a process."""
    from PySide6.QtWidgets import QApplication

    from arxpy.gui import smoke

    codes = []
    monkeypatch.setattr(smoke, "_quit", lambda _app, _window, code: codes.append(code))
    window.show()
    smoke.SmokeTest(QApplication.instance(), window, out, timeout=60)
    if project is not None:
        window.projects.open_project(project)
    qtbot.waitUntil(lambda: bool(codes), timeout=60_000)
    return codes[0]


def test_smoke_test_without_a_project_fails_with_one_line(window, qtbot, monkeypatch,
                                                           capsys, tmp_path):
    out = tmp_path / "released.csv"
    assert smoke_in_process(window, qtbot, monkeypatch, out) == 1
    err = capsys.readouterr().err
    assert "smoke test failed: no project is open" in err
    assert "Traceback" not in err
    assert not out.exists()


def test_smoke_test_fails_when_the_search_finds_no_solution(window, qtbot, monkeypatch,
                                                             capsys, tmp_path):
    from arxpy.example import example_project

    project = example_project(records=60)
    project.settings["privacy_models"] = [{"kind": "k-anonymity", "k": 100}]
    project.settings["suppression_limit"] = 0.0
    path = tmp_path / "impossible.arxpy"
    project.save(path)
    out = tmp_path / "released.csv"
    assert smoke_in_process(window, qtbot, monkeypatch, out, path) == 1
    assert "smoke test failed" in capsys.readouterr().err
    assert not out.exists()


def test_smoke_test_refuses_to_export_over_the_project(tmp_path, capsys):
    project = tmp_path / "study.arxpy"
    project.write_bytes(b"the custodian's project")
    assert main(["gui", str(project), "--smoke-test", str(project)]) == 2
    assert "is the same file as project" in capsys.readouterr().err
    assert project.read_bytes() == b"the custodian's project"


def test_startup_time_is_printed_when_the_window_is_usable(tmp_path):
    done = run_gui(tmp_path, "--startup-time")
    assert done.returncode == 0, done.stderr
    found = re.search(r"window usable after (\d+\.\d+) s \((\d+\.\d+) s of CPU\)",
                      done.stdout)
    seconds, cpu = float(found.group(1)), float(found.group(2))
    # At least the interpreter and Qt had to start; at most the run itself.
    assert 0.05 < seconds < 120
    assert 0.05 < cpu < 120


def test_seconds_since_process_start_advances_with_the_clock():
    from arxpy.gui.smoke import seconds_since_process_start

    first = seconds_since_process_start()
    time.sleep(0.1)
    second = seconds_since_process_start()
    assert first > 0
    assert 0.05 <= second - first < 5


def test_application_icon_is_read_from_package_data(qapp):
    from arxpy.gui.app import application_icon

    icon = application_icon()
    assert not icon.isNull()
    assert not icon.pixmap(64, 64).isNull()


@pytest.mark.parametrize("option", ["--startup-time", "--smoke-test"])
def test_gui_help_documents_the_non_interactive_checks(option, capsys):
    with pytest.raises(SystemExit):
        main(["gui", "--help"])
    assert option in capsys.readouterr().out


def test_smoke_test_of_an_unreadable_project_fails_instead_of_waiting(
        window, qtbot, monkeypatch, capsys, tmp_path):
    out = tmp_path / "released.csv"
    assert smoke_in_process(window, qtbot, monkeypatch, out,
                            tmp_path / "missing.arxpy") == 1
    err = capsys.readouterr().err
    assert "smoke test failed" in err and "missing.arxpy" in err
    assert not out.exists()


def test_smoke_test_of_a_project_saved_with_its_result(window, qtbot, monkeypatch,
                                                       capsys, tmp_path):
    """Opening such a project already searches again (to restore the result): the smoke
    test follows that run instead of finding the window busy."""
    from arxpy.example import example_project
    from arxpy.project import Project

    window.set_project(example_project(records=400))
    assert window.anonymize() is not None
    qtbot.waitUntil(lambda: window.worker is None and window.state.result is not None,
                    timeout=60_000)
    path = tmp_path / "saved.arxpy"
    assert window.projects.save_to(path)
    assert Project.load(path).saved_result
    window.set_project(None)
    out = tmp_path / "released.csv"
    assert smoke_in_process(window, qtbot, monkeypatch, out, path) == 0, \
        capsys.readouterr().err
    assert "smoke test passed" in capsys.readouterr().out
    check_k_anonymous_release(out, records=400)
