"""Options that name files, declared where they are added, and the one overwrite guard.

Every command adds an option naming files it reads with :func:`add_input_option` and
one naming files or folders it writes with :func:`add_output_option` (or marks an
option it already has with :func:`declare_files`). The declaration sits on the argparse
action, so :func:`refuse_overwriting_inputs` finds every input and every output of the
command being run by reading its parser: no list of option names to keep in step, and
a test walks every parser so a new file option cannot go undeclared.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from arxpy.errors import ConfigurationError

#: The two roles a file option can have.
INPUT, OUTPUT = "input", "output"

#: ``paths(value, args)``: the files an option's parsed value names (args for options
#: whose files depend on others, such as ``--reconstruct`` with ``--reconstructions``).
PathsOf = Callable[[Any, argparse.Namespace], list[Path]]


def named_paths(value: Any, args: argparse.Namespace) -> list[Path]:
    """The value itself, or each value of a list option, as paths."""
    if value is None:
        return []
    values = value if isinstance(value, list | tuple) else [value]
    return [Path(v) for v in values if v not in (None, "")]


def assignment_paths(value: Any, args: argparse.Namespace) -> list[Path]:
    """The FILE of each ``NAME=FILE`` item (``--hierarchy age=age.csv``)."""
    items = value if isinstance(value, list | tuple) else [] if value is None else [value]
    return [Path(path) for name, sep, path in (str(i).partition("=") for i in items)
            if sep and path]


def policy_option_paths(value: Any, args: argparse.Namespace) -> list[Path]:
    """The file of a ``--policy file:PATH`` (utility constraints of set-valued data)."""
    from arxpy.data.utility_policy import policy_files

    return policy_files(value)


def declare_files(action: argparse.Action, role: str, paths: PathsOf | None = None
                  ) -> argparse.Action:
    """Mark ``action`` as naming files of ``role`` (INPUT or OUTPUT); returns it."""
    if role not in (INPUT, OUTPUT):
        raise ValueError(f"Unknown file role {role!r}")
    action.file_role = role  # type: ignore[attr-defined]
    action.file_paths = paths or named_paths  # type: ignore[attr-defined]
    return action


def add_input_option(parser: Any, *flags: str, paths: PathsOf | None = None,
                     **kwargs: Any) -> argparse.Action:
    """``parser.add_argument(*flags, **kwargs)`` for an option naming files the command
    reads (``parser`` may be a group)."""
    return declare_files(parser.add_argument(*flags, **kwargs), INPUT, paths)


def add_output_option(parser: Any, *flags: str, paths: PathsOf | None = None,
                      **kwargs: Any) -> argparse.Action:
    """``parser.add_argument(*flags, **kwargs)`` for an option naming files or folders
    the command writes (``parser`` may be a group)."""
    return declare_files(parser.add_argument(*flags, **kwargs), OUTPUT, paths)


def file_role(action: argparse.Action) -> str | None:
    """INPUT, OUTPUT, or None for an option that names no file."""
    return getattr(action, "file_role", None)


def command_actions(parser: argparse.ArgumentParser, args: argparse.Namespace
                    ) -> Iterator[argparse.Action]:
    """The actions of the top parser and of each sub-command ``args`` was parsed for
    (``arxpy run METHOD`` and ``arxpy study STUDY`` have two levels)."""
    current: argparse.ArgumentParser | None = parser
    while current is not None:
        yield from current._actions
        chooser = next((a for a in current._actions
                        if isinstance(a, argparse._SubParsersAction)), None)
        name = getattr(args, chooser.dest, None) if chooser is not None else None
        current = chooser.choices.get(name) if chooser is not None and name else None


def declared_files(actions: Iterable[argparse.Action], args: argparse.Namespace
                   ) -> tuple[list[tuple[str, Path]], list[tuple[str, Path]]]:
    """(inputs, outputs) as (option, path) pairs, in the order the options were added."""
    found: dict[str, list[tuple[str, Path]]] = {INPUT: [], OUTPUT: []}
    for action in actions:
        role = file_role(action)
        if role is None:
            continue
        option = action.option_strings[0] if action.option_strings else action.dest
        for path in action.file_paths(getattr(args, action.dest, None), args):
            found[role].append((option, path))
    return found[INPUT], found[OUTPUT]


def refuse_overwriting_inputs(parser: argparse.ArgumentParser,
                              args: argparse.Namespace) -> None:
    """Raise ConfigurationError if an output of the command names one of its inputs or
    another of its outputs.

    Paths are compared after resolving symbolic links and relative parts (and as the
    same file on disk, which catches hard links), so ``--output ./d/../data.csv`` is
    caught as well as ``--output data.csv``.
    """
    inputs, outputs = declared_files(command_actions(parser, args), args)
    for i, (option, target) in enumerate(outputs):
        for other, source in inputs + outputs[:i]:
            if _same_file(target, source):
                raise ConfigurationError(
                    f"{option} '{target}' is the same file as {other} '{source}'; writing it "
                    "would destroy that file. Choose another name.")


def _same_file(first: Path, second: Path) -> bool:
    try:
        if first.exists() and second.exists():
            return first.samefile(second)
        return first.resolve() == second.resolve()
    except OSError:  # unreadable or looping links: compare the names as given
        return os.path.abspath(first) == os.path.abspath(second)
