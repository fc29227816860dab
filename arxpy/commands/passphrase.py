"""The passphrase of a re-identification table: from a file, an environment variable or
a prompt on a terminal, never from the command line (where other users and the shell's
history would see it). It reaches no message, report or log.
"""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path

from arxpy.errors import ConfigurationError

#: The environment variable holding the passphrase when no file is given.
PASSPHRASE_VARIABLE = "ARXPY_PASSPHRASE"
_MAX_FILE_BYTES = 4096


def read_passphrase(path: Path | None, *, confirm: bool) -> str:
    """The passphrase: the first line of ``path``, else ``$ARXPY_PASSPHRASE``, else typed
    on a terminal (twice with ``confirm``, for a new table)."""
    if path is not None:
        return _from_file(path)
    if os.environ.get(PASSPHRASE_VARIABLE):
        return os.environ[PASSPHRASE_VARIABLE]
    if not sys.stdin.isatty():
        raise ConfigurationError(
            f"The re-identification table needs a passphrase: give --passphrase-file FILE "
            f"or set {PASSPHRASE_VARIABLE} (or run on a terminal to type it).")
    typed = getpass.getpass("Passphrase of the re-identification table: ")
    if confirm and getpass.getpass("The same passphrase again: ") != typed:
        raise ConfigurationError("The two passphrases differ; type the same one twice.")
    return typed


def _from_file(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(_MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot read the passphrase file '{path}': {exc.strerror or exc}.") from None
    if len(raw) > _MAX_FILE_BYTES:
        raise ConfigurationError(
            f"'{path}' is larger than {_MAX_FILE_BYTES} bytes, so it is not a passphrase "
            "file; give a file holding the passphrase on its first line.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigurationError(f"The passphrase file '{path}' is not UTF-8 text.") from None
    lines = text.splitlines()
    if not lines or not lines[0]:
        raise ConfigurationError(
            f"The passphrase file '{path}' is empty; write the passphrase on its first line.")
    return lines[0]
