"""Utility policies: hierarchy levels, similarity blocks, frequent itemsets, files."""

from __future__ import annotations

import json

import pytest

from arxpy.data.transactions import CodeSets
from arxpy.data.utility_policy import policy_constraints
from arxpy.errors import ConfigurationError

SETS = CodeSets.from_sets([{"29501", "29602", "4019"}, {"29501", "29603"}, {"29602", "4011"},
                           {"ZZZ"}, {"29501", "4019"}, {"29501"}])


def test_hierarchy_levels_group_the_dataset_codes():
    assert policy_constraints("hierarchy:1", SETS) == [
        ("29501",), ("29602", "29603"), ("4011", "4019"), ("ZZZ",)]
    assert policy_constraints("hierarchy:2", SETS) == [
        ("29501", "29602", "29603"), ("4011", "4019"), ("ZZZ",)]
    assert policy_constraints("none", SETS) == []


def test_similarity_is_consecutive_blocks_in_icd_order():
    assert policy_constraints("sim:2", SETS) == [
        ("29501", "29602"), ("29603", "4011"), ("4019", "ZZZ")]


def test_frequent_itemsets_are_made_disjoint_greedily():
    # At 50 % (3 records): 29501 (4), 29602 (2) no; {29501} and {29501, 4019} (2) no.
    assert policy_constraints("sup:50", SETS) == [("29501",)]
    # At 30 % (2 records): {29501, 4019} (2) first (larger), then 29602 (2).
    assert policy_constraints("sup:30", SETS) == [("29501", "4019"), ("29602",)]


def test_a_policy_file_must_be_disjoint(tmp_path):
    path = tmp_path / "u.json"
    path.write_text(json.dumps([["295.01", "401.9"], ["296.02"], ["999.99"]]))
    assert policy_constraints(f"file:{path}", SETS) == [("29501", "4019"), ("29602",)]
    path.write_text(json.dumps([["295.01", "401.9"], ["401.9"]]))
    with pytest.raises(ConfigurationError, match="Code 401.9 is in utility constraints 1 and 2"):
        policy_constraints(f"file:{path}", SETS)


@pytest.mark.parametrize("policy", ["hierarchy:4", "sim:0", "sup:0", "sup:x", "level:1"])
def test_bad_policies_say_what_to_write(policy):
    with pytest.raises(ConfigurationError, match="write|must be|Unknown"):
        policy_constraints(policy, SETS)
