"""Ctrl-C ends every run with one line and status 130, never as a damaged file (issue 12)."""

from __future__ import annotations

import codecs
import dataclasses
import os
import signal
import subprocess
import sys
import time

import pytest

from arxpy import cli
from arxpy.data.csv_io import read_csv, sniff_csv
from arxpy.jobs import INTERRUPTED, noting_interrupts

# Each test here raises SIGINT in the test process (see the fixture).
pytestmark = pytest.mark.usefixtures("gc_paused")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _InterruptingDecoder(codecs.getincrementaldecoder("cp1252")):
    """cp1252, decoded in Python (as pandas does for such files), pressing Ctrl-C in the
    middle of the parse: on the second read of the second reader (the first is the
    record-length check, the second pandas)."""

    readers = 0

    def __init__(self, errors: str = "strict") -> None:
        super().__init__(errors)
        type(self).readers += 1
        self.reads = 0

    def decode(self, data, final=False):
        self.reads += 1
        if type(self).readers == 2 and self.reads == 2:
            signal.raise_signal(signal.SIGINT)
        return super().decode(data, final)


def _interrupting_codec(name: str):
    if name != "arxpy_test_interrupting":
        return None
    base = codecs.lookup("cp1252")
    return codecs.CodecInfo(base.encode, base.decode, name="arxpy_test_interrupting",
                            incrementalencoder=base.incrementalencoder,
                            incrementaldecoder=_InterruptingDecoder,
                            streamreader=base.streamreader, streamwriter=base.streamwriter)


def test_ctrl_c_while_pandas_decodes_a_file_is_an_interrupt(tmp_path):
    """pandas turned a Ctrl-C inside its Python-level read into "Error tokenizing
    data", and arxpy blamed the file."""
    path = tmp_path / "latin.csv"
    path.write_text("age;name\n" + "".join(f"{i % 70 + 20};Müller {i}\n"
                                            for i in range(40_000)), encoding="cp1252")
    codecs.register(_interrupting_codec)
    _InterruptingDecoder.readers = 0
    try:
        fmt = dataclasses.replace(sniff_csv(path), encoding="arxpy_test_interrupting")
        with pytest.raises(KeyboardInterrupt):
            read_csv(path, fmt)
    finally:
        codecs.unregister(_interrupting_codec)
    assert _InterruptingDecoder.readers == 2  # it was pandas' read that was interrupted


def test_ctrl_c_while_the_commands_load_ends_with_one_line(monkeypatch, capsys):
    def interrupted_import():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted_import)
    assert cli.main(["anonymize"]) == cli.INTERRUPTED_STATUS
    assert capsys.readouterr().err == f"{cli.INTERRUPTED_LINE}\n"


def test_an_interrupt_swallowed_by_a_library_is_still_noted():
    with noting_interrupts():
        assert not INTERRUPTED.is_set()
        try:
            signal.raise_signal(signal.SIGINT)
            time.sleep(0)  # the handler runs at the next bytecode
        except KeyboardInterrupt:
            pass  # as a Qt slot or a parser would swallow it
        assert INTERRUPTED.is_set()
    with noting_interrupts():
        assert not INTERRUPTED.is_set()  # a new run starts clean


@pytest.mark.parametrize("how", ["signal", "swallowed"])
def test_the_desktop_application_ends_on_ctrl_c(qapp, tmp_path, monkeypatch, how):
    from PySide6.QtCore import QSettings, QTimer

    import arxpy.gui.main_window
    from arxpy.gui.app import run_app

    windows = []
    real = arxpy.gui.main_window.MainWindow

    def window(*args, **kwargs):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        windows.append(real(settings=settings, recovery_dir=tmp_path / "recovery"))
        return windows[-1]

    monkeypatch.setattr(arxpy.gui.main_window, "MainWindow", window)
    if how == "signal":
        QTimer.singleShot(300, lambda: os.kill(os.getpid(), signal.SIGINT))
    else:  # raised inside a slot and lost there: the note ends the loop
        QTimer.singleShot(300, INTERRUPTED.set)
    INTERRUPTED.clear()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_app()
    finally:
        INTERRUPTED.clear()
        for opened in windows:
            opened.close()
            opened.deleteLater()
        qapp.processEvents()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.slow
def test_ctrl_c_at_any_moment_of_a_gui_start(tmp_path):
    """The real process: SIGINT while it imports, builds the window or loads the example."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / ".config"), "PYTHONPATH": REPO}
    for delay in (0.8, 2.0, 4.0):
        process = subprocess.Popen([sys.executable, "-m", "arxpy", "gui", "--example"],
                                   cwd=REPO, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
        lines = [line for line in err.splitlines() if "propagateSizeHints" not in line]
        assert process.returncode == 130, (delay, err)
        assert lines == [cli.INTERRUPTED_LINE], (delay, err)
