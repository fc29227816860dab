"""Render the views of method runs to PNG with the example loaded.

``QT_QPA_PLATFORM=offscreen python -m arxpy.gui.methods.screenshots [DIR]`` writes
``methods-*.png`` (default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080 (``-1080p``):
Configure with a method's form (and one refusing its parameters), Explore's runs page
with each tab of a condensation run and a comparison, Utility and Risk of the run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from arxpy.gui.rendering import save_png, settle, wait_until

SIZES = {"": (1280, 720), "-1080p": (1920, 1080)}
RECORDS = 2000


def _choose(window, name: str, **parameters) -> None:
    panel = window.configure.method_panel
    panel.combo.setCurrentIndex(panel.combo.findData(name))
    for key, value in parameters.items():
        panel.form.widgets[key].setValue(value)
    panel.commit()


def _interval_form(window) -> None:
    """Interval generalisation of Age and Charge shaped for the variance of Age."""
    from PySide6.QtCore import Qt

    form = window.configure.method_panel.form
    for name in ("Age", "Charge"):
        form.widgets["attributes"].findItems(name, Qt.MatchFlag.MatchExactly)[0] \
            .setCheckState(Qt.CheckState.Checked)
    form.widgets["statistic"].setText("variance:Age")
    window.configure.method_panel.commit()


def _run(window) -> None:
    window.anonymize()
    wait_until(lambda: window.worker is None, what="the method run")


def render_methods(output_dir: str | Path, size: tuple[int, int],
                   suffix: str = "") -> list[Path]:
    """Render the method views at ``size``; returns the files written."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from arxpy.example import example_project
    from arxpy.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    settings = QSettings(str(output / "methods-settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=output / "recovery")
    window.resize(*size)
    window.show()
    app.processEvents()
    window.set_project(example_project(records=RECORDS))
    written = []
    _choose(window, "intervals")
    written.append(save_png(window, output / f"methods-configure-error{suffix}.png"))
    _interval_form(window)
    written.append(save_png(window, output / f"methods-configure-intervals{suffix}.png"))
    _choose(window, "condensation", k=10)
    written.append(save_png(window, output / f"methods-configure{suffix}.png"))
    _run(window)
    _choose(window, "mdav", k=10)
    _run(window)
    page = window.runs_page
    window.state.select_run(window.state.runs[0])
    for index in range(page.tabs.count() - 1):
        page.tabs.setCurrentIndex(index)
        title = page.tabs.tabText(index).lower().replace(" ", "-")
        written.append(save_png(window, output / f"methods-run-{title}{suffix}.png"))
    page.table.selectAll()
    page.compare_selected()
    wait_until(lambda: page.compare_table.columnCount() == 3, what="the comparison")
    written.append(save_png(window, output / f"methods-compare{suffix}.png"))
    window.state.select_run(window.state.runs[0])
    window.show_perspective(2)
    wait_until(lambda: window.utility.bundle is not None, what="the utility statistics")
    written.append(save_png(window, output / f"methods-utility{suffix}.png"))
    window.show_perspective(3)
    wait_until(lambda: window.risk.analysis("output") is not None and not window.risk.busy,
               what="the risk analyses")
    settle(0.2)
    written.append(save_png(window, output / f"methods-risk{suffix}.png"))
    window.state.undo_stack.clear()
    window.close()
    return written


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    args = sys.argv[1:] if argv is None else argv
    output = Path(args[0]) if args else Path("/tmp/arxpy-shots")
    for suffix, size in SIZES.items():
        for path in render_methods(output, size, suffix):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
