"""What Compare shows for a set-valued release (disassociation, issue 15).

Equivalence classes and prosecutor risks over equal cells mean little for a release
whose table is one random reconstruction of a published document of chunks: every
patient's codes form one cell, so classes are "records with the same code set". What
the release promises is k^m-anonymity of the document, so Compare shows k, m, the
verdict of the independent checker (:mod:`arxpy.privacy.km_anonymity`) on the document
and its structure (records, clusters, chunks, codes kept).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arxpy.data.disassociated import cluster_sizes, published_statistics
from arxpy.privacy.km_anonymity import check_km_anonymity
from arxpy.release import Release

#: The claim a set-valued release makes.
KM_CLAIM = "k^m-anonymity"
#: Said in place of the figures over equal cells.
NOT_APPLICABLE = "does not apply (set-valued)"
#: Said in the k^m rows of a release that is not set-valued.
NOT_SET_VALUED = "—"
#: The rows of a set-valued release, in order.
SETVALUED_ROWS = ("k^m: k", "k^m: m", "k^m-anonymous (independent check)", "clusters",
                  "smallest cluster", "record chunks", "shared chunks",
                  "distinct codes published", "codes only in item chunks (counts hidden)")


def published_document(release: Release) -> Mapping[str, Any] | None:
    """The k^m-anonymous document a release publishes, or None (not set-valued)."""
    if not any(c.kind == KM_CLAIM for c in release.claims):
        return None
    document = getattr(release, "published", None)
    return document if isinstance(document, Mapping) and document else None


def setvalued_figures(document: Mapping[str, Any]) -> dict[str, object]:
    """The rows of :data:`SETVALUED_ROWS` for a published document (schema v1); the
    verdict is the independent checker's at the document's own k and m."""
    check = check_km_anonymity(dict(document))
    counts = published_statistics(dict(document))
    sizes = cluster_sizes(document)
    chunked: set[str] = set()
    in_items: set[str] = set()
    for joint in document["joint_clusters"]:
        for chunk in joint["shared_chunks"]:
            chunked.update(chunk["domain"])
        for cluster in joint["clusters"]:
            in_items.update(cluster["item_chunk"])
            for chunk in cluster["record_chunks"]:
                chunked.update(chunk["domain"])
    verdict = (f"yes: {check.record_chunks:,} record and {check.shared_chunks:,} shared "
               "chunks pass" if check.ok else
               f"NO: {check.violations_found:,} itemsets under k, "
               f"{len(check.cluster_violations):,} clusters under k")
    return dict(zip(SETVALUED_ROWS, (
        document["k"], document["m"], verdict, counts["clusters"],
        int(min(sizes)) if len(sizes) else 0, counts["record_chunks"],
        counts["shared_chunks"], len(chunked | in_items), len(in_items - chunked)),
        strict=True))
