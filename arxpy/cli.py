"""The ``arxpy`` command line: argparse over the same API the GUI uses.

User errors (:class:`~arxpy.errors.ArxpyError`) print one line on stderr and exit
with status 2; they never show a traceback.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Sequence
from types import FrameType
from typing import NoReturn

from arxpy._version import __version__
from arxpy.errors import ArxpyError
from arxpy.jobs import noting_interrupts

#: Sub-command modules under ``arxpy.commands``, in help order.
COMMANDS = ("gui", "example", "run", "anonymize", "evaluate", "study", "risk", "methods",
            "intervals", "condense", "compare_models", "disassociate", "km_check",
            "synth_ehr", "setvalued_utility", "setvalued_risk", "kpbms", "pbca",
            "kpbms_evaluate", "keygen", "reidentify", "replay", "verify_certificate", "diff",
            "glossary")


#: What an interrupted run (Ctrl-C) prints, and its exit status (128 + SIGINT).
INTERRUPTED_LINE = "arxpy: interrupted"
INTERRUPTED_STATUS = 130
#: The exit status when the reader of the output went away (128 + SIGPIPE, as a shell's).
BROKEN_PIPE_STATUS = 141


class CommandParser(argparse.ArgumentParser):
    """argparse with the project's one-line errors: a bad option prints
    ``arxpy: error: ...`` naming it and the command's --help, and exits with status 2
    (sub-command parsers inherit the class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"arxpy: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="arxpy",
        description="De-identification workbench for health data. "
        "Without a command, starts the desktop application.",
    )
    parser.add_argument("--version", action="version", version=f"arxpy {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"arxpy.commands.{name}")
        except ModuleNotFoundError as exc:  # a command still being built
            if exc.name != f"arxpy.commands.{name}":
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Ctrl-C ends with one line and status 130 at any point, the seconds spent importing
    # the sub-commands included; outputs are written atomically, so none is half-written.
    try:
        with noting_interrupts(), _user_warnings():
            return _run(argv)
    except ArxpyError as exc:
        print(f"arxpy: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(INTERRUPTED_LINE, file=sys.stderr)
        return INTERRUPTED_STATUS
    except BrokenPipeError:
        # The reader stopped reading (`arxpy methods | head`): the rest is not wanted.
        # Standard output goes to the null device so the exit's flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE_STATUS


@contextlib.contextmanager
def _user_warnings():
    """Warnings meant for the user (a duplicated column name, numbers that may be
    codes, values spelled several ways: every DataWarning) as one ``arxpy: warning:``
    line each, not Python's file-and-line form."""
    from arxpy.data.value_checks import DataWarning

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, DataWarning):
            print(f"arxpy: warning: {message}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():  # restores the filters and showwarning afterwards
        # Once per message and run: a fresh filter also forgets what an earlier run in
        # this process (a script, a test) showed, which "default" would stay silent on.
        warnings.simplefilter("default", DataWarning)
        warnings.showwarning = show
        yield


def console_main() -> NoReturn:
    """The ``arxpy`` program: :func:`main`, then exit with its status.

    Ctrl-C before :func:`main` takes over, or after it returns, ends with the same line
    and status as during the run. Python would otherwise ignore it while it runs its
    exit handlers (exit 0) or, once its teardown has reset the signal (half a second
    after scikit-learn or statsmodels were loaded), die by it without a word.
    """
    signal.signal(signal.SIGINT, _interrupted_outside_main)  # main restores it on return
    status = main()
    if "PySide6.QtWidgets" in sys.modules or _threads_still_working():
        sys.exit(status)  # Qt saves settings as its objects go; threads are waited for
    atexit._run_exitfuncs()  # temporary folders, loggers, engines' sessions
    _flush_streams()
    os._exit(status)  # every output is complete: skip the module teardown


def _threads_still_working() -> bool:
    return any(t.is_alive() and not t.daemon for t in threading.enumerate()
               if t is not threading.main_thread())


def _flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:  # a signal may land inside a write: then that stream stays as it is
            stream.flush()
        except (OSError, RuntimeError, ValueError):
            pass


def _interrupted_outside_main(_signum: int, _frame: FrameType | None) -> None:
    _flush_streams()
    os.write(2, f"{INTERRUPTED_LINE}\n".encode())  # not the buffered (re-entrant) stderr
    os._exit(INTERRUPTED_STATUS)


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not _names_command(parser, argv):
        argv = ["gui", *argv]  # `arxpy [PROJECT] [--example]` starts the GUI
    args = parser.parse_args(argv)
    from arxpy.commands.files import refuse_overwriting_inputs

    refuse_overwriting_inputs(parser, args)
    return int(args.func(args) or 0)


def _names_command(parser: argparse.ArgumentParser, argv: list[str]) -> bool:
    """Does ``argv`` start with a sub-command or a top-level option such as --help?"""
    if not argv:
        return False
    first = argv[0]
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    return first in commands or first in ("-h", "--help", "--version")


if __name__ == "__main__":
    console_main()
