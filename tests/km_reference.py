"""A brute-force k^m reference (itertools), written separately from arxpy's checker."""

from __future__ import annotations

import itertools
from collections import Counter


def rare_itemsets(records, k, m):
    """Every itemset of 1..m codes occurring in 1..k-1 of ``records``, with its count."""
    counts = Counter()
    for record in records:
        for size in range(1, m + 1):
            counts.update(itertools.combinations(sorted(set(record)), size))
    return {s: c for s, c in counts.items() if c < k}


def is_km_anonymous(records, k, m):
    return not rare_itemsets(records, k, m)


def publication_is_km_anonymous(document) -> bool:
    """A published disassociation document (the spec's JSON): every cluster holds at least
    k records and every record chunk and shared chunk is k^m-anonymous."""
    k, m = document["k"], document["m"]
    for joint in document["joint_clusters"]:
        if any(cluster["size"] < k for cluster in joint["clusters"]):
            return False
        chunks = [c for cluster in joint["clusters"] for c in cluster["record_chunks"]]
        if not all(is_km_anonymous(chunk["subrecords"], k, m)
                   for chunk in chunks + joint["shared_chunks"]):
            return False
    return True
