"""HMAC-SHA-256 of every value of an Arrow string array in one call (issue 32).

The compiled kernel (``arxpy.lattice._kernels.hmac_sha256``) hashes a batch with the
GIL released, two SHA-256 compressions per short value from the keyed states (with the
SHA extensions, two values side by side: 84 ns a value against 155 ns one at a time),
so DuckDB's threads hash their chunks in parallel; where it was not built,
:meth:`PseudonymKey.digests` (Python's hashlib) gives the same bytes, and the DuckDB
engine computes the MAC in SQL instead (:data:`COMPILED`).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from arxpy.identifiers.keys import PseudonymKey

try:
    from arxpy.lattice import _kernels
except ImportError:  # no compiler when arxpy was installed
    _kernels = None

#: Hash with the compiled kernel (``ARXPY_NUMPY_KERNELS=1`` turns it off, as it turns off
#: the roll-up kernels, to compare the paths or rule the kernel out).
COMPILED = _kernels is not None and hasattr(_kernels, "hmac_sha256") \
    and not os.environ.get("ARXPY_NUMPY_KERNELS")

# Two hex digits per byte, as one little-endian uint16 each.
_HEX_PAIRS = np.frombuffer(b"".join(f"{b:02x}".encode() for b in range(256)),
                           dtype="<u2")


class KeyedDigests:
    """HMAC-SHA-256(key, ``label`` NUL value) of each value of a string array.

    Holds the key's padded blocks (as secret as the key: never in SQL or a message)."""

    __slots__ = ("_blocks", "_key", "_label", "portable")

    def __init__(self, key: PseudonymKey, label: str, portable: bool = False) -> None:
        self._blocks = key.padded_blocks(label)
        self._key, self._label = key, label
        self.portable = portable  # the kernel without the SHA extensions (for the tests)

    def __call__(self, values: Any) -> np.ndarray:
        """An (n, 32) uint8 array: the MAC of each value (a null is the empty text)."""
        import pyarrow as pa

        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        if not COMPILED:
            texts = [v or "" for v in values.to_pylist()]
            digests = self._key.digests(self._label, texts)
            return np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(texts), 32)
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            values = values.cast(pa.large_string())
        n = len(values)
        _, offsets, data = values.buffers()
        width = np.int32 if pa.types.is_string(values.type) else np.int64
        offsets = np.frombuffer(offsets, dtype=width, count=n + 1,
                                offset=values.offset * np.dtype(width).itemsize)
        out = np.empty((n, 32), dtype=np.uint8)
        _kernels.hmac_sha256(self._blocks[0], self._blocks[1],
                             offsets.astype(np.int64), data if data is not None else b"",
                             out, self.portable)
        return out

    def __reduce__(self):
        raise TypeError("Keyed digests hold the key; they are never pickled.")


def hex_digests(digests: np.ndarray, digits: int = 64) -> Any:
    """The first ``digits`` (1 to 64) lowercase hex digits of each digest as an Arrow
    string array, as ``sha256`` in SQL and ``bytes.hex`` write them."""
    import pyarrow as pa

    n = len(digests)
    pairs = _HEX_PAIRS[digests[:, :(digits + 1) // 2]].view(np.uint8).reshape(n, -1)
    text = np.ascontiguousarray(pairs[:, :digits])
    small = digits * n < 2**31
    offsets = np.arange(0, digits * n + 1, digits, dtype=np.int32 if small else np.int64)
    return pa.Array.from_buffers(pa.string() if small else pa.large_string(), n,
                                 [None, pa.py_buffer(offsets), pa.py_buffer(text)])
