"""Renders of the GUI for review and for the docs (not part of the installed package).

Run from the repository's root, with Qt offscreen:
``QT_QPA_PLATFORM=offscreen python -m screenshots.app --output DIR`` (the perspectives)
and ``QT_QPA_PLATFORM=offscreen python -m screenshots.methods DIR`` (the methods' views).
"""


def fail_on_message_boxes() -> None:
    """A message box ends the render with its text instead of waiting for a click that
    never comes offscreen (a refused run would otherwise hang the script)."""
    from PySide6.QtWidgets import QMessageBox

    def refuse(_parent, title, text, *_args, **_kwargs):
        raise RuntimeError(f"A message box interrupted the render: {title}: {text}")

    for name in ("critical", "warning", "information", "question"):
        setattr(QMessageBox, name, staticmethod(refuse))
