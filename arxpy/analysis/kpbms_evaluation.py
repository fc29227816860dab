"""The evaluation protocol of kPB-MS (Aristodimou et al. 2016, Sec. 6; spec 003 §4).

Stratified k-fold cross-validation with the *same test folds* for the full and the
anonymized data; every test fold holds all of its original records projected onto the
selected features (records the anonymizer removed included), and training uses the
fold's training records that survived. Classifiers on one-hot categories: SVM (RBF),
1-NN with IBk-like tie voting, an entropy decision tree (C4.5 proxy) and a random
forest. A two-sided paired t-test on the per-fold accuracies decides better / similar /
worse; an infeasible k (no feature prefix within the loss limit) counts as worse.

Protocols: "paper" anonymizes (selection included) once on the whole discretized data
before CV, the leakage the paper has; "nested" discretizes and anonymizes inside each
training fold. The anonymizer is a callable so this module never imports a method.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.discretization import DEFAULT_BINS, fit_cuts
from arxpy.data.mdl import continuous_attributes, discretize
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.quality.pbca import encode_table, stratified_folds

CLASSIFIERS = ("svm", "knn", "c45", "rf", "knn-sklearn", "svm-linear")
PROTOCOLS = ("paper", "nested")


@dataclass(frozen=True)
class Anonymized:
    """What an anonymizer returns for one table: the selected features (rank order),
    which of the table's rows it keeps, and the loss (share of rows removed)."""

    features: tuple[str, ...]
    kept: np.ndarray
    loss: float


#: (discretized table of features + class, k) -> Anonymized, or None when infeasible.
Anonymizer = Callable[[pd.DataFrame, int], "Anonymized | None"]


@dataclass
class Case:
    """One (k, classifier) cell: per-fold accuracies and the comparison with full data."""

    k: int
    classifier: str
    accuracies: list[float] | None
    full: list[float]
    p_value: float | None
    verdict: str
    features: list[list[str]] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float | None:
        return None if self.accuracies is None else float(np.mean(self.accuracies))

    @property
    def sd(self) -> float | None:
        return None if self.accuracies is None else float(np.std(self.accuracies, ddof=1))

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "classifier": self.classifier, "mean": self.mean, "sd": self.sd,
                "full_mean": float(np.mean(self.full)),
                "full_sd": float(np.std(self.full, ddof=1)), "p_value": self.p_value,
                "verdict": self.verdict, "accuracies": self.accuracies,
                "features": self.features, "loss": self.loss}


@dataclass
class KpbmsEvaluation:
    """The k sweep: one :class:`Case` per (k, classifier), the full-data accuracies and
    the share of k > 1 cases not significantly worse (infeasible ones count as worse)."""

    protocol: str
    folds: int
    seed: int
    alpha: float
    full: dict[str, list[float]]
    cases: list[Case]
    test_folds: np.ndarray

    @property
    def share_not_worse(self) -> float | None:
        cases = [c for c in self.cases if c.k > 1]
        if not cases:
            return None
        return sum(c.verdict in ("better", "similar") for c in cases) / len(cases)

    def table(self) -> pd.DataFrame:
        """The paper-style table: one row per k, mean ± sd and the verdict per classifier."""
        rows = {}
        for case in self.cases:
            text = "infeasible" if case.mean is None else \
                f"{case.mean:.3f} ± {case.sd:.3f}{'*' if case.verdict == 'worse' else ''}"
            rows.setdefault(case.k, {})[case.classifier] = text
        full = {c: f"{np.mean(v):.3f} ± {np.std(v, ddof=1):.3f}" for c, v in self.full.items()}
        frame = pd.DataFrame.from_dict(rows, orient="index")
        return pd.concat([pd.DataFrame([full], index=["full"]), frame])

    def to_dict(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "folds": self.folds, "seed": self.seed,
                "alpha": self.alpha,
                "full": {c: {"mean": float(np.mean(v)), "sd": float(np.std(v, ddof=1)),
                             "accuracies": v} for c, v in self.full.items()},
                "cases": [c.to_dict() for c in self.cases],
                "share_not_significantly_worse": self.share_not_worse,
                "cases_k_above_1": sum(c.k > 1 for c in self.cases)}


# --- classifiers --------------------------------------------------------------------


#: One-hot matrices up to this many cells are dense (trees and RBF SVMs fit several
#: times faster on dense input); larger ones stay sparse.
DENSE_CELLS = 50_000_000


def _one_hot(train: pd.DataFrame, test: pd.DataFrame):
    from sklearn.preprocessing import OneHotEncoder

    encoder = OneHotEncoder(handle_unknown="ignore", dtype=np.float32)
    x_train, x_test = encoder.fit_transform(train.astype(str)), encoder.transform(
        test.astype(str))
    if x_train.shape[1] * (x_train.shape[0] + x_test.shape[0]) <= DENSE_CELLS:
        return x_train.toarray(), x_test.toarray()
    return x_train, x_test


def _ibk_predict(train: np.ndarray, labels: np.ndarray, test: np.ndarray,
                 n_classes: int) -> np.ndarray:
    """1-NN on category codes (Hamming distance) voting over *every* training record at
    the smallest distance (IBk-like ties, spec §4 [I]); vote ties: the smallest class."""
    onehot = np.eye(n_classes)[labels]
    out = np.empty(len(test), dtype=np.int64)
    step = max(1, 2_000_000 // max(1, train.size))
    for start in range(0, len(test), step):
        block = test[start:start + step]
        distance = (block[:, None, :] != train[None, :, :]).sum(axis=2)
        nearest = distance == distance.min(axis=1, keepdims=True)
        out[start:start + step] = (nearest @ onehot).argmax(axis=1)
    return out


def _model(name: str, seed: int, trees: int):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    if name == "svm":
        return SVC(kernel="rbf", C=1.0, gamma="scale")
    if name == "svm-linear":
        return SVC(kernel="linear", C=1.0)
    if name == "knn-sklearn":
        return KNeighborsClassifier(n_neighbors=1)
    if name == "c45":
        return DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2, random_state=seed)
    return RandomForestClassifier(n_estimators=trees, random_state=seed, n_jobs=1)


def accuracy(name: str, train: pd.DataFrame, y_train: np.ndarray, test: pd.DataFrame,
             y_test: np.ndarray, n_classes: int, seed: int, trees: int) -> float:
    """Test accuracy of one classifier trained on categorical ``train``."""
    if len(np.unique(y_train)) < 2:  # one class left (or none): predict it (or the test's)
        constant = y_train[0] if len(y_train) else np.bincount(y_test).argmax()
        return float(np.mean(y_test == constant))
    if name == "knn":
        both = pd.concat([train, test]).astype(str)
        codes = np.column_stack([pd.factorize(both[c])[0] for c in both.columns])
        predicted = _ibk_predict(codes[:len(train)], y_train, codes[len(train):], n_classes)
    else:
        x_train, x_test = _one_hot(train, test)
        predicted = _model(name, seed, trees).fit(x_train, y_train).predict(x_test)
    return float(np.mean(predicted == y_test))


def paired_verdict(anonymized: Sequence[float], full: Sequence[float], alpha: float
                   ) -> tuple[float, str]:
    """Two-sided paired t-test p and "better" / "similar" / "worse" (p < alpha)."""
    from scipy.stats import ttest_rel

    diff = np.asarray(anonymized) - np.asarray(full)
    if np.allclose(diff, 0):
        return 1.0, "similar"
    if np.allclose(diff, diff[0]):  # constant non-zero difference: t is infinite
        p = 0.0
    else:
        p = float(ttest_rel(anonymized, full).pvalue)
    if p >= alpha:
        return p, "similar"
    return p, "better" if diff.mean() > 0 else "worse"


# --- the protocol -------------------------------------------------------------------


def evaluate_kpbms(frame: pd.DataFrame, class_attribute: str, anonymize: Anonymizer,
                   ks: Sequence[int] = (1, 3, 5, 10, 20),
                   classifiers: Sequence[str] = ("svm", "knn", "c45", "rf"), *,
                   folds: int = 10, protocol: str = "paper", seed: int = 0,
                   alpha: float = 0.05, discretization: str = "mdl", trees: int = 500,
                   continuous: Sequence[str] | None = None, bins: int = DEFAULT_BINS,
                   progress: Progress | None = None, cancel: CancelToken | None = None
                   ) -> KpbmsEvaluation:
    """Run the protocol on ``frame`` (candidate features + the class).

    ``anonymize`` gets a discretized table and k and returns :class:`Anonymized`
    (rows of *that* table) or None when no feature prefix meets the loss limit.
    ``continuous``: the attributes to discretize (default: as the method decides);
    ``discretization`` "mdl", "eqfreq" (``bins`` bins) or "none".
    """
    _check(classifiers, protocol, ks)
    frame = frame.reset_index(drop=True)
    _, labels, classes = encode_table(frame, [], class_attribute)
    test_folds = stratified_folds(labels, folds, seed)
    features = [c for c in frame.columns if c != class_attribute]
    report = ThrottledProgress(progress)
    runner = _Runner(labels, len(classes), seed, trees, cancel)
    if protocol == "paper":
        table = _discretized(frame, features, labels, np.ones(len(frame), bool),
                             discretization, continuous, bins)
        views = {k: anonymize(table, k) for k in ks}
    full = {c: [] for c in classifiers}
    anon: dict[tuple[int, str], list[float] | None] = {(k, c): [] for k in ks
                                                       for c in classifiers}
    chosen: dict[int, list] = {k: [] for k in ks}
    for fold in range(folds):
        train = test_folds != fold
        if protocol == "nested":
            table = _discretized(frame, features, labels, train, discretization, continuous,
                                 bins)
            views = {k: _lift(anonymize(table.loc[train].reset_index(drop=True), k), train)
                     for k in ks}
        for name in classifiers:
            full[name].append(runner.score(name, table, features, train, ~train))
        for k in ks:
            view = views[k]
            chosen[k].append(view)
            for name in classifiers:
                if view is None or anon[(k, name)] is None:
                    anon[(k, name)] = None
                    continue
                anon[(k, name)].append(runner.score(name, table, list(view.features),
                                                    train & view.kept, ~train))
        report((fold + 1) / folds, f"Fold {fold + 1} of {folds}")
    cases = [_case(k, name, anon[(k, name)], full[name], chosen[k], alpha)
             for k in ks for name in classifiers]
    return KpbmsEvaluation(protocol, folds, seed, alpha, full, cases, test_folds)


def _check(classifiers: Sequence[str], protocol: str, ks: Sequence[int]) -> None:
    unknown = [c for c in classifiers if c not in CLASSIFIERS]
    if unknown:
        raise ConfigurationError(
            f"Unknown classifier '{unknown[0]}'; use {', '.join(CLASSIFIERS)}.")
    if protocol not in PROTOCOLS:
        raise ConfigurationError(f"Unknown protocol '{protocol}'; use paper or nested.")
    if not ks or min(ks) < 1:
        raise ConfigurationError("Every k must be at least 1.")


def _discretized(frame, features, labels, rows: np.ndarray, discretization: str,
                 continuous: Sequence[str] | None = None, bins: int = DEFAULT_BINS):
    """The table with cuts fitted on ``rows`` (every row transformed)."""
    if discretization == "none":
        return frame
    continuous = continuous_attributes(frame, features) if continuous is None else continuous
    cuts = fit_cuts(frame.loc[rows], continuous, labels[rows], discretization, bins)
    return discretize(frame, cuts)


def _lift(view: Anonymized | None, rows: np.ndarray) -> Anonymized | None:
    """A view of the training rows as a mask over every row (test rows not kept)."""
    if view is None:
        return None
    kept = np.zeros(len(rows), dtype=bool)
    kept[np.flatnonzero(rows)[view.kept]] = True
    return Anonymized(view.features, kept, view.loss)


def _case(k, name, accuracies, full, views, alpha) -> Case:
    features = [list(v.features) for v in views if v is not None]
    loss = [float(v.loss) for v in views if v is not None]
    if accuracies is None:
        return Case(k, name, None, full, None, "infeasible", features, loss)
    p, verdict = paired_verdict(accuracies, full, alpha)
    return Case(k, name, accuracies, full, p, verdict, features[:1] if len(
        {tuple(f) for f in features}) == 1 else features, loss)


class _Runner:
    """Fits one classifier on some rows and features and scores it on others; a fit
    repeated with the same table, features and rows (k values that select and keep
    the same) is answered from a cache."""

    def __init__(self, labels, n_classes, seed, trees, cancel) -> None:
        self.labels, self.n_classes = labels, n_classes
        self.seed, self.trees, self.cancel = seed, trees, cancel
        self._cache: dict = {}

    def score(self, name: str, table: pd.DataFrame, features: list[str], train: np.ndarray,
              test: np.ndarray) -> float:
        # The test rows name the fold, and within a fold the table never changes.
        key = (name, tuple(features), np.packbits(train).tobytes(),
               np.packbits(test).tobytes())
        if key not in self._cache:
            self._cache[key] = self._fit(name, table, features, train, test)
        return self._cache[key]

    def _fit(self, name: str, table: pd.DataFrame, features: list[str], train: np.ndarray,
             test: np.ndarray) -> float:
        if self.cancel is not None:
            self.cancel.raise_if_cancelled()
        return accuracy(name, table.loc[train, features], self.labels[train],
                        table.loc[test, features], self.labels[test], self.n_classes,
                        self.seed, self.trees)
