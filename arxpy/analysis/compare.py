"""Releases side by side: the same figures for every release, whatever made it.

Each release of the same input becomes one column: what was released, the groups and
the prosecutor risks over its quasi-identifiers (recounted from the released table, not
taken from the method), its claims, and whether they hold on the table. The GUI's
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
    sizes = group_sizes(release.released(), release.quasi_identifiers)
    risks = sample_risks(ClassSizeHistogram.from_class_sizes(sizes)).prosecutor
    smallest = int(sizes.min()) if len(sizes) else 0
    cells = (int(len(sizes)), smallest, float(sizes.mean()) if len(sizes) else float("nan"),
             float(risks.highest), float(risks.average))
    return {**_common(release), **dict(zip(_CELL_ROWS, cells, strict=True)), **km,
            **_checks(release)}


#: Figures over records with equal quasi-identifier cells.
_CELL_ROWS = ("classes (equal quasi-identifiers)", "smallest class", "mean class size",
              "highest prosecutor risk", "average prosecutor risk")


def _common(release: Release) -> dict[str, object]:
    return {"method": release.method,
            "records released": release.records - release.suppressed_records,
            "records suppressed": release.suppressed_records}


def _checks(release: Release) -> dict[str, object]:
    return {"claims": "; ".join(c.description or c.kind for c in release.claims) or "none",
            "class-size claims hold": _class_size_claims_hold(release),
            "anonymous (method's verdict)": release.anonymous,
            "output SHA-256": release.output_sha256[:16]}


def _class_size_claims_hold(release: Release) -> bool | str:
    """Recounted from the release's own groups (clusters, boxes, equivalence classes),
    not from equal quasi-identifier values: synthetic rows of one cluster differ."""
    promised = [c.min_class_size for c in release.claims if c.min_class_size]
    if not promised:
        return "no class-size claim"
    sizes = release.class_sizes
    return bool(len(sizes) == 0 or int(sizes.min()) >= max(promised))
