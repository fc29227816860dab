"""The classifiers of the classification analysis: scikit-learn estimators by name.

Each kind declares its main parameters once (:class:`~arxpy.params.Param`: default,
range or choices, help); unknown parameters are refused with a message that lists the
known ones, bad values with one naming the parameter and the range. ``fit`` trains on a
sparse one-hot matrix with per-row weights where that is exactly equivalent to repeating
rows (logistic regression's and naive Bayes's objectives are sums over records), which
lets the cross-validation train on distinct rows only.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sp

from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken
from arxpy.params import Param

T = TypeVar("T")

_MAX_DEPTH = Param("max_depth", "int", None, low=1, optional=True, label="maximum depth",
                   help="Deepest split of a tree (none: grow until leaves are pure)")
_MIN_LEAF = Param("min_samples_leaf", "int", 1, low=1, label="minimum records per leaf",
                  help="Fewest training records a leaf may hold")

#: Each classifier kind's main parameters, declared once (checks, CLI, GUI defaults).
CLASSIFIER_PARAMS: dict[str, tuple[Param, ...]] = {
    # newton-cg with tol 1e-3 matches the accuracy of tighter tolerances on one-hot data
    # in half lbfgs's time (example, 40,000 records, 3 folds: 1.7 s vs 2.9 s with lbfgs at
    # 1e-3 and 5.4 s at 1e-4), and saga is slow with the row weights used here.
    "logistic": (
        Param("C", "float", 1.0, low=0, low_open=True, label="inverse regularization C",
              help="Inverse regularization strength (smaller: simpler model)"),
        Param("max_iter", "int", 500, low=1, label="maximum iterations",
              help="Iterations of the solver at most"),
        Param("tol", "float", 1e-3, low=0, low_open=True, label="tolerance",
              help="Stopping tolerance of the solver"),
        Param("solver", "choice", "newton-cg",
              choices=("newton-cg", "lbfgs", "liblinear", "newton-cholesky", "sag", "saga"),
              help="scikit-learn's optimization algorithm"),
    ),
    "tree": (
        _MAX_DEPTH, _MIN_LEAF,
        Param("criterion", "choice", "gini", choices=("gini", "entropy", "log_loss"),
              label="split criterion", help="How a split's quality is measured"),
    ),
    "forest": (
        Param("n_estimators", "int", 100, low=1, label="trees", help="Trees in the forest"),
        _MAX_DEPTH, _MIN_LEAF,
    ),
    "bayes": (
        Param("alpha", "float", 1.0, low=0, label="smoothing alpha",
              help="Additive (Laplace) smoothing of the feature counts"),
    ),
}
#: Main parameters and their defaults, per classifier kind.
PARAMETERS: dict[str, dict[str, Any]] = {
    kind: {p.name: p.default for p in params} for kind, params in CLASSIFIER_PARAMS.items()}
#: The seed of the folds and of the classifiers' randomness (numpy and scikit-learn
#: accept 0 to 2**32 - 1).
SEED = Param("seed", "int", 0, low=0, high=2**32 - 1,
             help="Fixes the folds and the classifier's randomness")
LABELS = {
    "logistic": "Logistic regression",
    "tree": "Decision tree",
    "forest": "Random forest",
    "bayes": "Naive Bayes",
}
#: Kinds whose training objective is a weighted sum over records, so that distinct rows
#: with counts as weights give exactly the model trained on all rows.
WEIGHT_EQUIVALENT = frozenset({"logistic", "bayes"})


@dataclass(frozen=True)
class ClassifierSpec:
    """A classifier kind (``logistic``, ``tree``, ``forest``, ``bayes``) and its parameters.

    Parameters not given take the defaults declared in :data:`CLASSIFIER_PARAMS`; given
    ones are checked against the declaration (ConfigurationError naming the parameter).
    ``seed`` fixes the randomness of the tree and forest (and of the ``saga``/``sag``
    solvers).
    """

    kind: str = "logistic"
    params: dict[str, Any] = field(default_factory=dict)
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in CLASSIFIER_PARAMS:
            raise ConfigurationError(
                f"Unknown classifier '{self.kind}'; use one of {', '.join(CLASSIFIER_PARAMS)}.")
        declared = CLASSIFIER_PARAMS[self.kind]
        unknown = sorted(set(self.params) - {p.name for p in declared})
        if unknown:
            raise ConfigurationError(
                f"The {LABELS[self.kind].lower()} has no parameter {', '.join(unknown)}; its "
                f"parameters are {', '.join(PARAMETERS[self.kind])}.")
        owner = LABELS[self.kind]
        given = {p.name: p.check(self.params[p.name], owner)
                 for p in declared if p.name in self.params}
        object.__setattr__(self, "params", given)
        object.__setattr__(self, "seed", SEED.check(self.seed, owner))

    def check_parameter_values(self) -> None:
        """scikit-learn's own parameter check, before any work, as a ConfigurationError.

        Not run on construction: it imports scikit-learn, which a GUI thread should not.
        """
        estimator = self.estimator()
        validate = getattr(estimator, "_validate_params", None)
        if validate is None:  # older scikit-learn: checked when fitting
            return
        try:
            validate()
        except (ValueError, TypeError) as exc:  # InvalidParameterError is a ValueError
            raise ConfigurationError(
                f"Invalid parameter of the {LABELS[self.kind].lower()}: {exc}") from None

    @property
    def label(self) -> str:
        return LABELS[self.kind]

    @property
    def parameters(self) -> dict[str, Any]:
        """Every parameter with its value (defaults filled in)."""
        return {**PARAMETERS[self.kind], **self.params}

    @property
    def aggregates(self) -> bool:
        """May training rows be merged into distinct rows with weights?"""
        return self.kind in WEIGHT_EQUIVALENT

    def estimator(self) -> Any:
        """A fresh, unfitted scikit-learn estimator."""
        p = self.parameters
        if self.kind == "logistic":
            from sklearn.linear_model import LogisticRegression
            return LogisticRegression(C=p["C"], max_iter=p["max_iter"], tol=p["tol"],
                                      solver=p["solver"], random_state=self.seed)
        if self.kind == "tree":
            from sklearn.tree import DecisionTreeClassifier
            return DecisionTreeClassifier(max_depth=p["max_depth"], criterion=p["criterion"],
                                          min_samples_leaf=p["min_samples_leaf"],
                                          random_state=self.seed)
        if self.kind == "forest":
            from sklearn.ensemble import RandomForestClassifier
            return RandomForestClassifier(n_estimators=p["n_estimators"],
                                          max_depth=p["max_depth"],
                                          min_samples_leaf=p["min_samples_leaf"],
                                          random_state=self.seed, n_jobs=1)
        # Multinomial naive Bayes over one-hot indicators: a feature whose value was not
        # seen in training has no active column and so contributes nothing.
        from sklearn.naive_bayes import MultinomialNB
        return MultinomialNB(alpha=p["alpha"])

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "label": self.label, "parameters": self.parameters,
                "seed": self.seed}


class FittedClassifier:
    """A trained classifier that returns probabilities over all class codes."""

    def __init__(self, estimator: Any, n_classes: int, constant: int | None = None) -> None:
        self._estimator = estimator
        self._n_classes = n_classes
        self._constant = constant

    def predict_proba(self, x: sp.csr_matrix) -> np.ndarray:
        """(rows, n_classes) probabilities; classes absent from training get 0."""
        out = np.zeros((x.shape[0], self._n_classes))
        if self._constant is not None:
            out[:, self._constant] = 1.0
            return out
        out[:, self._estimator.classes_] = self._estimator.predict_proba(x)
        return out


#: Trees a forest grows between two looks at the cancel token.
_TREES_PER_STEP = 10
#: How often a job waiting for a fit on its own thread looks at its cancel token.
_POLL_SECONDS = 0.02


def run_cancellable(work: Callable[[], T], cancel: CancelToken | None) -> T:
    """``work()`` on a thread of its own while this one looks at ``cancel`` every 20 ms.

    scikit-learn's fits and predictions take no token and can run for seconds on
    hundreds of thousands of records; the job must stop within 200 ms. On a cancel the
    job raises at once and the abandoned work finishes in the background (a forest stops
    at its next step); its result is dropped.
    """
    if cancel is None:
        return work()
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the waiting job
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="arxpy-fit", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(_POLL_SECONDS)
        cancel.raise_if_cancelled()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def fit(spec: ClassifierSpec, x: sp.csr_matrix, y: np.ndarray, weights: np.ndarray | None,
        n_classes: int, cancel: Any = None) -> FittedClassifier:
    """Train ``spec`` on rows ``x`` with class codes ``y`` in ``[0, n_classes)``.

    With one class value in the training data the model predicts it with certainty
    (scikit-learn's logistic regression refuses such data). A forest grows in steps of
    ten trees (scikit-learn's warm start gives the same forest) and checks ``cancel``
    between steps, since growing a hundred trees can take seconds.
    """
    present = np.unique(y)
    if present.size == 1:
        return FittedClassifier(None, n_classes, constant=int(present[0]))
    from sklearn.exceptions import ConvergenceWarning

    estimator = spec.estimator()
    with warnings.catch_warnings():
        # Stopping at max_iter is the user's setting, not an error of the analysis.
        warnings.simplefilter("ignore", category=ConvergenceWarning)
        if spec.kind == "forest" and cancel is not None:
            total = estimator.n_estimators
            estimator.set_params(warm_start=True)
            for grown in range(_TREES_PER_STEP, total + _TREES_PER_STEP, _TREES_PER_STEP):
                estimator.set_params(n_estimators=min(grown, total))
                estimator.fit(x, y, sample_weight=weights)
                cancel.raise_if_cancelled()
        else:
            estimator.fit(x, y, sample_weight=weights)
    return FittedClassifier(estimator, n_classes)
