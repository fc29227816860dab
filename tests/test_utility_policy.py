"""Utility policies (spec §4, G5, G6): hierarchy levels, similarity blocks, frequent
itemsets (against a brute force written here), files; dotted and undotted vocabularies,
multiset codes, early validation of the policy text."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from arxpy.data.transactions import CodeSets
from arxpy.data.utility_policy import (
    constraint_index,
    disjoint_itemsets,
    frequent_itemsets,
    parse_policy,
    policy_constraints,
    published_policy,
)
from arxpy.errors import ConfigurationError

SETS = CodeSets.from_sets([{"29501", "29602", "4019"}, {"29501", "29603"}, {"29602", "4011"},
                           {"ZZZ"}, {"29501", "4019"}, {"29501"}])


def over(vocabulary):
    """Code sets whose vocabulary is exactly ``vocabulary`` (one record per code)."""
    return CodeSets.from_sets([[code] for code in vocabulary])


def test_hierarchy_levels_group_the_dataset_codes():
    assert policy_constraints("hierarchy:1", SETS) == [
        ("29501",), ("29602", "29603"), ("4011", "4019"), ("ZZZ",)]
    assert policy_constraints("hierarchy:2", SETS) == [
        ("29501", "29602", "29603"), ("4011", "4019"), ("ZZZ",)]
    assert policy_constraints("none", SETS) == []
    assert policy_constraints(None, SETS) == []


def test_hierarchy_level_1_on_dotted_codes_groups_by_category_and_e_codes_by_four():
    """Dotted codes are looked up normalised (each was its own group before) and
    kept as spelled; E-codes' categories have four characters."""
    vocabulary = ["250.01", "25002", "401.9", "E8121", "E812.0", "E813.1", "V10.3", "V1052"]
    assert policy_constraints("hierarchy:1", over(vocabulary)) == [
        ("250.01", "25002"), ("401.9",), ("V10.3", "V1052"), ("E812.0", "E8121"),
        ("E813.1",)]


def test_hierarchy_level_3_groups_a_chapter_of_dotted_codes():
    groups = policy_constraints("hierarchy:3", over(["295.01", "296.00", "401.9"]))
    assert groups == [("295.01", "296.00"), ("401.9",)]


def test_multiset_codes_join_the_constraint_of_their_code():
    vocabulary = ["250.01#1", "250.01#2", "250.02#1", "401.9#1"]
    assert policy_constraints("hierarchy:1", over(vocabulary)) == [
        ("250.01#1", "250.01#2", "250.02#1"), ("401.9#1",)]
    # A block of sim:N counts codes, not occurrences.
    assert policy_constraints("sim:1", over(vocabulary)) == [
        ("250.01#1", "250.01#2"), ("250.02#1",), ("401.9#1",)]


def test_similarity_is_consecutive_blocks_in_icd_order():
    assert policy_constraints("sim:2", SETS) == [
        ("29501", "29602"), ("29603", "4011"), ("4019", "ZZZ")]
    vocabulary = ["V01", "E800", "001.1", "001.0", "999.9", "002", "V02"]
    assert policy_constraints("sim:2", over(vocabulary)) == [
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
    records = [sorted(set(rng.choice(codes, size=int(rng.integers(0, 8)),
                                     p=np.linspace(2, 1, 8) / 12))) for _ in range(60)]
    sets = CodeSets.from_sets(records)
    for percent in (5, 10, 25):
        mined = dict(frequent_itemsets(sets, percent))
        assert mined == brute_force_frequent(records, int(np.ceil(percent * 60 / 100)))
        expected = disjoint_itemsets(list(mined.items()))
        assert policy_constraints(f"sup:{percent}", sets) == expected
    # The check reaches itemsets longer than pairs.
    assert max(len(codes) for codes, _ in frequent_itemsets(sets, 5)) >= 3


def test_frequent_itemsets_are_made_disjoint_greedily():
    itemsets = [(("a",), 9), (("a", "b"), 5), (("b", "c"), 6), (("c",), 8), (("d",), 3)]
    assert disjoint_itemsets(itemsets) == [("b", "c"), ("a",), ("d",)]
    # At 50 % (3 records): 29501 (4), 29602 (2) no; {29501} and {29501, 4019} (2) no.
    assert policy_constraints("sup:50", SETS) == [("29501",)]
    # At 30 % (2 records): {29501, 4019} (2) first (larger), then 29602 (2).
    assert policy_constraints("sup:30", SETS) == [("29501", "4019"), ("29602",)]
    records = CodeSets.from_sets([["a", "b"]] * 5 + [["b", "c"]] * 4 + [["d"]])
    assert policy_constraints("sup:30", records) == [("a", "b"), ("c",)]


def test_a_support_of_exactly_s_percent_is_frequent():
    """30 % of 10 records is 3.0000000000000004 in floating point; 3 records are 30 %."""
    sets = CodeSets.from_sets([["a"]] * 3 + [["b"]] * 7)
    assert policy_constraints("sup:30", sets) == [("b",), ("a",)]


def test_frequent_itemsets_of_multiset_and_dotted_codes_are_mined_on_the_code():
    records = [["296.00#1", "296.00#2", "401.9#1"]] * 2 + [["296.00#1", "401.9#1"]] * 2
    assert policy_constraints("sup:50", CodeSets.from_sets(records)) == [
        ("296.00#1", "296.00#2", "401.9#1")]
    mixed = CodeSets.from_sets([["296.00"], ["29600"], ["401.9"], ["4019"]])
    assert policy_constraints("sup:50", mixed) == [("296.00", "29600"), ("401.9", "4019")]


def test_a_policy_file_keeps_the_data_codes_and_must_be_disjoint(tmp_path):
    path = tmp_path / "u.json"
    path.write_text(json.dumps([["295.01", "401.9"], ["296.02"], ["999.99"]]))
    assert policy_constraints(f"file:{path}", SETS) == [("29501", "4019"), ("29602",)]
    path.write_text(json.dumps({"constraints": [["a", "zz"], ["b", "c"], ["yy"]]}))
    assert policy_constraints(f"file:{path}", over(["a", "b", "c", "d"])) == [
        ("a",), ("b", "c")]
    path.write_text(json.dumps([["295.01", "401.9"], ["4019"]]))
    with pytest.raises(ConfigurationError,
                       match="Code 4019 is in utility constraints 1 and 2 of u.json"):
        policy_constraints(f"file:{path}", SETS)
    path.write_text(json.dumps([["a", "b"], ["c", "b"]]))  # b overlaps though absent
    with pytest.raises(ConfigurationError, match="Code b is in utility constraints 1 and 2"):
        policy_constraints(f"file:{path}", over(["a", "c"]))
    path.write_text('{"a": 1}')
    with pytest.raises(ConfigurationError, match="list of constraints"):
        policy_constraints(f"file:{path}", SETS)
    with pytest.raises(ConfigurationError, match="Cannot read the utility policy file"):
        policy_constraints(f"file:{tmp_path / 'missing.json'}", SETS)


def test_a_file_policy_is_published_with_the_file_name_only(tmp_path):
    assert published_policy(f"file:{tmp_path / 'secret' / 'u.json'}") == "file:u.json"
    assert published_policy("hierarchy:1") == "hierarchy:1"


@pytest.mark.parametrize("policy, message", [
    ("hierarchy:4", "level must be 1, 2 or 3"), ("sim:0", "N must be a whole number"),
    ("sim:x", "N must be"), ("sup:0", "S must be a percentage"), ("sup:x", "S must be"),
    ("sup:101", "S must be"), ("level:1", "Unknown utility policy"),
    ("none:1", "Unknown utility policy"), ("hierarchy", "Unknown utility policy"),
])
def test_bad_policies_say_what_to_write(policy, message):
    with pytest.raises(ConfigurationError, match=message):
        parse_policy(policy)
    with pytest.raises(ConfigurationError, match=message):
        policy_constraints(policy, SETS)


def test_parse_policy_needs_no_data():
    assert parse_policy(" Hierarchy:2 ") == ("hierarchy", "2")
    assert parse_policy("file:/x/u.json") == ("file", "/x/u.json")


def test_constraint_index_maps_every_code():
    vocabulary = ("a", "b", "c", "d")
    assert constraint_index([("b", "c"), ("d",)], vocabulary).tolist() == [-1, 0, 0, 1]
