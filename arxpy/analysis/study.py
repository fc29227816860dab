"""Study mode: quality models versus classifier accuracy over a lattice (paper 004, Fig. 4).

For one anonymization configuration every transformation of the lattice is checked and
scored by each quality model (Loss, non-uniform entropy, KL divergence, classification).
The anonymous ones are then evaluated by interwoven cross-validation
(:mod:`arxpy.analysis.classification`) to get their relative accuracy. Each model
"chooses" its minimum among the anonymous transformations (ties as in the search: fewer
generalization steps, then lower levels first), exactly the optimum the engine returns
for that model. The result sets every model's score against relative accuracy
(Spearman's rank correlation; a model that tracks accuracy well has a strongly
*negative* value, since lower scores are better) and reports the relative accuracy of
each model's choice next to the best relative accuracy measured.

Evaluating every anonymous transformation can take long (about 0.5 s each for 40,000
records with logistic regression), and so can scoring a large lattice. ``time_limit``
covers the whole study: scoring (bottom-up) stops at half the budget once it has found
an anonymous transformation, and each model then chooses among those scored. The
reference training and the (at most four) chosen transformations are always evaluated,
then the others in a seeded random order until the budget (counted from the start of
the study) is spent. The result then says it is a sample (``sampled``), and
``best_relative_accuracy`` is the best *measured*. Spearman's rho needs at least
:data:`MIN_RHO_POINTS` evaluated transformations; with fewer it is NaN and the notes
say why.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.analysis.classification import ClassificationConfig, ClassificationTask, CrossValidation
from arxpy.data.definition import DataDefinition
from arxpy.engine.apply import release_of
from arxpy.engine.config import AnonymizationConfig
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.quality.base import QualityModel
from arxpy.search.base import Check

#: The quality models of the paper's Figure 4, by report key.
STUDY_MODELS = ("loss", "entropy", "kl", "classification")
#: Share of the progress bar given to scoring the lattice.
_SCORING_SHARE = 0.2
#: Largest lattice study mode scores completely.
MAX_STUDY_NODES = 200_000
#: Share of the time limit scoring may use before it stops (at the end of a level).
_SCORING_BUDGET = 0.5
#: Fewest evaluated transformations for a meaningful rank correlation.
MIN_RHO_POINTS = 10


def study_quality_models(class_attribute: str) -> dict[str, QualityModel]:
    """The four models with ARX's default parameters."""
    from arxpy.quality import Classification, KLDivergence, Loss, NonUniformEntropy

    return {"loss": Loss(), "entropy": NonUniformEntropy(), "kl": KLDivergence(),
            "classification": Classification(class_attribute)}


@dataclass
class StudyResult:
    """Scores and relative accuracies of a lattice's anonymous transformations.

    ``table`` has one row per anonymous transformation: its levels (one column per
    quasi-identifier), each model's score, and - where evaluated - accuracy and
    relative accuracy (NaN otherwise).
    """

    quasi_identifiers: list[str]
    table: pd.DataFrame
    chosen: dict[str, tuple[int, ...]]
    lattice_size: int
    sampled: bool
    classification: ClassificationConfig
    baseline_accuracy: float
    original_accuracy: float
    elapsed_seconds: float
    notes: list[str] = field(default_factory=list)

    @property
    def evaluated(self) -> pd.DataFrame:
        return self.table[self.table["evaluated"]]

    def _row(self, levels: tuple[int, ...]) -> pd.Series:
        mask = np.ones(len(self.table), bool)
        for name, level in zip(self.quasi_identifiers, levels, strict=True):
            mask &= self.table[name].to_numpy() == level
        return self.table[mask].iloc[0]

    def spearman(self, model: str) -> tuple[float, float]:
        """Spearman's rho and its p-value between ``model``'s score and relative accuracy."""
        from scipy.stats import spearmanr

        data = self.evaluated[[model, "relative_accuracy"]].dropna()
        if (len(data) < MIN_RHO_POINTS or data[model].nunique() < 2
                or data["relative_accuracy"].nunique() < 2):
            return math.nan, math.nan
        result = spearmanr(data[model], data["relative_accuracy"])
        return float(result.statistic), float(result.pvalue)

    @property
    def best_relative_accuracy(self) -> float:
        values = self.evaluated["relative_accuracy"].dropna()
        return float(values.max()) if len(values) else math.nan

    @property
    def best_transformation(self) -> tuple[int, ...] | None:
        values = self.evaluated["relative_accuracy"].dropna()
        if not len(values):
            return None
        row = self.table.loc[values.idxmax()]
        return tuple(int(row[name]) for name in self.quasi_identifiers)

    def summary(self) -> pd.DataFrame:
        """Per model: its choice, the choice's relative accuracy, Spearman's rho and p."""
        rows = []
        for model, levels in self.chosen.items():
            rho, p = self.spearman(model)
            row = self._row(levels)
            rows.append({"model": model, "chosen_transformation": levels,
                         "score": float(row[model]),
                         "chosen_relative_accuracy": float(row["relative_accuracy"]),
                         "spearman": rho, "spearman_p": p})
        return pd.DataFrame(rows).set_index("model")

    def scatter_data(self, model: str) -> pd.DataFrame:
        """(score, relative accuracy) of every evaluated transformation, for plotting."""
        return self.evaluated[[model, "relative_accuracy"]].rename(columns={model: "score"})

    def to_dict(self) -> dict[str, Any]:
        """The JSON report of ``arxpy study classification``."""
        def number(value: float) -> float | None:
            return None if value is None or math.isnan(value) else float(value)

        models = {}
        for model, row in self.summary().iterrows():
            models[model] = {
                "chosen_transformation": dict(zip(self.quasi_identifiers,
                                                  map(int, row["chosen_transformation"]),
                                                  strict=True)),
                "chosen_relative_accuracy": number(row["chosen_relative_accuracy"]),
                "score": number(row["score"]),
                "spearman": number(row["spearman"]),
                "spearman_p": number(row["spearman_p"]),
            }
        best = self.best_transformation
        return {
            "class_attribute": self.classification.class_attribute,
            "classifier": self.classification.classifier.to_dict(),
            "folds": self.classification.folds,
            "seed": self.classification.seed,
            "quasi_identifiers": self.quasi_identifiers,
            "models": models,
            "best_relative_accuracy": number(self.best_relative_accuracy),
            "best_transformation": None if best is None else dict(
                zip(self.quasi_identifiers, best, strict=True)),
            "baseline_accuracy": self.baseline_accuracy,
            "original_accuracy": self.original_accuracy,
            "lattice_size": self.lattice_size,
            "anonymous_transformations": int(len(self.table)),
            "evaluated_transformations": int(self.table["evaluated"].sum()),
            "sampled": self.sampled,
            "elapsed_seconds": self.elapsed_seconds,
            "notes": list(self.notes),
        }

    def plot(self, directory: str | Path) -> list[Path]:
        """Write the Figure-4 scatter plots as PNGs into ``directory``; returns the paths."""
        from arxpy.analysis.plots import write_study_plots

        return write_study_plots(self, Path(directory))


class _DeadlineReached(Exception):
    """Scoring used its share of the study's time limit."""


@dataclass(frozen=True)
class _Scored:
    context: Any
    table: pd.DataFrame  # the anonymous transformations scored, with every model's key
    scored: int  # transformations checked (all of the lattice unless the deadline hit)


def _score_lattice(frame: pd.DataFrame, definition: DataDefinition,
                   hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig,
                   models: dict[str, QualityModel], cancel: CancelToken,
                   progress: Progress, deadline: float | None = None) -> _Scored:
    """Check the transformations bottom-up (the exhaustive search); a table of the
    anonymous ones with every model's key. Past ``deadline`` (perf_counter) it stops,
    once some transformation was anonymous."""
    from arxpy.engine.prepare import prepare
    from arxpy.search import SearchContext, run_search

    scoring = dataclasses.replace(config, quality_model=models["classification"])
    data, scoring = prepare(frame, definition, hierarchies, scoring)
    for model in models.values():
        model.prepare(data)
    ctx = SearchContext(data, scoring.privacy_models, models["loss"], config.suppression_limit,
                        cancel=cancel, progress=lambda f, m: progress(f, m.replace(
                            "Checked", "Scored")))
    if ctx.lattice.size > MAX_STUDY_NODES:
        raise ConfigurationError(
            f"The lattice has {ctx.lattice.size} transformations; study mode scores at most "
            f"{MAX_STUDY_NODES}. Narrow the levels of some quasi-identifiers (min/max level).")
    rows: list[dict[str, Any]] = []

    def score(check: Check, classes: EquivalenceClasses) -> None:
        if deadline is not None and rows and time.perf_counter() >= deadline:
            raise _DeadlineReached
        if not check.anonymous:
            return
        suppressed = ~ctx.kept(classes)
        row: dict[str, Any] = {"levels": check.levels}
        for name, model in models.items():
            value, key = model.evaluate(classes, suppressed)
            row[name], row[f"_key_{name}"] = float(value), tuple(float(k) for k in key)
        rows.append(row)

    ctx.on_check = score
    try:
        run_search(ctx, "exhaustive")
        scored = ctx.lattice.size
    except _DeadlineReached:
        scored = len(ctx.checks) - 1  # the check that met the deadline was not scored
    ctx.on_check = None
    return _Scored(ctx, pd.DataFrame(rows), scored)


def _choices(table: pd.DataFrame, models: list[str]) -> dict[str, tuple[int, ...]]:
    """Each model's optimum: lowest key, then fewest generalization steps, then levels
    (ties are then given to ARX's choice when the whole lattice was scored)."""
    chosen = {}
    for name in models:
        best = min(zip(table[f"_key_{name}"], table["levels"], strict=True),
                   key=lambda item: (item[0], sum(item[1]), item[1]))
        chosen[name] = best[1]
    return chosen


def _evaluation_order(table: pd.DataFrame, chosen: dict[str, tuple[int, ...]],
                      seed: int) -> tuple[list[tuple[int, ...]], int]:
    """The chosen transformations first, then the others in a seeded random order."""
    first = list(dict.fromkeys(chosen.values()))
    shuffled = np.random.default_rng(seed).permutation(
        np.array(table["levels"].tolist(), dtype=np.int64)).tolist()
    return first + [tuple(lv) for lv in shuffled if tuple(lv) not in first], len(first)


def _with_accuracies(table: pd.DataFrame, names: list[str],
                     measured: dict[tuple[int, ...], tuple[float, float]]) -> pd.DataFrame:
    """The scored table with one column per quasi-identifier and the measured accuracies."""
    table = table.drop(columns=[c for c in table.columns if c.startswith("_key_")])
    for j, name in enumerate(names):
        table.insert(j, name, [lv[j] for lv in table["levels"]])
    missing = (math.nan, math.nan)
    table["evaluated"] = [lv in measured for lv in table["levels"]]
    table["accuracy"] = [measured.get(lv, missing)[0] for lv in table["levels"]]
    table["relative_accuracy"] = [measured.get(lv, missing)[1] for lv in table["levels"]]
    return table[[c for c in table.columns if c != "levels"] + ["levels"]]


def classification_study(
    frame: pd.DataFrame,
    definition: DataDefinition,
    hierarchies: Mapping[str, Hierarchy],
    config: AnonymizationConfig,
    classification: ClassificationConfig,
    time_limit: float | None = None,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> StudyResult:
    """Relative accuracy against each quality model over the lattice of ``config`` (a job).

    ``config`` supplies the privacy models and suppression limit (its own quality model
    and strategy are not used). ``time_limit`` (seconds, > 0) bounds the study; the
    chosen transformations are always evaluated. Raises ConfigurationError when no
    transformation is anonymous.
    """
    if time_limit is not None and not time_limit > 0:
        raise ConfigurationError(f"The time limit must be positive seconds, got {time_limit!r}.")
    started = time.perf_counter()
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    task = ClassificationTask(frame, definition, hierarchies, classification)
    models = study_quality_models(classification.class_attribute)
    deadline = None if time_limit is None else started + _SCORING_BUDGET * time_limit
    scoring = _score_lattice(frame, definition, hierarchies, config, models, cancel,
                             lambda f, m: report(_SCORING_SHARE * f, m), deadline)
    ctx, table = scoring.context, scoring.table
    if table.empty:
        raise ConfigurationError(
            "No transformation satisfies the privacy models within the suppression limit; "
            "allow more suppression or relax the privacy models.")
    chosen = _choices(table, list(models))
    if scoring.scored == ctx.lattice.size:
        # Among equally good transformations, the one ARX (and the engine) returns.
        from arxpy.search.flash import arx_choice_for

        for name, model in models.items():
            scores = {lv: (value, key) for lv, value, key in zip(
                table["levels"], table[name], table[f"_key_{name}"], strict=True)}
            chosen[name] = arx_choice_for(ctx, model, scores, chosen[name])
    names = list(ctx.lattice.names)
    queue, n_chosen = _evaluation_order(table, chosen, classification.seed)
    validation = CrossValidation(task)
    measured: dict[tuple[int, ...], tuple[float, float]] = {}
    for position, levels in enumerate(queue):
        over_time = time_limit is not None and time.perf_counter() - started >= time_limit
        if position >= n_chosen and over_time:
            break
        report(_SCORING_SHARE + (1 - _SCORING_SHARE) * position / len(queue),
               f"Evaluated {position} of {len(queue)} anonymous transformations")
        release = release_of(ctx, frame, definition, config, levels, input_sha256="")
        performance = validation.evaluate(release.transformation, release.suppressed,
                                          cancel=cancel)
        measured[levels] = (performance.accuracy, performance.relative_accuracy)
    reference = validation.evaluate({}, None, cancel=cancel)  # cached: no extra training
    partly_scored = scoring.scored < ctx.lattice.size
    sampled = len(measured) < len(table) or partly_scored
    notes = []
    if sampled:
        notes.append(f"Sampled: {len(measured)} of {len(table)} anonymous transformations "
                     f"evaluated within the {time_limit:g} s time limit (each model's choice "
                     "first, the rest in seeded random order); best_relative_accuracy is the "
                     "best measured.")
    if partly_scored:
        notes.append(f"Scored {scoring.scored:,} of {ctx.lattice.size:,} transformations "
                     "(bottom-up) within half the time limit; each model's choice is its best "
                     "among those scored.")
    if len(measured) < MIN_RHO_POINTS:
        notes.append(f"Spearman's rho needs at least {MIN_RHO_POINTS} evaluated "
                     f"transformations; {len(measured)} were evaluated"
                     + (", so it is not given: allow more time." if sampled else
                        ", so it is not given."))
    if math.isnan(reference.relative_accuracy):
        notes.append("The classifier trained on the original data is no better than ZeroR, so "
                     "relative accuracy is undefined (NaN) for every transformation.")
    report(1.0, "Study finished")
    return StudyResult(
        quasi_identifiers=names, table=_with_accuracies(table, names, measured),
        chosen=chosen, lattice_size=int(ctx.lattice.size), sampled=sampled,
        classification=classification, baseline_accuracy=reference.baseline_accuracy,
        original_accuracy=reference.original_accuracy,
        elapsed_seconds=time.perf_counter() - started, notes=notes)
