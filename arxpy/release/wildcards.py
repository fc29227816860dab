"""Cells that match any value: how many records each record is compatible with.

Cell suppression (sdcMicro's ``localSuppression``) releases single quasi-identifier
cells as ``*``. By sdcMicro's convention (``freqCalc`` with alpha = 1) such a cell
matches any value, so a record's frequency ``fk`` counts every record that agrees with
it wherever both show a value, itself included. The claim checker of cell suppression,
the verdict's attacker view and the method count through :func:`compatible_counts`;
``tests/audit.py`` recounts by brute force.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from arxpy.arrays import first_appearances
from arxpy.data.codes import column_codes, combine_codes, group_codes
from arxpy.jobs import CancelToken

#: The code of a cell that matches any value.
WILDCARD = -1
#: What a suppressed cell shows (as a suppressed record's quasi-identifiers: ARX's ``*``).
SUPPRESSED_CELL = "*"


def compatible_counts(codes: np.ndarray, weights: np.ndarray | None = None,
                      cancel: CancelToken | None = None) -> np.ndarray:
    """Per row of ``codes`` (rows x attributes, :data:`WILDCARD` for a cell matching any
    value), the summed ``weights`` (default 1 each) of the rows compatible with it:
    those equal to it in every attribute where neither shows a wildcard.

    Rows are grouped by their wildcard mask; two masks A and B compare on the attributes
    outside A | B, so the cost is O(masks x rows x attributes).
    """
    rows, width = codes.shape
    weights = np.ones(rows) if weights is None else np.asarray(weights, dtype=float)
    wild = codes == WILDCARD
    mask_of, masks = _masks(wild)
    members = [np.flatnonzero(mask_of == m) for m in range(len(masks))]
    out = np.zeros(rows)
    for a, rows_a in enumerate(members):
        for b, rows_b in enumerate(members):
            if cancel is not None:
                cancel.raise_if_cancelled()
            shown = np.flatnonzero(~(masks[a] | masks[b]))
            if not shown.size:  # nothing to compare: every row of B matches
                out[rows_a] += weights[rows_b].sum()
                continue
            both = np.concatenate([rows_a, rows_b])
            key, _ = combine_codes([codes[both, j] for j in shown])
            groups, uniques = pd.factorize(key, sort=False)
            sums = np.bincount(groups[len(rows_a):], weights[rows_b], minlength=len(uniques))
            out[rows_a] += sums[groups[:len(rows_a)]]
    return out


def _masks(wild: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's wildcard mask as an index, and the distinct masks (masks x attributes)."""
    if not wild.shape[1]:
        return np.zeros(len(wild), dtype=np.int64), np.zeros((1, 0), dtype=bool)
    key, _ = combine_codes([wild[:, j].astype(np.int64) for j in range(wild.shape[1])],
                           radices=[2] * wild.shape[1])
    index, _ = pd.factorize(key, sort=False)
    return index.astype(np.int64), wild[first_appearances(index)]


def wildcard_codes(frame: pd.DataFrame, attributes: Sequence[str], wildcard: str) -> np.ndarray:
    """Integer codes of ``attributes`` (rows x attributes), :data:`WILDCARD` where a cell
    shows ``wildcard``."""
    out = np.empty((len(frame), len(attributes)), dtype=np.int64)
    for j, name in enumerate(attributes):
        values = frame[name].to_numpy(dtype=object)
        codes = pd.factorize(values, sort=False, use_na_sentinel=False)[0]
        out[:, j] = np.where(values == wildcard, WILDCARD, codes)
    return out


def compatible_records(frame: pd.DataFrame, attributes: Sequence[str], wildcard: str
                       ) -> np.ndarray:
    """Per row of ``frame``, how many rows are compatible with it over ``attributes``
    (cells showing ``wildcard`` match any value; the row itself counts)."""
    if not len(frame):
        return np.zeros(0, dtype=np.int64)
    codes = wildcard_codes(frame, attributes, wildcard)
    # Equal rows have equal counts: count once per distinct row, weighted.
    rows, count = group_codes(list((codes - WILDCARD).T))
    weights = np.bincount(rows, minlength=count)
    counts = compatible_counts(codes[first_appearances(rows)], weights)
    return np.rint(counts).astype(np.int64)[rows]


def pattern_sizes(frame: pd.DataFrame, attributes: Sequence[str],
                  fk: np.ndarray | None = None) -> np.ndarray:
    """Per distinct pattern of ``frame`` over ``attributes`` (first appearance order),
    the records compatible with it (``*`` cells matching any value); ``fk``: the
    per-row counts if already known."""
    if not len(frame):
        return np.zeros(0, dtype=np.int64)
    if fk is None:
        fk = compatible_records(frame, attributes, SUPPRESSED_CELL)
    groups, _ = group_codes(column_codes(frame, attributes))
    return fk[first_appearances(groups)]
