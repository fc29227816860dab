"""Pattern-based classification accuracy (PBCA, Aristodimou et al. 2016, Eq. 1).

PBCA(X, y) = sum over the distinct patterns of X of the count of the pattern's most
frequent class, divided by n: the training accuracy of the best classifier that is a
function of the pattern. Patterns are integer codes combined into one key per row
(:func:`arxpy.data.codes.combine_codes`) and counted with one ``bincount`` (the
paper's single-pass hash table), so a score costs O(n).

Cross-validated PBCA (spec 003 §2.2, decision G9 [I]) predicts each record's class from
the other folds: the pattern's majority class there (ties: the smallest class code), or
the training folds' majority class for a pattern those folds never saw.

Shared by the kPB-MS method and the analyses, so it sits below both.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken

#: What CV-PBCA predicts for a pattern unseen in the training folds [I].
UNSEEN_RULES = ("majority", "wrong")


def pattern_ids(codes: np.ndarray, features: Sequence[int]) -> tuple[np.ndarray, int]:
    """Dense pattern id (0..P-1) of each row of ``codes[:, features]`` and P.

    No features means one pattern (PBCA is then the majority-class share).
    """
    n = codes.shape[0]
    if not len(features):
        return np.zeros(n, dtype=np.int64), 1 if n else 0
    ids = codes[:, features[0]].astype(np.int64)
    count = int(ids.max()) + 1 if n else 0
    for j in features[1:]:
        ids, count = extend_patterns(ids, count, codes[:, j])
    return ids, count


def extend_patterns(ids: np.ndarray, count: int, column: np.ndarray) -> tuple[np.ndarray, int]:
    """Pattern ids after appending ``column`` (integer codes) to the pattern."""
    radix = int(column.max()) + 1 if column.size else 1
    key = ids * radix + column  # count * radix stays far below 2**63 for n rows
    dense, uniques = pd.factorize(key, sort=False)
    return dense.astype(np.int64), len(uniques)


def class_counts(ids: np.ndarray, n_patterns: int, labels: np.ndarray,
                 n_classes: int) -> np.ndarray:
    """The contingency table T (patterns x classes) of Eq. 1."""
    flat = np.bincount(ids * n_classes + labels, minlength=n_patterns * n_classes)
    return flat.reshape(n_patterns, n_classes)


def pbca_correct(ids: np.ndarray, n_patterns: int, labels: np.ndarray, n_classes: int) -> int:
    """Numerator of Eq. 1: sum over patterns of max_c T[i, c] (correct predictions)."""
    if not len(ids):
        return 0
    return int(class_counts(ids, n_patterns, labels, n_classes).max(axis=1).sum())


def stratified_folds(labels: np.ndarray, n_folds: int, seed: int) -> np.ndarray:
    """Fold (0..n_folds-1) of each record: stratified, shuffled with ``seed``.

    ConfigurationError when the folds cannot be formed (more folds than records or than
    the records of the largest class).
    """
    from sklearn.model_selection import StratifiedKFold

    n = len(labels)
    if n_folds < 2 or n_folds > n:
        raise ConfigurationError(
            f"Cross-validation needs between 2 and {n} folds for {n} records, got "
            f"{n_folds}; choose fewer folds (or 0 for resubstitution PBCA).")
    largest = int(np.bincount(labels).max())
    if n_folds > largest:
        raise ConfigurationError(
            f"{n_folds} stratified folds need a class with at least {n_folds} records; the "
            f"largest class has {largest}. Choose at most {largest} folds.")
    folds = np.empty(n, dtype=np.int64)
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    with warnings.catch_warnings():  # a class smaller than n_folds is fine here
        warnings.simplefilter("ignore", UserWarning)
        for fold, (_, test) in enumerate(splitter.split(np.zeros(n), labels)):
            folds[test] = fold
    return folds


def cv_pbca_correct(ids: np.ndarray, n_patterns: int, labels: np.ndarray, n_classes: int,
                    folds: np.ndarray, n_folds: int, unseen: str = "majority") -> int:
    """Records whose class the other folds' pattern majority predicts correctly.

    ``unseen``: "majority" predicts the training folds' majority class for a pattern
    they lack [I]; "wrong" counts such records as errors.
    """
    if not len(ids):
        return 0
    cells = (ids * n_classes + labels) * n_folds + folds
    counts = np.bincount(cells, minlength=n_patterns * n_classes * n_folds)
    counts = counts.reshape(n_patterns, n_classes, n_folds)
    train = counts.sum(axis=2, keepdims=True) - counts  # per fold: the other folds
    predicted = train.argmax(axis=1)  # (patterns, folds); first maximum = smallest code
    seen = train.max(axis=1) > 0
    if unseen == "majority":
        per_class = counts.sum(axis=0)  # (classes, folds)
        majority = (per_class.sum(axis=1, keepdims=True) - per_class).argmax(axis=0)
        predicted = np.where(seen, predicted, majority[None, :])
        hits = np.take_along_axis(counts, predicted[:, None, :], axis=1)[:, 0, :]
    else:
        hits = np.take_along_axis(counts, predicted[:, None, :], axis=1)[:, 0, :] * seen
    return int(hits.sum())


class PatternScorer:
    """PBCA or CV-PBCA of feature subsets of one integer-coded table (fixed folds).

    ``codes`` is (records x features) of integer codes, ``labels`` class codes
    0..C-1 with classes in sorted order. ``n_folds = 0`` scores by resubstitution
    (Eq. 1); otherwise stratified folds seeded with ``seed``, the same for every score.
    Scores are counts of correct predictions (integers, so comparisons are exact).
    """

    def __init__(self, codes: np.ndarray, labels: np.ndarray, n_folds: int = 10,
                 seed: int = 0, unseen: str = "majority") -> None:
        if unseen not in UNSEEN_RULES:
            raise ConfigurationError(
                f"Unknown rule for unseen patterns {unseen!r}; use one of "
                f"{', '.join(UNSEEN_RULES)}.")
        self.codes = np.asarray(codes, dtype=np.int64)
        self.labels = np.asarray(labels, dtype=np.int64)
        self.n = len(self.labels)
        self.n_classes = int(self.labels.max()) + 1 if self.n else 0
        self.n_folds = n_folds
        self.unseen = unseen
        self.folds = stratified_folds(self.labels, n_folds, seed) if n_folds else None

    def correct_of(self, ids: np.ndarray, n_patterns: int) -> int:
        """Correct predictions for records with the given pattern ids."""
        if self.folds is None:
            return pbca_correct(ids, n_patterns, self.labels, self.n_classes)
        return cv_pbca_correct(ids, n_patterns, self.labels, self.n_classes, self.folds,
                               self.n_folds, self.unseen)

    def correct(self, features: Sequence[int]) -> int:
        return self.correct_of(*pattern_ids(self.codes, features))

    def score(self, features: Sequence[int]) -> float:
        """(CV-)PBCA of the features, a share of records in [0, 1]."""
        return self.correct(features) / self.n if self.n else 0.0


def encode_table(frame: pd.DataFrame, features: Sequence[str], class_attribute: str,
                 cancel: CancelToken | None = None
                 ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(codes records x features, class codes in sorted class order, class values).

    Every distinct value (a missing one included) is a category of its own.
    """
    n = len(frame)
    codes = np.empty((n, len(features)), dtype=np.int64)
    for i, name in enumerate(features):
        if cancel is not None:
            cancel.raise_if_cancelled()
        codes[:, i] = pd.factorize(frame[name].to_numpy(dtype=object), sort=False,
                                   use_na_sentinel=False)[0]
    labels, classes = pd.factorize(frame[class_attribute].astype(str).to_numpy(), sort=True)
    return codes, labels.astype(np.int64), [str(c) for c in classes]
