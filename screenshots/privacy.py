"""Render the δ-presence dialog and its research-subset filter builder to PNG.

``QT_QPA_PLATFORM=offscreen python -m screenshots.privacy [DIR]`` writes
``dpresence-*.png`` (default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080
(``-1080p``): the main window with the example loaded and both dialogs drawn over it
where they open (does everything fit on the screen?), and each dialog alone.
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
    population = scratch / "population.csv"
    window.state.data.to_csv(population, index=False)
    dialog = window.configure.privacy_panel.dialog("delta-presence")
    dialog.widgets["population"].setText(str(population))
    dialog.widgets["delta_min"].setValue(0.05)
    builder = dialog.subset_dialog()
    column = str(window.state.data.columns[0])
    builder.rows[0][0].setCurrentText(column)
    builder.rows[0][2].setText(str(window.state.data[column].iloc[0]))
    builder.add_condition({"attribute": str(window.state.data.columns[1]), "operator": "!=",
                           "value": str(window.state.data.iloc[0, 1])})
    dialog.widgets["subset_filter"].setText(__import__("json").dumps(builder.conditions()))
    written = [save_png(dialog, output / f"dpresence-dialog{suffix}.png", show=True),
               save_png(builder, output / f"dpresence-subset{suffix}.png", show=True)]
    screen = window.grab()
    painter = QPainter(screen)
    for shown, offset in ((dialog, QPoint(0, 0)), (builder, QPoint(60, 60))):
        picture = shown.grab()
        corner = QPoint((size[0] - picture.width()) // 2, (size[1] - picture.height()) // 2)
        painter.drawPixmap(corner + offset, picture)
        print(f"{shown.windowTitle()}: {picture.width()}x{picture.height()} on "
              f"{size[0]}x{size[1]}")
    painter.end()
    path = output / f"dpresence-window{suffix}.png"
    screen.save(str(path))
    written.append(path)
    builder.close()
    dialog.close()
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
