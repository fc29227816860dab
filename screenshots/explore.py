"""Render the Explore perspective's views to PNG (for the README and for review).

``render_explore(output_dir)`` opens the bundled example, runs the anonymization,
pins three transformations and saves ``explore-lattice.png``, ``explore-lattice-zoom.png``,
``explore-list.png``, ``explore-compare.png``, ``explore-io.png`` and
``explore-export.png``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from arxpy.gui.rendering import save_png, settle

SIZE = (1280, 720)
RECORDS = 20_000


def render_explore(output_dir: str | Path, size: tuple[int, int] = SIZE,
                   suffix: str = "") -> list[Path]:
    """Render every Explore view at ``size``; returns the files written (their names end
    in ``suffix``, e.g. "-1080p")."""
    from PySide6.QtWidgets import QApplication

    import arxpy.privacy  # noqa: F401  (registers the models)
    import arxpy.quality  # noqa: F401
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.example import example_project
    from arxpy.gui.explore.perspective import ExplorePerspective
    from arxpy.gui.state import AppState

    app = QApplication.instance() or QApplication(sys.argv[:1])
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    state = AppState()
    project = example_project(records=RECORDS)
    state.set_project(project)
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    view = ExplorePerspective(state)
    view.resize(*size)
    view.show()
    state.set_result(result)
    candidates = pin_candidates(result)
    for levels in candidates:
        state.pin(levels)
    state.select(candidates[1])
    settle(3.0)
    written = [save_png(view, output / f"explore-lattice{suffix}.png")]
    view.lattice.center_on(result.optimum.levels, 30.0)
    written.append(save_png(view, output / f"explore-lattice-zoom{suffix}.png"))
    view.lattice.fit()
    for index, name in ((1, "list"), (2, "compare"), (3, "io")):
        view.tabs.setCurrentIndex(index)
        settle(3.0)
        written.append(save_png(view, output / f"explore-{name}{suffix}.png"))
    dialog = view.export_dialog()
    dialog.show()
    written.append(save_png(dialog, output / f"explore-export{suffix}.png"))
    dialog.close()
    view.close()
    app.processEvents()
    return written


def pin_candidates(result, count: int = 3) -> list[tuple[int, ...]]:
    """The optimum and the next-best anonymous transformations by score."""
    anonymous = [t for t in result.checked_transformations() if t.state == "anonymous"]
    anonymous.sort(key=lambda t: (t.score, t.levels))
    chosen = [t.levels for t in anonymous[:1]]
    # Prefer candidates that differ in suppression, so the comparison shows a trade-off.
    for t in anonymous[1:]:
        if len(chosen) == count:
            break
        if t.levels not in chosen:
            chosen.append(t.levels)
    return chosen


if __name__ == "__main__":
    for written in render_explore(sys.argv[1] if len(sys.argv) > 1 else "/tmp/arxpy-shots"):
        print(written)
