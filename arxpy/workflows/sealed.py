"""Objects kept in a project file under this installation's seal (no Qt).

A method run's release is more than a table (a condensation's matrices, kPB-MS's
traces), so it is kept pickled; and pickle must never read bytes from anyone else. So
the bytes are sealed with HMAC-SHA256 under a key that only this user's installation
holds (a file of random bytes, readable by the user alone). A seal that verifies was
written here by arxpy and is read back; anything else (a file from another machine, an
edited record) is refused, and the caller computes the object again instead.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import pickle
import secrets
import zlib
from pathlib import Path
from typing import Any

from arxpy.data.atomic import write_new_file

#: Layout of a seal; seals of another version are not opened.
SEAL_VERSION = 1
KEY_BYTES = 32
#: Largest pickle kept in a project (larger objects are computed again on open).
MAX_SEALED_BYTES = 256 * 2**20


def installation_key(path: Path) -> bytes:
    """The key stored at ``path``, created (user-only permissions) on first use."""
    path = Path(path)
    try:
        key = path.read_bytes()
        if len(key) == KEY_BYTES:
            return key
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)  # damaged: a new key (what it sealed is computed again)
    key = secrets.token_bytes(KEY_BYTES)
    try:
        write_new_file(path, key, 0o600)
    except FileExistsError:  # another arxpy made it meanwhile: that one counts
        return installation_key(path)
    return key


def seal(value: Any, key: bytes, context: str) -> dict[str, Any] | None:
    """``value`` pickled, compressed and sealed for ``context`` (what it belongs to, e.g.
    a run's fingerprint and output hash); None if it is too large to keep."""
    data = zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 6)
    if len(data) > MAX_SEALED_BYTES:
        return None
    return {"version": SEAL_VERSION, "data": base64.b64encode(data).decode("ascii"),
            "mac": _mac(key, context, data)}


def unseal(sealed: Any, key: bytes, context: str) -> Any | None:
    """The value of a seal this installation wrote for ``context``; None otherwise
    (nothing is unpickled before the seal verifies)."""
    if not isinstance(sealed, dict) or sealed.get("version") != SEAL_VERSION:
        return None
    text, mac = sealed.get("data"), sealed.get("mac")
    if not isinstance(text, str) or not isinstance(mac, str) \
            or len(text) > MAX_SEALED_BYTES * 4 // 3 + 4:
        return None
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    if not hmac.compare_digest(_mac(key, context, data), mac):
        return None
    try:
        return pickle.loads(zlib.decompress(data))  # noqa: S301 - sealed by this installation
    except Exception:  # written by another arxpy version: computed again instead
        return None


def _mac(key: bytes, context: str, data: bytes) -> str:
    return hmac.new(key, context.encode() + b"\x00" + data, hashlib.sha256).hexdigest()
