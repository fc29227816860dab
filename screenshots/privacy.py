"""Render the δ-presence dialog and its research-subset filter builder to PNG.

``QT_QPA_PLATFORM=offscreen python -m screenshots.privacy [DIR]`` writes
``dpresence-*.png`` (default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080
(``-1080p``): the main window with the example loaded and both dialogs drawn over it
where they open (does everything fit on the screen?), and each dialog alone.
"""

from __future__ import annotations

from pathlib import Path

from arxpy.gui.rendering import save_png
from screenshots import dialogs_over_window, example_window, render_main


def render(output: Path, size: tuple[int, int], suffix: str) -> list[Path]:
    from PySide6.QtCore import QPoint

    app, window, scratch = example_window(size)
    population = scratch / "population.csv"
    window.state.data.to_csv(population, index=False)
    dialog = window.configure.privacy_panel.dialog("delta-presence")
    dialog.widgets["population"].setText(str(population))
    dialog.widgets["delta_min"].setValue(0.05)
    builder = dialog.subset_dialog()
    column = str(window.state.data.columns[0])
    builder.rows[0][0].setCurrentText(column)
    builder.rows[0][2].setText(str(window.state.data[column].iloc[0]))
    builder.add_condition({"attribute": str(window.state.data.columns[1]), "operator": "!=",
                           "value": str(window.state.data.iloc[0, 1])})
    dialog.widgets["subset_filter"].setText(__import__("json").dumps(builder.conditions()))
    written = [save_png(dialog, output / f"dpresence-dialog{suffix}.png", show=True),
               save_png(builder, output / f"dpresence-subset{suffix}.png", show=True)]
    written.append(dialogs_over_window(
        window, size, [(dialog, QPoint(0, 0)), (builder, QPoint(60, 60))],
        output / f"dpresence-window{suffix}.png"))
    builder.close()
    dialog.close()
    window.state.discard_changes()
    window.close()
    return written


def main(argv: list[str] | None = None) -> int:
    return render_main(render, argv)


if __name__ == "__main__":
    raise SystemExit(main())
