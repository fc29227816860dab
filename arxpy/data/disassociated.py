"""Disassociated datasets as published (spec §6, schema v1): a random reconstruction.

MINIMAL version (no validation of the document) so that disassociation can build its
release table; the full reader with schema validation replaces it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arxpy.data.transactions import CodeSets

ITEM_FILLS = ("one", "uniform")


def reconstruct(published: Mapping[str, Any], rng: np.random.Generator,
                item_fill: str = "one") -> CodeSets:
    """One possible original dataset (spec §4, "A random reconstruction").

    Rows come in document order (joint clusters, then their clusters). Within a cluster
    each record chunk's subrecords go to the records by a uniform permutation; each
    shared chunk's subrecords go to the records of its member clusters likewise; each
    item-chunk code goes to one random record (``one``) or to n ~ U{1..min(k-1, |P|)}
    distinct random records (``uniform``).
    """
    if item_fill not in ITEM_FILLS:
        raise ValueError(f"item_fill must be one of {', '.join(ITEM_FILLS)}")
    k = int(published["k"])
    records: list[list[str]] = []
    starts: list[int] = []
    sizes: list[int] = []
    for joint in published["joint_clusters"]:
        for cluster in joint["clusters"]:
            size, start = int(cluster["size"]), len(records)
            starts.append(start)
            sizes.append(size)
            records.extend([] for _ in range(size))
            for chunk in cluster["record_chunks"]:
                for row, sub in zip(rng.permutation(size).tolist(), chunk["subrecords"],
                                    strict=True):
                    if sub:
                        records[start + row].extend(sub)
            for code in cluster["item_chunk"]:
                if item_fill == "one":
                    records[start + int(rng.integers(size))].append(code)
                    continue
                count = int(rng.integers(1, min(k - 1, size) + 1))
                for row in rng.permutation(size)[:count].tolist():
                    records[start + row].append(code)
        for chunk in joint["shared_chunks"]:
            rows = np.concatenate([np.arange(starts[c], starts[c] + sizes[c])
                                   for c in chunk["members"]])
            for row, sub in zip(rng.permutation(rows).tolist(), chunk["subrecords"],
                                strict=True):
                if sub:
                    records[row].extend(sub)
    return CodeSets.from_sets(records)

