"""Ctrl-C in the middle of ``condense``, ``kpbms`` and ``compare-models`` ends the run
with the one line ``arxpy: interrupted``, status 130 and no output (issue 28, defect 7:
they were reported to run on and exit 0)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arxpy import cli
from arxpy.commands.options import ProgressBar
from arxpy.methods.condensation.devdata import cancer_registry

# Each test here raises SIGINT in the test process (see the fixture).
pytestmark = pytest.mark.usefixtures("gc_paused")
REPO = Path(__file__).resolve().parent.parent
ANALYSES = [{"type": "cox", "covariates": ["DiagAge", "Gender"], "time": "SurvInterval",
             "event": "VitalStat"}]


def _inputs(folder: Path, records: int) -> dict[str, str]:
    cancer_registry(records, seed=11).to_csv(folder / "in.csv", index=False)
    (folder / "analyses.json").write_text(json.dumps(ANALYSES))
    return {"in": str(folder / "in.csv"), "analyses": str(folder / "analyses.json"),
            "out": str(folder / "out.csv"), "report": str(folder / "report.json")}


COMMANDS = {
    "condense": lambda f: ["condense", "--data", f["in"], "--k", "20", "--time",
                           "SurvInterval", "--status", "VitalStat", "--seed", "1",
                           "--output", f["out"], "--report", f["report"]],
    "kpbms": lambda f: ["kpbms", "--data", f["in"], "--class-attribute", "VitalStat",
                        "--output", f["out"], "--report", f["report"]],
    "compare-models": lambda f: ["compare-models", "--original", f["in"], "--methods",
                                 "mdav", "--k", "10", "--repeats", "40", "--analyses",
                                 f["analyses"], "--report", f["report"], "--csv", f["out"]],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_ctrl_c_during_the_work_ends_the_run(tmp_path, monkeypatch, capsys, command):
    """In process: Ctrl-C arrives at the command's first progress report, from inside
    the work, with the rest of it still to do (a catch-all anywhere on the way up would
    swallow it)."""
    files = _inputs(tmp_path, 400)
    reports = []
    drawn = ProgressBar.__call__

    def pressing(self, fraction: float, message: str) -> None:
        drawn(self, fraction, message)
        reports.append(message)
        if len(reports) == 1:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(ProgressBar, "__call__", pressing)
    assert cli.main(COMMANDS[command](files)) == cli.INTERRUPTED_STATUS
    err = capsys.readouterr().err
    assert len(reports) == 1 and reports[0] != "Done"  # mid-run, not before or after
    assert err.rstrip().splitlines()[-1] == cli.INTERRUPTED_LINE and "Traceback" not in err
    assert not Path(files["out"]).exists() and not Path(files["report"]).exists()


def _interrupt_mid_run(process: subprocess.Popen) -> str:
    """Send SIGINT as soon as the process draws its first progress bar (the method's
    work has begun and lasts on); its whole stderr."""
    drawn, chunks = threading.Event(), []

    def read() -> None:
        while block := process.stderr.read1(4096):
            chunks.append(block.decode("utf-8", "replace"))
            if "%" in block.decode("utf-8", "replace"):
                drawn.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert drawn.wait(120), "".join(chunks)
    process.send_signal(signal.SIGINT)
    process.wait(120)
    reader.join(10)
    return "".join(chunks)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_ctrl_c_ends_the_real_process(tmp_path, command):
    """The real process: SIGINT while the work runs, as a terminal's Ctrl-C sends it."""
    files = _inputs(tmp_path, 20_000)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-m", "arxpy", *COMMANDS[command](files)],
                               cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    err = _interrupt_mid_run(process)
    lines = err.replace("\r", "\n").strip().splitlines()
    assert process.returncode == cli.INTERRUPTED_STATUS, err
    assert lines[-1] == cli.INTERRUPTED_LINE and "Traceback" not in err
    assert not Path(files["out"]).exists() and not Path(files["report"]).exists()


#: ``python -c`` program: the ``arxpy`` program whose run presses Ctrl-C just after
#: :func:`arxpy.cli.main` returned, while Python would shut down.
_AFTER_THE_RUN = (
    "import signal, sys; import arxpy.cli as cli; run = cli.main; "
    "cli.main = lambda argv=None: (run(argv), signal.raise_signal(signal.SIGINT))[0]; "
    "sys.argv[0] = 'arxpy'; cli.console_main()")


def _after_the_run(tmp_path: Path, command: str) -> None:
    files = _inputs(tmp_path, 400)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", _AFTER_THE_RUN, *COMMANDS[command](files)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    lines = done.stderr.replace("\r", "\n").strip().splitlines()
    assert done.returncode == cli.INTERRUPTED_STATUS, done.stderr
    assert lines[-1] == cli.INTERRUPTED_LINE and "Traceback" not in done.stderr
    assert "KeyboardInterrupt" not in done.stderr
    json.loads(Path(files["report"]).read_text())  # the run had finished: complete files


def test_ctrl_c_while_python_shuts_down_after_a_run(tmp_path):
    """Once the outputs are written, Python's exit handlers ignored Ctrl-C (exit 0) and
    its teardown, half a second after scikit-learn was loaded, died by it silently."""
    _after_the_run(tmp_path, "kpbms")


@pytest.mark.slow
@pytest.mark.parametrize("command", ["condense", "compare-models"])
def test_ctrl_c_while_python_shuts_down_after_other_runs(tmp_path, command):
    _after_the_run(tmp_path, command)
