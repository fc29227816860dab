"""Render local recoding (issue 34) to PNG for review.

``QT_QPA_PLATFORM=offscreen python -m screenshots.local_recoding [DIR]`` writes
``local-recoding-*.png`` (default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080
(``-1080p``): Configure's general settings with local recoding on, and Explore's runs
page with the lattice run's Summary and its Local recoding tab (the passes table).
"""

from __future__ import annotations

import sys
from pathlib import Path

from arxpy.gui.rendering import save_png, wait_until
from screenshots import render_main

#: Records of the example project (enough for a pass or two after the first).
RECORDS = 4000


def render(output_dir: str | Path, size: tuple[int, int], suffix: str = "") -> list[Path]:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from arxpy.example import example_project
    from arxpy.gui.main_window import MainWindow
    from arxpy.gui.methods.local_recoding_views import TITLE, PassesView

    app = QApplication.instance() or QApplication(sys.argv[:1])
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    settings = QSettings(str(output / "local-recoding.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=output / "recovery")
    window.resize(*size)
    window.show()
    app.processEvents()
    window.set_project(example_project(records=RECORDS))
    panel = window.configure.settings_panel
    panel.local_passes.setValue(4)
    panel.commit()
    written = [save_png(window, output / f"local-recoding-configure{suffix}.png")]
    window.anonymize()
    wait_until(lambda: window.worker is None, what="the search")
    window.state.select_run(window.state.runs[-1])
    page = window.runs_page
    titles = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    written.append(save_png(window, output / f"local-recoding-summary{suffix}.png"))
    page.tabs.setCurrentIndex(titles.index(TITLE))
    view = page.tabs.currentWidget().findChild(PassesView) or page.tabs.currentWidget()
    wait_until(lambda: getattr(view, "figures", None) is not None, what="the passes")
    written.append(save_png(window, output / f"local-recoding-passes{suffix}.png"))
    window.state.discard_changes()
    window.close()
    return written


def main(argv: list[str] | None = None) -> int:
    return render_main(render, argv)


if __name__ == "__main__":
    raise SystemExit(main())
