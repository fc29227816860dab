"""Render the application's views offscreen to PNG files for the README and for review.

Usage: ``QT_QPA_PLATFORM=offscreen python -m arxpy.gui.screenshots --output DIR``
(``python -m arxpy.gui.screenshots DIR`` works too). Opens the bundled example, runs
the anonymization and saves the start page, each perspective, the hierarchy wizard,
a privacy model dialog and the pages of the import wizard; then the detailed views of
Explore (lattice, list, comparison, export), Utility and Risk. The Utility study view scores a
whole lattice, so the run takes a couple of minutes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from arxpy.gui.rendering import save_png, wait_until

SIZE = (1280, 800)


def render_all(output: Path) -> list[Path]:
    """Render every view and dialog; returns the files written."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    output.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="arxpy-shots-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=scratch / "recovery")
    window.resize(*SIZE)
    window.show()
    app.processEvents()
    written = [save_png(window, output / "start.png")]
    window.projects.open_example()
    written.append(save_png(window, output / "configure.png"))
    written += _dialogs(window, output, scratch)
    written.append(_running(window, output / "running.png"))
    window.state.undo_stack.setIndex(0)  # the dialogs' demonstration edits are undone
    window.state.undo_stack.clear()
    _run(window)
    # Each perspective computes when first shown; wait for it before the picture.
    ready = {
        "explore": lambda: window.explore.list.model.nodes is not None,
        "utility": lambda: window.utility.bundle is not None,
        "risk": lambda: window.risk.analysis("output") is not None and not window.risk.busy,
    }
    for index, name in enumerate(("explore", "utility", "risk"), start=1):
        window.show_perspective(index)
        wait_until(ready[name], what=f"the {name} perspective")
        written.append(save_png(window, output / f"{name}.png"))
    window.close()
    return written


def _running(window, path: Path) -> Path:
    """The status bar and log panel as they look during a run (drawn, not waited for)."""
    import logging

    window.log_panel.show()
    logging.getLogger("arxpy.gui").info("Anonymization started: 5-anonymity")
    window._show_running(True)
    window._progress(42, "Checked 180 transformations")
    saved = save_png(window, path)
    window._show_running(False)
    window.log_panel.hide()
    return saved


def _run(window) -> None:
    from PySide6.QtWidgets import QApplication

    worker = window.anonymize()
    deadline = time.monotonic() + 120
    while worker is not None and window.worker is not None and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.01)


def _dialogs(window, output: Path, scratch: Path) -> list[Path]:
    from arxpy.data.definition import AttributeType
    from arxpy.gui.hierarchy_wizard import HierarchyWizard
    from arxpy.gui.import_wizard import ImportWizard

    state = window.state
    written = []
    wizard = HierarchyWizard(state.data["Age"], "Age", state.definition["Age"].data_type, window)
    wizard.pages["interval"].fanouts.setText("2 2")
    wizard.update_preview()
    written.append(save_png(wizard, output / "hierarchy_wizard.png", show=True))
    wizard.choose("masking")
    written.append(save_png(wizard, output / "hierarchy_wizard_masking.png", show=True))
    wizard.close()

    state.set_attribute("Length of stay", type=AttributeType.SENSITIVE)
    dialog = window.configure.privacy_panel.dialog("recursive-cl-diversity")
    written.append(save_png(dialog, output / "privacy_model_dialog.png", show=True))
    dialog.widgets["l"].setValue(500)
    written.append(save_png(dialog, output / "privacy_model_dialog_invalid.png", show=True))
    dialog.close()

    csv = scratch / "discharge.csv"
    state.data.head(2000).to_csv(csv, sep=";", index=False)
    importer = ImportWizard(window)
    importer.source_page.path.setText(str(csv))
    written.append(save_png(importer, output / "import_source.png", show=True))
    for name in ("import_format.png", "import_columns.png"):
        importer.next()
        written.append(save_png(importer, output / name, show=True))
    importer.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, help="output folder")
    parser.add_argument("--output", type=Path, default=None, help="output folder")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    output = args.output or args.directory or Path("/tmp/arxpy-shots")
    for path in render_all(output) + render_perspective_views(output):
        print(path)
    return 0


def render_perspective_views(output: Path) -> list[Path]:
    """The detailed views each perspective package renders for itself."""
    from arxpy.gui.explore.screenshots import render_explore
    from arxpy.gui.risk.screenshots import render_risk
    from arxpy.gui.utility.screenshots import render_utility

    written: list[Path] = []
    for render in (render_explore, render_utility, render_risk):
        written += list(render(output))
    return written


if __name__ == "__main__":
    sys.exit(main())
