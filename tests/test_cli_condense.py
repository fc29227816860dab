"""``arxpy condense`` and ``arxpy compare-models``: outputs, the report keys scripts rely
on, and group sizes recounted from the written groups file."""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from arxpy import cli
from arxpy.methods.condensation.devdata import cancer_registry

K = 40
CONTRACT_KEYS = {"method", "k", "records", "groups", "min_group_size", "moved_records",
                 "clipped", "elapsed_seconds", "input_sha256", "output_sha256"}


@pytest.fixture(scope="module")
def registry_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("condense") / "registry.csv"
    cancer_registry(800, seed=11).to_csv(path, index=False)
    return path


def condense(data: Path, out: Path, *extra: str) -> int:
    return cli.main(["condense", "--data", str(data), "--k", str(K), "--output",
                     str(out / "out.csv"), "--groups", str(out / "groups.csv"),
                     "--report", str(out / "report.json"), *extra])


IMPROVED = ("--method", "improved", "--status", "VitalStat", "--event-value", "0",
            "--time", "SurvInterval", "--seed", "3")


@pytest.mark.parametrize("method", ["improved", "condensation", "tfrp", "mdav"])
def test_groups_file_has_every_record_in_groups_of_at_least_k(registry_csv, tmp_path,
                                                               method):
    extra = IMPROVED[2:] if method == "improved" else ("--seed", "3")
    assert condense(registry_csv, tmp_path, "--method", method, *extra) == 0
    with open(tmp_path / "groups.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["row"]) for r in rows] == list(range(800))
    counts = Counter(r["group"] for r in rows)
    assert min(counts.values()) >= K
    report = json.loads((tmp_path / "report.json").read_text())
    assert CONTRACT_KEYS <= set(report)
    assert report["method"] == method and report["k"] == K and report["records"] == 800
    assert report["groups"] == len(counts)
    assert report["min_group_size"] == min(counts.values())
    digest = hashlib.sha256((tmp_path / "out.csv").read_bytes()).hexdigest()
    assert report["output_sha256"] == digest


def test_improved_report_states_invariants_and_caveat(registry_csv, tmp_path):
    assert condense(registry_csv, tmp_path, *IMPROVED) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["invariants"] == {"status_preserved": True,
                                    "kaplan_meier_max_difference": 0.0,
                                    "time_multiset_preserved": True}
    assert "exactly" in report["caveat"]
    means = {(r["attribute"], r["statistic"]): r for r in report["basic_statistics"]}
    assert means[("SurvInterval", "sum")]["change_pct"] == 0.0  # times are all released
    assert set(report["conditional_privacy"]["values"]) == {"SurvInterval", "DiagAge"}


def test_same_seed_same_bytes_and_no_shuffle_keeps_status_rows(registry_csv, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    assert condense(registry_csv, first, *IMPROVED, "--no-shuffle") == 0
    assert condense(registry_csv, second, *IMPROVED, "--no-shuffle") == 0
    assert (first / "out.csv").read_bytes() == (second / "out.csv").read_bytes()
    with open(first / "out.csv", newline="") as a, open(registry_csv, newline="") as b:
        out = [r["VitalStat"] for r in csv.DictReader(a)]
        original = [r["VitalStat"] for r in csv.DictReader(b)]
    assert out == original


def test_user_errors_are_one_line(registry_csv, tmp_path, capsys):
    code = condense(registry_csv, tmp_path, "--method", "improved")
    assert code == 2
    assert "--time" in capsys.readouterr().err
    code = condense(registry_csv, tmp_path, *IMPROVED, "--k", "100000")
    assert code == 2
    assert "k = 100000" in capsys.readouterr().err


def test_compare_models_report(registry_csv, tmp_path):
    analyses = Path(__file__).parents[1] / "docs/examples/condensation-analyses.json"
    report_path = tmp_path / "models.json"
    code = cli.main(["compare-models", "--original", str(registry_csv), "--methods",
                     "improved,mdav", "--k", str(K), "--analyses", str(analyses),
                     "--repeats", "2", "--seed", "1", "--report", str(report_path),
                     "--csv", str(tmp_path / "long.csv")])
    assert code == 0
    report = json.loads(report_path.read_text())
    assert [(r["method"], r["k"]) for r in report["results"]] == [("improved", K), ("mdav", K)]
    for entry in report["results"]:
        for model in ("linear", "logistic", "cox"):
            figures = entry["models"][model]
            for metric in ("pct_sig_changed", "pct_dir_changed", "pct_outside_ci"):
                assert {"mean", "sd"} <= set(figures[metric])
            assert isinstance(figures["fit_failures"], int)
    improved = report["results"][0]
    assert improved["status_changed_pct"] == 0.0
    assert improved["kaplan_meier_max_difference"] == 0.0
    assert "gaussian" in improved["conditional_privacy"]["estimator"]


def test_compare_models_on_the_original_itself_changes_nothing(registry_csv, tmp_path):
    analyses = Path(__file__).parents[1] / "docs/examples/condensation-analyses.json"
    report_path = tmp_path / "same.json"
    assert cli.main(["compare-models", "--original", str(registry_csv), "--anonymized",
                     str(registry_csv), "--analyses", str(analyses),
                     "--report", str(report_path)]) == 0
    models = json.loads(report_path.read_text())["results"][0]["models"]
    assert all(m["pct_sig_changed"]["mean"] == 0 and m["pct_outside_ci"]["mean"] == 0
               for m in models.values())
