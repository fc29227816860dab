"""Undoable edits as commands on a stack, and named change events (no Qt).

The shape of glue's Qt-free command stack and of QUndoStack's public behaviour: a
command is done when pushed, undo and redo walk the stack, pushing after an undo drops
what was undone, and "clean" marks the index that was saved. A GUI wraps the stack in
its own actions (``arxpy.gui.state.UndoHistory``); tests drive it without Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol


class Command(Protocol):
    """One undoable step; ``text`` names it in the Edit menu ("Edit hierarchy of 'age'")."""

    text: str

    def redo(self) -> None: ...

    def undo(self) -> None: ...


class Change:
    """Swap one piece of state between an old and a new value (both kept, immutable)."""

    def __init__(self, text: str, apply: Callable[[Any], None], old: Any, new: Any) -> None:
        self.text = text
        self._apply, self._old, self._new = apply, old, new

    def redo(self) -> None:
        self._apply(self._new)

    def undo(self) -> None:
        self._apply(self._old)


class Macro:
    """Commands done and undone together as one step (undone in reverse order)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.commands: list[Command] = []

    def redo(self) -> None:
        for command in self.commands:
            command.redo()

    def undo(self) -> None:
        for command in reversed(self.commands):
            command.undo()


class CommandStack:
    """Done and undone commands, the clean (saved) index, and listeners told after each
    change of any of them (``listener()``, no arguments: ask the stack what changed)."""

    def __init__(self) -> None:
        self._commands: list[Command] = []
        self._index = 0  # commands below it are done, the rest undone
        self._clean: int | None = 0  # None: the saved state was dropped by a push
        self._macro: Macro | None = None
        self._listeners: list[Callable[[], None]] = []

    def listen(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def push(self, command: Command) -> None:
        """Do ``command`` and put it on top; what was undone can no longer be redone. A
        command that raises is not pushed."""
        command.redo()
        if self._macro is not None:
            self._macro.commands.append(command)
            return
        self._put(command)

    def _put(self, command: Command) -> None:
        if self._clean is not None and self._clean > self._index:
            self._clean = None  # the saved state was among the commands dropped
        del self._commands[self._index:]
        self._commands.append(command)
        self._index += 1
        self._changed()

    @contextmanager
    def macro(self, text: str) -> Iterator[None]:
        """Commands pushed inside become one step named ``text`` (nested: one step)."""
        if self._macro is not None:
            yield
            return
        self._macro = Macro(text)
        try:
            yield
        finally:
            macro, self._macro = self._macro, None
            if macro.commands:
                self._put(macro)

    def undo(self) -> None:
        if self.can_undo:
            self._index -= 1
            self._commands[self._index].undo()
            self._changed()

    def redo(self) -> None:
        if self.can_redo:
            self._commands[self._index].redo()
            self._index += 1
            self._changed()

    def clear(self) -> None:
        """Forget every command; the state now is clean."""
        self._commands, self._index, self._clean = [], 0, 0
        self._changed()

    def set_clean(self) -> None:
        """The state now is the saved one."""
        self._clean = self._index
        self._changed()

    @property
    def is_clean(self) -> bool:
        return self._clean == self._index

    @property
    def can_undo(self) -> bool:
        return self._index > 0

    @property
    def can_redo(self) -> bool:
        return self._index < len(self._commands)

    @property
    def undo_text(self) -> str:
        """The name of the step undo would revert ("" if none)."""
        return self._commands[self._index - 1].text if self.can_undo else ""

    @property
    def redo_text(self) -> str:
        return self._commands[self._index].text if self.can_redo else ""

    @property
    def count(self) -> int:
        """Commands held, done and undone."""
        return len(self._commands)


class Events:
    """Named change events (``"definition"``, ``"hierarchy"`` with the attribute, ...)
    and the listeners told of each as ``listener(name, *args)``."""

    def __init__(self) -> None:
        self._listeners: list[Callable[..., None]] = []

    def listen(self, listener: Callable[..., None]) -> None:
        self._listeners.append(listener)

    def emit(self, name: str, *args: Any) -> None:
        for listener in list(self._listeners):
            listener(name, *args)
