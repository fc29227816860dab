"""The platform check before the QApplication: one clear line instead of Qt's abort."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arxpy.cli import main
from arxpy.gui import platform_check
from arxpy.gui.platform_check import XCB_LIBRARIES, PlatformError, check_platform

X_SESSION = {"DISPLAY": ":0"}
MISSING = {"libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0"}


def _without(missing):
    return lambda library: library not in missing


def test_missing_xcb_libraries_name_their_debian_packages():
    with pytest.raises(PlatformError) as info:
        check_platform(X_SESSION, loadable=_without(MISSING), platform="linux")
    message = str(info.value)
    assert "\n" not in message
    assert "apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in message
    assert "libxcb-randr0" not in message  # only what is missing


def test_complete_x_installation_passes():
    check_platform(X_SESSION, loadable=lambda library: True, platform="linux")


def test_no_display_is_named():
    with pytest.raises(PlatformError, match="DISPLAY is not set"):
        check_platform({}, loadable=lambda library: True, platform="linux")


@pytest.mark.parametrize("environ", [
    {"QT_QPA_PLATFORM": "offscreen"},
    {"QT_QPA_PLATFORM": "wayland", "DISPLAY": ":0"},
    {"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"},
])
def test_platforms_without_xcb_are_not_checked(environ):
    check_platform(environ, loadable=lambda library: False, platform="linux")


def test_other_operating_systems_are_not_checked():
    check_platform({}, loadable=lambda library: False, platform="darwin")


def test_gui_command_exits_2_with_one_line(monkeypatch, capsys):
    import PySide6.QtWidgets as widgets

    monkeypatch.setattr(widgets.QApplication, "instance", staticmethod(lambda: None))
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("XDG_SESSION_TYPE", raising=False)
    monkeypatch.setattr(platform_check, "_loads", _without(MISSING))
    assert main(["gui"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert err.startswith("arxpy: error: Qt cannot open a window")
    assert "libxcb-icccm4" in err


def test_every_library_the_installed_plugin_misses_is_named():
    """Whatever ldd finds missing for PySide6's xcb plugin maps to a Debian package."""
    import PySide6

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if shutil.which("ldd") is None or not plugin.exists() or sys.platform != "linux":
        pytest.skip("needs ldd and PySide6's xcb plugin")
    listing = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True).stdout
    missing = {line.split()[0] for line in listing.splitlines() if "not found" in line}
    assert missing <= set(XCB_LIBRARIES), missing - set(XCB_LIBRARIES)
    for library in missing:
        assert not platform_check._loads(library)


def test_readme_setup_command_names_every_package():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    setup = next(line for line in readme.splitlines() if line.startswith("apt-get install -y"))
    assert set(XCB_LIBRARIES.values()) <= set(setup.split())
