"""An independent privacy checker for the tests, written from the textbook definitions.

The tests audit released tables with this module instead of arxpy's own checks, so a
bug in arxpy cannot hide itself. It imports only numpy and pandas, never ``arxpy``. It
replaces the third-party pycanon, which pins numpy==2.0.2 and so made the suite run on
another numpy than users run; the call shapes are pycanon's ``anonymity`` module's
(``import audit as anonymity``), and tests/test_audit.py proves each function on tables
computed by hand.

A table's equivalence classes are its groups of rows that agree on every
quasi-identifier (``quasi_ident``, a list of columns); a missing value forms a group of
its own. For a sensitive attribute, ``p`` is a value's share in the whole table and
``q`` its share in a class. Missing sensitive values count as a value of their own.
With several sensitive attributes, each measure is taken for each and the worst is
returned.

- k-anonymity: k = the size of the smallest class.
- distinct l-diversity: l = the fewest distinct sensitive values in a class.
- entropy l-diversity: l = exp(min over classes of H), H = -sum q ln q; an exact float
  (a class with four values once each gives 4 up to rounding, not int-truncated 3).
- t-closeness: t = the largest Earth Mover's Distance between a class's ``q`` and ``p``.
  Non-numeric columns use the equal ground distance: EMD = 0.5 * sum |q - p|. Numeric
  columns use the ordered distance over the m distinct values of the whole table, sorted:
  EMD = sum_i |sum_{j<=i} (q_j - p_j)| / (m - 1).
- basic beta-likeness: beta = the largest relative gain (q - p) / p over classes and
  values with q > p (0 when every class has the table's distribution).
- delta-disclosure: delta = the largest |ln(q / p)| over classes and the values present
  in the class (natural logarithm; ARX states delta with log2).
- wildcard k-anonymity (cell suppression): k = the fewest records any record is
  compatible with (equal wherever neither shows the wildcard ``*``), itself included;
  the wildcard average risk is the mean over records of 1 / that count.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _class_ids(data: pd.DataFrame, quasi_ident) -> np.ndarray:
    """Each row's equivalence class, 0..n_classes-1 (missing values group together)."""
    return data.groupby(list(quasi_ident), dropna=False, sort=False).ngroup().to_numpy()


def _shares(data: pd.DataFrame, quasi_ident, sens_att: str):
    """(q, p): the (classes x values) shares of ``sens_att`` in each class and its shares
    in the whole table; the columns are the table's distinct values, sorted."""
    codes, _ = pd.factorize(data[sens_att], sort=True, use_na_sentinel=False)
    counts = pd.crosstab(_class_ids(data, quasi_ident), codes).to_numpy(dtype=float)
    q = counts / counts.sum(axis=1, keepdims=True)
    p = counts.sum(axis=0) / counts.sum()
    return q, p


def k_anonymity(data: pd.DataFrame, quasi_ident) -> int:
    """The size of the smallest equivalence class."""
    return int(data.groupby(list(quasi_ident), dropna=False).size().min())


def l_diversity(data: pd.DataFrame, quasi_ident, sens_att) -> int:
    """The fewest distinct sensitive values in an equivalence class."""
    return min(int((_shares(data, quasi_ident, s)[0] > 0).sum(axis=1).min()) for s in sens_att)


def _entropy(q: np.ndarray) -> np.ndarray:
    """Each row's entropy -sum q ln q (natural log; 0 ln 0 = 0)."""
    logs = np.log(q, out=np.zeros_like(q), where=q > 0)
    return -(q * logs).sum(axis=1)


def entropy_l_diversity(data: pd.DataFrame, quasi_ident, sens_att) -> float:
    """exp of the smallest class entropy (an exact float, not truncated)."""
    return float(np.exp(min(_entropy(_shares(data, quasi_ident, s)[0]).min()
                            for s in sens_att)))


def _emd(q: np.ndarray, p: np.ndarray, ordered: bool) -> np.ndarray:
    """Each class's Earth Mover's Distance to ``p``: ordered or equal ground distance."""
    if not ordered:
        return 0.5 * np.abs(q - p).sum(axis=1)
    m = len(p)
    if m == 1:
        return np.zeros(len(q))
    return np.abs(np.cumsum(q - p, axis=1)).sum(axis=1) / (m - 1)


def t_closeness(data: pd.DataFrame, quasi_ident, sens_att) -> float:
    """The largest EMD between a class and the table (ordered distance for numeric
    columns, equal distance otherwise)."""
    return max(
        float(_emd(*_shares(data, quasi_ident, s),
                   ordered=pd.api.types.is_numeric_dtype(data[s])).max())
        for s in sens_att
    )


def basic_beta_likeness(data: pd.DataFrame, quasi_ident, sens_att) -> float:
    """The largest relative gain (q - p) / p over classes and values with q > p."""
    def beta(q, p):
        return float(np.clip((q - p) / p, 0.0, None).max())
    return max(beta(*_shares(data, quasi_ident, s)) for s in sens_att)


def delta_disclosure(data: pd.DataFrame, quasi_ident, sens_att) -> float:
    """The largest |ln(q / p)| over classes and the values present in the class."""
    def delta(q, p):
        ratio = q / p
        return float(np.abs(np.log(ratio, out=np.zeros_like(ratio), where=ratio > 0)).max())
    return max(delta(*_shares(data, quasi_ident, s)) for s in sens_att)


def _wildcard_fk(data: pd.DataFrame, quasi_ident, wildcard: str) -> np.ndarray:
    """Per record, the records compatible with it (itself included); brute force over
    every pair of records, O(n^2): for small tables only."""
    cells = data[list(quasi_ident)].astype(str).to_numpy()
    wild = cells == wildcard
    agree = (cells[:, None, :] == cells[None, :, :]) | wild[:, None, :] | wild[None, :, :]
    return agree.all(axis=2).sum(axis=1)


def wildcard_k_anonymity(data: pd.DataFrame, quasi_ident, wildcard: str = "*") -> int:
    """The fewest records any record is compatible with, itself included, where a cell
    showing ``wildcard`` matches any value (sdcMicro's fk with alpha = 1)."""
    return int(_wildcard_fk(data, quasi_ident, wildcard).min())


def wildcard_average_risk(data: pd.DataFrame, quasi_ident, wildcard: str = "*") -> float:
    """The mean over records of 1 / (records compatible with it), ``wildcard`` matching
    any value."""
    return float(np.mean(1.0 / _wildcard_fk(data, quasi_ident, wildcard)))
