"""Microaggregation inside the generalization (issue 34): ARX's aggregates per class.

The aggregates are recomputed here from the input, grouped by the released values of the
other quasi-identifiers (the attacker's classes), and k is checked by ``tests/audit.py``;
the agreement with ARX itself is ``benchmarks/microaggregation_arx.py`` (docs/engine.md).
"""

from __future__ import annotations

import json
import math
import statistics

import audit
import numpy as np
import pandas as pd
import pytest
from cli_checks import one_error_line

from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.microaggregation import MicroAggregation, _bucket_order
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy.kanonymity import KAnonymity

REGIONS = ["A", "B", "C", "D"]
INTEGER = DataType(DataKind.INTEGER)


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({
        "sex": rng.choice(["F", "M"], 40),
        "region": rng.choice(REGIONS, 40),
        "age": [str(v) for v in rng.integers(20, 30, 40)],
    })
    definition = DataDefinition.for_columns(frame.columns)
    for name in frame.columns:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    definition = definition.with_attribute("age", data_type=INTEGER)
    hierarchies = {
        "sex": Hierarchy([["F", "*"], ["M", "*"]]),
        "region": Hierarchy([[r, "AB" if r in "AB" else "CD", "*"] for r in REGIONS]),
        "age": Hierarchy([[str(a), f"{a // 5 * 5}-{a // 5 * 5 + 4}", "*"]
                          for a in range(20, 30)]),
    }
    return frame, definition, hierarchies


def run(table, micro, k=3, suppression=0.1):
    frame, definition, hierarchies = table
    config = AnonymizationConfig([KAnonymity(k)], suppression_limit=suppression,
                                 microaggregation=micro)
    return anonymize(frame, definition, hierarchies, config).release()


def expected(function: str, ages: list[str], first_seen: list[str]) -> set[str]:
    """What ARX's function gives for one class (every answer it may give, for ties)."""
    x = [int(a) for a in ages]
    if function == "mean":
        return {str(math.floor(statistics.fmean(x) + 0.5))}
    if function == "geometric_mean":
        return {str(math.floor(statistics.geometric_mean([v + 1 for v in x]) - 1 + 0.5))}
    if function == "median":
        return {str(math.floor(statistics.median(x) + 0.5))}
    if function == "interval":
        return {f"[{min(x)}, {max(x)}]"}
    if function == "set":
        return {"{" + ", ".join(v for v in first_seen if v in ages) + "}"}
    top = max(ages.count(v) for v in ages)
    return {v for v in ages if ages.count(v) == top}  # mode: one of the most frequent


@pytest.mark.parametrize("function", ["mean", "geometric_mean", "median", "interval", "set",
                                      "mode", "mode_fallback"])
def test_released_aggregates_follow_the_function_per_class(table, function):
    frame = table[0]
    release = run(table, {"age": function})
    released = release.released()
    assert 0 < len(released) and release.suppressed.sum() <= 0.1 * len(frame)
    # Judged on the classes of the other quasi-identifiers; the aggregate adds no split.
    assert audit.k_anonymity(released, ["sex", "region"]) >= 3
    assert audit.k_anonymity(released, ["sex", "region", "age"]) >= 3
    first_seen = list(dict.fromkeys(frame["age"]))
    kept = frame.loc[~release.suppressed]
    for _, rows in released.groupby(["sex", "region"]):
        ages = kept.loc[rows.index, "age"].tolist()
        assert set(rows["age"]) <= expected(function, ages, first_seen)
        assert rows["age"].nunique() == 1
    assert (release.table.loc[release.suppressed, "age"] == "*").all()


# ARX's MetricMDNMLoss and MetricMDNMPrecision: a class's share is its distinct values over
# the domain's (5 here), summed over the records and divided by n: (3 * 2/5 + 3 * 3/5) / 6 =
# 0.5 beside sex's 0. Loss: geometric mean sqrt(1 * 1.5) - 1; precision: (0 + 0.5) / 2; the
# monotonic precision cannot handle microaggregation and leaves age out, as ARX's.
@pytest.mark.parametrize("quality, score", [
    ({"name": "loss"}, math.sqrt(1.5) - 1.0),
    ({"name": "precision"}, 0.25),
    ({"name": "precision", "monotonic": True}, 0.0),
])
def test_quality_models_count_an_aggregated_attribute_as_arx_does(quality, score):
    frame = pd.DataFrame({"sex": list("MMMFFF"), "age": ["30", "30", "40", "50", "60", "70"]})
    definition = DataDefinition.for_columns(frame.columns)
    for name in frame.columns:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    definition = definition.with_attribute("age", data_type=INTEGER)
    config = AnonymizationConfig.from_dict({
        "privacy_models": [{"kind": "k-anonymity", "k": 3}], "quality_model": quality,
        "microaggregation": {"age": "mean"}})
    result = anonymize(frame, definition, {"sex": Hierarchy([["M", "*"], ["F", "*"]])}, config)
    assert result.optimum.levels == (0,)
    assert result.optimum.score == pytest.approx(score, abs=1e-10)
    assert result.release().table["age"].tolist() == ["33"] * 3 + ["60"] * 3


def test_clustering_generalizes_the_attribute_and_releases_its_aggregate(table):
    release = run(table, {"age": "mean:cluster"}, k=4)
    assert "age" in release.transformation  # in the lattice, with its hierarchy
    released = release.released()
    assert audit.k_anonymity(released, ["sex", "region", "age"]) >= 4
    levels = release.transformation
    # Each class of the generalized values holds one mean, inside its generalized range.
    hierarchy = table[2]["age"]
    label = {row[0]: row[levels["age"]] for row in hierarchy.rows}
    kept = table[0].loc[~release.suppressed]
    for (_, _, _), rows in kept.assign(g=kept["age"].map(label)).groupby(
            [released["sex"], released["region"], "g"]):
        mean = math.floor(statistics.fmean(int(a) for a in rows["age"]) + 0.5)
        assert set(released.loc[rows.index, "age"]) == {str(mean)}


def test_settings_round_trip_and_older_settings_keep_meaning():
    old = {"privacy_models": [{"kind": "k-anonymity", "k": 2}]}
    assert AnonymizationConfig.from_dict(old).microaggregation == {}
    assert "microaggregation" not in AnonymizationConfig.from_dict(old).to_dict()
    config = AnonymizationConfig.from_dict(
        {**old, "microaggregation": {"age": "median:cluster", "bmi": {"function": "mean"}}})
    assert config.microaggregation == {"age": MicroAggregation("median", clustering=True),
                                       "bmi": MicroAggregation("mean")}
    assert AnonymizationConfig.from_dict(config.to_dict()).to_dict() == config.to_dict()


@pytest.mark.parametrize("micro, change, message", [
    ({"age": "avg"}, None, "Unknown microaggregation function 'avg'"),
    ({"age": {"function": "mean", "clustering": "no"}}, None, "clustering true or false"),
    ({"age": "mean"}, ("age", {"data_type": DataType()}), "needs numbers"),
    ({"sex": "median"}, None, "needs ordered values"),
    ({"age": "mean"}, ("age", {"type": AttributeType.INSENSITIVE}), "only a quasi-identifier"),
    ({"sex": "mode", "region": "set", "age": "mean"}, None, "nothing forms the classes"),
])
def test_settings_that_cannot_work_say_what_to_change(table, micro, change, message):
    frame, definition, hierarchies = table
    if change:
        definition = definition.with_attribute(change[0], **change[1])
    with pytest.raises(ConfigurationError, match=message):
        config = AnonymizationConfig([KAnonymity(2)], microaggregation=micro)
        anonymize(frame, definition, hierarchies, config)


def test_local_recoding_is_refused_with_microaggregation():
    with pytest.raises(ConfigurationError, match="Local recoding does not combine"):
        AnonymizationConfig([KAnonymity(2)], local_recoding=2,
                            microaggregation={"age": "mean"})


def test_bucket_order_is_arx_distribution_layout():
    # Codes 8 and 0 share bucket 0 of 8; after the 7th insertion ARX doubles to 16 buckets
    # and re-inserts in bucket order, so 8 moves behind 0..5.
    assert _bucket_order(np.array([5, 3])).tolist() == [1, 0]
    assert _bucket_order(np.array([9, 1])).tolist() == [0, 1]
    assert _bucket_order(np.array([8, 0, 1, 2, 3, 4, 5])).tolist() == [1, 2, 3, 4, 5, 6, 0]


def test_cli_microaggregates_and_reports_it(tmp_path, capsys):
    frame = pd.DataFrame({"zip": [f"13{i % 4}" for i in range(12)],
                          "age": [str(20 + i) for i in range(12)]})
    frame.to_csv(tmp_path / "data.csv", sep=";", index=False)
    (tmp_path / "zip.csv").write_text("".join(f"13{i};13*;*\n" for i in range(4)))
    code = main(["anonymize", "--data", str(tmp_path / "data.csv"), "--delimiter", ";",
                 "--hierarchy", f"zip={tmp_path / 'zip.csv'}", "--type", "age=integer",
                 "--microaggregate", "age=median", "--k", "3", "--keep-order",
                 "--output", str(tmp_path / "out.csv"), "--report", str(tmp_path / "r.json")])
    assert code == 0
    out = pd.read_csv(tmp_path / "out.csv", sep=";", dtype=str)
    # zip stays at level 0: classes 13i hold ages 20+i, 24+i, 28+i, median 24+i.
    assert out["age"].tolist() == [str(24 + i % 4) for i in range(12)]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["microaggregation"] == {"age": {"function": "median", "clustering": False}}
    assert report["quasi_identifiers"] == ["zip"]
    line = one_error_line(["anonymize", "--data", str(tmp_path / "data.csv"),
                           "--microaggregate", "age"], capsys)
    assert "--microaggregate 'age'" in line and "ATTR=FUNCTION" in line


def test_apply_by_name_reads_level_zero_of_an_aggregated_attribute_as_absent(table):
    # ``evaluate/risk --transformation`` name every declared quasi-identifier.
    from arxpy.engine import apply

    frame, definition, hierarchies = table
    config = AnonymizationConfig([KAnonymity(3)], suppression_limit=0.5,
                                 microaggregation={"age": "median"})
    release = apply(frame, definition, hierarchies, config, {"sex": 0, "region": 1, "age": 0})
    assert release.transformation == {"sex": 0, "region": 1}
    with pytest.raises(ConfigurationError, match="'age' is microaggregated"):
        apply(frame, definition, hierarchies, config, {"region": 1, "age": 1})
