"""What the condensation result views show, computed without Qt
(arxpy.analysis.condensation_report), checked against independent recounts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.analysis.condensation_report import (
    input_order,
    metric_summary,
    preservation_by_method,
    released_mask,
    released_statistics,
    survival_comparison,
)
from arxpy.analysis.model_preservation import ModelSpec
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.errors import CancelledError, ConfigurationError
from arxpy.jobs import CancelToken
from arxpy.methods import method_from_dict
from arxpy.methods.condensation.devdata import cancer_registry

COX = ModelSpec("cox", "cox", ("DiagAge", "Stage"), time="SurvInterval", event="VitalStat",
                event_value="0")
LINEAR = ModelSpec("linear", "ols", ("Stage", "Gender"), response="SurvInterval",
                   filter={"column": "VitalStat", "equals": "0"})


def _definition(frame):
    return DataDefinition(AttributeDefinition(c, AttributeType.QUASI_IDENTIFYING)
                          for c in frame.columns)


@pytest.fixture(scope="module")
def registry():
    return cancer_registry(400, seed=2)


def _run(data, name="improved-condensation", **params):
    base = {"k": 20, "seed": 5}
    if name == "improved-condensation":
        base.update(time="SurvInterval", status="VitalStat", event_value="0")
    method = method_from_dict({"name": name, **base, **params})
    return method, method.run(data, _definition(data))


def test_input_order_puts_each_row_in_its_records_slot(registry):
    _, release = _run(registry)
    assert release.order is not None and not np.array_equal(release.order,
                                                            np.arange(len(registry)))
    table = input_order(release)
    # Improved condensation keeps each record's status: in input order it must match.
    assert (table["VitalStat"].to_numpy() == registry["VitalStat"].to_numpy()).all()
    # A shuffled table compared by position would not.
    assert not (release.table["VitalStat"].to_numpy() ==
                registry["VitalStat"].to_numpy()).all()


def test_survival_curves_coincide_for_improved_and_match_a_recount(registry):
    _, release = _run(registry)
    comparison = survival_comparison(registry, input_order(release), "SurvInterval",
                                     "VitalStat", "0")
    assert comparison.max_difference == 0.0
    # Independent product-limit recount on the original at its first event time.
    times = pd.to_numeric(registry["SurvInterval"]).to_numpy()
    died = registry["VitalStat"].to_numpy() == "0"
    t0 = np.sort(np.unique(times[died]))[0]
    expected = 1 - died[times == t0].sum() / (times >= t0).sum()
    curve = comparison.original.set_index("time")["survival"]
    assert curve.loc[t0] == pytest.approx(expected)


def test_survival_curves_differ_for_mdav_and_leave_suppressed_rows_out(registry):
    _, release = _run(registry, "mdav")
    comparison = survival_comparison(registry, input_order(release), "SurvInterval",
                                     "VitalStat", "0")
    assert comparison.max_difference > 0  # group means change times and status

    anonymized = input_order(_run(registry)[1]).copy()
    anonymized.loc[:9, :] = "*"
    partial = survival_comparison(registry, anonymized, "SurvInterval", "VitalStat", "0")
    assert partial.anonymized_records == len(registry) - 10


def test_survival_curves_refuse_a_non_numeric_time(registry):
    with pytest.raises(ConfigurationError, match="must be numeric"):
        survival_comparison(registry, registry, "Stage", "VitalStat", "0")


def test_released_statistics_leave_suppressed_records_out_of_both_sides():
    data = cancer_registry(300, seed=4)
    # Force a status subset below k: with 'suppress' its records are marked suppressed.
    data.loc[5:, "VitalStat"] = "0"
    data.loc[:4, "VitalStat"] = "1"
    _, release = _run(data, k=10, small_subset="suppress")
    kept = released_mask(release)
    assert kept.sum() == len(data) - 5
    statistics, privacy = released_statistics(data, release)
    mean_age = statistics.query("attribute == 'DiagAge' and statistic == 'mean'")
    expected = pd.to_numeric(data["DiagAge"])[kept].mean()
    assert mean_age["original"].iloc[0] == pytest.approx(expected)
    assert not statistics["statistic"].str.contains(r"\*").any()
    assert set(privacy) >= {"DiagAge"}


def test_preservation_repeats_each_method_with_consecutive_seeds(registry):
    method, _ = _run(registry)
    seeds = []

    def anonymize(seed):
        seeds.append(seed)
        release = type(method)(**{**method.get_params(), "seed": seed}).run(
            registry, _definition(registry))
        return input_order(release)

    results = preservation_by_method(registry, {"improved": anonymize}, [COX, LINEAR],
                                     repeats=3, seed=10)
    assert seeds == [10, 11, 12]
    model = results["improved"].models[0]
    assert len(model.fits) == 3
    summary = metric_summary(results)
    assert set(summary["metric"]) == {"pct_sig_changed", "pct_dir_changed", "pct_outside_ci"}
    assert (summary["repetitions"] == 3).all()


def test_preservation_refuses_a_bad_analysis_before_anonymizing(registry):
    calls = []
    bad = ModelSpec("bad", "ols", ("Stage",), response="Nope")
    with pytest.raises(ConfigurationError, match="Nope"):
        preservation_by_method(registry, {"m": lambda s: calls.append(s) or registry},
                               [bad], repeats=2, seed=0)
    assert calls == []


def test_preservation_stops_when_cancelled(registry):
    token = CancelToken()
    calls = []

    def anonymize(seed):
        calls.append(seed)
        token.cancel()
        return registry

    with pytest.raises(CancelledError):
        preservation_by_method(registry, {"m": anonymize}, [COX], repeats=5, seed=0,
                               cancel=token)
    assert calls == [0]
