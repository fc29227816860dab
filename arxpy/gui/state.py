"""The application state: the Qt face of the session every perspective observes.

The session (:class:`arxpy.workflows.session.Session`, no Qt) holds the project, the
result, the runs, the pins and the undo history; :class:`AppState` owns one, offers its
members unchanged, and turns each of its named change events into the Qt signal
``<name>_changed``. Views never talk to each other: they call the editing methods here
and redraw when a signal says something changed. :class:`UndoHistory` gives the
session's command stack the members of a QUndoStack the window uses (Edit > Undo).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from arxpy.workflows.commands import CommandStack
from arxpy.workflows.session import Session, default_settings

__all__ = ["AppState", "UndoHistory", "default_settings"]  # default_settings: tests' name


class UndoHistory(QObject):
    """The session's :class:`~arxpy.workflows.commands.CommandStack` with QUndoStack's
    names and signals, so menu and toolbar actions follow it."""

    canUndoChanged = Signal(bool)  # noqa: N815 (QUndoStack's names)
    canRedoChanged = Signal(bool)  # noqa: N815
    undoTextChanged = Signal(str)  # noqa: N815
    redoTextChanged = Signal(str)  # noqa: N815
    cleanChanged = Signal(bool)  # noqa: N815

    def __init__(self, stack: CommandStack, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.stack = stack
        self._shown = self._now()
        stack.listen(self._changed)

    def _now(self) -> tuple[bool, bool, str, str, bool]:
        s = self.stack
        return s.can_undo, s.can_redo, s.undo_text, s.redo_text, s.is_clean

    def _changed(self) -> None:
        now, before = self._now(), self._shown
        self._shown = now
        signals = (self.canUndoChanged, self.canRedoChanged, self.undoTextChanged,
                   self.redoTextChanged, self.cleanChanged)
        for signal, old, new in zip(signals, before, now, strict=True):
            if old != new:
                signal.emit(new)

    def undo(self) -> None:
        self.stack.undo()

    def redo(self) -> None:
        self.stack.redo()

    def canUndo(self) -> bool:  # noqa: N802
        return self.stack.can_undo

    def canRedo(self) -> bool:  # noqa: N802
        return self.stack.can_redo

    def undoText(self) -> str:  # noqa: N802
        return self.stack.undo_text

    def redoText(self) -> str:  # noqa: N802
        return self.stack.redo_text

    def isClean(self) -> bool:  # noqa: N802
        return self.stack.is_clean

    def count(self) -> int:
        return self.stack.count

    def clear(self) -> None:
        self.stack.clear()

    def createUndoAction(self, parent: QObject, prefix: str) -> QAction:  # noqa: N802
        """An action that undoes, enabled when possible, named "prefix <step>"."""
        return self._action(parent, prefix, self.undo, self.canUndo, self.undoText,
                            self.canUndoChanged, self.undoTextChanged)

    def createRedoAction(self, parent: QObject, prefix: str) -> QAction:  # noqa: N802
        return self._action(parent, prefix, self.redo, self.canRedo, self.redoText,
                            self.canRedoChanged, self.redoTextChanged)

    @staticmethod
    def _action(parent: QObject, prefix: str, do: Callable[[], None],
                possible: Callable[[], bool], text: Callable[[], str], possible_changed: Any,
                text_changed: Any) -> QAction:
        action = QAction(parent)

        def name(step: str) -> None:
            action.setText(f"{prefix} {step}" if step else prefix)

        name(text())
        action.setEnabled(possible())
        possible_changed.connect(action.setEnabled)
        text_changed.connect(name)
        action.triggered.connect(do)
        return action


#: Session members offered unchanged by AppState (the views' API), read and written.
FORWARDED = (
    # project and saving
    "set_project", "project", "path", "input_delimiter", "has_project", "data", "definition",
    "hierarchies", "settings", "modified", "mark_saved", "discard_changes", "revision",
    # undoable edits and checks
    "set_attribute", "set_hierarchy", "set_settings", "update_settings",
    "hierarchy_problems", "config", "of_type",
    # identifiers and the key
    "identifier_plan", "set_identifier_plan", "use_key", "pseudonym_key",
    "release_inputs", "release_hierarchies", "identifier_record",
    # linked tables
    "events", "linked", "patient_table", "set_linked_tables", "set_linked", "linked_release",
    "linked_view",
    # policy presets
    "preview_preset", "apply_preset", "preset_record",
    # the lattice result, selection, staleness and the current release
    "result", "result_frame", "set_result", "fingerprint", "saved_result_record",
    "selected", "applied", "select", "stale_changes", "stale", "current_release",
    # runs and pins
    "runs", "max_runs", "current_run", "showing_runs", "run_to_drop", "add_run",
    "restore_runs", "saved_runs_records", "select_run", "show_runs", "remove_run",
    "rename_run", "pin_run", "pin_candidate", "unpin_candidate", "pins",
    "sealing_key_file", "sealing_key", "search_run", "pinned", "pin", "unpin",
    "KEPT_SEARCHES", "MAX_PINNED",
)


def _forwarded(name: str) -> property:
    return property(lambda self: getattr(self.session, name),
                    lambda self, value: setattr(self.session, name, value),
                    doc=f"The session's ``{name}``.")


class AppState(QObject):
    """The session's members, and a Qt signal for each of its change events."""

    project_changed = Signal()  # a different project (or none) is open
    definition_changed = Signal()
    hierarchy_changed = Signal(str)  # attribute name
    settings_changed = Signal()
    result_changed = Signal()  # a new result, or the old one was discarded
    #: The configuration moved away from (or, by undo, back to) the result's.
    stale_changed = Signal()
    transformation_changed = Signal()  # selected or applied transformation
    #: Runs of other methods were added, removed or renamed.
    runs_changed = Signal()
    #: Candidates were pinned or unpinned for Compare.
    pinned_changed = Signal()
    #: The current release (see :meth:`current_release`) may be another one.
    release_changed = Signal()
    modified_changed = Signal(bool)
    #: The session's pseudonym key was chosen (or forgotten with the project).
    key_changed = Signal()
    #: Linked event tables were added or removed (their choices are settings).
    linked_changed = Signal()
    path_changed = Signal()

    def __init__(self, parent: QObject | None = None,
                 session: Session | None = None) -> None:
        super().__init__(parent)
        self.session = session if session is not None else Session()
        self.undo_stack = UndoHistory(self.session.history, self)
        self.session.listen(self._announce)

    def _announce(self, name: str, *args: Any) -> None:
        try:
            getattr(self, f"{name}_changed").emit(*args)
        except RuntimeError:  # the session outlived the window's C++ object: nobody listens
            pass


for _name in FORWARDED:
    setattr(AppState, _name, _forwarded(_name))

