"""Releases side by side: the same figures for every release, whatever made it.

Each release of the same input becomes one column: what was released, the attacker's
view (classes and prosecutor risks over the declared quasi-identifiers, recounted from
the released table) and the release's one verdict (its claims checked independently). The GUI's
Compare and reports read this table. A set-valued release (disassociation) shows its
k^m figures instead of classes and prosecutor risks (:mod:`arxpy.analysis.setvalued_compare`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from arxpy.analysis.classification import (
    ClassificationTask,
    evaluate_release,
    evaluation_unavailable,
)
from arxpy.analysis.metrics import ClassificationPerformance
from arxpy.analysis.release_utility import (
    CORRELATIONS,
    DEVIATIONS,
    ENTROPY,
    MEANS,
    utility_figures,
)
from arxpy.analysis.setvalued_compare import (
    NOT_APPLICABLE,
    NOT_SET_VALUED,
    SETVALUED_ROWS,
    published_document,
    setvalued_figures,
)
from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken
from arxpy.release import Release
from arxpy.risk.histogram import ClassSizeHistogram
from arxpy.risk.sample import sample_risks


def compare_releases(releases: Mapping[str, Release], original: pd.DataFrame | None = None,
                     task: ClassificationTask | None = None,
                     class_edges: Sequence[float] | None = None, *,
                     evaluations: Mapping[str, ClassificationPerformance | str] | None = None,
                     definition: DataDefinition | None = None,
                     cancel: CancelToken | None = None) -> pd.DataFrame:
    """One column per release (named by the mapping's keys), one row per figure.

    With ``original`` (the input table), information loss that applies across methods
    (:mod:`arxpy.analysis.release_utility`, over the attributes ``definition``
    declares, by default each release's own); with ``task``, classifier accuracy on its
    target by seed 004's cross-validation (:func:`evaluate_release`, the class binned at
    ``class_edges``), or from ``evaluations`` already made (:func:`evaluation`, by
    release name). ``frame.attrs["better"]`` maps each row whose best value can be
    marked to ``"lower"`` or ``"higher"``; :func:`best_columns` finds them.
    Raises ConfigurationError when the releases come from different inputs.
    """
    inputs = {r.input_sha256 for r in releases.values()}
    if len(inputs) > 1:
        raise ConfigurationError(
            "These releases come from different input tables; compare releases of one input.")
    documents = {name: published_document(r) for name, r in releases.items()}
    # The k^m rows appear when a release is set-valued, for every release in one place.
    km_rows = any(d is not None for d in documents.values())
    columns = {}
    for name, release in releases.items():
        if cancel is not None:
            cancel.raise_if_cancelled()
        figures = _figures(release, documents[name], km_rows)
        if original is not None:
            figures = _before_checks(figures, utility_figures(original, release, definition))
        if evaluations is not None and name in evaluations:
            figures = _before_checks(figures, accuracy_cells(evaluations[name]))
        elif task is not None:
            figures = _before_checks(figures, accuracy_cells(
                evaluation(task, release, class_edges, cancel)))
        columns[name] = figures
    frame = pd.DataFrame(columns)
    frame.attrs["better"] = {row: way for row, way in BETTER.items() if row in frame.index}
    return frame


#: Rows whose best value Compare marks, and which way is better.
BETTER = {"records suppressed": "lower", "smallest class": "higher",
          "mean class size": "higher", "highest prosecutor risk": "lower",
          "average prosecutor risk": "lower", ENTROPY: "lower", MEANS: "lower",
          DEVIATIONS: "lower", CORRELATIONS: "lower", "classifier accuracy": "higher",
          "relative accuracy": "higher"}


def best_columns(frame: pd.DataFrame, row: str) -> list[str]:
    """The columns holding the best number of ``row`` (ties all; none if not marked),
    among the anonymous releases when there are any: a custodian chooses among those."""
    way = frame.attrs.get("better", {}).get(row)
    candidates = [c for c in frame.columns if frame.loc["anonymous", c] is True] \
        if "anonymous" in frame.index else []
    candidates = candidates or list(frame.columns)
    values = {c: v for c, v in frame.loc[row, candidates].items()
              if isinstance(v, int | float) and not isinstance(v, bool) and v == v}
    if way is None or len(values) < 2:
        return []
    best = min(values.values()) if way == "lower" else max(values.values())
    return [c for c, v in values.items() if v == best]


def _before_checks(figures: dict[str, object], more: dict[str, object]) -> dict[str, object]:
    """``figures`` with ``more`` inserted before the verdict rows."""
    items = list(figures.items())
    at = next(i for i, (row, _) in enumerate(items) if row == "claims")
    return dict(items[:at] + list(more.items()) + items[at:])


def evaluation(task: ClassificationTask, release: Release,
               class_edges: Sequence[float] | None = None,
               cancel: CancelToken | None = None) -> ClassificationPerformance | str:
    """Classifier performance on ``release`` (a job), or a sentence saying why not."""
    reason = evaluation_unavailable(release)
    if reason:
        return f"not applicable: {reason}"
    try:
        return evaluate_release(task, release, class_edges=class_edges, cancel=cancel)
    except ConfigurationError as exc:  # one release that cannot be evaluated says why
        return f"not applicable: {exc}"


def accuracy_cells(performance: ClassificationPerformance | str) -> dict[str, object]:
    """Compare's accuracy rows of one :func:`evaluation`."""
    if isinstance(performance, str):
        return dict.fromkeys(("classifier accuracy", "relative accuracy"), performance)
    caveat = performance.relative_accuracy_caveat
    return {"classifier accuracy": performance.accuracy,
            "relative accuracy": f"not meaningful: {caveat}" if caveat
            else performance.relative_accuracy}


def _figures(release: Release, document: Mapping | None, km_rows: bool
             ) -> dict[str, object]:
    if document is not None:
        return {**_common(release), **dict.fromkeys(_CELL_ROWS, NOT_APPLICABLE),
                **setvalued_figures(document), **_checks(release)}
    km = dict.fromkeys(SETVALUED_ROWS, NOT_SET_VALUED) if km_rows else {}
    return {**_common(release), **_attacker_cells(release), **km, **_checks(release)}


#: Figures over records with equal quasi-identifier cells (the attacker's view).
_CELL_ROWS = ("classes (equal quasi-identifiers)", "smallest class", "mean class size",
              "highest prosecutor risk", "average prosecutor risk")


def _attacker_cells(release: Release) -> dict[str, object]:
    """The attacker's view of the verdict; a release where it means nothing shows why."""
    view = release.verdict.attacker
    if not view.applies:
        return dict.fromkeys(_CELL_ROWS, f"not applicable: {view.not_applicable}")
    sizes = view.sizes
    risks = sample_risks(ClassSizeHistogram.from_class_sizes(sizes)).prosecutor
    smallest = int(sizes.min()) if len(sizes) else 0
    cells = (int(len(sizes)), smallest, float(sizes.mean()) if len(sizes) else float("nan"),
             float(risks.highest), float(risks.average))
    return dict(zip(_CELL_ROWS, cells, strict=True))


def _common(release: Release) -> dict[str, object]:
    return {"method": release.method,
            "records released": release.records - release.suppressed_records,
            "records suppressed": release.suppressed_records}


def _checks(release: Release) -> dict[str, object]:
    """The release's one verdict (:func:`arxpy.release.judge`), as every view shows it."""
    verdict = release.verdict
    return {"claims": "; ".join(c.text for c in verdict.checks) or "none",
            "verdict": verdict.headline,
            "anonymous": verdict.anonymous,
            "output SHA-256": release.output_sha256[:16]}
