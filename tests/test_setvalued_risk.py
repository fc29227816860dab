"""The risk view of set-valued data (spec 002 §6), against brute-force counts."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest
from km_reference import rare_itemsets

from arxpy.analysis.setvalued_risk import combination_risk
from arxpy.cli import main
from arxpy.data.synth_ehr import generate_code_sets, generate_ehr


@pytest.fixture(scope="module")
def data():
    return generate_code_sets(records=300, codes=30, seed=9)


def test_histogram_and_records_at_risk_match_brute_force(data):
    records = data.to_sets()
    risk = combination_risk(data, k=4, m=2, max_size=3)
    for size in (1, 2, 3):
        counts = Counter(c for r in records for c in itertools.combinations(sorted(r), size))
        assert risk.distinct[size] == len(counts)
        once = sum(1 for n in counts.values() if n == 1) / len(counts) * 100
        many = sum(1 for n in counts.values() if n > 10) / len(counts) * 100
        assert risk.unique_share(size) == pytest.approx(once)
        assert risk.histogram[size][">10"] == pytest.approx(many)
        assert sum(risk.histogram[size].values()) == pytest.approx(100)
    pairs = Counter(c for r in records for c in itertools.combinations(sorted(r), 2))
    expected = sorted(pairs.items(), key=lambda item: (-item[1], item[0]))[:5]
    assert combination_risk(data, max_size=1, top=5).top_pairs == expected
    assert risk.length_counts == [sum(len(r) == n for r in records)
                                  for n in range(max(map(len, records)) + 1)]
    rare = rare_itemsets(records, 4, 2)
    at_risk = sum(any(set(s) <= r for s in rare) for r in records) / len(records) * 100
    assert risk.records_at_risk_percent == pytest.approx(at_risk)


def test_long_records_are_capped_for_four_and_more_codes_only(data):
    exact = combination_risk(data, max_size=4, cap=40)
    capped = combination_risk(data, max_size=4, cap=4)
    assert capped.capped_records == int((data.lengths > 4).sum()) > 0
    assert exact.capped_records == 0
    assert capped.histogram[2] == exact.histogram[2]  # sizes 1-3 stay exact
    assert capped.distinct[4] < exact.distinct[4]


def test_cli_prints_and_reports(tmp_path, capsys):
    path = tmp_path / "d.csv"
    generate_ehr(records=200, codes=30, seed=2).to_csv(path, index=False)
    report = tmp_path / "r.json"
    assert main(["setvalued-risk", "--data", str(path), "--codes-column", "codes", "--k", "3",
                 "--m", "2", "--max-size", "3", "--report", str(report)]) == 0
    saved = json.loads(report.read_text())
    assert saved["records"] == 200 and set(saved["histogram_percent"]) == {"1", "2", "3"}
    assert "% of records hold a combination" in capsys.readouterr().out
