"""Render the application icon (an SVG) to the raster formats a bundle needs.

Run by ``build.py`` with the build environment's Python, which has Qt:
``python icons.py ICON.svg OUT_DIR``. Writes ``arxpy-<size>.png`` for every size of
:data:`SIZES`, ``arxpy.png`` (256 px), and on Windows ``arxpy.ico`` (PyInstaller's
executable icon). On macOS, ``build.py`` turns the PNGs into ``arxpy.icns`` with
``iconutil``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: Pixel sizes of the freedesktop icon theme folders (hicolor/<size>x<size>/apps).
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(svg: Path, out_dir: Path) -> list[Path]:
    """PNG renderings of ``svg`` in ``out_dir``; raises SystemExit if the SVG is unreadable."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no display needed
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"icons: cannot read the SVG icon {svg}")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        path = out_dir / f"arxpy-{size}.png"
        if not image.save(str(path)):
            raise SystemExit(f"icons: cannot write {path}")
        written.append(path)
        if size == 256:
            image.save(str(out_dir / "arxpy.png"))
            if sys.platform == "win32":
                image.save(str(out_dir / "arxpy.ico"))  # Qt's ico image-format plugin
    return written


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: python icons.py ICON.svg OUT_DIR")
    render(Path(sys.argv[1]), Path(sys.argv[2]))
