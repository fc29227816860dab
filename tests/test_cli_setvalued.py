"""``arxpy setvalued-utility`` end to end on generated data and a hand-built publication."""

from __future__ import annotations

import json

from golden_disassociation import naive_publication

from arxpy.cli import main
from arxpy.data.icd9 import dotted
from arxpy.data.synth_ehr import generate_ehr
from arxpy.data.transactions import read_code_sets


def _inputs(tmp_path, records=300):
    data = tmp_path / "d.csv"
    generate_ehr(records=records, codes=40, seed=3).to_csv(data, index=False)
    sets = read_code_sets(data, codes_column="codes").code_sets
    published = tmp_path / "out.json"
    published.write_text(json.dumps(naive_publication(sets.to_sets(), 3, 2)))
    return data, published


def test_report_has_the_workloads_mre_and_baseline(tmp_path, capsys):
    data, published = _inputs(tmp_path)
    report = tmp_path / "u.json"
    assert main(["setvalued-utility", "--original", str(data), "--codes-column", "codes",
                 "--published", str(published), "--workload", "w1:5,10", "--workload",
                 "w2:40", "--reconstructions", "2", "--seed", "1", "--policy", "hierarchy:1",
                 "--baseline", "gen", "--report", str(report)]) == 0
    saved = json.loads(report.read_text())
    assert set(saved["workloads"]) == {"w1:5", "w1:10", "w2:40"}
    assert saved["k"] == 3 and saved["m"] == 2 and saved["reconstructions"] == 2
    w1 = saved["workloads"]["w1:5"]
    # Frequent single codes sit in record chunks of the naive publication: exact counts.
    assert w1["disassociation"]["by_size"]["1"] == 0
    assert w1["baseline"]["are"] > 0 and "p" in w1["welch"]
    assert w1["baseline_nonempty"]["queries"] == w1["baseline"]["queries"]
    assert saved["mre"]["constraints"] > 0
    assert sum(saved["mre"]["histogram_percent"].values()) == 100
    assert saved["baseline"]["baseline"].startswith("gen")
    assert "w1:5:" in capsys.readouterr().out


def test_a_publication_of_other_data_is_refused(tmp_path, capsys):
    data, published = _inputs(tmp_path)
    other = tmp_path / "other.csv"
    generate_ehr(records=200, codes=40, seed=3).to_csv(other, index=False)
    assert main(["setvalued-utility", "--original", str(other), "--codes-column", "codes",
                 "--published", str(published), "--report", str(tmp_path / "u.json")]) == 2
    assert "covers 300 records but --original has 200" in capsys.readouterr().err


def test_bad_workload_is_refused_with_the_syntax(tmp_path, capsys):
    data, published = _inputs(tmp_path, records=50)
    assert main(["setvalued-utility", "--original", str(data), "--codes-column", "codes",
                 "--published", str(published), "--workload", "w3:1",
                 "--report", str(tmp_path / "u.json")]) == 2
    assert "write w1:0.625,1.25,2.5,5" in capsys.readouterr().err


def test_a_publication_with_dotted_codes_matches_the_undotted_original(tmp_path):
    data, published = _inputs(tmp_path)
    document = json.loads(published.read_text())
    for chunk in document["joint_clusters"][0]["clusters"][0]["record_chunks"]:
        chunk["domain"] = [dotted(c) for c in chunk["domain"]]
        chunk["subrecords"] = [[dotted(c) for c in s] for s in chunk["subrecords"]]
    published.write_text(json.dumps(document))
    report = tmp_path / "u.json"
    assert main(["setvalued-utility", "--original", str(data), "--codes-column", "codes",
                 "--published", str(published), "--workload", "w1:5",
                 "--reconstructions", "1", "--report", str(report)]) == 0
    assert json.loads(report.read_text())["workloads"]["w1:5"]["disassociation"][
        "by_size"]["1"] == 0
