"""The pseudonym key of a session: File > Choose pseudonym key… and Create key file…,
and the question a project with keyed treatments asks when it opens.

The key is read from its file into memory (:class:`~arxpy.identifiers.PseudonymKey`,
which keeps no key bytes and cannot be pickled) and held by the state for the session;
the project records only its fingerprint, so a wrong key is refused on the spot.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from arxpy.errors import ArxpyError
from arxpy.gui.plain_text import escaped
from arxpy.identifiers import create_key_file, read_key_file
from arxpy.identifiers.keys import readable_by_others
from arxpy.workflows.identifier_settings import recorded_fingerprint

if TYPE_CHECKING:
    from arxpy.gui.main_window import MainWindow

log = logging.getLogger(__name__)

KEY_FILTER = "Key files (*.key);;All files (*)"
LOST_KEY_WARNING = (
    "Keep the key file safe and apart from the data. A lost key cannot be recovered: a new "
    "key gives new pseudonyms and date shifts that link to no earlier release.")
Button = QMessageBox.StandardButton


class PseudonymKeyActions:
    """Chooses and creates the session's pseudonym key for ``window``."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def choose(self, path: str | Path | None = None) -> bool:
        """Read the key file at ``path`` (None: ask) and hold its key for the session;
        a key file that is unreadable or not the project's key is refused with a message."""
        window = self.window
        if path is None:
            path = window.pick_file(False, "Choose pseudonym key", KEY_FILTER, kind="keys")
            if not path:
                return False
        try:
            key = read_key_file(path)
            window.state.use_key(key)
        except ArxpyError as exc:
            window.error("Pseudonym key refused", str(exc))
            return False
        note = " The key file is readable by other users; restrict it (chmod 600)." \
            if readable_by_others(path) else ""
        log.info("Pseudonym key chosen (fingerprint %s)", key.fingerprint)
        window.statusBar().showMessage(
            f"Pseudonym key chosen (fingerprint {key.fingerprint}), held for this session "
            f"only.{note}")
        return True

    def create(self, path: str | Path | None = None) -> bool:
        """Create a new key file at ``path`` (None: ask, after the lost-key warning) and
        use its key; an existing file is never overwritten."""
        window = self.window
        if path is None:
            answer = QMessageBox.question(
                window, "Create key file", escaped(LOST_KEY_WARNING + " Create a key file?"),
                Button.Yes | Button.Cancel, Button.Cancel)
            if answer != Button.Yes:
                return False
            path = window.pick_file(True, "Create key file", KEY_FILTER, "pseudonym.key",
                                    kind="keys")
            if not path:
                return False
        try:
            key = create_key_file(path)
            window.state.use_key(key)
        except ArxpyError as exc:
            window.error("Key file not created", str(exc))
            return False
        log.info("Created a pseudonym key file (fingerprint %s)", key.fingerprint)
        window.statusBar().showMessage(
            f"Created the key file {Path(path).name} (fingerprint {key.fingerprint}); keep it "
            "safe: a lost key cannot be recovered.")
        return True

    def ask_on_open(self) -> bool:
        """A project whose treatments need a key asks for its key file (True: a key is
        held). Without one, runs needing it are refused with the reason."""
        state = self.window.state
        if not state.has_project or not state.identifier_plan.needs_key \
                or state.pseudonym_key is not None:
            return state.pseudonym_key is not None
        recorded = recorded_fingerprint(state.settings)
        which = f" (fingerprint {recorded})" if recorded else ""
        answer = QMessageBox.question(
            self.window, "Pseudonym key needed",
            escaped(f"This project makes keyed pseudonyms or shifts dates; they need its key"
                    f"{which}, which is never stored with the project. Choose the key file "
                    "now? Without it, runs are refused until you choose it (File > Choose "
                    "pseudonym key…)."), Button.Yes | Button.No, Button.Yes)
        return answer == Button.Yes and self.choose()
