"""Distinction and separation of quasi-identifier combinations (ARX ``RiskModelAttributes``).

After Motwani and Xu, "Efficient algorithms for masking and finding quasi-identifiers"
(VLDB 2007), as ARX computes them over the unsuppressed records:

* alpha-distinction = number of distinct value combinations / number of records;
* alpha-separation = fraction of the n(n-1)/2 record pairs that differ in at least one
  of the attributes, i.e. (n^2 - sum of squared class sizes) / (n(n-1)).

Every combination of up to ``max_size`` attributes is scored; rows are ordered as ARX
orders them: by size, then distinction, then separation, then name.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.arrays import distinct
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.risk.histogram import encode_columns


@dataclass(frozen=True)
class QuasiIdentifierRisk:
    """Distinction and separation of one attribute combination (both in [0, 1])."""

    attributes: tuple[str, ...]  # in data column order
    distinction: float
    separation: float

    def sort_key(self) -> tuple:
        return (len(self.attributes), self.distinction, self.separation,
                "[" + ", ".join(self.attributes) + "]")


@dataclass(frozen=True)
class QuasiIdentifierAnalysis:
    """Scores of every combination, in ARX's order."""

    risks: tuple[QuasiIdentifierRisk, ...]
    records: int

    def summary(self) -> pd.DataFrame:
        """One row per combination: attributes, size, distinction, separation."""
        return pd.DataFrame({
            "attributes": [", ".join(r.attributes) for r in self.risks],
            "size": [len(r.attributes) for r in self.risks],
            "distinction": [r.distinction for r in self.risks],
            "separation": [r.separation for r in self.risks],
        })

    def to_list(self) -> list[dict]:
        return [{"attributes": list(r.attributes), "distinction": r.distinction,
                 "separation": r.separation} for r in self.risks]


def distinction_and_separation(class_sizes: np.ndarray) -> tuple[float, float]:
    """(distinction, separation) of a partition with these class sizes; 0 where undefined."""
    sizes, counts = distinct(np.asarray(class_sizes, dtype=np.int64).ravel(),
                            return_counts=True)
    n = float(np.dot(sizes, counts))
    if n == 0:
        return 0.0, 0.0
    s, c = sizes.astype(float), counts.astype(float)
    # ARX's loop: pairs across larger classes plus pairs across equal-size classes.
    left = n - np.cumsum(s * c)
    separated = float(np.sum(c * s * left + (c - 1) * c * s * s / 2))
    pairs = (n - 1) * n / 2
    separation = separated / pairs if pairs > 0 else 0.0
    return float(c.sum()) / n, separation


def _combinations(n_attributes: int, max_size: int) -> Iterator[tuple[int, ...]]:
    """Index combinations depth-first, each after its prefix (so prefix keys can be reused)."""
    stack = [(i,) for i in reversed(range(n_attributes))]
    while stack:
        combo = stack.pop()
        yield combo
        if len(combo) < max_size:
            stack.extend(combo + (j,) for j in reversed(range(combo[-1] + 1, n_attributes)))


def analyze_quasi_identifiers(
    frame: pd.DataFrame,
    attributes: Sequence[str],
    max_size: int | None = None,
    suppressed: np.ndarray | None = None,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> QuasiIdentifierAnalysis:
    """Score every combination of 1..``max_size`` of ``attributes`` (default: all sizes).

    Attributes are taken in data column order. The number of combinations grows as
    2^len(attributes); each costs one hash pass over the records.
    """
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    names = [c for c in frame.columns if c in set(attributes)]
    encode_columns(frame, attributes)  # raises for unknown attributes
    max_size = len(names) if max_size is None else int(max_size)
    if names and not 1 <= max_size:
        raise ConfigurationError(f"The largest combination size must be 1 or more, got {max_size}.")
    max_size = min(max_size, len(names))
    kept = np.ones(len(frame), bool) if suppressed is None else ~np.asarray(suppressed, bool)
    codes = [c[kept] for c in encode_columns(frame, names)]
    total = sum(math.comb(len(names), k) for k in range(1, max_size + 1))
    keys: dict[int, np.ndarray] = {}  # depth -> dense key of the current prefix
    risks = []
    for done, combo in enumerate(_combinations(len(names), max_size)):
        cancel.raise_if_cancelled()
        column = codes[combo[-1]]
        if len(combo) == 1:
            key = column
        else:
            prefix = keys[len(combo) - 1]
            key = pd.factorize(prefix * (int(column.max()) + 1) + column)[0]
        keys[len(combo)] = key
        sizes = np.bincount(key) if key.size else np.zeros(0, np.int64)
        sizes = sizes[sizes > 0]
        distinction, separation = distinction_and_separation(sizes)
        risks.append(QuasiIdentifierRisk(tuple(names[i] for i in combo), distinction,
                                         separation))
        report((done + 1) / max(total, 1), "Quasi-identifier analysis")
    risks.sort(key=QuasiIdentifierRisk.sort_key)
    return QuasiIdentifierAnalysis(tuple(risks), int(kept.sum()))
