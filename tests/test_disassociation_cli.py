"""``arxpy disassociate``: the published document, reconstructions, the report keys
scripts rely on, clear errors; and the method as a job (progress, cancel)."""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from arxpy import cli
from arxpy.data.definition import DataDefinition
from arxpy.errors import CancelledError
from arxpy.jobs import CancelToken
from arxpy.methods import Disassociation

CONTRACT_KEYS = {"k", "m", "records", "clusters", "record_chunks", "shared_chunks",
                 "codes_in_item_chunks", "elapsed_seconds"}


def patient_table(n=300, seed=4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    codes = [f"{400 + i // 5}.{i % 5}" for i in range(30)]
    weights = 1.0 / np.arange(1, 31)
    weights /= weights.sum()
    cells = [";".join(sorted(set(rng.choice(codes, size=int(rng.integers(1, 7)), p=weights))))
             for _ in range(n)]
    return pd.DataFrame({"pid": [f"p{i}" for i in range(n)], "age": rng.integers(20, 90, n),
                         "dx": cells})


@pytest.fixture
def data_csv(tmp_path) -> Path:
    path = tmp_path / "patients.csv"
    patient_table().to_csv(path, index=False)
    return path


def disassociate(data: Path, out: Path, *extra: str) -> int:
    return cli.main(["disassociate", "--data", str(data), "--codes-column", "dx",
                     "--id-column", "pid", "--k", "4", "--m", "2", "--seed", "9",
                     "--output", str(out / "out.json"), "--report", str(out / "r.json"),
                     *extra])


def test_writes_the_document_reconstructions_and_the_report(data_csv, tmp_path):
    assert disassociate(data_csv, tmp_path, "--policy", "hierarchy:1", "--reconstruct",
                        str(tmp_path / "rec.csv"), "--reconstructions", "2") == 0
    text = (tmp_path / "out.json").read_text()
    published = json.loads(text)
    assert published["method"] == "disassociation" and published["k"] == 4
    report = json.loads((tmp_path / "r.json").read_text())
    assert CONTRACT_KEYS <= set(report)
    assert report["output_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    clusters = [c for j in published["joint_clusters"] for c in j["clusters"]]
    shared = [s for j in published["joint_clusters"] for s in j["shared_chunks"]]
    assert report["records"] == 300 == sum(c["size"] for c in clusters)
    assert report["clusters"] == len(clusters)
    assert report["record_chunks"] == sum(len(c["record_chunks"]) for c in clusters)
    assert report["shared_chunks"] == len(shared)
    assert report["codes_in_item_chunks"] == sum(len(c["item_chunk"]) for c in clusters)
    assert report["joint_clusters"] == sum(len(j["clusters"]) > 1
                                           for j in published["joint_clusters"])
    assert set(report["timings"]) >= {"horpart", "verpart", "refine", "publish"}
    shares = report["occurrence_shares"]
    assert abs(sum(shares.values()) - 1) < 1e-9 and min(shares.values()) >= 0
    for chunk in [ch for c in clusters for ch in c["record_chunks"]] + shared:
        counts = Counter(i for s in chunk["subrecords"] for n in (1, 2)
                         for i in combinations(s, n))
        assert min(counts.values(), default=4) >= 4
    original = Counter(c for cell in patient_table()["dx"] for c in cell.split(";"))
    for name in ("rec-1.csv", "rec-2.csv"):
        with open(tmp_path / name, newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == 300 and set(rows[0]) == {"row", "dx"}
        rebuilt = Counter(c for r in rows for c in r["dx"].split(";") if c)
        assert set(rebuilt) == set(original)
    assert "pid" not in text and "p17" not in text
    assert cli.main(["km-check", "--published", str(tmp_path / "out.json"), "--k", "4",
                     "--m", "2"]) == 0  # the independent checker passes the document


def test_same_seed_gives_the_same_bytes(data_csv, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert disassociate(data_csv, tmp_path / "a") == 0
    assert disassociate(data_csv, tmp_path / "b") == 0
    assert (tmp_path / "a" / "out.json").read_bytes() == (tmp_path / "b" / "out.json").read_bytes()


def test_sensitive_codes_stay_in_item_chunks(data_csv, tmp_path):
    codes = tmp_path / "sensitive.txt"
    codes.write_text("400.0\n400.1\n")
    assert disassociate(data_csv, tmp_path, "--sensitive-codes", str(codes), "--l", "6") == 0
    published = json.loads((tmp_path / "out.json").read_text())
    clusters = [c for j in published["joint_clusters"] for c in j["clusters"]]
    chunks = [ch for c in clusters for ch in c["record_chunks"]]
    chunks += [s for j in published["joint_clusters"] for s in j["shared_chunks"]]
    assert not {"400.0", "400.1"} & {c for ch in chunks for c in ch["domain"]}
    assert min(c["size"] for c in clusters) >= 6


@pytest.mark.parametrize("extra, message", [
    (("--long-format", "pid"), "Write --long-format ID,CODE"),
    (("--wide-prefix", "zz"), "No columns named zz1, zz2"),
    (("--k", "1"), "k must be"),
    (("--policy", "sim:x"), "N must be"),
    (("--reconstructions", "0"), "--reconstructions must be at least 1"),
])
def test_user_mistakes_exit_2_with_one_line(data_csv, tmp_path, capsys, extra, message):
    args = ["disassociate", "--data", str(data_csv), "--codes-column", "dx", "--k", "4",
            "--output", str(tmp_path / "out.json"), *extra]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out.json").exists()


# --- layouts: long and wide, normalised like setvalued-utility reads them -------------------

def long_and_wide(tmp_path) -> tuple[Path, Path, pd.DataFrame]:
    """The patient table in long (one row per code, a repeated row, an undotted
    spelling) and wide layouts."""
    table = patient_table()
    rows = [(pid, code) for pid, cell in zip(table["pid"], table["dx"], strict=True)
            for code in cell.split(";")]
    rows[1] = (rows[1][0], rows[1][1].replace(".", ""))  # 400.0 and 4000 are one code
    rows.append(rows[0])  # a repeated code is dropped (set semantics)
    long_path = tmp_path / "long.csv"
    pd.DataFrame(rows, columns=["pid", "code"]).to_csv(long_path, index=False)
    width = max(len(cell.split(";")) for cell in table["dx"])
    wide = pd.DataFrame([[pid, *cell.split(";"), *[""] * (width - len(cell.split(";")))]
                         for pid, cell in zip(table["pid"], table["dx"], strict=True)],
                        columns=["pid", *[f"dx{i + 1}" for i in range(width)]])
    wide_path = tmp_path / "wide.csv"
    wide.to_csv(wide_path, index=False)
    return long_path, wide_path, table


def run_layout(data: Path, out: Path, *layout: str) -> int:
    out.mkdir(exist_ok=True)
    return cli.main(["disassociate", "--data", str(data), *layout, "--k", "4", "--m", "2",
                     "--seed", "9", "--policy", "hierarchy:1", "--output",
                     str(out / "out.json"), "--report", str(out / "r.json"),
                     "--reconstruct", str(out / "rec.csv")])


def test_long_and_wide_layouts_publish_the_normalised_codes(tmp_path, capsys):
    from arxpy.data.disassociated import published_codes
    from arxpy.data.icd9 import normalize_code

    long_path, wide_path, table = long_and_wide(tmp_path)
    assert run_layout(long_path, tmp_path / "long", "--long-format", "pid,code") == 0
    assert "1 repeated codes within a record were dropped" in capsys.readouterr().err
    assert run_layout(wide_path, tmp_path / "wide", "--wide-prefix", "dx") == 0
    long_doc = (tmp_path / "long" / "out.json").read_text()
    # Same records, same normalised codes, same seed: the same document.
    assert long_doc == (tmp_path / "wide" / "out.json").read_text()
    expected = {normalize_code(c) for cell in table["dx"] for c in cell.split(";")}
    assert set(published_codes(json.loads(long_doc))) == expected
    report = json.loads((tmp_path / "long" / "r.json").read_text())
    assert CONTRACT_KEYS <= set(report) and report["records"] == 300
    with open(tmp_path / "long" / "rec.csv", newline="") as handle:
        assert set(next(csv.reader(handle))) == {"row", "code"}
    assert cli.main(["km-check", "--published", str(tmp_path / "long" / "out.json"),
                     "--k", "4", "--m", "2"]) == 0


def test_long_format_multiset_numbers_repeated_codes(tmp_path):
    from arxpy.data.disassociated import published_codes

    rows = [(f"p{i}", code) for i in range(8) for code in ("401.9", "4019", "250.00")]
    data = tmp_path / "long.csv"
    pd.DataFrame(rows, columns=["pid", "code"]).to_csv(data, index=False)
    assert run_layout(data, tmp_path / "out", "--long-format", "pid,code",
                      "--multiset") == 0
    published = json.loads((tmp_path / "out" / "out.json").read_text())
    assert published_codes(published) == ["25000#1", "4019#1", "4019#2"]


def test_setvalued_utility_matches_a_long_format_publication(tmp_path):
    long_path, _, _ = long_and_wide(tmp_path)
    assert run_layout(long_path, tmp_path / "long", "--long-format", "pid,code") == 0
    report = tmp_path / "u.json"
    assert cli.main(["setvalued-utility", "--original", str(long_path), "--long-format",
                     "pid,code", "--published", str(tmp_path / "long" / "out.json"),
                     "--workload", "w1:5", "--reconstructions", "2", "--seed", "0",
                     "--policy", "hierarchy:1", "--report", str(report)]) == 0
    saved = json.loads(report.read_text())
    assert saved["records"] == 300 and saved["workloads"]["w1:5"]["disassociation"]["queries"]


def test_dotted_sensitive_codes_mark_undotted_data(tmp_path):
    long_path, _, _ = long_and_wide(tmp_path)
    codes = tmp_path / "sensitive.txt"
    codes.write_text("400.0\n400.1\n")
    assert run_layout(long_path, tmp_path / "long", "--long-format", "pid,code",
                      "--sensitive-codes", str(codes)) == 0
    published = json.loads((tmp_path / "long" / "out.json").read_text())
    clusters = [c for j in published["joint_clusters"] for c in j["clusters"]]
    chunks = [ch for c in clusters for ch in c["record_chunks"]]
    chunks += [s for j in published["joint_clusters"] for s in j["shared_chunks"]]
    assert not {"4000", "4001"} & {c for ch in chunks for c in ch["domain"]}
    assert {"4000", "4001"} <= {c for cl in clusters for c in cl["item_chunk"]}
    assert published["params"]["sensitive_codes"] == ["400.0", "400.1"]


def test_synthetic_ehr_to_disassociation_to_checker_and_utility(tmp_path):
    """The round trip of issue 15's command line: synth-ehr -> disassociate -> km-check
    (exit 0) -> setvalued-utility."""
    data = tmp_path / "d.csv"
    assert cli.main(["synth-ehr", "--records", "400", "--codes", "40", "--seed", "2",
                     "--output", str(data)]) == 0
    out = tmp_path / "out.json"
    assert cli.main(["disassociate", "--data", str(data), "--codes-column", "codes",
                     "--k", "5", "--m", "2", "--policy", "hierarchy:1", "--seed", "1",
                     "--output", str(out), "--report", str(tmp_path / "r.json")]) == 0
    assert cli.main(["km-check", "--published", str(out), "--k", "5", "--m", "2"]) == 0
    report = tmp_path / "u.json"
    assert cli.main(["setvalued-utility", "--original", str(data), "--codes-column", "codes",
                     "--published", str(out), "--workload", "w1:2.5", "--workload", "w2:20",
                     "--reconstructions", "2", "--seed", "0", "--policy", "hierarchy:1",
                     "--baseline", "gen", "--report", str(report)]) == 0
    saved = json.loads(report.read_text())
    assert {"k", "m", "records", "reconstructions", "item_fill", "seed", "policy",
            "published", "workloads", "mre", "baseline", "elapsed_seconds"} <= set(saved)
    assert saved["records"] == 400 and set(saved["workloads"]) == {"w1:2.5", "w2:20"}
    assert saved["mre"]["constraints"] > 0


def test_output_may_not_overwrite_the_data(data_csv, tmp_path, capsys):
    before = data_csv.read_bytes()
    assert cli.main(["disassociate", "--data", str(data_csv), "--codes-column", "dx", "--k",
                     "4", "--output", str(tmp_path / "o.json"), "--reconstruct",
                     str(data_csv)]) == 2
    assert "same file" in capsys.readouterr().err
    assert data_csv.read_bytes() == before


def test_m_of_4_warns_about_cost(data_csv, tmp_path, capsys):
    assert disassociate(data_csv, tmp_path, "--m", "4") == 0
    assert "warning: m = 4" in capsys.readouterr().err


# --- the method as a job -----------------------------------------------------------------------

def test_progress_reaches_one_and_cancel_stops_the_run():
    frame = patient_table(400)[["dx"]]
    definition = DataDefinition.for_columns(["dx"])
    seen = []
    method = Disassociation(k=4, m=2, codes_column="dx", policy="hierarchy:1", seed=0)
    method.run(frame, definition, progress=lambda f, msg: seen.append(f))
    assert seen[-1] == 1.0 and seen == sorted(seen)
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        method.run(frame, definition, cancel=token)


@pytest.mark.parametrize("phase", ["verpart", "refine", "publish"])
def test_cancel_during_each_phase_stops_the_run(monkeypatch, phase):
    """The token is cancelled as the phase starts; the phase itself must notice."""
    from arxpy.methods.disassociation import method as module

    frame = patient_table(400)[["dx"]]
    token = CancelToken()
    original = getattr(module, phase)

    def cancelled_at_start(*args, **kwargs):
        token.cancel()
        return original(*args, **kwargs)
    monkeypatch.setattr(module, phase, cancelled_at_start)
    method = Disassociation(k=4, m=2, codes_column="dx", seed=0)
    with pytest.raises(CancelledError):
        method.disassociate(method.read_codes(frame), seed=0, cancel=token)
