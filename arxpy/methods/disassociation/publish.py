"""The published document of a disassociated dataset: schema v1 of spec §6.

``{"method": "disassociation", "k", "m", "params", "joint_clusters": [{"clusters":
[{"size", "record_chunks": [{"domain", "subrecords"}], "item_chunk"}], "shared_chunks":
[{"domain", "members", "subrecords"}]}]}``. Codes in a domain, an item chunk and a
subrecord are sorted; the subrecords of every chunk are in an independent random order
(empty ones included) and no record id appears. ``members`` are the positions of the
chunk's clusters within its joint cluster's ``clusters``. The item chunk is a set without
counts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arxpy.data.disassociated import published_statistics
from arxpy.jobs import CancelToken
from arxpy.methods.disassociation.refine import Cluster, Unit

SCHEMA_METHOD = "disassociation"


def publish(clusters: list[Cluster], units: list[Unit], vocabulary: Sequence[str], *,
            k: int, m: int, params: Mapping[str, Any], rng: np.random.Generator,
            cancel: CancelToken | None = None) -> dict[str, Any]:
    """The schema-v1 document; ``rng`` shuffles the subrecords of every chunk."""
    chunk_of = np.full(len(vocabulary), -1, dtype=np.int64)
    joint = []
    for unit in units:
        if cancel is not None:
            cancel.raise_if_cancelled()
        published = []
        for member in unit.members:
            part = clusters[member].part
            domains = clusters[member].record_domains
            chunks = subrecords(part.owner, part.codes, len(part), domains, chunk_of,
                                vocabulary)
            published.append({
                "size": len(part),
                "record_chunks": [_chunk(_names(d, vocabulary), subs, rng)
                                  for d, subs in zip(domains, chunks, strict=True)],
                "item_chunk": [vocabulary[c] for c in sorted(clusters[member].item_chunk)],
            })
        joint.append({"clusters": published,
                      "shared_chunks": _shared_chunks(unit, clusters, vocabulary, chunk_of, rng)})
    return {"method": SCHEMA_METHOD, "k": int(k), "m": int(m), "params": dict(params),
            "joint_clusters": joint}


def _shared_chunks(unit: Unit, clusters: list[Cluster], vocabulary: Sequence[str],
                   chunk_of: np.ndarray, rng: np.random.Generator) -> list[dict[str, Any]]:
    """Each shared chunk over the records of its own members (a code may sit in several
    shared chunks of one joint cluster, with disjoint member ranges)."""
    if not unit.shared:
        return []
    start, owners, codes = {}, [], []
    offset = 0
    for member in unit.members:
        part = clusters[member].part
        start[member] = offset
        owners.append(part.owner + offset)
        codes.append(part.codes)
        offset += len(part)
    owner, code = np.concatenate(owners), np.concatenate(codes)  # grouped by row, in order
    out = []
    for chunk in unit.shared:
        first = start[chunk.members[0]]
        end = start[chunk.members[-1]] + len(clusters[chunk.members[-1]].part)
        low, high = np.searchsorted(owner, [first, end])
        (subs,) = subrecords(owner[low:high] - first, code[low:high], end - first,
                             [chunk.domain], chunk_of, vocabulary)
        out.append({**_chunk(_names(chunk.domain, vocabulary), subs, rng),
                    "members": [unit.members.index(c) for c in chunk.members]})
    return out


def _chunk(domain: list[str], subs: list[list[str]], rng: np.random.Generator
           ) -> dict[str, Any]:
    order = rng.permutation(len(subs))
    return {"domain": domain,
            "subrecords": [subs[i] for i in order]}


def _names(domain: np.ndarray, vocabulary: Sequence[str]) -> list[str]:
    return [vocabulary[c] for c in np.sort(domain)]


def subrecords(owner: np.ndarray, codes: np.ndarray, records: int,
               domains: list[np.ndarray], chunk_of: np.ndarray, vocabulary: Sequence[str]
               ) -> list[list[list[str]]]:
    """For each of the disjoint ``domains``, ``r ∩ domain`` for the records r = 0 ..
    records-1 of the entries ``(owner, codes)`` (codes sorted as the entries are).
    ``chunk_of`` is an all -1 scratch array over the vocabulary, left as found."""
    for j, domain in enumerate(domains):
        chunk_of[domain] = j
    which = chunk_of[codes]
    keep = which >= 0
    out: list[list[list[str]]] = [[[] for _ in range(records)] for _ in domains]
    for j, row, code in zip(which[keep].tolist(), owner[keep].tolist(), codes[keep].tolist(),
                            strict=True):
        out[j][row].append(vocabulary[code])
    for domain in domains:
        chunk_of[domain] = -1
    return out


def published_json(published: Mapping[str, Any]) -> str:
    """The document as text: keys sorted, so the same document gives the same bytes."""
    return json.dumps(published, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def published_figures(published: Mapping[str, Any]) -> dict[str, Any]:
    """Counts of the document: the structure as :func:`published_statistics` counts it,
    item-chunk entries, cluster sizes, occurrences per chunk type."""
    clusters = [c for j in published["joint_clusters"] for c in j["clusters"]]
    shared = [s for j in published["joint_clusters"] for s in j["shared_chunks"]]
    record_chunks = [ch for c in clusters for ch in c["record_chunks"]]
    sizes = np.array([c["size"] for c in clusters], dtype=np.int64)
    item_codes = [code for c in clusters for code in c["item_chunk"]]
    chunked = {code for ch in record_chunks + shared for code in ch["domain"]}
    return {
        **published_statistics(dict(published)),
        # Entries summed over clusters (the report's contract since issue 15), where
        # setvalued-utility's statistics count distinct codes under the same name.
        "codes_in_item_chunks": len(item_codes),
        "item_chunk_only_codes": len(set(item_codes) - chunked),
        "cluster_size": {"min": int(sizes.min()), "median": float(np.median(sizes)),
                         "max": int(sizes.max())} if len(sizes) else None,
        "record_chunk_occurrences": sum(len(s) for ch in record_chunks
                                        for s in ch["subrecords"]),
        "shared_chunk_occurrences": sum(len(s) for ch in shared for s in ch["subrecords"]),
    }
