"""The package as installed: every subpackage ships, and Qt stays under arxpy/gui/."""

import re
import tomllib

from conftest import REPO


def test_every_package_is_listed_in_pyproject():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "arxpy").rglob("__init__.py")
    }
    assert found - listed == set(), "add these packages to [tool.setuptools] packages"
    assert "arxpy.resources" in listed


def test_qt_is_imported_only_under_gui():
    pattern = re.compile(r"^\s*(from|import)\s+(PySide6|pyqtgraph)", re.MULTILINE)
    offenders = [
        str(p.relative_to(REPO))
        for p in (REPO / "arxpy").rglob("*.py")
        if "gui" not in p.relative_to(REPO).parts and pattern.search(p.read_text())
    ]
    assert offenders == []
