"""Compare candidates of any runs on one input, with an optional classifier target (no Qt).

The GUI's Compare calls :func:`compare_candidates`: the table of
:func:`arxpy.analysis.compare.compare_releases` with the input table (information loss
across methods) and, when a target is chosen, seed 004's classifier accuracy on it (the
target binned at ``bins`` if numeric); beside it the figures Compare draws (classes by
size, records by risk, loss per attribute, ROC curves) and "Which to publish?", each
computed once here from the releases. A figure that does not apply to a release is a
sentence saying why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from arxpy.analysis.classification import ClassificationConfig, ClassificationTask, bin_values
from arxpy.analysis.compare import best_columns, compare_releases, evaluation
from arxpy.analysis.metrics import ClassificationPerformance
from arxpy.analysis.release_utility import (
    CORRELATIONS,
    DEVIATIONS,
    ENTROPY,
    MEANS,
    attribute_losses,
)
from arxpy.analysis.setvalued_compare import published_document
from arxpy.data.definition import DataDefinition
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken
from arxpy.release import Release

#: Class-size bands [low, high) of the class-size chart.
SIZE_BANDS = ((1, 2), (2, 5), (5, 10), (10, 20), (20, 50), (50, 100), (100, None))
#: Re-identification risk bands (low, high] of the record-risk chart (risk = 1 / size).
RISK_BANDS = ((0.2, 1.0), (0.1, 0.2), (0.05, 0.1), (0.01, 0.05), (0.0, 0.01))
NOT_SET = "does not apply: a set-valued release publishes chunks of codes, not classes"


@dataclass(frozen=True)
class Distribution:
    """Shares (0..1) over labelled bands, for one release."""

    labels: tuple[str, ...]
    shares: np.ndarray


@dataclass(frozen=True)
class Advice:
    """"Which to publish?": the best anonymous release per criterion, and why the others
    are not anonymous (their verdicts)."""

    #: (criterion in words, the releases best on it), criteria where releases differ.
    best: tuple[tuple[str, tuple[str, ...]], ...]
    anonymous: tuple[str, ...]
    #: (release, its verdict's sentence) for each release that is not anonymous.
    not_anonymous: tuple[tuple[str, str], ...]

    def wins(self) -> list[tuple[str, list[str]]]:
        """(release, the criteria it is best on) for each anonymous release, in order."""
        return [(name, [words for words, names in self.best if name in names])
                for name in self.anonymous]

    def sentences(self, names: Mapping[str, str] | None = None) -> list[str]:
        """The advice in plain words, one sentence per line; ``names`` may shorten how
        releases are called (e.g. Compare's column letters)."""
        call = (lambda name: names.get(name, name)) if names else (lambda name: name)
        out = []
        if not self.anonymous:
            out.append("None of the compared releases is anonymous: publish none of them "
                       "as it is.")
        elif len(self.anonymous) == 1:
            out.append(f"{call(self.anonymous[0])} is the only anonymous release.")
        elif not self.best:
            out.append("The anonymous releases are equal on every compared figure.")
        else:
            out += [f"{call(name)} is best on {', '.join(criteria)}."
                    for name, criteria in self.wins() if criteria]
        out += [f"{call(name)} is not anonymous: {verdict}"
                for name, verdict in self.not_anonymous]
        return out


@dataclass(frozen=True)
class Comparison:
    """Everything Compare shows, computed once (see the module docstring)."""

    table: pd.DataFrame
    class_sizes: dict[str, Distribution | str]
    record_risks: dict[str, Distribution | str]
    #: Per release: per-attribute losses (:func:`attribute_losses`), or why not.
    attribute_losses: dict[str, pd.DataFrame | str]
    #: Per release: the output-trained classifier's ROC points (class, fpr, tpr) and its
    #: areas, or why not; empty without a classifier target.
    roc: dict[str, pd.DataFrame | str] = field(default_factory=dict)
    #: The input-trained classifier's ROC points (the same for every release).
    roc_original: pd.DataFrame | None = None
    advice: Advice | None = None


#: Compare's rows "Which to publish?" reads, in words.
CRITERIA = (("fewest records suppressed", "records suppressed"),
            ("largest smallest class", "smallest class"),
            ("lowest highest re-identification risk", "highest prosecutor risk"),
            ("lowest average re-identification risk", "average prosecutor risk"),
            ("least information loss", ENTROPY),
            ("means kept best", MEANS),
            ("spread kept best", DEVIATIONS),
            ("correlations kept best", CORRELATIONS),
            ("highest classifier accuracy", "classifier accuracy"))


def compare_candidates(releases: Mapping[str, Release | Callable[[], Release]],
                       original: pd.DataFrame, definition: DataDefinition,
                       hierarchies: Mapping[str, Hierarchy],
                       target: str | None = None, bins: Sequence[float] | None = None, *,
                       cancel: CancelToken | None = None) -> Comparison:
    """The comparison of ``releases`` of ``original`` (a job). A value may be a function
    giving the release (a lattice candidate, computed here on the worker)."""
    cancel = cancel or CancelToken()
    named = {}
    for name, release in releases.items():
        cancel.raise_if_cancelled()
        named[name] = release() if callable(release) else release
    evaluations: dict[str, ClassificationPerformance | str] = {}
    if target:
        table = original.copy()
        if bins:
            table[target] = bin_values(original[target], bins)
        task = ClassificationTask(table, definition, hierarchies, ClassificationConfig(target))
        evaluations = {name: evaluation(task, r, bins or None, cancel)
                       for name, r in named.items()}
    frame = compare_releases(named, original, evaluations=evaluations or None,
                             definition=definition, cancel=cancel)
    sizes = {name: _attacker_sizes(r) for name, r in named.items()}
    return Comparison(
        table=frame,
        class_sizes={n: s if isinstance(s, str) else class_size_shares(s)
                     for n, s in sizes.items()},
        record_risks={n: s if isinstance(s, str) else record_risk_shares(s)
                      for n, s in sizes.items()},
        attribute_losses={n: attribute_losses(original, r, definition)
                          for n, r in named.items()},
        roc={n: _roc(e) for n, e in evaluations.items()},
        roc_original=next((e.roc_curves().query("model == 'original'")
                           for e in evaluations.values() if not isinstance(e, str)), None),
        advice=publication_advice(frame))


def _attacker_sizes(release: Release) -> np.ndarray | str:
    """Class sizes over the declared quasi-identifiers (the verdict's attacker view)."""
    if published_document(release) is not None:
        return NOT_SET
    view = release.verdict.attacker
    if not view.applies:
        return f"does not apply: {view.not_applicable}"
    return np.asarray(view.sizes, dtype=np.int64)


def class_size_shares(sizes: np.ndarray) -> Distribution:
    """Share of classes per size band (how finely the records are grouped)."""
    labels, shares = [], []
    total = max(len(sizes), 1)
    for low, high in SIZE_BANDS:
        chosen = sizes >= low if high is None else (sizes >= low) & (sizes < high)
        labels.append(f"{low}+" if high is None else
                      str(low) if high == low + 1 else f"{low}–{high - 1}")
        shares.append(float(chosen.sum()) / total)
    return Distribution(tuple(labels), np.array(shares))


def record_risk_shares(sizes: np.ndarray) -> Distribution:
    """Share of released records per re-identification risk band (prosecutor: 1 / size)."""
    risk = 1.0 / np.maximum(sizes, 1)
    records = max(int(sizes.sum()), 1)
    labels, shares = [], []
    for low, high in RISK_BANDS:
        chosen = (risk > low) & (risk <= high)
        labels.append(f"≤ {_percent(high)}" if low == 0 else f"> {_percent(low)}"
                      if high == 1 else f"{100 * low:g}–{_percent(high)}")
        shares.append(float(sizes[chosen].sum()) / records)
    return Distribution(tuple(labels), np.array(shares))


def _percent(value: float) -> str:
    return f"{100 * value:g} %"


def _roc(performance: ClassificationPerformance | str) -> pd.DataFrame | str:
    """The output-trained classifier's ROC points with each class's area under it."""
    if isinstance(performance, str):
        return performance
    points = performance.roc_curves()
    points = points[points["model"] == "output"].drop(columns="model")
    if points.empty:
        return "does not apply: every held-out record has the same class"
    areas = performance.areas()
    areas = areas[areas["model"] == "output"].set_index("class")["roc_auc"]
    return points.assign(auc=points["class"].map(areas))


def publication_advice(frame: pd.DataFrame) -> Advice:
    """"Which to publish?" from a :func:`compare_releases` table."""
    anonymous = tuple(c for c in frame.columns if frame.loc["anonymous", c] is True)
    best = []
    if len(anonymous) > 1:
        for words, row in CRITERIA:
            if row in frame.index:
                winners = best_columns(frame, row)
                if winners and len(winners) < len(anonymous):
                    best.append((words, tuple(winners)))
    others = tuple((c, str(frame.loc["verdict", c])) for c in frame.columns
                   if c not in anonymous)
    return Advice(tuple(best), anonymous, others)
