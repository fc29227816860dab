"""Render each tab of the Utility perspective to PNG with the example loaded and runs done.

``QT_QPA_PLATFORM=offscreen python -m screenshots.utility [DIR]`` writes
``utility-*.png`` (default DIR /tmp/arxpy-shots). The example has 40,000 records; the
study tab uses a 3,000-record sample of it so that the whole lattice is evaluated in
well under a minute.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from arxpy.gui.rendering import save_png, wait_until

SIZE = (1280, 720)
#: Records of the example used for the study screenshot (the full study takes minutes).
STUDY_RECORDS = 3000
STUDY_SECONDS = 60.0
SHOWN_TRANSFORMATION = (0, 1, 1, 1, 2, 4, 2, 2)


def _perspective(records: int | None, size: tuple[int, int] = SIZE):
    """A perspective over the example with its optimum applied (statistics computed)."""
    import arxpy.privacy  # noqa: F401  (registers the privacy models)
    import arxpy.quality  # noqa: F401  (registers the quality models)
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.example import DEFAULT_RECORDS, example_project
    from arxpy.gui.state import AppState
    from arxpy.gui.utility.perspective import UtilityPerspective

    project = example_project(records=records or DEFAULT_RECORDS)
    state = AppState()
    state.set_project(project)
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    state.set_result(result)
    view = UtilityPerspective(state)
    view.resize(*size)
    view.show()
    wait_until(lambda: view.bundle is not None)
    view.classification.form.set_class_attribute("Charge", "10000, 50000")
    return state, view


def render_utility(output_dir: str | Path, size: tuple[int, int] = SIZE,
                   suffix: str = "", study: bool = True) -> list[Path]:
    """Render every Utility tab at ``size`` into ``output_dir`` (names end in ``suffix``;
    ``study`` False skips the minute-long study); returns the files."""
    from PySide6.QtWidgets import QApplication

    QApplication.instance() or QApplication(sys.argv[:1])
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    state, view = _perspective(None, size)
    # The best transformation of the example's study (docs/utility.md): Age in 10-year
    # intervals shows how statistics are computed from generalized values.
    state.select(SHOWN_TRANSFORMATION, apply=True)
    wait_until(lambda: view.bundle is not None)
    written = []
    view.summary.select("Age")
    view.tabs.setCurrentWidget(view.summary)
    written.append(save_png(view, output / f"utility-summary{suffix}.png"))
    view.distribution.select("Age")
    view.tabs.setCurrentWidget(view.distribution)
    written.append(save_png(view, output / f"utility-distribution{suffix}.png"))
    view.contingency.select("Age", "Hospital ID")
    view.tabs.setCurrentWidget(view.contingency)
    written.append(save_png(view, output / f"utility-contingency{suffix}.png"))
    view.tabs.setCurrentWidget(view.classes)
    written.append(save_png(view, output / f"utility-classes{suffix}.png"))
    view.tabs.setCurrentWidget(view.data_tables)
    wait_until(lambda: view.data_tables.tables.output_model.rowCount() > 0)
    written.append(save_png(view, output / f"utility-data{suffix}.png"))
    view.tabs.setCurrentWidget(view.classification)
    view.classification.run()
    wait_until(lambda: not view.classification.controls.running)
    written.append(save_png(view, output / f"utility-classification{suffix}.png"))
    panel = view.classification
    panel.views.setCurrentWidget(panel.overview)
    panel.form.set_classifier("bayes")  # one cross-validation per target: the fast one
    panel.run_overview()
    wait_until(lambda: not panel.overview.controls.running)
    written.append(save_png(view, output / f"utility-classification-overview{suffix}.png"))
    view.close()
    _dispose(view)
    if not study:
        return written
    state, view = _perspective(STUDY_RECORDS, size)
    view.tabs.setCurrentWidget(view.study)
    view.study.time_limit.setValue(STUDY_SECONDS)
    view.study.run()
    wait_until(lambda: not view.study.controls.running)
    written.append(save_png(view, output / f"utility-study{suffix}.png"))
    view.close()
    _dispose(view)
    return written


def _dispose(view) -> None:
    """Delete the widgets while Qt runs: left to the interpreter's exit, PySide and
    pyqtgraph can tear down in an order that crashes."""
    import gc

    from PySide6.QtWidgets import QApplication

    view.deleteLater()
    QApplication.processEvents()
    gc.collect()


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    args = sys.argv[1:] if argv is None else argv
    for path in render_utility(Path(args[0]) if args else Path("/tmp/arxpy-shots")):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
