"""The published document of a disassociated dataset: schema v1 of spec §6.

``{"method": "disassociation", "k", "m", "params", "joint_clusters": [{"clusters":
[{"size", "record_chunks": [{"domain", "subrecords"}], "item_chunk"}], "shared_chunks":
[{"domain", "members", "subrecords"}]}]}``. Codes in a domain, an item chunk and a
subrecord are sorted; the subrecords of every chunk are in an independent random order
(empty ones included) and no record id appears. ``members`` are cluster indices counted
over all clusters in document order. The item chunk is a set without counts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arxpy.methods.disassociation.horpart import Part
from arxpy.methods.disassociation.refine import Cluster, Unit

SCHEMA_METHOD = "disassociation"


def publish(clusters: list[Cluster], units: list[Unit], vocabulary: Sequence[str], *,
            k: int, m: int, params: Mapping[str, Any], rng: np.random.Generator
            ) -> dict[str, Any]:
    """The schema-v1 document; ``rng`` shuffles the subrecords of every chunk."""
    joint = []
    for unit in units:
        published = []
        for member in unit.members:
            cluster = clusters[member]
            published.append({
                "size": len(cluster.part),
                "record_chunks": [_chunk(d, [cluster.part], vocabulary, rng)
                                  for d in cluster.record_domains],
                "item_chunk": [vocabulary[c] for c in sorted(cluster.item_chunk)],
            })
        shared = []
        for chunk in unit.shared:
            parts = [clusters[i].part for i in chunk.members]
            shared.append({**_chunk(chunk.domain, parts, vocabulary, rng),
                           "members": list(chunk.members)})
        joint.append({"clusters": published, "shared_chunks": shared})
    return {"method": SCHEMA_METHOD, "k": int(k), "m": int(m), "params": dict(params),
            "joint_clusters": joint}


def _chunk(domain: np.ndarray, parts: list[Part], vocabulary: Sequence[str],
           rng: np.random.Generator) -> dict[str, Any]:
    subrecords = [s for part in parts for s in subrecords_of(part, domain, vocabulary)]
    order = rng.permutation(len(subrecords))
    return {"domain": [vocabulary[c] for c in np.sort(domain)],
            "subrecords": [subrecords[i] for i in order]}


def subrecords_of(part: Part, domain: np.ndarray, vocabulary: Sequence[str]) -> list[list[str]]:
    """``r ∩ domain`` for every record r of ``part`` in record order (codes sorted)."""
    keep = np.isin(part.codes, domain)
    owner, codes = part.owner[keep], part.codes[keep]
    order = np.lexsort((codes, owner))
    counts = np.bincount(owner, minlength=len(part))
    pieces = np.split(codes[order], np.cumsum(counts)[:-1])
    return [[vocabulary[c] for c in piece] for piece in pieces]


def published_json(published: Mapping[str, Any]) -> str:
    """The document as text: keys sorted, so the same document gives the same bytes."""
    return json.dumps(published, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def published_figures(published: Mapping[str, Any]) -> dict[str, Any]:
    """Counts of the document: clusters, chunks, occurrences per chunk type."""
    clusters = [c for j in published["joint_clusters"] for c in j["clusters"]]
    shared = [s for j in published["joint_clusters"] for s in j["shared_chunks"]]
    record_chunks = [ch for c in clusters for ch in c["record_chunks"]]
    sizes = np.array([c["size"] for c in clusters], dtype=np.int64)
    item_codes = [code for c in clusters for code in c["item_chunk"]]
    chunked = {code for ch in record_chunks + shared for code in ch["domain"]}
    return {
        "records": int(sizes.sum()),
        "clusters": len(clusters),
        "joint_clusters": sum(1 for j in published["joint_clusters"] if len(j["clusters"]) > 1),
        "record_chunks": len(record_chunks),
        "shared_chunks": len(shared),
        "codes_in_item_chunks": len(item_codes),
        "item_chunk_only_codes": len(set(item_codes) - chunked),
        "cluster_size": {"min": int(sizes.min()), "median": float(np.median(sizes)),
                         "max": int(sizes.max())} if len(sizes) else None,
        "record_chunk_occurrences": sum(len(s) for ch in record_chunks
                                        for s in ch["subrecords"]),
        "shared_chunk_occurrences": sum(len(s) for ch in shared for s in ch["subrecords"]),
    }
