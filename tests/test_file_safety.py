"""No silent loss of files: inputs are never overwritten, read-only files are refused,
killed writes leave no temporaries behind for long, a report never outlives its data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.atomic import atomic_write, remove_stale_temporaries
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.errors import DataExportError
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project


@pytest.fixture
def files(tmp_path):
    rows = ["age;zip"] + [f"{20 + (i * 7) % 40};{1300 + (i * 3) % 9}" for i in range(40)]
    (tmp_path / "data.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "age.csv").write_text("\n".join(f"{a};{a // 10};*" for a in range(20, 60)) + "\n")
    return tmp_path


def _anonymize(folder: Path, *extra: str) -> int:
    return main(["anonymize", "--data", str(folder / "data.csv"), "--delimiter", ";",
                 "--hierarchy", f"age={folder / 'age.csv'}", "--k", "2", *extra])


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("extra", [
    lambda f: ["--output", str(f / "data.csv")],
    lambda f: ["--output", str(f / "sub" / ".." / "data.csv")],
    lambda f: ["--output", str(f / "link.csv")],
    lambda f: ["--report", str(f / "age.csv")],
    lambda f: ["--output", str(f / "o.csv"), "--report", str(f / "o.csv")],
])
def test_cli_refuses_writing_over_an_input_or_another_output(files, capsys, extra):
    (files / "sub").mkdir()
    (files / "link.csv").symlink_to(files / "data.csv")
    before = _snapshot(files)
    assert _anonymize(files, *extra(files)) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("arxpy: error:") and "same file" in err
    assert _snapshot(files) == before  # nothing written, nothing lost


def test_cli_relative_output_path_equal_to_the_data_is_refused(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    before = (files / "data.csv").read_bytes()
    assert main(["anonymize", "--data", "data.csv", "--delimiter", ";", "--hierarchy",
                 "age=age.csv", "--k", "2", "--output", str(files / "data.csv")]) == 2
    assert (files / "data.csv").read_bytes() == before


def test_risk_report_over_its_project_is_refused(files, capsys):
    frame = pd.read_csv(files / "data.csv", sep=";", dtype=str)
    definition = DataDefinition.for_columns(frame.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING)
    path = Project(frame, definition, {"age": Hierarchy([[str(a), "*"] for a in
                                                          range(20, 60)])}).save(
        files / "p.arxpy")
    before = path.read_bytes()
    assert main(["risk", "--project", str(path), "--report", str(path), "--no-hipaa"]) == 2
    assert path.read_bytes() == before


def test_read_only_target_is_refused(tmp_path):
    target = tmp_path / "kept.csv"
    target.write_text("precious\n")
    target.chmod(0o444)
    with pytest.raises(DataExportError, match="read-only"), atomic_write(target) as handle:
        handle.write("replacement\n")
    assert target.read_text() == "precious\n"
    assert list(tmp_path.iterdir()) == [target]


def test_cli_refuses_a_read_only_output(files, capsys):
    out = files / "out.csv"
    out.write_text("precious\n")
    out.chmod(0o444)
    assert _anonymize(files, "--output", str(out)) == 2
    assert "read-only" in capsys.readouterr().err
    assert out.read_text() == "precious\n"


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temporaries_of_killed_writes_are_removed_on_the_next_write(tmp_path):
    target = tmp_path / "project.arxpy"
    stale = tmp_path / f".project.arxpy.{_dead_pid()}-0123abcd.tmp"
    live = tmp_path / f".project.arxpy.{os.getpid()}-0123abcd.tmp"  # a write in progress
    foreign = tmp_path / ".project.arxpy.backup.tmp"  # not ours: never touched
    for path in (stale, live, foreign):
        path.write_bytes(b"partial")
    with atomic_write(target, "wb") as handle:
        handle.write(b"complete")
    assert not stale.exists() and live.exists() and foreign.exists()
    assert target.read_bytes() == b"complete"


def test_a_killed_distributed_write_leaves_a_parts_folder_that_the_next_write_removes(tmp_path):
    """Spark fills ``.NAME.PID-HEX.tmp.d`` with parts before joining them; a killed run
    leaves that folder behind."""
    target = tmp_path / "out.csv"
    dead = _dead_pid()
    parts = tmp_path / f".out.csv.{dead}-0123abcd.tmp.d"
    (parts / "nested").mkdir(parents=True)
    (parts / "nested" / "part-0000.csv").write_text("a\n1\n")
    live = tmp_path / f".out.csv.{os.getpid()}-0123abcd.tmp.d"  # a write in progress
    live.mkdir()
    lookalike = tmp_path / f".out.csv.{dead}-0123abcd.tmp.dx"  # not ours
    lookalike.mkdir()
    with atomic_write(target) as handle:
        handle.write("done")
    assert not parts.exists() and live.exists() and lookalike.exists()
    assert target.read_text() == "done"


def test_stale_temporaries_are_removed_when_a_project_is_opened(tmp_path):
    frame = pd.DataFrame({"a": ["1", "2"]})
    path = Project(frame, DataDefinition.for_columns(["a"])).save(tmp_path / "p.arxpy")
    stale = tmp_path / f".p.arxpy.{_dead_pid()}-0123abcd.tmp"
    stale.write_bytes(b"partial")
    Project.load(path)
    assert not stale.exists()
    assert remove_stale_temporaries(path) == []


def test_a_killed_save_leaves_a_temporary_that_the_next_save_removes(tmp_path):
    target = tmp_path / "out.csv"
    script = ("import os, sys\nfrom arxpy.data.atomic import atomic_write\n"
              f"with atomic_write({str(target)!r}) as h:\n"
              "    h.write('x' * 1000); h.flush(); os._exit(9)\n")
    subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[1],
                   check=False)
    assert len(list(tmp_path.glob(".out.csv.*.tmp"))) == 1 and not target.exists()
    with atomic_write(target) as handle:
        handle.write("done")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_anonymize_writes_the_report_after_the_data(files, monkeypatch):
    import arxpy.commands.anonymize as command
    import arxpy.engine.export as export

    order = []
    real_export, real_json = export.export_release, command.write_json
    monkeypatch.setattr(export, "export_release",
                        lambda *a, **k: order.append("data") or real_export(*a, **k))
    monkeypatch.setattr(command, "write_json",
                        lambda *a, **k: order.append("report") or real_json(*a, **k))
    assert _anonymize(files, "--output", str(files / "o.csv"),
                      "--report", str(files / "r.json")) == 0
    assert order == ["data", "report"]
