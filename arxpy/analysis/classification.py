"""Classifier performance by interwoven k-fold cross-validation (paper 004, section V-B).

Prasser, Eicher, Bild, Spengler, Kuhn, "A tool for optimizing de-identified health data
for use in statistical classification", Fig. 3: the records are split once into k random
folds, the same for every model. For each fold

* ZeroR (the training folds' most frequent class, original data) gives the *baseline*;
* the classifier trained on the original records of the other folds gives the
  *original* accuracy;
* the classifier trained on the de-identified output records of the other folds
  (suppressed records left out) is evaluated on the *original* records of the held-out
  fold after their features are generalized exactly as the output's are (each value
  mapped through its hierarchy at the transformation's level; features that are not
  quasi-identifiers unchanged): the *accuracy*.

Features are one-hot encoded: the columns are the (generalized) values seen in the
training folds, and a held-out value not seen there activates no column (it is ignored).
Every record is predicted exactly once, so metrics pool the k held-out folds.

When the class attribute is itself a quasi-identifier its values are generalized to the
transformation's level for all three models (ARX's rule: the class value is the output's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp

from arxpy.analysis.classifiers import SEED, ClassifierSpec, fit, run_cancellable
from arxpy.analysis.generalized import read_numeric
from arxpy.analysis.metrics import ClassificationPerformance, Predictions
from arxpy.arrays import distinct
from arxpy.data.codes import combine_codes
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.lattice.encoding import encode_generalizable
from arxpy.release import Release

#: More distinct class values than this is almost surely a continuous attribute.
MAX_CLASS_VALUES = 100


@dataclass(frozen=True)
class ClassificationConfig:
    """What to predict from what, with which classifier and folds.

    ``features`` None means every attribute except identifying ones and the class
    attribute. ``folds`` is k >= 2; ``seed`` fixes the folds (and the classifier's own
    randomness). ``positive_class`` picks the class whose curves are drawn for a binary
    class attribute (default: the last value in sorted order, scikit-learn's convention).
    """

    class_attribute: str
    features: tuple[str, ...] | None = None
    classifier: ClassifierSpec = field(default_factory=ClassifierSpec)
    folds: int = 3
    seed: int = 0
    positive_class: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.folds, int) or self.folds < 2:
            raise ConfigurationError(
                f"Cross-validation needs at least 2 folds, got {self.folds!r}; the paper uses 3.")
        object.__setattr__(self, "seed", SEED.check(self.seed, "Classification"))
        if self.features is not None:
            object.__setattr__(self, "features", tuple(self.features))


def make_folds(n_records: int, k: int, seed: int) -> np.ndarray:
    """Fold index in ``[0, k)`` of each record: a seeded random split into near-equal folds.

    Depends only on ``(n_records, k, seed)``, so every model and every transformation
    evaluated with the same settings sees exactly the same folds.
    """
    if n_records < k:
        raise ConfigurationError(
            f"{k}-fold cross-validation needs at least {k} records, the data has {n_records}.")
    order = np.random.default_rng(seed).permutation(n_records)
    folds = np.empty(n_records, dtype=np.int64)
    folds[order] = np.arange(n_records) * k // n_records
    return folds


@dataclass(frozen=True)
class _Encoded:
    """One attribute as codes of its original values plus per-level code maps."""

    codes: np.ndarray  # (n,) int64, level-0 codes
    level_maps: list[np.ndarray]  # [level] level-0 code -> generalized code
    labels: list[list[str]]  # [level][code] -> label

    def at(self, level: int) -> np.ndarray:
        return self.level_maps[level][self.codes]


def _encode_plain(column: pd.Series, sort: bool = False) -> _Encoded:
    codes, uniques = pd.factorize(column.to_numpy(dtype=object), sort=sort)
    return _Encoded(codes.astype(np.int64), [np.arange(len(uniques), dtype=np.int64)],
                    [[str(u) for u in uniques]])


def _encode_generalized(name: str, column: pd.Series, hierarchy: Hierarchy) -> _Encoded:
    """Codes index the hierarchy's rows; level maps come from its columns."""
    return _Encoded(*encode_generalizable(column, hierarchy, name))


def resolve_features(definition: DataDefinition, config: ClassificationConfig) -> list[str]:
    """The feature attributes in data order; raises ConfigurationError for bad choices."""
    target = config.class_attribute
    if target not in definition:
        raise ConfigurationError(
            f"Unknown class attribute '{target}'. Attributes: {', '.join(definition.names)}.")
    removed = set(definition.identifying)
    if target in removed:
        raise ConfigurationError(
            f"The class attribute '{target}' is identifying and so removed from the output; "
            "make it insensitive, sensitive or quasi-identifying.")
    if config.features is None:
        return [a for a in definition.names if a not in removed and a != target]
    for name in config.features:
        definition[name]  # DefinitionError naming the unknown attribute
        if name == target:
            raise ConfigurationError(
                f"'{name}' is the class attribute; remove it from the features.")
        if name in removed:
            raise ConfigurationError(
                f"Feature '{name}' is identifying and so removed from the output; drop it "
                "from the features or change its type.")
    if not config.features:
        raise ConfigurationError("Choose at least one feature attribute.")
    chosen = set(config.features)
    return [a for a in definition.names if a in chosen]


class ClassificationTask:
    """A table encoded for cross-validation: feature and class codes with their levels."""

    def __init__(self, frame: pd.DataFrame, definition: DataDefinition,
                 hierarchies: Mapping[str, Hierarchy], config: ClassificationConfig, *,
                 cancel: CancelToken | None = None) -> None:
        definition.check_columns(frame.columns)
        self.config = config
        self.features = resolve_features(definition, config)
        qis = set(definition.of_type(AttributeType.QUASI_IDENTIFYING))
        cancel = cancel or CancelToken()

        def encode(name: str, sort: bool = False) -> _Encoded:
            # A quasi-identifier without a hierarchy has its values only (level 0): a
            # transformation that generalizes it is refused by check_levels.
            cancel.raise_if_cancelled()
            if name in qis and name in hierarchies:
                return _encode_generalized(name, frame[name], hierarchies[name])
            return _encode_plain(frame[name], sort)

        self._features = [encode(name) for name in self.features]
        self._target = encode(config.class_attribute, sort=True)
        self.quasi_identifiers = [a for a in definition.names if a in qis]
        n_values = len(self._target.labels[0])
        if n_values > MAX_CLASS_VALUES:
            raise ConfigurationError(
                f"The class attribute '{config.class_attribute}' has {n_values} distinct values "
                f"(more than {MAX_CLASS_VALUES}); bin it into a few classes first.")
        self.n_records = len(frame)
        cancel.raise_if_cancelled()
        self.folds = make_folds(self.n_records, config.folds, config.seed)

    def check_levels(self, levels: Mapping[str, int]) -> None:
        """Raise ConfigurationError unless ``levels`` names quasi-identifiers and valid levels."""
        for name, level in levels.items():
            if name not in self.quasi_identifiers:
                raise ConfigurationError(
                    f"'{name}' is not a quasi-identifier; the transformation gives levels for "
                    f"{', '.join(self.quasi_identifiers) or 'no attribute'}.")
            encoded = self._encoded(name)
            if encoded is not None and not 0 <= int(level) < len(encoded.level_maps):
                raise ConfigurationError(
                    f"Level {level} of '{name}' does not exist; its hierarchy has levels 0 to "
                    f"{len(encoded.level_maps) - 1}.")

    def _encoded(self, name: str) -> _Encoded | None:
        if name == self.config.class_attribute:
            return self._target
        if name in self.features:
            return self._features[self.features.index(name)]
        return None

    def _level(self, name: str, levels: Mapping[str, int]) -> int:
        return int(levels.get(name, 0))

    def feature_codes(self, levels: Mapping[str, int]) -> np.ndarray:
        """(n, features) codes of every record's features generalized to ``levels``."""
        if not self._features:
            return np.zeros((self.n_records, 0), dtype=np.int64)
        return np.column_stack([f.at(self._level(name, levels))
                                for name, f in zip(self.features, self._features, strict=True)])

    def feature_labels(self, levels: Mapping[str, int]) -> pd.DataFrame:
        """The features as strings, generalized to ``levels`` (what the classifier sees)."""
        out = {}
        for name, f in zip(self.features, self._features, strict=True):
            level = self._level(name, levels)
            out[name] = np.asarray(f.labels[level], dtype=object)[f.at(level)]
        return pd.DataFrame(out)

    def class_level(self, levels: Mapping[str, int]) -> int:
        return self._level(self.config.class_attribute, levels)

    def class_values(self, level: int) -> list[str]:
        return list(self._target.labels[level])

    def class_codes(self, level: int) -> np.ndarray:
        return self._target.at(level)


def _combine_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a matrix of codes (>= 0) and each row's index into them.

    Each row becomes one int64 key (:func:`~arxpy.data.codes.combine_codes`): a sort of
    keys instead of ``np.unique(axis=0)``'s sort of rows, ten times faster."""
    if matrix.shape[1] == 0 or matrix.shape[0] == 0:
        return matrix[:1], np.zeros(matrix.shape[0], dtype=np.int64)
    key, _ = combine_codes([matrix[:, j] for j in range(matrix.shape[1])])
    _, first, inverse = distinct(key, return_index=True, return_inverse=True)
    return matrix[first], inverse.reshape(-1)


class _OneHot:
    """One-hot columns for the values each feature takes in the training rows."""

    def __init__(self, train: np.ndarray) -> None:
        self._lookups = []
        offset = 0
        for j in range(train.shape[1]):
            seen = np.zeros(int(train[:, j].max()) + 1, dtype=bool)
            seen[train[:, j]] = True
            lookup = np.full(seen.size, -1, dtype=np.int64)
            lookup[seen] = offset + np.arange(int(seen.sum()))
            offset += int(seen.sum())
            self._lookups.append(lookup)
        self.width = max(offset, 1)  # a constant-free model still needs one column

    def transform(self, codes: np.ndarray) -> sp.csr_matrix:
        """Rows of ``codes`` as a sparse 0/1 matrix; unseen values set no column."""
        columns = np.full(codes.shape, -1, dtype=np.int64)
        for j, lookup in enumerate(self._lookups):
            known = codes[:, j] < lookup.size
            columns[known, j] = lookup[codes[known, j]]
        rows = np.broadcast_to(np.arange(codes.shape[0])[:, None], codes.shape)
        valid = columns >= 0
        data = np.ones(int(valid.sum()))
        return sp.csr_matrix((data, (rows[valid], columns[valid])),
                             shape=(codes.shape[0], self.width))


def _train_and_predict(spec: ClassifierSpec, codes: np.ndarray, labels: np.ndarray,
                       train: np.ndarray, test: np.ndarray, n_classes: int,
                       cancel: CancelToken | None = None) -> np.ndarray:
    """Probabilities (len(test), n_classes) of a model trained on rows ``train``; the
    work runs beside the job, which stops within 200 ms of a cancel."""
    return run_cancellable(lambda: _fit_and_predict(spec, codes, labels, train, test,
                                                    n_classes, cancel), cancel)


def _fit_and_predict(spec: ClassifierSpec, codes: np.ndarray, labels: np.ndarray,
                     train: np.ndarray, test: np.ndarray, n_classes: int,
                     cancel: CancelToken | None) -> np.ndarray:
    train_codes = codes[train]
    encoder = _OneHot(train_codes)
    if spec.aggregates:
        distinct, inverse = _combine_rows(np.column_stack([train_codes, labels[train]]))
        weights = np.bincount(inverse, minlength=len(distinct)).astype(float)
        model = fit(spec, encoder.transform(distinct[:, :-1]), distinct[:, -1], weights,
                    n_classes, cancel)
    else:
        model = fit(spec, encoder.transform(train_codes), labels[train], None, n_classes,
                    cancel)
    distinct_test, inverse = _combine_rows(codes[test])
    return model.predict_proba(encoder.transform(distinct_test))[inverse]


def _zero_r(labels: np.ndarray, train: np.ndarray, n_test: int, n_classes: int) -> np.ndarray:
    """ZeroR: every held-out record gets the training folds' class frequencies."""
    shares = np.bincount(labels[train], minlength=n_classes) / max(int(train.size), 1)
    return np.broadcast_to(shares, (n_test, n_classes)).copy()


class CrossValidation:
    """Interwoven k-fold cross-validation over one :class:`ClassificationTask`.

    The baseline and the original-data classifier do not depend on the transformation
    (only on the class attribute's level), so they are computed once and reused; a
    study evaluating thousands of transformations pays only for the output models.
    """

    def __init__(self, task: ClassificationTask) -> None:
        self.task = task
        self._reference: dict[int, tuple[Predictions, Predictions]] = {}

    def _fold_rows(self, fold: int) -> tuple[np.ndarray, np.ndarray]:
        folds = self.task.folds
        return np.flatnonzero(folds != fold), np.flatnonzero(folds == fold)

    def reference(self, class_level: int, cancel: CancelToken,
                  progress: Progress) -> tuple[Predictions, Predictions]:
        """Baseline (ZeroR) and original-data predictions for the class at ``class_level``."""
        if class_level in self._reference:
            return self._reference[class_level]
        task, k = self.task, self.task.config.folds
        labels = task.class_codes(class_level)
        n_classes = len(task.class_values(class_level))
        codes = task.feature_codes({})
        baseline = np.zeros((task.n_records, n_classes))
        original = np.zeros((task.n_records, n_classes))
        for fold in range(k):
            cancel.raise_if_cancelled()
            progress(fold / k, f"Training on the original data, fold {fold + 1} of {k}")
            train, test = self._fold_rows(fold)
            baseline[test] = _zero_r(labels, train, test.size, n_classes)
            original[test] = _train_and_predict(task.config.classifier, codes, labels, train,
                                                test, n_classes, cancel)
        result = (Predictions(labels, baseline), Predictions(labels, original))
        self._reference[class_level] = result
        return result

    def output(self, levels: Mapping[str, int], suppressed: np.ndarray | None,
               cancel: CancelToken, progress: Progress) -> tuple[Predictions, int]:
        """Output-model predictions and the number of training records left out."""
        task, k = self.task, self.task.config.folds
        level = task.class_level(levels)
        labels = task.class_codes(level)
        n_classes = len(task.class_values(level))
        codes = task.feature_codes(levels)
        kept = np.ones(task.n_records, bool) if suppressed is None else ~np.asarray(suppressed)
        proba = np.zeros((task.n_records, n_classes))
        untrained = np.zeros(task.n_records, dtype=bool)
        for fold in range(k):
            cancel.raise_if_cancelled()
            progress(fold / k, f"Training on the output data, fold {fold + 1} of {k}")
            train, test = self._fold_rows(fold)
            train = train[kept[train]]
            if train.size == 0:  # everything suppressed: no model, no correct prediction
                proba[test] = 1.0 / n_classes
                untrained[test] = True
                continue
            proba[test] = _train_and_predict(task.config.classifier, codes, labels, train,
                                             test, n_classes, cancel)
        return Predictions(labels, proba, untrained), int((~kept).sum())

    def evaluate(self, levels: Mapping[str, int] | None = None,
                 suppressed: np.ndarray | None = None, *, progress: Progress | None = None,
                 cancel: CancelToken | None = None) -> ClassificationPerformance:
        """Performance of the classifier trained on the output of ``levels`` (a job).

        ``levels`` maps quasi-identifiers to generalization levels (missing ones: 0);
        ``suppressed`` flags the records the output suppressed (left out of training).
        """
        levels = dict(levels or {})
        self.task.check_levels(levels)
        cancel = cancel or CancelToken()
        report = ThrottledProgress(progress)
        task = self.task
        class_level = task.class_level(levels)
        baseline, original = self.reference(
            class_level, cancel, lambda f, m: report(0.5 * f, m))
        output, excluded = self.output(levels, suppressed, cancel,
                                       lambda f, m: report(0.5 + 0.5 * f, m))
        report(1.0, "Classification performance computed")
        return ClassificationPerformance(
            class_attribute=task.config.class_attribute,
            class_values=task.class_values(class_level),
            features=list(task.features),
            levels={name: int(v) for name, v in levels.items()},
            classifier=task.config.classifier,
            folds=task.folds,
            baseline=baseline, original=original, output=output,
            excluded_from_training=excluded,
            positive_class=task.config.positive_class,
        )


def evaluation_unavailable(release: Release) -> str | None:
    """Why classifier performance cannot be measured on ``release`` (None: it can)."""
    if release.transformation is None and release.input_rows() is None:
        return (f"A '{release.method}' release publishes sets of codes, not records with "
                "features; its utility is measured by the relative error of code-set "
                "counts (ARE/MRE) instead.")
    return None


def evaluate_release(task: ClassificationTask, release: Release, *,
                     class_edges: Sequence[float] | None = None,
                     progress: Progress | None = None,
                     cancel: CancelToken | None = None) -> ClassificationPerformance:
    """Interwoven cross-validation of any release (a job), on the same folds as always.

    - A transformation (the lattice): the output model trains on its released records;
      held-out records are generalized by the transformation (paper 004).
    - Rows standing for input records (intervals, kPB-MS, microaggregation, ...): the
      output model trains on the released rows of the training folds (suppressed ones
      left out), with the class values as released (binned at ``class_edges``), and
      predicts each held-out record from its own released row (:meth:`Release.recode`).
    - Synthetic rows (condensation): train on the release, test on the original: the
      model trains on the rows generated in the training folds' slots, with their own
      class values (binned at ``class_edges`` if numeric), and predicts the original
      held-out records. Numeric features are cut at the deciles of the original column
      so that generated and original values meet in the same categories.
    """
    if release.transformation is not None:
        return CrossValidation(task).evaluate(release.transformation, release.suppressed,
                                              progress=progress, cancel=cancel)
    reason = evaluation_unavailable(release)
    if reason:
        raise ConfigurationError(reason)
    return _RecordEvaluation(task, release, class_edges, cancel).run(progress, cancel)


class _RecordEvaluation:
    """Cross-validation of a release without a transformation (see evaluate_release)."""

    def __init__(self, task: ClassificationTask, release: Release,
                 class_edges: Sequence[float] | None, cancel: CancelToken | None) -> None:
        cancel = cancel or CancelToken()
        self.task, self.release = task, release
        if len(release.input_rows()) != task.n_records and not release.synthetic:
            raise ConfigurationError(
                f"The release has {len(release.input_rows())} rows for {task.n_records} "
                "records; evaluate it on the data it was made from.")
        self.rows = np.asarray(release.input_rows())  # table row -> input record
        original = task.feature_labels({})
        names = [f for f in task.features if f in release.table.columns]
        released = release.table[names].reset_index(drop=True)
        if release.synthetic:
            test = original[names]
        else:
            aligned = np.empty(len(self.rows), dtype=np.int64)
            aligned[self.rows] = np.arange(len(self.rows))
            test = released.iloc[aligned].reset_index(drop=True)
        cancel.raise_if_cancelled()
        self.train_codes, self.test_codes = _shared_codes(released, test, original[names],
                                                          numeric=release.synthetic,
                                                          cancel=cancel)
        self.features = names
        self.labels = task.class_codes(0)
        self.kept = ~np.asarray(release.suppressed, dtype=bool)
        self.train_labels = _released_labels(release, task, class_edges, self.kept)

    def run(self, progress: Progress | None, cancel: CancelToken | None
            ) -> ClassificationPerformance:
        task, k = self.task, self.task.config.folds
        cancel = cancel or CancelToken()
        report = ThrottledProgress(progress)
        baseline, original = CrossValidation(task).reference(
            0, cancel, lambda f, m: report(0.5 * f, m))
        n_classes = len(task.class_values(0))
        n_train = len(self.train_codes)
        codes = np.vstack([self.train_codes, self.test_codes])
        labels = np.concatenate([self.train_labels, self.labels])
        proba = np.zeros((task.n_records, n_classes))
        untrained = np.zeros(task.n_records, dtype=bool)
        row_folds = task.folds[self.rows]
        for fold in range(k):
            cancel.raise_if_cancelled()
            report(0.5 + 0.5 * fold / k, f"Training on the release, fold {fold + 1} of {k}")
            train = np.flatnonzero((row_folds != fold) & self.kept)
            test = np.flatnonzero(task.folds == fold)
            if train.size == 0:
                proba[test] = 1.0 / n_classes
                untrained[test] = True
                continue
            proba[test] = _train_and_predict(task.config.classifier, codes, labels, train,
                                             n_train + test, n_classes, cancel)
        report(1.0, "Classification performance computed")
        protocol = ("trained on the release's generated rows, tested on the original records"
                    if self.release.synthetic else
                    "trained on the released rows, each held-out record predicted from its "
                    "released row")
        return ClassificationPerformance(
            class_attribute=task.config.class_attribute, class_values=task.class_values(0),
            features=self.features, levels={}, classifier=task.config.classifier,
            folds=task.folds, baseline=baseline, original=original,
            output=Predictions(self.labels, proba, untrained),
            excluded_from_training=int((~self.kept).sum()),
            positive_class=task.config.positive_class,
            notes=[f"{self.release.method} release: {protocol}."])


def _shared_codes(train: pd.DataFrame, test: pd.DataFrame, original: pd.DataFrame, *,
                  numeric: bool, cancel: CancelToken) -> tuple[np.ndarray, np.ndarray]:
    """Codes of both tables' features in one vocabulary per column. With ``numeric``,
    numbers are cut at the original column's deciles (generated values are new values)."""
    if not len(train.columns):
        return np.zeros((len(train), 0), np.int64), np.zeros((len(test), 0), np.int64)
    out_train, out_test = [], []
    for name in train.columns:
        cancel.raise_if_cancelled()
        a, b = train[name], test[name]
        reference = pd.to_numeric(original[name], errors="coerce")
        if numeric and reference.notna().all() and reference.nunique() > 10:
            edges = np.unique(np.quantile(reference, np.linspace(0, 1, 11)[1:-1]))
            a = pd.Series(np.digitize(pd.to_numeric(a, errors="coerce"), edges))
            b = pd.Series(np.digitize(pd.to_numeric(b, errors="coerce"), edges))
        both = pd.concat([a.astype(str), b.astype(str)], ignore_index=True)
        codes, _ = pd.factorize(both.to_numpy(dtype=object))
        out_train.append(codes[:len(a)])
        out_test.append(codes[len(a):])
    return np.column_stack(out_train).astype(np.int64), np.column_stack(out_test).astype(np.int64)


def _released_labels(release: Release, task: ClassificationTask,
                     class_edges: Sequence[float] | None, kept: np.ndarray) -> np.ndarray:
    """The class code of each released row as the release shows it (binned at
    ``class_edges`` like the original; a group mean is binned too), -1 for suppressed
    rows. A release without the class column cannot be evaluated: its recipient has
    no labels to train on (kPB-MS publishing another class attribute)."""
    name = task.config.class_attribute
    if name not in release.table.columns:
        raise ConfigurationError(
            f"The release does not publish '{name}', so a recipient could not train a "
            "classifier to predict it; choose a target the release keeps.")
    values = release.table[name].reset_index(drop=True)
    if class_edges is not None:  # a boxed or generalized value counts as its midpoint
        reading = read_numeric(values.astype(str))
        numbers = pd.Series(np.where(reading.numeric, reading.midpoint, np.nan))
        values = bin_values(numbers.where(numbers.notna(), values), class_edges)
    index = {v: i for i, v in enumerate(task.class_values(0))}
    codes = values.astype(str).map(index)
    unknown = sorted(set(values.astype(str)[codes.isna().to_numpy() & kept]))
    if unknown:
        raise ConfigurationError(
            f"The release's '{name}' values (e.g. {unknown[0]}) are not class values of the "
            "original; bin the class attribute into a few classes.")
    return codes.fillna(-1).to_numpy(dtype=np.int64)


def evaluate_classification(
    frame: pd.DataFrame,
    definition: DataDefinition,
    hierarchies: Mapping[str, Hierarchy],
    config: ClassificationConfig,
    levels: Mapping[str, int] | Sequence[int] | None = None,
    suppressed: np.ndarray | None = None,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> ClassificationPerformance:
    """Interwoven k-fold cross-validation of one transformation (a job).

    ``levels``: the transformation, as ``{quasi-identifier: level}`` or a sequence in the
    order of ``definition.quasi_identifiers``; None = no generalization. ``suppressed``:
    per record, True where the output suppressed it (``Release.suppressed``); those
    records are not used for training the output model but are still predicted (from
    their generalized features) when held out.
    """
    if levels is not None and not isinstance(levels, Mapping):
        names = definition.quasi_identifiers
        if len(levels) != len(names):
            raise ConfigurationError(
                f"The transformation has {len(levels)} levels but there are {len(names)} "
                f"quasi-identifiers ({', '.join(names)}).")
        levels = dict(zip(names, (int(v) for v in levels), strict=True))
    if suppressed is not None and len(suppressed) != len(frame):
        raise ConfigurationError(
            f"The suppression flags cover {len(suppressed)} records, the data {len(frame)}.")
    task = ClassificationTask(frame, definition, hierarchies, config, cancel=cancel)
    return CrossValidation(task).evaluate(levels, suppressed, progress=progress, cancel=cancel)


def _edge_label(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def bin_values(values: pd.Series, edges: Sequence[float]) -> pd.Series:
    """Numbers binned at ``edges`` (increasing): ``<e1``, ``[e1, e2[``, ..., ``>=en``.

    Values that are not numbers (missing-value spellings and other text) are kept as
    they are, so they form classes of their own. Turns a continuous attribute such as a
    charge into a class attribute (the paper: below 10,000, 10,000 to 50,000, above).
    """
    edges = [float(e) for e in edges]
    if not edges or any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
        raise ConfigurationError(
            f"Bin edges must be one or more increasing numbers, got {edges}.")
    text = [_edge_label(e) for e in edges]
    labels = [f"<{text[0]}"] + [f"[{a}, {b}[" for a, b in zip(text, text[1:], strict=False)]
    labels.append(f">={text[-1]}")
    numbers = pd.to_numeric(values.astype(str).str.strip(), errors="coerce").to_numpy()
    index = np.searchsorted(np.asarray(edges), numbers, side="right")
    binned = np.asarray(labels, dtype=object)[np.minimum(index, len(labels) - 1)]
    return pd.Series(np.where(np.isnan(numbers), values.to_numpy(dtype=object), binned),
                     index=values.index, name=values.name, dtype=object)
