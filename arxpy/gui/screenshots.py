"""Render the application's views offscreen to PNG files for the README and for review.

Usage: ``QT_QPA_PLATFORM=offscreen python -m arxpy.gui.screenshots [--output DIR]``
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

SIZE = (1280, 800)


def render_all(output: Path) -> list[Path]:
    """Render every view this version has; returns the files written."""
    from PySide6.QtWidgets import QApplication

    from arxpy.example import example_project
    from arxpy.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    output.mkdir(parents=True, exist_ok=True)
    written = []

    window = MainWindow()
    window.resize(*SIZE)
    window.show()
    app.processEvents()
    written.append(_save(window, output / "start.png"))

    window.set_project(example_project())
    app.processEvents()
    written.append(_save(window, output / "configure.png"))
    window.close()
    return written


def _save(widget, path: Path) -> Path:
    if not widget.grab().save(str(path)):
        raise OSError(f"could not write {path}")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=Path("docs/screenshots"))
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    for path in render_all(args.output):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
