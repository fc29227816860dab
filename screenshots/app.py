"""Render the application's views offscreen to PNG files for the README and for review.

Usage: ``QT_QPA_PLATFORM=offscreen python -m screenshots.app --output DIR``
(``python -m screenshots.app DIR`` works too). Opens the bundled example, runs
the anonymization and saves the start page, each perspective, the hierarchy wizard,
a privacy model dialog and the pages of the import wizard (also with a doubtful
delimiter), Configure with its messages, with a refused method parameter and with a
required attribute left unchosen; then the detailed views of Explore (lattice, list,
comparison, export), Utility and Risk, and the recipe dialogs (File › Export recipe…,
File › Apply recipe to new data… refused with its reasons). Every picture is taken
at 1280x720 and again at 1920x1080 (names ending in ``-1080p``). The Utility study view
scores a whole lattice (once, at 1280x720), so the run takes several minutes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from arxpy.gui.rendering import save_png, wait_until
from screenshots import fail_on_message_boxes

SIZE = (1280, 720)
#: Every view is rendered at a laptop's size and at full HD ("-1080p" in the file name).
SIZES = {"": SIZE, "-1080p": (1920, 1080)}


def render_all(output: Path, size: tuple[int, int] = SIZE, suffix: str = "") -> list[Path]:
    """Render every view and dialog at ``size`` (file names end in ``suffix``); returns
    the files written."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    output.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="arxpy-shots-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=scratch / "recovery")
    window.resize(*size)
    window.show()
    app.processEvents()
    written = [save_png(window, output / f"start{suffix}.png")]
    window.projects.open_example()
    written.append(save_png(window, output / f"configure{suffix}.png"))
    written += _dialogs(window, output, scratch, suffix)
    written.append(_running(window, output / f"running{suffix}.png"))
    _undo_all(window)  # the dialogs' demonstration edits are undone
    window.state.discard_changes()
    _run(window)
    from screenshots.explore import pin_candidates

    for levels in pin_candidates(window.state.result):  # Compare shows them side by side
        window.state.pin(levels)
    # Each perspective computes when first shown; wait for it before the picture.
    ready = {
        "explore": lambda: window.explore.list.model.nodes is not None,
        "utility": lambda: window.utility.bundle is not None,
        "risk": lambda: window.risk.analysis("output") is not None and not window.risk.busy,
    }
    for index, name in enumerate(("explore", "utility", "risk"), start=1):
        window.show_perspective(index)
        wait_until(ready[name], what=f"the {name} perspective")
        written.append(save_png(window, output / f"{name}{suffix}.png"))
    written += _recipes(window, output, scratch, suffix)
    window.state.update_settings(suppression_limit=0.05)  # the result shown becomes stale
    written.append(save_png(window, output / f"stale{suffix}.png"))
    written += _messages(window, output, suffix)
    _undo_all(window)
    window.state.discard_changes()  # the run is not worth a question on closing
    window.close()
    return written


def _messages(window, output: Path, suffix: str) -> list[Path]:
    """Configure with every message at once (stale banner, a hierarchy problem, an
    attribute warning), then a method whose project value is refused and one whose
    required attribute waits to be chosen: nothing moves, nothing is rewritten."""
    from arxpy.hierarchy.model import Hierarchy

    state, configure = window.state, window.configure
    window.show_perspective(0)
    configure.select_attribute("Age")
    rows = state.hierarchies["Age"].to_frame().iloc[5:]
    state.set_hierarchy("Age", Hierarchy.from_frame(rows))
    configure.attribute_panel.say("Some values of 'Age' are not integer (for example 'x'); "
                                  "they will be treated as text.")
    written = [save_png(window, output / f"configure-messages{suffix}.png")]
    state.update_settings(method="condensation", method_parameters={"condensation": {"k": 0}})
    written.append(save_png(window, output / f"configure-refused-value{suffix}.png"))
    state.update_settings(method="kpbms")
    written.append(save_png(window, output / f"configure-unchosen-class{suffix}.png"))
    configure.attribute_panel.say("")
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


def _dialogs(window, output: Path, scratch: Path, suffix: str = "") -> list[Path]:
    from arxpy.data.definition import AttributeType
    from arxpy.gui.hierarchy_wizard import HierarchyWizard
    from arxpy.gui.import_wizard import ImportWizard

    state = window.state
    written = []
    wizard = HierarchyWizard(state.data["Age"], "Age", state.definition["Age"].data_type, window)
    wizard.pages["interval"].fanouts.setText("2 2")
    wizard.update_preview()
    written.append(save_png(wizard, output / f"hierarchy_wizard{suffix}.png", show=True))
    wizard.choose("masking")
    written.append(save_png(wizard, output / f"hierarchy_wizard_masking{suffix}.png",
                            show=True))
    wizard.close()

    state.set_attribute("Length of stay", type=AttributeType.SENSITIVE)
    dialog = window.configure.privacy_panel.dialog("recursive-cl-diversity")
    written.append(save_png(dialog, output / f"privacy_model_dialog{suffix}.png", show=True))
    dialog.widgets["l"].setValue(500)
    written.append(save_png(dialog, output / f"privacy_model_dialog_invalid{suffix}.png",
                            show=True))
    dialog.close()

    csv = scratch / "discharge.csv"
    state.data.head(2000).to_csv(csv, sep=";", index=False)
    importer = ImportWizard(window)
    importer.source_page.path.setText(str(csv))
    written.append(save_png(importer, output / f"import_source{suffix}.png", show=True))
    for name in ("import_format", "import_columns"):
        importer.next()
        written.append(save_png(importer, output / f"{name}{suffix}.png", show=True))
    importer.back()  # the user picks comma for a ';' file: the page questions it
    page = importer.format_page
    page.delimiter.setCurrentIndex(page.delimiter.findData(","))
    written.append(save_png(importer, output / f"import_format_doubtful{suffix}.png",
                            show=True))
    importer.close()
    written += _large_file(window, output, scratch, suffix)
    return written


def _recipes(window, output: Path, scratch: Path, suffix: str) -> list[Path]:
    """File › Export recipe… for the current release, then File › Apply recipe to new
    data… refused on an extract with an unseen value (the reasons listed)."""
    export = window.export_recipe()
    recipe = scratch / "recipe.json"
    export.path_edit.setText(str(recipe))
    written = [save_png(export, output / f"export_recipe{suffix}.png", show=True)]
    export.save()
    frame = window.state.data.head(3000).copy()
    frame.loc[0, "County"], frame.loc[1, "Age"] = "Atlantis", "130"
    data = scratch / "next-quarter.csv"
    frame.to_csv(data, index=False)
    dialog = window.apply_recipe()
    dialog.set_recipe(str(recipe))
    dialog.set_data(str(data))
    dialog.run()
    wait_until(lambda: dialog.outcome is not None, what="the replay")
    width = int(window.width() * 0.55)
    dialog.resize(width, max(dialog.heightForWidth(width), 560))
    written.append(save_png(dialog, output / f"apply_recipe_refused{suffix}.png", show=True))
    dialog.close()
    return written


def _large_file(window, output: Path, scratch: Path, suffix: str) -> list[Path]:
    """File > Anonymize a large file…, after a run on the example (Parquet, DuckDB)."""
    from arxpy.engine.backends.base import engine_missing

    if engine_missing("duckdb"):
        return []
    dialog = window.anonymize_large_file()
    data = scratch / "discharges.parquet"
    window.state.data.to_parquet(data, index=False)
    dialog.data_edit.setText(str(data))
    dialog.output_edit.setText(str(scratch / "discharges-anonymized.csv"))
    dialog.run()
    wait_until(lambda: dialog.worker is None)
    # wider on a wider screen, as a user would make it; as tall as its content
    width = int(window.width() * 0.6)
    dialog.resize(width, dialog.heightForWidth(width))
    path = save_png(dialog, output / f"large_file{suffix}.png", show=True)
    dialog.close()
    return [path]


def _undo_all(window) -> None:
    history = window.state.undo_stack
    while history.canUndo():
        history.undo()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, help="output folder")
    parser.add_argument("--output", type=Path, default=None, help="output folder")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    fail_on_message_boxes()
    output = args.output or args.directory or Path("/tmp/arxpy-shots")
    for suffix, size in SIZES.items():
        for path in render_all(output, size, suffix) + render_perspective_views(
                output, size, suffix):
            print(path)
    return 0


def render_perspective_views(output: Path, size: tuple[int, int] = SIZE,
                             suffix: str = "") -> list[Path]:
    """The detailed views each perspective package renders for itself."""
    from screenshots.explore import render_explore
    from screenshots.risk import render_risk
    from screenshots.utility import render_utility

    written: list[Path] = []
    written += render_explore(output, size, suffix)
    written += render_utility(output, size, suffix, study=not suffix)  # the study once
    written += render_risk(output, size, suffix)
    return written


if __name__ == "__main__":
    sys.exit(main())
