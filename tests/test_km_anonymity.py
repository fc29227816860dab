"""The independent k^m checker (spec 002 §5 items 1-2), cross-checked by brute force."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest
from golden_disassociation import published
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.cli import main
from arxpy.data.disassociated import PublishedFormatError
from arxpy.errors import ConfigurationError
from arxpy.privacy.km_anonymity import check_km_anonymity, violating_itemsets


def brute_force_violations(subrecords, k, m):
    """Every itemset of 1..m codes counted with itertools, then the minimal rare ones."""
    counts = Counter()
    for sub in subrecords:
        for size in range(1, m + 1):
            counts.update(itertools.combinations(sorted(set(sub)), size))
    rare = {s for s, c in counts.items() if c < k}
    minimal = {s for s in rare
               if not any(sub in rare for size in range(1, len(s))
                          for sub in itertools.combinations(s, size))}
    return {s: counts[s] for s in minimal}, bool(rare)


def test_golden_publication_is_3_2_anonymous():
    result = check_km_anonymity(published(), 3, 2)
    assert result.ok
    assert (result.clusters, result.record_chunks, result.shared_chunks) == (2, 3, 1)


def test_golden_publication_is_not_4_2_anonymous_and_names_the_rare_pairs():
    result = check_km_anonymity(published(), 4, 2)
    assert not result.ok
    found = {(v.location, v.itemset, v.count) for v in result.itemset_violations}
    # {296.01, 296.02} is in r1, r2, r5 only; 695.10 in r2, r3, r5.
    assert ("joint cluster 0, cluster 0, record chunk 0", ("296.01", "296.02"), 3) in found
    assert ("joint cluster 0, cluster 0, record chunk 1", ("695.10",), 3) in found
    # Minimal violations only: 695.10 is rare, so {692.71, 695.10} is not listed.
    assert all(v.itemset != ("692.71", "695.10") for v in result.itemset_violations)
    assert result.cluster_violations == []


def test_a_rare_pair_in_a_shared_chunk_is_caught():
    document = published()
    shared = document["joint_clusters"][0]["shared_chunks"][0]
    shared["subrecords"][9] = ["834.0"]  # {834.0, 944.01} now in r1 and r7 only
    result = check_km_anonymity(document, 3, 2)
    assert [(v.location, v.itemset, v.count) for v in result.itemset_violations] == [
        ("joint cluster 0, shared chunk 0", ("834.0", "944.01"), 2)]


def test_clusters_smaller_than_k_are_violations_even_with_safe_chunks():
    document = published()
    result = check_km_anonymity(document, 6, 1)
    assert [v.size for v in result.cluster_violations] == [5, 5]
    assert not result.ok


def test_k_and_m_default_to_the_document_and_are_validated():
    assert check_km_anonymity(published()).k == 3
    with pytest.raises(ConfigurationError, match="m must be"):
        check_km_anonymity(published(), 3, 0)


def test_malformed_documents_are_refused_with_the_place_named():
    document = published()
    document["joint_clusters"][0]["clusters"][1]["record_chunks"][0]["subrecords"].pop()
    with pytest.raises(PublishedFormatError, match=r"clusters\[1\].record_chunks\[0\]"
                       r".subrecords has 4 subrecords"):
        check_km_anonymity(document, 3, 2)
    document = published()
    document["joint_clusters"][0]["shared_chunks"][0]["members"] = [0, 2]
    with pytest.raises(PublishedFormatError, match="members"):
        check_km_anonymity(document, 3, 2)


codes = st.sampled_from("abcdefg")
subrecords_strategy = st.lists(st.sets(codes, max_size=6).map(sorted), min_size=1, max_size=25)


@settings(max_examples=150, deadline=None)
@given(subrecords=subrecords_strategy, k=st.integers(1, 5), m=st.integers(1, 4))
def test_vectorised_checker_agrees_with_brute_force(subrecords, k, m):
    expected, any_rare = brute_force_violations(subrecords, k, m)
    got = dict(violating_itemsets(subrecords, k, m))
    assert got == expected
    document = {"method": "disassociation", "k": k, "m": m, "joint_clusters": [
        {"clusters": [{"size": len(subrecords), "item_chunk": [], "record_chunks": [
            {"domain": sorted(set().union(*map(set, subrecords))) or ["a"],
             "subrecords": subrecords}]}]}]}
    assert check_km_anonymity(document).ok == (not any_rare and len(subrecords) >= k)


def test_cli_exit_status_0_1_and_2(tmp_path, capsys):
    path = tmp_path / "out.json"
    path.write_text(json.dumps(published()))
    assert main(["km-check", "--published", str(path), "--k", "3", "--m", "2"]) == 0
    report = tmp_path / "r.json"
    assert main(["km-check", "--published", str(path), "--k", "4", "--m", "2",
                 "--report", str(report)]) == 1
    out = capsys.readouterr().out
    assert "NOT k^m-anonymous" in out and "{296.01, 296.02} in 3 subrecords" in out
    saved = json.loads(report.read_text())
    assert saved["k_m_anonymous"] is False and saved["itemset_violations"] > 0
    path.write_text("{not json")
    assert main(["km-check", "--published", str(path), "--k", "3", "--m", "2"]) == 2
    assert "not a JSON document" in capsys.readouterr().err


@pytest.mark.perf
def test_m4_check_of_58k_records_in_one_chunk_takes_under_two_minutes():
    import time

    from arxpy.data.synth_ehr import generate_code_sets

    records = [sorted(r) for r in generate_code_sets(seed=0).to_sets()]
    document = {"method": "disassociation", "k": 5, "m": 4, "joint_clusters": [
        {"clusters": [{"size": len(records), "item_chunk": [], "record_chunks": [
            {"domain": sorted(set().union(*map(set, records))), "subrecords": records}]}]}]}
    started = time.perf_counter()
    result = check_km_anonymity(document)
    assert time.perf_counter() - started < 120
    assert result.violations_found > 0


@settings(max_examples=80, deadline=None)
@given(subrecords=subrecords_strategy, min_count=st.integers(1, 4), size=st.integers(1, 4),
       batch=st.integers(1, 12))
def test_itemset_counts_do_not_depend_on_the_batch_size(subrecords, min_count, size, batch):
    from arxpy.data.itemsets import count_itemsets
    from arxpy.data.transactions import CodeSets

    sets = CodeSets.from_sets(subrecords)
    whole = count_itemsets(sets, size, min_count)
    parts = count_itemsets(sets, size, min_count, batch=batch)
    assert len(whole) == len(parts)
    for a, b in zip(whole, parts, strict=True):
        assert a.itemsets.tolist() == b.itemsets.tolist()
        assert a.counts.tolist() == b.counts.tolist()
