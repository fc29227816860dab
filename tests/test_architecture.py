"""The layer order is a contract: an upward import, or Qt outside arxpy.gui, fails here
(the contracts are in pyproject.toml, [tool.importlinter])."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    # The interpreter's own scripts first: a virtual environment that is not activated
    # still has import-linter beside its python.
    beside = Path(sys.executable).parent / "lint-imports"
    command = str(beside) if beside.exists() else shutil.which("lint-imports")
    if command is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    return subprocess.run([command, "--config", str(root / "pyproject.toml")], cwd=root,
                          capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


def test_import_contracts_are_kept():
    done = _lint(REPO)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "3 kept, 0 broken" in done.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    """The check can fail: the engine importing the GUI is reported."""
    copy = tmp_path / "repo"
    shutil.copytree(REPO / "arxpy", copy / "arxpy",
                    ignore=shutil.ignore_patterns("__pycache__", "resources"))
    shutil.copy(REPO / "pyproject.toml", copy / "pyproject.toml")
    engine = copy / "arxpy" / "engine" / "apply.py"
    engine.write_text(engine.read_text() + "\nfrom arxpy.gui import state  # noqa\n")
    done = _lint(copy)
    assert done.returncode != 0
    assert "arxpy.engine.apply -> arxpy.gui.state" in done.stdout


#: Modules under arxpy/gui/ that may do without Qt, and why.
QT_FREE_IN_GUI = {
    # Runs before the QApplication exists and must not import Qt: importing it without
    # the xcb libraries is what aborts the process this check explains.
    "platform_check.py",
}


def test_every_gui_module_holds_qt_code():
    """gui/ holds widgets and Qt adapters only; logic without Qt lives in workflows/
    (or lower), where the CLI and Qt-free tests reach it."""
    gui = REPO / "arxpy" / "gui"
    imports_qt = re.compile(r"^\s*(from|import) PySide6\b", re.MULTILINE)
    without = sorted(str(path.relative_to(gui)) for path in gui.rglob("*.py")
                     if path.name != "__init__.py" and not imports_qt.search(path.read_text()))
    assert without == sorted(QT_FREE_IN_GUI)
