"""Render the proposal of Lightning or genetic for a lattice too large for the optimal
search (issue 34) to PNG.

``QT_QPA_PLATFORM=offscreen python -m screenshots.strategy_hint [DIR]`` writes
``strategy-*.png`` (default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080 (``-1080p``):
Configure with the hint under the search strategy, and the question Run asks drawn over
the window.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arxpy.gui.rendering import save_png
from screenshots import dialogs_over_window, render_main

NAMES = ("zip code", "birth date", "admission", "discharge", "ward", "diagnosis",
         "procedure", "insurer")


def wide_project():
    """200 records, eight 7-digit codes masked a digit per level: 8^8 transformations."""
    import pandas as pd

    from arxpy.data.definition import AttributeType, DataDefinition
    from arxpy.hierarchy.model import Hierarchy
    from arxpy.project import Project

    rng = np.random.default_rng(34)
    frame = pd.DataFrame({n: [f"{v:07d}" for v in rng.integers(0, 10**7, 200)] for n in NAMES})
    definition = DataDefinition.for_columns(NAMES)
    hierarchies = {}
    for name in NAMES:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
        hierarchies[name] = Hierarchy([(v, *(v[:7 - i] + "*" * i for i in range(1, 8)))
                                       for v in frame[name].unique()])
    settings = {"privacy_models": [{"kind": "k-anonymity", "k": 5}], "strategy": "optimal",
                "suppression_limit": 0.02, "quality_model": {"name": "loss"}}
    return Project(frame, definition, hierarchies, settings, name="Admissions")


def render(output: Path, size: tuple[int, int], suffix: str) -> list[Path]:
    import sys
    import tempfile

    from PySide6.QtCore import QPoint, QSettings
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.main_window import MainWindow
    from arxpy.gui.strategy_hint import current_proposal, strategy_question

    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="arxpy-shots-"))
    window = MainWindow(settings=QSettings(str(scratch / "settings.ini"),
                                           QSettings.Format.IniFormat),
                        recovery_dir=scratch / "recovery")
    window.resize(*size)
    window.show()
    window.set_project(wide_project())
    app.processEvents()
    written = [save_png(window, output / f"strategy-configure{suffix}.png")]
    box = strategy_question(window, current_proposal(window.state))
    box.show()
    app.processEvents()
    written.append(dialogs_over_window(window, size, [(box, QPoint(0, 0))],
                                       output / f"strategy-question{suffix}.png"))
    box.close()
    window.state.discard_changes()
    window.close()
    return written


def main(argv: list[str] | None = None) -> int:
    return render_main(render, argv)


if __name__ == "__main__":
    raise SystemExit(main())
