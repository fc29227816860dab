"""Render microaggregation (issue 34) to PNG for review.

``QT_QPA_PLATFORM=offscreen python -m screenshots.microaggregation [DIR]`` writes
``microaggregation-*.png`` (default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080
(``-1080p``): Configure with the example's Age microaggregated (arithmetic mean, classes
of the other quasi-identifiers), and Explore's runs page after the search (Summary and
Groups).
"""

from __future__ import annotations

from pathlib import Path

from arxpy.gui.rendering import save_png, wait_until
from screenshots import example_window, fail_on_message_boxes, render_main


def render(output_dir: str | Path, size: tuple[int, int], suffix: str = "") -> list[Path]:
    from arxpy.gui.attribute_panel import TRANSFORMATIONS

    fail_on_message_boxes()
    app, window, _scratch = example_window(size)
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    panel = window.configure.attribute_panel
    panel.select("Age")
    panel.transformation.setCurrentIndex(list(TRANSFORMATIONS).index("Microaggregation"))
    panel.transformation.activated.emit(panel.transformation.currentIndex())
    app.processEvents()
    written = [save_png(window, output / f"microaggregation-configure{suffix}.png")]
    window.anonymize()
    wait_until(lambda: window.worker is None, what="the search")
    window.state.select_run(window.state.runs[-1])
    app.processEvents()
    written.append(save_png(window, output / f"microaggregation-result{suffix}.png"))
    page = window.runs_page
    titles = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    page.tabs.setCurrentIndex(titles.index("Groups"))
    app.processEvents()
    written.append(save_png(window, output / f"microaggregation-groups{suffix}.png"))
    window.state.discard_changes()
    window.close()
    return written


def main(argv: list[str] | None = None) -> int:
    return render_main(render, argv)


if __name__ == "__main__":
    raise SystemExit(main())
