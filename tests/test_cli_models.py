"""Every model reachable from ``arxpy anonymize`` (issue 19, item 5).

Each option must reach the engine as the model the GUI and project files name the same
way: the report echoes the configured models, and the output is checked independently.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from arxpy.cli import main


@pytest.fixture
def small(tmp_path):
    rows = ["name;age;zip;disease;stay"]
    for i in range(60):
        rows.append(f"p{i};{20 + (i * 7) % 40};{1300 + (i * 3) % 9};"
                    f"{['flu', 'cold', 'rash'][i % 3]};{(i * 5) % 11}")
    (tmp_path / "data.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "age.csv").write_text("\n".join(
        f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in range(20, 60)) + "\n")
    (tmp_path / "zip.csv").write_text("\n".join(
        f"{z};{z // 10}*;*" for z in range(1300, 1310)) + "\n")
    return tmp_path


def run(folder: Path, *extra: str) -> dict:
    report = folder / "report.json"
    code = main(["anonymize", "--data", str(folder / "data.csv"), "--delimiter", ";",
                 "--hierarchy", f"age={folder / 'age.csv'}",
                 "--hierarchy", f"zip={folder / 'zip.csv'}", "--identifying", "name",
                 "--report", str(report), "--output", str(folder / "out.csv"), *extra])
    assert code == 0
    return json.loads(report.read_text())


@pytest.mark.parametrize(("options", "models"), [
    (["--delta-disclosure", "disease:1.5"],
     [{"kind": "delta-disclosure", "attribute": "disease", "delta": 1.5}]),
    (["--beta-likeness", "disease:basic:1.0"],
     [{"kind": "basic-beta-likeness", "attribute": "disease", "beta": 1.0}]),
    (["--beta-likeness", "disease:enhanced:1.0"],
     [{"kind": "enhanced-beta-likeness", "attribute": "disease", "beta": 1.0}]),
    (["--average-risk", "0.2"], [{"kind": "average-risk", "threshold": 0.2}]),
    (["--population-uniqueness", "0.05:dankar:1000"],
     [{"kind": "population-uniqueness", "threshold": 0.05, "estimator": "dankar",
       "population_size": 1000}]),
    (["--population-uniqueness", "0.01:zayatz:usa"],
     [{"kind": "population-uniqueness", "threshold": 0.01, "estimator": "zayatz",
       "region": "usa"}]),
    (["--ldiversity", "disease:grassberger:2"],
     [{"kind": "entropy-l-diversity", "attribute": "disease", "l": 2.0,
       "estimator": "grassberger"}]),
])
def test_privacy_models_reach_the_engine(small, options, models):
    report = run(small, "--suppression", "0.1", *options)
    assert report["privacy_models"] == models


def test_average_risk_holds_in_the_output(small):
    report = run(small, "--average-risk", "0.2", "--suppression", "0.1")
    frame = pd.read_csv(small / "out.csv", sep=";", dtype=str, keep_default_na=False)
    kept = frame[frame["age"] != "*"]
    sizes = kept.groupby(["age", "zip"]).size()
    assert len(sizes) / len(kept) <= 0.2  # independent: classes / records
    assert report["suppressed_records"] == len(frame) - len(kept)


@pytest.mark.parametrize(("metric", "model"), [
    ("loss:0.3:sum", {"name": "loss", "gs_factor": 0.3, "aggregate": "sum"}),
    ("loss:1:rank", {"name": "loss", "gs_factor": 1.0, "aggregate": "rank"}),
    ("aecs:0.2", {"name": "aecs", "gs_factor": 0.2}),
    ("entropy:0.4", {"name": "entropy", "gs_factor": 0.4, "monotonic": False}),
    ("precision:0.6", {"name": "precision", "gs_factor": 0.6, "monotonic": False}),
    ("classification:disease", {"name": "classification", "class_attribute": "disease"}),
    ("height", {"name": "height"}),
])
def test_metrics_with_parameters(small, metric, model):
    report = run(small, "--k", "3", "--metric", metric)
    assert {k: report["quality_model"][k] for k in model} == model


def test_weights_and_level_bounds_reach_the_search(small):
    report = run(small, "--k", "3", "--min-level", "zip=1", "--max-level", "age=1",
                 "--weight", "age=0.25", "--metric", "loss:0.5:sum")
    assert report["transformation"]["zip"] >= 1
    assert report["transformation"]["age"] <= 1
    unweighted = run(small, "--k", "3", "--min-level", "zip=1", "--max-level", "age=1",
                     "--metric", "loss:0.5:sum")
    # Sum of weighted values: a weight of 1/4 on age lowers the same transformation's score.
    if unweighted["transformation"] == report["transformation"]:
        assert report["score"] < unweighted["score"]


def test_type_orders_ordered_t_closeness(small):
    report = run(small, "--k", "2", "--tcloseness", "stay:ordered:0.4", "--type",
                 "stay=integer", "--suppression", "0.1")
    assert report["privacy_models"][1] == {"kind": "t-closeness", "attribute": "stay",
                                           "t": 0.4, "distance": "ordered"}


def test_type_option_sets_the_data_type():
    import argparse

    from arxpy.commands.options import apply_attribute_options
    from arxpy.data.definition import DataDefinition, DataKind

    frame = pd.DataFrame({"stay": ["3", "10", "NA"], "seen": ["2024-01-02", "2024-03-04", ""]})
    args = argparse.Namespace(data_type=["stay=integer", "seen=date"], weight=["stay=2"],
                              min_level=[], max_level=["seen=1"])
    definition = apply_attribute_options(args, frame, DataDefinition.for_columns(frame.columns))
    assert definition["stay"].data_type.kind is DataKind.INTEGER
    assert definition["stay"].weight == 2.0
    assert definition["seen"].data_type.kind is DataKind.DATE
    assert definition["seen"].data_type.format == "%Y-%m-%d"
    assert definition["seen"].max_level == 1


@pytest.mark.parametrize(("options", "message"), [
    (["--k", "2", "--metric", "loss:0.5:median"], "Unknown aggregate 'median'"),
    (["--k", "2", "--metric", "volume"], "Unknown metric 'volume'"),
    (["--k", "2", "--metric", "height:0.5"], "takes no parameters"),
    (["--k", "2", "--metric", "classification"], "class attribute"),
    (["--beta-likeness", "disease:fancy:1"], "use basic or enhanced"),
    (["--population-uniqueness", "0.01:dankar"], "X:ESTIMATOR:POPULATION"),
    (["--population-uniqueness", "0.01:guess:1000"], "Unknown estimator 'guess'"),
    (["--k", "2", "--weight", "age"], "ATTR=VALUE"),
    (["--k", "2", "--weight", "height=2"], "height"),
    (["--k", "2", "--weight", "age=nan"], "must be a positive number"),
    (["--k", "2", "--weight", "age=0"], "must be a positive number"),
    (["--k", "2", "--max-level", "age=x"], "is not a number"),
    (["--k", "2", "--type", "disease=integer"], "not all integer"),
    (["--k", "2", "--type", "age=colour"], "Unknown data type 'colour'"),
])
def test_bad_options_give_one_clear_line(small, capsys, options, message):
    code = main(["anonymize", "--data", str(small / "data.csv"), "--delimiter", ";",
                 "--hierarchy", f"age={small / 'age.csv'}", *options])
    assert code == 2
    assert message in capsys.readouterr().err


def test_help_documents_every_model(capsys):
    with pytest.raises(SystemExit):
        main(["anonymize", "-h"])
    text = capsys.readouterr().out
    for option in ("--delta-disclosure", "--beta-likeness", "--average-risk",
                   "--population-uniqueness", "--weight", "--min-level", "--max-level",
                   "--type", "loss:GS:AGGREGATE", "classification:CLASS_ATTR"):
        assert option in text


def test_report_has_tied_optima_and_completely_generalized_records(small):
    # Only one class of all 60 records holds; zip's level 1 already has one value (130*).
    report = run(small, "--k", "60")
    assert report["transformation"] == {"age": 2, "zip": 1}
    assert report["suppressed_records"] == 0
    assert report["completely_generalized_records"] == 60
    assert report["tied_optima"][0]["transformation"] == report["transformation"]
