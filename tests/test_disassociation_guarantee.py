"""Guarantee 1 of Loukides et al. 2014 exhaustively on small data (spec §5 item 3).

For every set S of at most m codes occurring in some original record, some dataset D'
the publication could have come from has at least k records containing S. Two counts,
both read from the published document only:

* constructive: inside a cluster P, the records that can hold S are as many as the
  fewest subrecords holding one of S's parts (the per-chunk permutations can line those
  up; a shared chunk's subrecords can go to any record of its member clusters, P's
  included); codes of P's item chunk can go to every record of P. Clusters add up
  (their permutations are independent) unless S touches a shared chunk, where the best
  cluster of the joint cluster counts alone; joint clusters add up.
* brute force: every assignment of every relevant chunk's subrecords to its records
  (permutations), for joint clusters of at most 5 records.

The brute force is never below the constructive count, equals it where S touches no
shared chunk, and both reach k.
"""

from __future__ import annotations

from itertools import combinations, permutations, product

import numpy as np
import pytest

from arxpy.data.transactions import CodeSets
from arxpy.methods import Disassociation

CODES = ["296.00", "296.01", "296.02", "401.0", "401.9", "834.0", "944.01", "692.71"]
BRUTE_FORCE_RECORDS = 5


def cluster_parts(joint, position, itemset):
    """S's parts in cluster ``position`` of ``joint``: a list of (subrecords, part) per
    chunk holding codes of S, or None if the cluster's view lacks a code of S."""
    cluster = joint["clusters"][position]
    items = set(cluster["item_chunk"])
    chunks = [c for c in cluster["record_chunks"]]
    chunks += [c for c in joint["shared_chunks"] if position in c["members"]]
    parts = []
    for chunk in chunks:
        part = set(chunk["domain"]) & itemset
        if part:
            parts.append((chunk["subrecords"], part))
    placed = set().union(*(p for _, p in parts)) | (items & itemset)
    return parts if placed == itemset else None


def constructive(joint, itemset) -> int:
    """Records of ``joint`` that can hold S: clusters add up while S touches no shared
    chunk (their permutations are independent); otherwise the best cluster alone (its
    shared subrecords might be counted twice)."""
    counts = []
    for position, cluster in enumerate(joint["clusters"]):
        parts = cluster_parts(joint, position, itemset)
        if parts is None:
            continue
        holders = [sum(part <= set(s) for s in subrecords) for subrecords, part in parts]
        counts.append(min([cluster["size"], *holders]))
    if not counts:
        return 0
    return max(counts) if touches_shared(joint, itemset) else sum(counts)


def touches_shared(joint, itemset) -> bool:
    return any(set(c["domain"]) & itemset for c in joint["shared_chunks"])


def brute_force(joint, itemset) -> int:
    """Most records of ``joint`` holding S over every assignment of the chunks' S-parts."""
    starts = np.cumsum([0] + [c["size"] for c in joint["clusters"]])
    size = int(starts[-1])
    base = [set() for _ in range(size)]
    placements = []  # (records of the chunk, distinct orders of its S-parts)
    for position, cluster in enumerate(joint["clusters"]):
        rows = range(starts[position], starts[position + 1])
        for row in rows:
            base[row] |= set(cluster["item_chunk"]) & itemset  # any record may get them
        for chunk in cluster["record_chunks"]:
            placements.append((list(rows), chunk["subrecords"]))
    for chunk in joint["shared_chunks"]:
        rows = [r for p in chunk["members"] for r in range(starts[p], starts[p + 1])]
        placements.append((rows, chunk["subrecords"]))
    relevant = []
    for rows, subrecords in placements:
        parts = [frozenset(s) & itemset for s in subrecords]
        if any(parts):
            relevant.append((rows, sorted(set(permutations(parts)), key=repr)))
    best = 0
    for orders in product(*(orders for _, orders in relevant)):
        records = [set(r) for r in base]
        for (rows, _), order in zip(relevant, orders, strict=True):
            for row, part in zip(rows, order, strict=True):
                records[row] |= part
        best = max(best, sum(itemset <= r for r in records))
    return best


def small_dataset(rng):
    n = int(rng.integers(4, 13))
    domain = list(rng.choice(CODES, size=int(rng.integers(2, 9)), replace=False))
    records = [sorted({str(c) for c in rng.choice(domain, size=int(rng.integers(0, 5)))})
               for _ in range(n)]
    if not any(records):
        records[0] = [domain[0]]
    return records


@pytest.mark.parametrize("refine", [True, False])
def test_guarantee_1_holds_for_every_itemset_of_small_datasets(refine):
    rng = np.random.default_rng(15 + refine)
    compared = exact = shared = 0
    for _ in range(60):
        records = small_dataset(rng)
        k = int(rng.integers(2, min(4, len(records)) + 1))
        m = int(rng.integers(1, 4))
        policy = str(rng.choice(["none", "hierarchy:1", "sim:2"]))
        method = Disassociation(k=k, m=m, codes_column="codes", policy=policy,
                                refine=refine, max_cluster_size=k)
        published = method.disassociate(CodeSets.from_sets(records), seed=1).published
        joints = published["joint_clusters"]
        itemsets = {frozenset(s) for r in records for size in range(1, m + 1)
                    for s in combinations(r, size)}
        for itemset in itemsets:
            total = 0
            for joint in joints:
                count = constructive(joint, itemset)
                total += count
                if sum(c["size"] for c in joint["clusters"]) <= BRUTE_FORCE_RECORDS:
                    most = brute_force(joint, itemset)
                    assert most >= count, (sorted(itemset), joint)
                    if not touches_shared(joint, itemset):
                        assert most == count, (sorted(itemset), joint)
                        exact += 1
                    else:
                        shared += 1
                    compared += 1
            assert total >= k, (sorted(itemset), k, m, published)
    assert compared >= 200 and exact >= 100  # the brute force really ran
    if refine:
        assert shared > 0  # and met shared chunks
