"""The k^m test of VERPART's line 13 against a brute force (``tests/km_reference.py``), and the
reconstruction of published chunks (spec §5 item 7). The utility policies are tested in
``tests/test_utility_policy.py``."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from km_reference import is_km_anonymous

from arxpy.data.disassociated import reconstruct
from arxpy.data.transactions import CodeSets
from arxpy.methods import Disassociation
from arxpy.methods.disassociation.verpart import Incidence, km_anonymous_with

# --- the k^m test of line 13 ---------------------------------------------------------------

@pytest.mark.parametrize("m", [2, 3, 4])
def test_incremental_km_test_agrees_with_brute_force(m):
    rng = np.random.default_rng(m)
    for _ in range(150):
        n, c, k = int(rng.integers(3, 14)), int(rng.integers(2, 7)), int(rng.integers(2, 4))
        dense = rng.random((n, c)) < rng.uniform(0.3, 0.9)
        dense[:k, :] = True  # every code has support >= k
        rows, columns = np.nonzero(dense)
        incidence = Incidence(n, rows, columns, np.arange(c))
        current = [0]
        for column in range(1, c - 1):
            if is_km_anonymous([set(np.flatnonzero(r)) & set(current) for r in dense], k, m) \
                    and km_anonymous_with(incidence, column, current, k, m):
                current.append(column)
        new = c - 1
        expected = is_km_anonymous(
            [set(np.flatnonzero(r)) & set(current + [new]) for r in dense], k, m)
        if is_km_anonymous([set(np.flatnonzero(r)) & set(current) for r in dense], k, m):
            assert km_anonymous_with(incidence, new, current, k, m) == expected


# --- reconstruction (the minimal version used for the release table) -----------------------

def test_reconstruction_keeps_every_chunked_count_and_the_record_count():
    rng = np.random.default_rng(8)
    codes = [f"{300 + i // 3}.{i % 3}" for i in range(15)]
    records = [sorted(set(rng.choice(codes, size=int(rng.integers(1, 6))))) for _ in range(80)]
    method = Disassociation(k=3, m=2, codes_column="codes", policy="hierarchy:1")
    published = method.disassociate(CodeSets.from_sets(records), seed=2).published
    clusters = [c for j in published["joint_clusters"] for c in j["clusters"]]
    in_items = {c for cl in clusters for c in cl["item_chunk"]}
    original = Counter(c for r in records for c in r)
    for fill in ("one", "uniform"):
        rows = reconstruct(published, np.random.default_rng(1), fill)
        assert len(rows) == len(records)
        counts = Counter(c for r in rows.to_sets() for c in r)
        for code, count in original.items():
            if code not in in_items:
                assert counts[code] == count
            else:
                assert counts[code] >= 1


def test_reconstruction_uses_every_subrecord_once_in_its_clusters():
    """Spec §5 item 7: projecting a reconstruction's rows (cluster order) on a chunk's
    domain gives back the chunk's subrecords; item codes stay inside their cluster."""
    rng = np.random.default_rng(4)
    codes = [f"{500 + i // 4}.{i % 4}" for i in range(20)]
    records = [sorted(set(rng.choice(codes, size=int(rng.integers(1, 7))))) for _ in range(120)]
    method = Disassociation(k=3, m=2, codes_column="codes")
    published = method.disassociate(CodeSets.from_sets(records), seed=5).published
    rows = reconstruct(published, np.random.default_rng(3), "uniform").to_sets()
    clusters = [c for j in published["joint_clusters"] for c in j["clusters"]]
    starts = np.cumsum([0] + [c["size"] for c in clusters])
    for i, cluster in enumerate(clusters):
        mine = rows[starts[i]:starts[i + 1]]
        for chunk in cluster["record_chunks"]:
            assert Counter(r & set(chunk["domain"]) for r in mine) == Counter(
                map(frozenset, chunk["subrecords"]))
        for code in cluster["item_chunk"]:
            assert 1 <= sum(code in r for r in mine) <= min(2, len(mine))
    first = 0  # index of the joint cluster's first cluster: members count from there
    for joint in published["joint_clusters"]:
        for chunk in joint["shared_chunks"]:
            covered = [r for c in chunk["members"]
                       for r in rows[starts[first + c]:starts[first + c + 1]]]
            assert Counter(r & set(chunk["domain"]) for r in covered) == Counter(
                map(frozenset, chunk["subrecords"]))
        first += len(joint["clusters"])
