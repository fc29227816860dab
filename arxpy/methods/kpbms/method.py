"""kPB-MS on the methods protocol (Aristodimou et al. 2016): MDL discretization, PB-FSS,
then pattern-based suppression until the loss is at most t.

The release publishes the selected features (most important first) and the class;
records kPB-MS drops are suppressed and left out on export. Every (pattern, class)
group of the released records holds at least k records, so the claim is k-anonymity
over the selected features *plus the class* (spec 003 §1): the class is part of the
quasi-identifier, and a pattern released with a single class discloses that class.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from arxpy.arrays import distinct
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.data.discretization import DEFAULT_BINS, DISCRETIZATIONS, MAX_BINS, fit_cuts
from arxpy.data.mdl import continuous_attributes, discretize, numeric_attributes
from arxpy.data.roles import CLASS_NAMES, DISCRETE, NUMERIC
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.methods.base import Method
from arxpy.methods.kpbms.selection import REDUNDANCY_RULES, SelectionTrace, pb_fss
from arxpy.methods.kpbms.suppression import (
    Iteration,
    PatternDecisions,
    kpbms_loop,
)
from arxpy.methods.registry import register_method
from arxpy.params import Param
from arxpy.quality.pbca import UNSEEN_RULES, PatternScorer, encode_table
from arxpy.release import SUPPRESSED_VALUE, Claim, Release, table_sha256

REFERENCE = ("Aristodimou, Antoniades & Pattichis (2016), Privacy preserving data "
             "publishing of categorical data through k-anonymity and feature selection, "
             "Healthc. Technol. Lett. 3(1) 16-21")


#: Most classes a class attribute may have (as classification's limit).
MAX_CLASSES = 100


@dataclass(frozen=True, eq=False)
class KpbmsRelease(Release):
    """A release plus kPB-MS's traces (the GUI's selection and iteration views).

    ``selected_features`` are in decreasing importance; ``cut_points`` are the MDL cuts
    of each discretized attribute; ``selection`` the PB-FSS trace; ``iterations`` one row
    per feature prefix tried; ``patterns`` the final per-pattern table (pattern values,
    class counts before and after zeroing the classes below k, i.e. the rows of the
    Fisher table, Fisher p, ``exact_p``, action; a "removed" pattern releases no
    record); ``drop_reason`` per input record
    ("", "pattern" or "class"); ``homogeneous_groups`` released patterns with one class.
    """

    class_attribute: str = ""
    selected_features: tuple[str, ...] = ()
    loss: float = 0.0
    k: int = 1
    cut_points: Mapping[str, list[float]] = field(default_factory=dict)
    selection: SelectionTrace = field(default_factory=SelectionTrace)
    iterations: tuple[Iteration, ...] = ()
    patterns: pd.DataFrame = field(default_factory=pd.DataFrame)
    drop_reason: np.ndarray | None = None
    homogeneous_groups: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def patterns_removed(self) -> int:
        return int((self.patterns["action"] == "removed").sum()) if len(self.patterns) else 0

    @property
    def patterns_trimmed(self) -> int:
        return int((self.patterns["action"] == "trimmed").sum()) if len(self.patterns) else 0

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out.update({
            "class_attribute": self.class_attribute,
            "selected_features": list(self.selected_features), "loss": self.loss,
            "k": self.k, "cut_points": {a: list(c) for a, c in self.cut_points.items()},
            "selection": self.selection.to_dict(),
            "iterations": [it.to_dict() for it in self.iterations],
            "homogeneous_groups": self.homogeneous_groups, "warnings": list(self.warnings),
        })
        return out


_PARAMS = (
    Param("class_attribute", "attribute", label="class attribute",
          help="the attribute classifiers will predict", step="Sec. 3", data_types=DISCRETE,
          named_like=CLASS_NAMES),
    Param("qis", "attributes", None, optional=True, label="candidate features",
          help="features PB-FSS may select, all treated as quasi-identifiers (default: "
          "every non-identifying attribute but the class)", step="Sec. 6 [I]"),
    Param("discretize", "choice", "mdl", choices=DISCRETIZATIONS, label="discretization",
          help="cuts for continuous attributes: MDL (Fayyad-Irani), equal-frequency bins "
          "(eqfreq), or none", step="Sec. 6"),
    Param("bins", "int", DEFAULT_BINS, low=2, high=MAX_BINS, label="equal-frequency bins",
          help="bins per continuous attribute when discretization is eqfreq",
          step="spec §3 [I]"),
    Param("continuous", "attributes", None, optional=True, label="continuous attributes",
          help="attributes to discretize (default: numeric ones with a fractional value "
          "or more than 20 distinct values)", step="Sec. 6 [I]", data_types=NUMERIC),
    Param("k", "int", 5, low=1, label="k", unit="records",
          help="smallest (pattern, class) group; 1 = feature selection only", step="Alg. 2"),
    Param("max_loss", "float", 0.10, low=0.0, high=1.0, label="maximum loss (t)",
          unit="fraction of records", help="largest share of records that may be removed",
          step="Alg. 2"),
    Param("alpha", "float", 0.05, low=0.0, high=1.0, low_open=True, high_open=True,
          label="Fisher significance level", help="a pattern whose class distribution "
          "changes significantly is removed whole", step="Alg. 2 [I]"),
    Param("cv_folds", "int", 10, low=0, label="CV folds",
          help="stratified folds of CV-PBCA in PB-FSS (0: resubstitution PBCA)",
          step="Alg. 1 [I]"),
    Param("redundancy", "choice", "ge", choices=REDUNDANCY_RULES, label="redundancy rule",
          help="ge: redundant if the score without the feature is not lower; equal: the "
          "paper's 'remains the same'", step="Alg. 1 step 2 [I]"),
    Param("unseen", "choice", "majority", choices=UNSEEN_RULES, label="unseen patterns",
          help="CV-PBCA's prediction for a pattern absent from the training folds",
          step="Alg. 1 [I]"),
    Param("seed", "int", 0, low=0, label="seed", help="seed of the CV-PBCA folds"),
)


@register_method
class Kpbms(Method):
    """k-anonymity by pattern-based suppression after pattern-based feature selection."""

    name = "kpbms"
    label = "Feature-selection suppression (kPB-MS)"
    description = ("Selects the features that carry the class (PB-FSS), then removes records "
                   "so that every (pattern, class) group has at least k records, dropping the "
                   "least important feature while more than t of the records would be lost.")
    guidance = ("Choose it for categorical data released for classification: it keeps the "
                "features that predict the class and removes records instead of generalizing "
                "values.")
    reference = REFERENCE
    params = _PARAMS

    def run(self, data: pd.DataFrame, definition: DataDefinition, *,
            hierarchies: Mapping[str, Hierarchy] | None = None,
            progress: Progress | None = None,
            cancel: CancelToken | None = None) -> KpbmsRelease:
        started = time.perf_counter()
        report = ThrottledProgress(progress)
        definition.check_columns(data.columns)
        features = self.candidate_features(data, definition)
        report(0.0, "Encoding the class and the features")
        cuts = self.cut_points(data, definition, cancel)
        table = discretize(data[features + [self.class_attribute]], cuts, cancel)
        codes, labels, classes = encode_table(table, features, self.class_attribute, cancel)
        report(0.05, "Selecting features (PB-FSS)")
        scorer = PatternScorer(codes, labels, self.cv_folds, self.seed, self.unseen)
        ranking, trace = pb_fss(scorer, features, self.redundancy, report, cancel)
        if not ranking:
            raise ConfigurationError(
                f"kPB-MS: no feature predicts '{self.class_attribute}' better than its "
                f"majority class (score {trace.baseline:.3f}); nothing would be published. "
                "Check the class attribute or add features.")
        decisions, iterations = kpbms_loop(codes, labels, len(classes), ranking, features,
                                           self.k, self.max_loss, self.alpha, report, cancel)
        release = self._release(data, definition, table, decisions, iterations, trace, cuts,
                                classes, time.perf_counter() - started)
        if cancel is not None:  # cancelled while the release was built: return nothing
            cancel.raise_if_cancelled()
        report(1.0, "Done")
        return release

    def cut_points(self, data: pd.DataFrame, definition: DataDefinition,
                   cancel: CancelToken | None = None) -> dict[str, list[float]]:
        """The cuts of each continuous candidate feature under this discretization (what
        a run applies first; Configure previews them)."""
        if self.discretize == "none":
            return {}
        features = self.candidate_features(data, definition)
        _, labels, _ = encode_table(data, [], self.class_attribute)
        return fit_cuts(data, self._continuous(data, features, cancel), labels,
                        self.discretize, self.bins, cancel)

    def candidate_features(self, data: pd.DataFrame, definition: DataDefinition
                           ) -> list[str]:
        """The features PB-FSS may choose; ConfigurationError for a bad class attribute."""
        target = self.class_attribute
        if target not in data.columns:
            raise ConfigurationError(
                f"kPB-MS: there is no class attribute '{target}'; the attributes are "
                f"{', '.join(map(str, data.columns))}.")
        classes = data[target].astype(str).nunique()
        if classes < 2:
            raise ConfigurationError(
                f"kPB-MS: the class attribute '{target}' has a single value; choose an "
                "attribute with at least two classes.")
        if classes > MAX_CLASSES:  # a continuous attribute: classes of one record each
            raise ConfigurationError(
                f"kPB-MS: the class attribute '{target}' has {classes:,} distinct values; "
                f"choose a categorical attribute (at most {MAX_CLASSES}) or bin it first.")
        identifying = set(definition.identifying)
        if target in identifying:
            raise ConfigurationError(
                f"kPB-MS: the class attribute '{target}' is identifying and would be "
                "removed; make it insensitive or sensitive.")
        features = list(self.qis) if self.qis is not None else \
            [c for c in data.columns if c != target and c not in identifying]
        for name in features:
            if name not in data.columns or name == target or name in identifying:
                raise ConfigurationError(
                    f"kPB-MS: '{name}' cannot be a candidate feature (missing, the class, "
                    "or identifying); list other attributes.")
        if not features:
            raise ConfigurationError("kPB-MS needs at least one feature besides the class.")
        return features

    def _continuous(self, data: pd.DataFrame, features: list[str],
                    cancel: CancelToken | None) -> list[str]:
        if self.continuous is None:
            return continuous_attributes(data, features, cancel)
        outside = [a for a in self.continuous if a not in features]
        if outside:
            raise ConfigurationError(
                f"kPB-MS: continuous attribute '{outside[0]}' is not a candidate feature; "
                f"choose among {', '.join(features)}.")
        not_numeric = [a for a in self.continuous if a not in numeric_attributes(data, [a])]
        if not_numeric:
            raise ConfigurationError(
                f"kPB-MS: '{not_numeric[0]}' has values that are not numbers, so it cannot "
                "be discretized; leave it out of the continuous attributes.")
        return list(self.continuous)

    def _release(self, data, definition, table, decisions: PatternDecisions, iterations,
                 trace: SelectionTrace, cuts, classes, elapsed) -> KpbmsRelease:
        names = trace.ranking[:len(decisions.features)]
        columns = names + [self.class_attribute]
        out = table[columns].astype(str).reset_index(drop=True)
        dropped = decisions.dropped
        out.loc[dropped, :] = SUPPRESSED_VALUE
        groups = _groups(decisions)
        released = np.where((decisions.actions == "removed")[:, None], 0, decisions.after)
        homogeneous = int(np.count_nonzero((released > 0).sum(axis=1) == 1))
        release_definition = DataDefinition.for_columns(columns)
        for name in columns:
            release_definition = release_definition.with_attribute(
                name, type=AttributeType.QUASI_IDENTIFYING)
        claim = Claim(
            "k-anonymity", {"k": self.k}, tuple(columns),
            f"every released (pattern, class) group holds at least {self.k} records; the "
            f"class attribute '{self.class_attribute}' is part of the quasi-identifier",
            min_class_size=self.k)
        warnings = _bias_warnings(table, names)
        if homogeneous:
            warnings += (f"attribute disclosure: {homogeneous} released patterns have a "
                         f"single class, so anyone matching such a pattern learns its "
                         f"'{self.class_attribute}' value",)
        reason = np.where(decisions.whole, "pattern", np.where(dropped, "class", ""))
        return KpbmsRelease(
            table=out, suppressed=dropped.copy(), definition=release_definition,
            method=self.name, parameters=self.get_params(), claims=(claim,),
            input_sha256=table_sha256(data), groups=groups, seed=self.seed,
            elapsed_seconds=elapsed, remove_suppressed=True,
            class_attribute=self.class_attribute, selected_features=tuple(names),
            loss=decisions.loss, k=self.k, cut_points=cuts, selection=trace,
            iterations=tuple(iterations), patterns=_pattern_table(table, names, decisions,
                                                                  classes),
            drop_reason=reason, homogeneous_groups=homogeneous, warnings=warnings)


def _bias_warnings(table: pd.DataFrame, names: list[str]) -> tuple[str, ...]:
    """PBCA favours features with many categories [P Sec. 3]: flag a selected feature
    with more than n/10 of them (spec §7)."""
    n = len(table)
    return tuple(
        f"feature '{name}' has {levels} categories for {n} records; PBCA is biased towards "
        "such features, so check that it carries the class and is not an identifier"
        for name in names if (levels := table[name].nunique(dropna=False)) > n / 10)


def _groups(decisions: PatternDecisions) -> np.ndarray:
    """(pattern, class) group id of each released record, -1 for dropped ones."""
    keys = decisions.ids * decisions.before.shape[1] + decisions.labels
    dense = pd.factorize(keys, sort=False)[0].astype(np.int64)
    dense[decisions.dropped] = -1
    return dense


def _pattern_table(table: pd.DataFrame, names: list[str], decisions: PatternDecisions,
                   classes: list[str]) -> pd.DataFrame:
    """One row per pattern: its values, class counts before and after, p and action."""
    first = distinct(np.asarray(decisions.ids).ravel(), return_index=True)[1]
    out = table[names].iloc[first].astype(str).reset_index(drop=True)
    for c, label in enumerate(classes):
        out[f"before:{label}"] = decisions.before[:, c]
    for c, label in enumerate(classes):
        out[f"after:{label}"] = decisions.after[:, c]
    out["p"] = decisions.pvalues
    out["exact_p"] = decisions.exact
    out["action"] = decisions.actions
    return out
