"""PBCA of a table (Aristodimou et al. 2016, Eq. 1) and its cross-validated variant.

The computation (contingency table over integer-encoded patterns, one ``bincount``)
lives in :mod:`arxpy.quality.pbca` so that kPB-MS's feature selection shares it; this
module is the analysis surface over a pandas table (``arxpy pbca``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arxpy.errors import ConfigurationError
from arxpy.quality.pbca import PatternScorer, encode_table, pattern_ids


@dataclass(frozen=True)
class PbcaResult:
    """PBCA of some features for a class: the share of records the pattern majority
    classifies correctly (``cv_folds`` 0: resubstitution, Eq. 1)."""

    features: tuple[str, ...]
    class_attribute: str
    pbca: float
    cv_folds: int
    records: int
    patterns: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__, features=list(self.features))


def pbca(frame: pd.DataFrame, class_attribute: str, features: Sequence[str] | None = None,
         *, cv_folds: int = 0, seed: int = 0, unseen: str = "majority") -> PbcaResult:
    """PBCA of ``features`` (default: every other column) for ``class_attribute``.

    Each distinct value (missing ones included) is a category; numbers are not binned.
    """
    if class_attribute not in frame.columns:
        raise ConfigurationError(
            f"There is no class attribute '{class_attribute}'; the attributes are "
            f"{', '.join(map(str, frame.columns))}.")
    names = [c for c in frame.columns if c != class_attribute] if features is None \
        else list(features)
    missing = [f for f in names if f not in frame.columns or f == class_attribute]
    if missing:
        raise ConfigurationError(
            f"'{missing[0]}' is not a feature of this table; choose among "
            f"{', '.join(str(c) for c in frame.columns if c != class_attribute)}.")
    if not len(frame):
        raise ConfigurationError("PBCA needs at least one record.")
    codes, labels, _ = encode_table(frame, names, class_attribute)
    scorer = PatternScorer(codes, labels, cv_folds, seed, unseen)
    columns = list(range(len(names)))
    _, n_patterns = pattern_ids(codes, columns)
    return PbcaResult(tuple(names), class_attribute, scorer.score(columns), cv_folds,
                      len(frame), n_patterns)
