"""Grouping rows by equal values: the one routine behind equivalence classes everywhere.

Columns become integer codes; the codes of a row combine into one int64 key (a
mixed-radix number while it fits, renumbered densely when it would overflow); equal keys
are one group. The engine's roll-up, the risk analyses, releases and the utility
statistics all group through :func:`combine_codes`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from arxpy.jobs import CancelToken

#: Mixed-radix keys stay below this bound so that int64 arithmetic never overflows.
KEY_LIMIT = 1 << 62


def combine_codes(columns: Sequence[np.ndarray], radices: Sequence[int] | None = None,
                  cancel: CancelToken | None = None) -> tuple[np.ndarray, bool]:
    """One int64 key per row, equal exactly for rows equal in every column.

    ``radices`` bound each column's codes (default: its maximum + 1). The flag says
    whether the key is the exact mixed-radix number (decodable) or was renumbered.
    """
    n = len(columns[0]) if len(columns) else 0
    key = np.zeros(n, dtype=np.int64)
    span, exact = 1, True
    for i, column in enumerate(columns):
        radix = int(radices[i]) if radices is not None else \
            (int(column.max()) + 1 if column.size else 1)
        if span * radix >= KEY_LIMIT:
            # Too many combinations for one int64: renumber what we have so far densely.
            key, uniques = pd.factorize(key, sort=False)
            key = key.astype(np.int64)
            span, exact = max(len(uniques), 1), False
        np.multiply(key, radix, out=key)  # in place: no 8-byte temporaries per row
        np.add(key, column, out=key, casting="unsafe")
        span *= radix
        if cancel is not None:
            cancel.raise_if_cancelled()
    return key, exact and span < KEY_LIMIT


def decode_codes(values: np.ndarray, radices: Sequence[int]) -> np.ndarray:
    """Invert :func:`combine_codes` for exact keys: (len(values), len(radices)) codes,
    Fortran order."""
    out = np.empty((len(values), len(radices)), dtype=np.int64, order="F")
    rest = values  # new arrays each step: the input is left alone
    for q in range(len(radices) - 1, 0, -1):
        # Floor division by a scalar, a multiply and a subtract beat numpy's divmod.
        head = rest // radices[q]
        np.subtract(rest, head * radices[q], out=out[:, q])
        rest = head
    if len(radices):
        out[:, 0] = rest  # exact keys: what is left is below the first radix
    return out


def group_codes(columns: Sequence[np.ndarray], cancel: CancelToken | None = None
                ) -> tuple[np.ndarray, int]:
    """Group index (0..groups-1, in order of first appearance) of each row, and the count."""
    if not len(columns):
        raise ValueError("grouping needs at least one column")
    key, _ = combine_codes(columns, cancel=cancel)
    inverse, uniques = pd.factorize(key, sort=False)
    return inverse.astype(np.int64), len(uniques)


def column_codes(frame: pd.DataFrame, columns: Sequence[str]) -> list[np.ndarray]:
    """Integer codes (0..distinct-1) of each named column of ``frame`` (a missing value
    such as NaN is a value of its own, as in ARX)."""
    return [pd.factorize(frame[c].to_numpy(dtype=object), sort=False,
                         use_na_sentinel=False)[0].astype(np.int64) for c in columns]


def group_sizes(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """Sizes of the groups of rows equal in every named column (one group without columns)."""
    if not len(frame):
        return np.zeros(0, dtype=np.int64)
    if not len(columns):
        return np.array([len(frame)], dtype=np.int64)
    inverse, n_groups = group_codes(column_codes(frame, columns))
    return np.bincount(inverse, minlength=n_groups).astype(np.int64)
