"""All-or-nothing file writes.

A file is written to a temporary sibling and renamed onto the target only when the
whole write succeeded, so a failure (an exception, a full disk, a crash) never leaves
a half-written target: the old file stays as it was and the temporary file is removed.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from arxpy.errors import ArxpyError, DataExportError


@contextmanager
def atomic_write(
    path: str | os.PathLike[str],
    mode: str = "w",
    *,
    encoding: str | None = "utf-8",
    newline: str | None = None,
    error_type: type[ArxpyError] = DataExportError,
) -> Iterator[IO[Any]]:
    """Open ``path`` for writing so that it is replaced only if the block succeeds.

    ``mode`` is ``"w"`` (text, with ``encoding`` and ``newline`` as for :func:`open`)
    or ``"wb"`` (bytes). The data go to a hidden temporary file in the same folder,
    which is flushed to disk and renamed onto ``path`` when the block ends normally;
    an existing target keeps its permission bits. If the block raises, the target is
    untouched, the temporary file is removed and the exception propagates. Operating
    system errors (missing folder, no permission, disk full) are raised as
    ``error_type`` with a message naming the file.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', not {mode!r}")
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        # Exclusive create ("x") so the new file gets the usual permissions (umask).
        handle = open(
            temporary,
            mode.replace("w", "x"),
            encoding=encoding if mode == "w" else None,
            newline=newline if mode == "w" else None,
        )
    except OSError as exc:
        raise error_type(_describe(target, exc)) from exc
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _keep_permissions(target, temporary)
        os.replace(temporary, target)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise error_type(_describe(target, exc)) from exc
        raise


def _keep_permissions(target: Path, temporary: Path) -> None:
    """Give the new file the permission bits of the file it replaces, if any."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return
    os.chmod(temporary, mode)


def _describe(target: Path, exc: OSError) -> str:
    """A message for the user: which file, what went wrong, what to change."""
    folder = target.parent if str(target.parent) else Path(".")
    if exc.errno == errno.ENOENT:
        return (
            f"Cannot write '{target}': the folder '{folder}' does not exist. "
            "Choose an existing folder."
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (
            f"Cannot write '{target}': permission denied. Choose a folder you can write to "
            "or check that the file is not read-only."
        )
    if exc.errno == errno.EISDIR or target.is_dir():
        return f"Cannot write '{target}': it is a folder. Choose a file name."
    if exc.errno == errno.ENOSPC:
        return f"Cannot write '{target}': the disk is full. Free some space and try again."
    return f"Cannot write '{target}': {exc.strerror or exc}."
