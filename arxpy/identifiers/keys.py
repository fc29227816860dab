"""The secret key of keyed pseudonyms and date shifts, and its key file.

The key lives only in a file the user chooses (created by ``arxpy keygen --pseudonym``
with owner-only permissions) and in memory while a release is made. A
:class:`PseudonymKey` holds the HMAC's two padded key blocks (for DuckDB's SQL HMAC) and
their hash states, never the file's bytes as such, cannot be pickled (so it cannot slip
into a project or an autosave), and shows only its fingerprint: HMAC-SHA-256(key,
``"arxpy key fingerprint v1\\0"``), first 16 hex digits. A release that records the
fingerprint proves it used the same key as another without revealing it.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

from arxpy.data.atomic import write_new_file
from arxpy.errors import ConfigurationError

#: Bytes of a key created by :func:`create_key_file` (256 bits, SHA-256's block strength).
KEY_BYTES = 32
#: The shortest key accepted from a file (128 bits).
MIN_KEY_BYTES = 16
#: A key file is small; a larger file is not a key file (it may be the data).
MAX_KEY_FILE_BYTES = 4096
#: The label whose MAC is the key's fingerprint, and the fingerprint's length in hex digits.
FINGERPRINT_LABEL = "arxpy key fingerprint v1"
FINGERPRINT_DIGITS = 16
_BLOCK = 64  # SHA-256's block size, as RFC 2104 pads the key


class PseudonymKey:
    """A secret key for HMAC-SHA-256 (RFC 2104), as the two padded blocks and their hash
    states.

    ``digests(label, values)`` is HMAC-SHA-256(key, label + NUL + value) for each value
    (UTF-8): the label separates uses of one key (pseudonyms of a namespace, date shifts).
    """

    __slots__ = ("_inner", "_outer", "_pads", "fingerprint")

    def __init__(self, secret: bytes) -> None:
        if len(secret) < MIN_KEY_BYTES:
            raise ConfigurationError(
                f"A pseudonym key needs at least {MIN_KEY_BYTES} bytes; create one with "
                "'arxpy keygen --pseudonym KEYFILE'.")
        block = secret if len(secret) <= _BLOCK else hashlib.sha256(secret).digest()
        block = block.ljust(_BLOCK, b"\0")
        self._pads = (bytes(b ^ 0x36 for b in block), bytes(b ^ 0x5C for b in block))
        self._inner = hashlib.sha256(self._pads[0])
        self._outer = hashlib.sha256(self._pads[1])
        self.fingerprint: str = self.digests(FINGERPRINT_LABEL, [""])[0].hex()[
            :FINGERPRINT_DIGITS]

    def digests(self, label: str, values: Iterable[str]) -> list[bytes]:
        """The 32-byte MAC of ``label`` NUL ``value`` for each value, in order."""
        # Copying the keyed states per value is RFC 2104 without re-padding the key:
        # about twice as fast as hmac.digest on many short values.
        inner = self._inner.copy()
        inner.update(label.encode("utf-8") + b"\0")
        outer = self._outer
        out = []
        for value in values:
            first = inner.copy()
            first.update(value.encode("utf-8"))
            second = outer.copy()
            second.update(first.digest())
            out.append(second.digest())
        return out

    def padded_blocks(self, label: str) -> tuple[bytes, bytes]:
        """(key XOR ipad, label, NUL; key XOR opad): what an engine computing the HMAC
        itself hashes first (DuckDB's ``sha256``, docs/identifiers.md). As secret as the
        key: give it to the engine as a parameter, never in SQL text or a message."""
        return self._pads[0] + label.encode("utf-8") + b"\0", self._pads[1]

    def __repr__(self) -> str:
        return f"PseudonymKey(fingerprint={self.fingerprint!r})"

    def __reduce__(self):
        raise TypeError("A pseudonym key is never pickled; keep it in its key file.")


def create_key_file(path: str | os.PathLike[str]) -> PseudonymKey:
    """Write a new key of :data:`KEY_BYTES` random bytes (``secrets``) to ``path``,
    readable and writable by the owner only (0600), all at once; refuse an existing file.

    The bytes go to a temporary sibling first, which is then hard-linked to ``path``:
    the link fails if ``path`` appeared meanwhile, so no key is ever overwritten.
    """
    target = Path(path)
    if target.exists() or target.is_symlink():
        raise ConfigurationError(
            f"'{target}' exists; a key file is never overwritten (pseudonyms made with it "
            "would no longer link). Choose another name.")
    secret = secrets.token_bytes(KEY_BYTES)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        write_new_file(temporary, secret, 0o600)
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise ConfigurationError(
                f"'{target}' exists; a key file is never overwritten. Choose another "
                "name.") from None
        except OSError:  # a file system without hard links: exclusive create instead
            write_new_file(target, secret, 0o600)
    except FileExistsError:
        raise ConfigurationError(
            f"'{target}' exists; a key file is never overwritten. Choose another name."
        ) from None
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot create the key file '{target}': {exc.strerror or exc}.") from None
    finally:
        temporary.unlink(missing_ok=True)
    return PseudonymKey(secret)


def read_key_file(path: str | os.PathLike[str]) -> PseudonymKey:
    """The key in ``path``: its bytes as they are (at least :data:`MIN_KEY_BYTES`)."""
    source = Path(path)
    try:
        with open(source, "rb") as handle:
            secret = handle.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot read the key file '{source}': {exc.strerror or exc}.") from None
    if len(secret) > MAX_KEY_FILE_BYTES:
        raise ConfigurationError(
            f"'{source}' is larger than {MAX_KEY_FILE_BYTES} bytes, so it is not a key "
            "file; give the file 'arxpy keygen --pseudonym KEYFILE' created.")
    if len(secret) < MIN_KEY_BYTES:
        raise ConfigurationError(
            f"The key file '{source}' holds fewer than {MIN_KEY_BYTES} bytes; create a key "
            "with 'arxpy keygen --pseudonym KEYFILE'.")
    return PseudonymKey(secret)


def readable_by_others(path: str | os.PathLike[str]) -> bool:
    """Does the key file grant any permission to its group or to others (POSIX)?"""
    if os.name != "posix":
        return False
    try:
        return bool(os.stat(path).st_mode & (stat.S_IRWXG | stat.S_IRWXO))
    except OSError:
        return False
