"""Render the Risk perspective to PNG with the example loaded and a run done.

``QT_QPA_PLATFORM=offscreen python -m screenshots.risk [DIR]`` writes
``risk-*.png`` (default DIR /tmp/arxpy-shots): one per tab, and the input alone as it
looks before a run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from arxpy.gui.rendering import save_png, wait_until

SIZE = (1280, 720)
TABS = ("attackers", "uniqueness", "quasi-identifiers", "hipaa")


def render_risk(output_dir: str | Path, size: tuple[int, int] = SIZE,
                suffix: str = "") -> list[Path]:
    """Render the Risk perspective at ``size`` into ``output_dir`` (names end in
    ``suffix``); returns the files."""
    from PySide6.QtWidgets import QApplication

    import arxpy.privacy  # noqa: F401  (registers the privacy models)
    import arxpy.quality  # noqa: F401  (registers the quality models)
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.example import example_project
    from arxpy.gui.risk.perspective import RiskPerspective
    from arxpy.gui.state import AppState

    QApplication.instance() or QApplication(sys.argv[:1])
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    project = example_project()
    state = AppState()
    state.set_project(project)
    view = RiskPerspective(state)
    view.resize(*size)
    view.show()
    wait_until(lambda: view.analysis("input") is not None and not view.busy)
    written = [save_png(view, output / f"risk-input-only{suffix}.png")]
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    state.set_result(result)
    wait_until(lambda: view.analysis("output") is not None and not view.busy)
    for index, name in enumerate(TABS):
        view.tabs.setCurrentIndex(index)
        written.append(save_png(view, output / f"risk-{name}{suffix}.png"))
    view.tabs.setCurrentIndex(0)
    view.distribution.set_mode("cumulative")
    written.append(save_png(view, output / f"risk-cumulative{suffix}.png"))
    view.close()
    view.deleteLater()
    QApplication.processEvents()
    return written


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    args = sys.argv[1:] if argv is None else argv
    for path in render_risk(Path(args[0]) if args else Path("/tmp/arxpy-shots")):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
