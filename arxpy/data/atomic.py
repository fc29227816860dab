"""All-or-nothing file writes.

A file is written to a temporary sibling and renamed onto the target only when the
whole write succeeded, so a failure (an exception, a full disk, a crash) never leaves
a half-written target: the old file stays as it was and the temporary file is removed.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from arxpy.errors import ArxpyError, DataExportError

_TEMPORARY_SUFFIX = ".tmp"
#: Where process ids cannot be probed, a temporary this old is an abandoned one.
_STALE_AFTER_SECONDS = 3600.0


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
    with atomic_path(path, error_type=error_type) as temporary:
        try:
            # Exclusive create ("x") so the new file gets the usual permissions (umask).
            handle = open(
                temporary,
                mode.replace("w", "x"),
                encoding=encoding if mode == "w" else None,
                newline=newline if mode == "w" else None,
            )
        except OSError as exc:
            raise error_type(_describe(Path(path), exc)) from exc
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())


@contextmanager
def atomic_path(path: str | os.PathLike[str], *,
                error_type: type[ArxpyError] = DataExportError) -> Iterator[Path]:
    """A temporary sibling of ``path`` for a writer that opens files itself (DuckDB's
    ``COPY``, pandas' Parquet writer); renamed onto ``path`` when the block succeeds,
    removed when it raises, as :func:`atomic_write` does."""
    target = Path(path)
    _refuse_read_only(target, error_type)
    remove_stale_temporaries(target)
    temporary = target.with_name(
        f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}{_TEMPORARY_SUFFIX}")
    try:
        yield temporary
        if not temporary.exists():
            raise error_type(f"Nothing was written to '{target}'.")
        _keep_permissions(target, temporary)
        os.replace(temporary, target)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise error_type(_describe(target, exc)) from exc
        raise


def remove_stale_temporaries(target: str | os.PathLike[str]) -> list[Path]:
    """Remove temporaries of earlier writes of ``target`` whose writer has died.

    A killed save cannot remove its own temporary file; the next write or open of the
    same target does. Only names this module creates are touched (``.NAME.PID-HEX.tmp``,
    and ``.NAME.PID-HEX.tmp.d``: the folder of parts a distributed writer such as Spark
    fills before joining them into the temporary) and only when process PID no longer
    runs on this machine. Returns the files and folders removed.
    """
    target = Path(target)
    removed = []
    pattern = re.compile(re.escape(f".{target.name}.") + r"(\d+)-[0-9a-f]{8}"
                         + re.escape(_TEMPORARY_SUFFIX) + r"(\.d)?")
    with suppress(OSError):
        for candidate in target.parent.iterdir():
            match = pattern.fullmatch(candidate.name)
            if match and _is_stale(candidate, int(match.group(1))):
                with suppress(OSError):
                    if match.group(2) and candidate.is_dir() and not candidate.is_symlink():
                        shutil.rmtree(candidate)
                    else:
                        candidate.unlink()
                    removed.append(candidate)
    return removed


def _is_stale(temporary: Path, pid: int) -> bool:
    if os.name == "nt":  # os.kill would terminate the process there: go by age instead
        return time.time() - temporary.stat().st_mtime > _STALE_AFTER_SECONDS
    return not _process_alive(pid)


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # another write of ours may be in progress on another thread
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # exists but belongs to someone else, or cannot tell: keep it
    return True


def _refuse_read_only(target: Path, error_type: type[ArxpyError]) -> None:
    """A file marked read-only is protected by its owner: never rename over it.

    The rename would replace it even though it cannot be written (and root can write
    anything), so the mode bits decide, not :func:`os.access`.
    """
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return
    if stat.S_ISREG(mode) and not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise error_type(
            f"Cannot write '{target}': the file is read-only. Choose another name or make "
            "it writable first.")


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


def write_new_file(path: str | os.PathLike[str], content: bytes, mode: int) -> None:
    """Create ``path`` holding ``content`` with exactly ``mode`` (0600 for a secret).

    Never replaces a file nor follows a link already there: :class:`FileExistsError`
    then; other failures are the :class:`OSError` the system gives.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags, mode)
    with os.fdopen(descriptor, "wb") as out:
        if hasattr(os, "fchmod"):
            os.fchmod(descriptor, mode)  # the umask can only narrow; make it exact
        out.write(content)
        out.flush()
        os.fsync(descriptor)
