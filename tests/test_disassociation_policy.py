"""Utility policies of disassociation (spec §4, G5, G6) and the k^m test of VERPART's
line 13, each against a brute-force computation written here."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from arxpy.data.disassociated import reconstruct
from arxpy.data.transactions import CodeSets
from arxpy.errors import ConfigurationError
from arxpy.methods import Disassociation
from arxpy.methods.disassociation.policy import (
    constraints_for,
    disjoint_itemsets,
    frequent_itemsets,
)
from arxpy.methods.disassociation.verpart import Incidence, km_anonymous_with

HAS_ICD9 = importlib.util.find_spec("arxpy.data.icd9") is not None


def test_hierarchy_level_1_groups_by_three_digit_category_and_e_codes_by_four():
    vocabulary = ["250.01", "25002", "401.9", "E8121", "E812.0", "E813.1", "V10.3", "V1052"]
    assert constraints_for("hierarchy:1", vocabulary) == [
        ("250.01", "25002"), ("401.9",), ("V10.3", "V1052"), ("E812.0", "E8121"),
        ("E813.1",)]


def test_multiset_codes_join_the_constraint_of_their_code():
    vocabulary = ["250.01#1", "250.01#2", "250.02#1", "401.9#1"]
    assert constraints_for("hierarchy:1", vocabulary) == [
        ("250.01#1", "250.01#2", "250.02#1"), ("401.9#1",)]


def test_similarity_blocks_are_consecutive_in_icd_order():
    vocabulary = ["V01", "E800", "001.1", "001.0", "999.9", "002", "V02"]
    assert constraints_for("sim:2", vocabulary) == [
        ("001.0", "001.1"), ("002", "999.9"), ("V01", "V02"), ("E800",)]


def brute_force_frequent(records, min_count):
    counts = Counter()
    for record in records:
        for size in range(1, len(record) + 1):
            counts.update(combinations(sorted(record), size))
    return {items: n for items, n in counts.items() if n >= min_count}


def test_frequent_itemsets_match_brute_force():
    rng = np.random.default_rng(3)
    codes = [f"c{i}" for i in range(8)]
    records = [sorted(set(rng.choice(codes, size=int(rng.integers(0, 6)),
                                     p=np.linspace(2, 1, 8) / 12))) for _ in range(60)]
    sets = CodeSets.from_sets(records)
    for share in (0.05, 0.1, 0.25):
        mined = dict(frequent_itemsets(sets, share))
        expected = brute_force_frequent(records, int(np.ceil(share * 60)))
        assert mined == expected


def test_frequent_itemsets_are_made_disjoint_greedily():
    itemsets = [(("a",), 9), (("a", "b"), 5), (("b", "c"), 6), (("c",), 8), (("d",), 3)]
    assert disjoint_itemsets(itemsets) == [("b", "c"), ("a",), ("d",)]


def test_support_policy_constraints_are_disjoint_frequent_itemsets():
    records = [["a", "b"]] * 5 + [["b", "c"]] * 4 + [["d"]]
    sets = CodeSets.from_sets(records)
    assert constraints_for("sup:30", sets.vocabulary, records=sets) == [
        ("a", "b"), ("c",)]


def test_constraint_file_keeps_domain_codes_and_refuses_overlaps(tmp_path):
    path = tmp_path / "u.json"
    path.write_text(json.dumps({"constraints": [["a", "zz"], ["b", "c"], ["yy"]]}))
    assert constraints_for(f"file:{path}", ["a", "b", "c", "d"]) == [("a",), ("b", "c")]
    path.write_text(json.dumps([["a", "b"], ["c", "b"]]))
    with pytest.raises(ConfigurationError, match="Code b is in two utility constraints"):
        constraints_for(f"file:{path}", ["a", "b", "c"])
    path.write_text('{"a": 1}')
    with pytest.raises(ConfigurationError, match="list of constraints"):
        constraints_for(f"file:{path}", ["a"])
    with pytest.raises(ConfigurationError, match="Cannot read the utility policy file"):
        constraints_for(f"file:{tmp_path / 'missing.json'}", ["a"])


@pytest.mark.skipif(HAS_ICD9, reason="the ICD-9 hierarchy is installed")
def test_hierarchy_levels_2_and_3_say_what_is_missing():
    with pytest.raises(ConfigurationError, match="hierarchy:2 needs the ICD-9-CM hierarchy"):
        constraints_for("hierarchy:2", ["250.01"])


@pytest.mark.skipif(not HAS_ICD9, reason="arxpy.data.icd9 is not installed")
def test_hierarchy_level_3_groups_a_chapter():
    groups = constraints_for("hierarchy:3", ["295.01", "296.00", "401.9"])
    assert ("295.01", "296.00") in groups and ("401.9",) in groups


# --- the k^m test of line 13 ---------------------------------------------------------------

def brute_force_km(rows, k, m):
    counts = Counter()
    for row in rows:
        for size in range(1, m + 1):
            counts.update(combinations(sorted(row), size))
    return all(n >= k for n in counts.values())


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
            if brute_force_km([set(np.flatnonzero(r)) & set(current) for r in dense], k, m) \
                    and km_anonymous_with(incidence, column, current, k, m):
                current.append(column)
        new = c - 1
        expected = brute_force_km(
            [set(np.flatnonzero(r)) & set(current + [new]) for r in dense], k, m)
        if brute_force_km([set(np.flatnonzero(r)) & set(current) for r in dense], k, m):
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
