"""Check that Qt can open a window before the application is created.

Without the X libraries its xcb plugin links to, Qt prints a page about plugins and
aborts the process. This check runs first and raises one :class:`PlatformError` naming
the Debian/Ubuntu packages to install, which the command line prints (exit status 2).
No Qt is imported here, so the check itself cannot abort.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping

from arxpy.errors import ArxpyError

#: Shared libraries Qt 6's xcb platform plugin (libqxcb.so and libQt6XcbQpa) links to,
#: outside Qt and the C runtime, with the Debian/Ubuntu package that ships each.
#: Found with ``ldd`` on PySide6/Qt/plugins/platforms/libqxcb.so.
XCB_LIBRARIES: dict[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
}


class PlatformError(ArxpyError):
    """Qt has no usable platform plugin on this machine (missing libraries, no display)."""


def check_platform(environ: Mapping[str, str] | None = None,
                   loadable: Callable[[str], bool] | None = None,
                   platform: str | None = None) -> None:
    """Raise :class:`PlatformError` unless Qt's platform plugin can start here.

    Checks only where Qt would use its xcb plugin (Linux, ``QT_QPA_PLATFORM`` unset or
    naming xcb, not a Wayland session): every library of :data:`XCB_LIBRARIES` must load,
    and an X display must be named. ``loadable`` tells whether a library loads (tests
    pass a fake); ``platform`` stands for ``sys.platform``.
    """
    environ = os.environ if environ is None else environ
    if not _uses_xcb(environ, platform or sys.platform):
        return
    loadable = loadable or _loads
    missing = [package for library, package in XCB_LIBRARIES.items() if not loadable(library)]
    if missing:
        raise PlatformError(
            "Qt cannot open a window: its X11 (xcb) plugin needs system libraries that are "
            f"missing; install them with: sudo apt-get install {' '.join(missing)}")
    if not environ.get("DISPLAY"):
        raise PlatformError(
            "Qt cannot open a window: no X display (DISPLAY is not set); start arxpy from a "
            "desktop session, or set QT_QPA_PLATFORM=offscreen for a headless run.")


def _uses_xcb(environ: Mapping[str, str], platform: str) -> bool:
    if not platform.startswith("linux"):
        return False
    requested = environ.get("QT_QPA_PLATFORM", "").strip().lower()
    if requested:
        first = requested.split(";")[0].split(":")[0]
        return first == "xcb"
    # Qt 6 prefers Wayland in a Wayland session and falls back to xcb only without it.
    wayland = environ.get("XDG_SESSION_TYPE") == "wayland" and environ.get("WAYLAND_DISPLAY")
    return not wayland


def _loads(library: str) -> bool:
    try:
        ctypes.CDLL(library)
    except OSError:
        return False
    return True
