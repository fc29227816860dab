"""PB-FSS: pattern-based feature selection (Aristodimou et al. 2016, Algorithm 1).

Three steps on (cross-validated) PBCA with the same folds for every score (spec 003
§2.2): forward selection, removal of redundant features, and a ranking by backward
elimination that lists the features in decreasing importance (the last one is the
first kPB-MS drops).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arxpy.jobs import CancelToken, Progress
from arxpy.quality.pbca import PatternScorer, extend_patterns, pattern_ids

#: How step 2 decides that a feature is redundant ("ge": the score without it is at
#: least the score with it [I]; "equal": the paper's "remains the same").
REDUNDANCY_RULES = ("ge", "equal")


@dataclass
class SelectionTrace:
    """What PB-FSS did, for reports and the GUI (features by name, scores in [0, 1]).

    ``forward``: (step, feature added, score after adding); ``baseline``: the score of
    no feature (the training majority); ``redundancy``: (feature, score with the
    subset, score without it, removed?); ``ranking``: features, most important first;
    ``contributions``: the score drop when each was eliminated in step 3.
    """

    baseline: float = 0.0
    forward: list[tuple[int, str, float]] = field(default_factory=list)
    rejected: tuple[str, float] | None = None
    redundancy: list[tuple[str, float, float, bool]] = field(default_factory=list)
    ranking: list[str] = field(default_factory=list)
    contributions: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline_score": self.baseline,
            "forward": [{"step": s, "feature": f, "score": v} for s, f, v in self.forward],
            "rejected": None if self.rejected is None else
            {"feature": self.rejected[0], "score": self.rejected[1]},
            "redundancy": [{"feature": f, "score_with": a, "score_without": b, "removed": r}
                           for f, a, b, r in self.redundancy],
            "ranking": list(self.ranking),
            "contributions": dict(self.contributions),
        }


def _checkpoint(cancel: CancelToken | None) -> None:
    if cancel is not None:
        cancel.raise_if_cancelled()


def forward_selection(scorer: PatternScorer, names: Sequence[str], trace: SelectionTrace,
                      progress: Progress, cancel: CancelToken | None) -> list[int]:
    """Step 1: add the feature that maximises the score while it rises (ties: the
    lowest column index [I])."""
    selected: list[int] = []
    ids, count = pattern_ids(scorer.codes, [])
    best = scorer.correct_of(ids, count)
    trace.baseline = best / scorer.n
    d = scorer.codes.shape[1]
    while len(selected) < d:
        candidate, candidate_score, candidate_ids = -1, -1, None
        for j in range(d):
            if j in selected:
                continue
            _checkpoint(cancel)
            extended = extend_patterns(ids, count, scorer.codes[:, j])
            score = scorer.correct_of(*extended)
            if score > candidate_score:
                candidate, candidate_score, candidate_ids = j, score, extended
        if candidate_score <= best:
            trace.rejected = (names[candidate], candidate_score / scorer.n)
            break
        selected.append(candidate)
        best = candidate_score
        ids, count = candidate_ids  # type: ignore[misc]
        trace.forward.append((len(selected), names[candidate], best / scorer.n))
        progress(min(0.6, 0.6 * len(selected) / max(d, 1) + 0.05),
                 f"Forward selection: {len(selected)} features")
    return selected


def remove_redundant(scorer: PatternScorer, selected: list[int], names: Sequence[str],
                     rule: str, trace: SelectionTrace, cancel: CancelToken | None
                     ) -> list[int]:
    """Step 2: drop, in selection order, each feature whose removal keeps the score;
    each removal takes effect at once and the last feature always stays [I]."""
    kept = list(selected)
    best = scorer.correct(kept)
    for j in selected:
        if len(kept) == 1:
            break
        _checkpoint(cancel)
        without = [f for f in kept if f != j]
        score = scorer.correct(without)
        redundant = score >= best if rule == "ge" else score == best
        trace.redundancy.append((names[j], best / scorer.n, score / scorer.n, redundant))
        if redundant:
            kept, best = without, score
    return kept


def rank_features(scorer: PatternScorer, selected: list[int], names: Sequence[str],
                  trace: SelectionTrace, cancel: CancelToken | None) -> list[int]:
    """Step 3: repeatedly move the feature whose removal costs least (ties: earlier in
    the list) to the front of the ranking; returns most important first."""
    remaining = list(selected)
    ranking: list[int] = []
    while remaining:
        base = scorer.correct(remaining)
        drops = []
        for j in remaining:
            _checkpoint(cancel)
            drops.append(base - scorer.correct([f for f in remaining if f != j]))
        least = remaining[drops.index(min(drops))]
        trace.contributions[names[least]] = min(drops) / scorer.n
        ranking.insert(0, least)
        remaining.remove(least)
    trace.ranking = [names[j] for j in ranking]
    return ranking


def pb_fss(scorer: PatternScorer, names: Sequence[str], redundancy: str = "ge",
           progress: Progress | None = None, cancel: CancelToken | None = None
           ) -> tuple[list[int], SelectionTrace]:
    """PB-FSS: the selected feature columns ranked most important first, and the trace."""
    report = progress or (lambda fraction, message: None)
    trace = SelectionTrace()
    selected = forward_selection(scorer, names, trace, report, cancel)
    kept = remove_redundant(scorer, selected, names, redundancy, trace, cancel)
    ranking = rank_features(scorer, kept, names, trace, cancel)
    report(0.65, "Features ranked")
    return ranking, trace
