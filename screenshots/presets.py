"""Render Edit › Apply policy preset… to PNG.

``QT_QPA_PLATFORM=offscreen python -m screenshots.presets [DIR]`` writes
``preset-*.png`` (default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080 (``-1080p``):
the main window with the example loaded and the dialog drawn over it where it opens
(Safe Harbor's rules), the dialog alone for each preset, and Configure after applying
Safe Harbor (ZIP code chosen: its rule under its levels).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from arxpy.gui.rendering import save_png

SIZES = {"": (1280, 720), "-1080p": (1920, 1080)}


def render(output: Path, size: tuple[int, int], suffix: str) -> list[Path]:
    from PySide6.QtCore import QPoint, QSettings
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="arxpy-shots-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=scratch / "recovery")
    window.resize(*size)
    window.show()
    window.projects.open_example()
    app.processEvents()
    dialog = window.apply_preset()
    written = []
    for index, name in enumerate(("safe-harbor", "expert-determination", "pseudonymised")):
        dialog.choice.setCurrentIndex(index)
        app.processEvents()
        written.append(save_png(dialog, output / f"preset-{name}{suffix}.png", show=True))
    dialog.choice.setCurrentIndex(0)
    app.processEvents()
    screen = window.grab()
    painter = QPainter(screen)
    picture = dialog.grab()
    corner = QPoint(max((size[0] - picture.width()) // 2, 0),
                    max((size[1] - picture.height()) // 2, 0))
    painter.drawPixmap(corner, picture)
    painter.end()
    print(f"{dialog.windowTitle()}: {picture.width()}x{picture.height()} on "
          f"{size[0]}x{size[1]}")
    path = output / f"preset-window{suffix}.png"
    screen.save(str(path))
    written.append(path)
    dialog.apply()
    window.configure.attribute_panel.select("ZIP code")  # its rule shows under its levels
    app.processEvents()
    written.append(save_png(window, output / f"preset-configure{suffix}.png"))
    window.state.discard_changes()
    window.close()
    return written


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    output = Path(argv[0] if argv else "/tmp/arxpy-shots")
    output.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    for suffix, size in SIZES.items():
        for path in render(output, size, suffix):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
