"""Published disassociated data: validation and random reconstruction (spec 002 §5 item 7)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from golden_disassociation import RECORDS, published
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.data.disassociated import (
    ITEM_FILLS,
    PublishedFormatError,
    load_published,
    published_statistics,
    reconstruct,
)
from arxpy.errors import ArxpyError


def _rows_of_clusters(document):
    """Row ranges of each cluster in reconstruction order, per joint cluster."""
    offset, ranges = 0, []
    for joint in document["joint_clusters"]:
        spans = []
        for cluster in joint["clusters"]:
            spans.append(range(offset, offset + cluster["size"]))
            offset += cluster["size"]
        ranges.append(spans)
    return ranges


def _assert_consistent(document, records, item_fill):
    k = document["k"]
    assert len(records) == sum(c["size"] for j in document["joint_clusters"]
                               for c in j["clusters"])
    for joint, spans in zip(document["joint_clusters"], _rows_of_clusters(document), strict=True):
        for cluster, rows in zip(joint["clusters"], spans, strict=True):
            for chunk in cluster["record_chunks"]:
                domain = set(chunk["domain"])
                used = Counter(frozenset(records[r] & domain) for r in rows)
                assert used == Counter(frozenset(s) for s in chunk["subrecords"])
            for code in cluster["item_chunk"]:
                holders = sum(code in records[r] for r in rows)
                top = 1 if item_fill == "one" else min(k - 1, len(rows))
                assert 1 <= holders <= top
        for chunk in joint["shared_chunks"]:
            rows = [r for x in chunk["members"] for r in spans[x]]
            domain = set(chunk["domain"])
            used = Counter(frozenset(records[r] & domain) for r in rows)
            assert used == Counter(frozenset(s) for s in chunk["subrecords"])


@pytest.mark.parametrize("item_fill", ["one", "uniform"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reconstructions_of_the_golden_publication_are_consistent(seed, item_fill):
    document = published()
    sets = reconstruct(document, np.random.default_rng(seed), item_fill)
    records = sets.to_sets()
    _assert_consistent(document, records, item_fill)
    # Codes in no item chunk keep their original counts exactly.
    item_codes = {"401.0", "404.00", "480.1"}
    original = Counter(c for r in RECORDS for c in r)
    rebuilt = Counter(c for r in records for c in r)
    assert {c: n for c, n in rebuilt.items() if c not in item_codes} == \
        {c: n for c, n in original.items() if c not in item_codes}
    # No code invented or lost.
    assert set(sets.vocabulary) == set(original)


def test_rows_follow_the_clusters_and_shared_chunks_stay_in_their_members():
    document = published()
    # A second joint cluster whose code "X" must land only in its own rows.
    document["joint_clusters"].append({"clusters": [
        {"size": 3, "record_chunks": [{"domain": ["X"], "subrecords": [["X"], ["X"], ["X"]]}],
         "item_chunk": ["Y"]}], "shared_chunks": []})
    records = reconstruct(document, np.random.default_rng(5)).to_sets()
    assert [("X" in r) for r in records] == [False] * 10 + [True] * 3
    assert sum("Y" in r for r in records[10:]) == 1
    assert all("834.0" not in r for r in records[10:])


def test_same_seed_same_reconstruction_and_seeds_differ():
    document = published()
    first = reconstruct(document, np.random.default_rng(7)).to_sets()
    assert first == reconstruct(document, np.random.default_rng(7)).to_sets()
    others = [reconstruct(document, np.random.default_rng(s)).to_sets() for s in range(8)]
    assert any(o != first for o in others)


def test_unknown_item_fill_is_refused():
    with pytest.raises(ArxpyError, match="item fill"):
        reconstruct(published(), np.random.default_rng(0), "all")


def test_statistics_of_the_golden_publication():
    assert published_statistics(published()) == {
        "records": 10, "clusters": 2, "joint_clusters": 1, "record_chunks": 3,
        "shared_chunks": 1, "codes_in_item_chunks": 3}


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(method="other"), "'method' must be"),
    (lambda d: d.update(k=0), "'k' must be a whole number"),
    (lambda d: d["joint_clusters"][0]["clusters"][0].update(size="5"), r"size must be"),
    (lambda d: d["joint_clusters"][0]["clusters"][0]["record_chunks"][0]["subrecords"][0]
     .append("834.0"), "outside the chunk's domain: 834.0"),
    (lambda d: d["joint_clusters"][0]["clusters"][0].update(item_chunk=["401.0", "401.0"]),
     "repeats a code"),
    (lambda d: d.update(joint_clusters={}), "'joint_clusters' must be a list"),
])
def test_malformed_documents_name_the_problem(tmp_path, mutate, message):
    document = published()
    mutate(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with pytest.raises(PublishedFormatError, match=message):
        load_published(path)


def test_files_too_large_or_not_json_are_refused(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(published()))
    with pytest.raises(PublishedFormatError, match="more than the 100 accepted"):
        load_published(path, max_bytes=100)
    path.write_text("[" * 100_000)
    with pytest.raises(PublishedFormatError):
        load_published(path)
    with pytest.raises(PublishedFormatError, match="Cannot read"):
        load_published(tmp_path / "missing.json")


def _random_publication(draw_records, sizes, shared_codes, splits, k):
    """A valid publication of ``draw_records`` cut into joint clusters of clusters of
    ``sizes``; per joint cluster the ``shared_codes`` go to one shared chunk over all its
    clusters, every other code to a record chunk (``splits`` picks which) or the item chunk."""
    joints, start = [], 0
    for joint_sizes in sizes:
        clusters, rows = [], []
        for size in joint_sizes:
            part = draw_records[start:start + size]
            rows += part
            start += size
            own = sorted(set().union(*part) - shared_codes)
            domains: dict[int, list[str]] = {}
            for code in own:
                domains.setdefault(splits.get(code, 0), []).append(code)
            items = domains.pop(0, [])
            clusters.append({"size": size, "item_chunk": items, "record_chunks": [
                {"domain": d, "subrecords": [sorted(set(r) & set(d)) for r in part]}
                for _, d in sorted(domains.items())]})
        shared = sorted(shared_codes & set().union(*rows))
        chunks = [{"domain": shared, "members": list(range(len(joint_sizes))),
                   "subrecords": [sorted(set(r) & set(shared)) for r in rows]}] if shared else []
        joints.append({"clusters": clusters, "shared_chunks": chunks})
    return {"method": "disassociation", "k": k, "m": 2, "joint_clusters": joints}


@st.composite
def publications(draw):
    codes = "abcdefgh"
    sizes = draw(st.lists(st.lists(st.integers(1, 4), min_size=1, max_size=3), min_size=1,
                          max_size=3))
    total = sum(map(sum, sizes))
    records = draw(st.lists(st.sets(st.sampled_from(codes), max_size=5), min_size=total,
                            max_size=total))
    shared = draw(st.sets(st.sampled_from(codes), max_size=3))
    splits = draw(st.dictionaries(st.sampled_from(codes), st.integers(0, 2)))
    k = draw(st.integers(2, 4))
    return records, _random_publication(records, sizes, shared, splits, k)


@settings(max_examples=120, deadline=None)
@given(case=publications(), seed=st.integers(0, 2**16), item_fill=st.sampled_from(ITEM_FILLS))
def test_reconstructions_of_random_publications_are_consistent(case, seed, item_fill):
    original, document = case
    records = reconstruct(document, np.random.default_rng(seed), item_fill).to_sets()
    _assert_consistent(document, records, item_fill)
    item_codes = {c for j in document["joint_clusters"] for cl in j["clusters"]
                  for c in cl["item_chunk"]}
    before = Counter(c for r in original for c in r if c not in item_codes)
    after = Counter(c for r in records for c in r if c not in item_codes)
    assert before == after


def test_shared_chunk_members_index_the_clusters_of_their_own_joint_cluster():
    document = published()
    second = {"clusters": [
        {"size": 2, "record_chunks": [], "item_chunk": []},
        {"size": 3, "record_chunks": [], "item_chunk": []}],
        "shared_chunks": [{"domain": ["S"], "members": [1],
                           "subrecords": [["S"], ["S"], ["S"]]}]}
    document["joint_clusters"].append(second)
    records = reconstruct(document, np.random.default_rng(0)).to_sets()
    # Member 1 of the second joint cluster is its 3-record cluster: rows 12-14.
    assert [i for i, r in enumerate(records) if "S" in r] == [12, 13, 14]
    second["shared_chunks"][0]["members"] = [3]  # counted over the whole document
    with pytest.raises(PublishedFormatError, match="within the joint cluster"):
        reconstruct(document, np.random.default_rng(0))
