"""Render Edit › Apply policy preset… to PNG.

``QT_QPA_PLATFORM=offscreen python -m screenshots.presets [DIR]`` writes
``preset-*.png`` (default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080 (``-1080p``):
the main window with the example loaded and the dialog drawn over it where it opens
(Safe Harbor's rules), the dialog alone for each preset, and Configure after applying
Safe Harbor (ZIP code chosen: its rule under its levels).
"""

from __future__ import annotations

from pathlib import Path

from arxpy.gui.rendering import save_png
from screenshots import dialogs_over_window, example_window, render_main


def render(output: Path, size: tuple[int, int], suffix: str) -> list[Path]:
    from PySide6.QtCore import QPoint

    app, window, scratch = example_window(size)
    dialog = window.apply_preset()
    written = []
    for index, name in enumerate(("safe-harbor", "expert-determination", "pseudonymised")):
        dialog.choice.setCurrentIndex(index)
        app.processEvents()
        written.append(save_png(dialog, output / f"preset-{name}{suffix}.png", show=True))
    dialog.choice.setCurrentIndex(0)
    app.processEvents()
    written.append(dialogs_over_window(window, size, [(dialog, QPoint(0, 0))],
                                       output / f"preset-window{suffix}.png"))
    dialog.apply()
    window.configure.attribute_panel.select("ZIP code")  # its rule shows under its levels
    app.processEvents()
    written.append(save_png(window, output / f"preset-configure{suffix}.png"))
    window.state.discard_changes()
    window.close()
    return written


def main(argv: list[str] | None = None) -> int:
    return render_main(render, argv)


if __name__ == "__main__":
    raise SystemExit(main())
