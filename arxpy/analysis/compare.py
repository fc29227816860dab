"""Releases side by side: the same figures for every release, whatever made it.

Each release of the same input becomes one column: what was released, the attacker's
view (classes and prosecutor risks over the declared quasi-identifiers, recounted from
the released table) and the release's one verdict (its claims checked independently). The GUI's
Compare and reports read this table. A set-valued release (disassociation) shows its
k^m figures instead of classes and prosecutor risks (:mod:`arxpy.analysis.setvalued_compare`).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from arxpy.analysis.setvalued_compare import (
    NOT_APPLICABLE,
    NOT_SET_VALUED,
    SETVALUED_ROWS,
    published_document,
    setvalued_figures,
)
from arxpy.data.codes import group_sizes
from arxpy.errors import ConfigurationError
from arxpy.release import Release
from arxpy.risk.histogram import ClassSizeHistogram
from arxpy.risk.sample import sample_risks


def compare_releases(releases: Mapping[str, Release]) -> pd.DataFrame:
    """One column per release (named by the mapping's keys), one row per figure.

    Raises ConfigurationError when the releases come from different inputs.
    """
    inputs = {r.input_sha256 for r in releases.values()}
    if len(inputs) > 1:
        raise ConfigurationError(
            "These releases come from different input tables; compare releases of one input.")
    documents = {name: published_document(r) for name, r in releases.items()}
    # The k^m rows appear when a release is set-valued, for every release in one place.
    km_rows = any(d is not None for d in documents.values())
    return pd.DataFrame({name: _figures(release, documents[name], km_rows)
                         for name, release in releases.items()})


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
    sizes = group_sizes(release.released(), list(view.quasi_identifiers))
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
