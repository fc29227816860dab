"""Utility statistics on hand-checkable tables: input values and generalized outputs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from arxpy.analysis.generalized import read_numeric
from arxpy.analysis.statistics import (
    attribute_summary,
    class_size_distribution,
    entropy_loss,
    granularity_loss,
    numeric_summary,
    utility_statistics,
)
from arxpy.data.definition import (
    AttributeDefinition,
    AttributeType,
    DataDefinition,
    DataKind,
    DataType,
)
from arxpy.errors import CancelledError, ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken

INTEGER = DataType(DataKind.INTEGER)


def test_numeric_summary_of_plain_values():
    s = numeric_summary(pd.Series(["1", "2", "3", "4"]))
    # Linear interpolation: positions 0.75, 1.5, 2.25 of the sorted values.
    assert (s["q1"], s["median"], s["q3"]) == (1.75, 2.5, 3.25)
    assert (s["min"], s["max"], s["mean"]) == (1.0, 4.0, 2.5)
    assert s["sd"] == pytest.approx(math.sqrt(5 / 3))  # sample sd: divisor n - 1
    assert s["basis"] == "values" and s["mean_low"] == s["mean_high"] == 2.5


def test_numeric_summary_of_generalized_values_uses_midpoints_and_bounds():
    s = numeric_summary(pd.Series(["[0, 10[", "[10, 20[", "*", "25", "[10, 20["]))
    # Midpoints 5, 15, 15 and the plain 25; '*' carries no number.
    assert s["numeric_values"] == 4 and s["not_numeric"] == 1
    assert s["mean"] == pytest.approx(15.0)
    assert s["median"] == 15.0 and s["min"] == 5.0 and s["max"] == 25.0
    assert s["mean_low"] == pytest.approx((0 + 10 + 10 + 25) / 4)
    assert s["mean_high"] == pytest.approx((10 + 20 + 20 + 25) / 4)
    assert s["basis"] == "interval midpoints"


def test_labels_without_a_number_are_left_out():
    reading = read_numeric(["<10", ">=90", "7850*", "*", "NA", "]1, 3]", "[5, 1["])
    assert list(reading.numeric) == [False, False, False, False, False, True, False]
    assert reading.midpoint[5] == 2.0


def test_attribute_summary_counts_missing_and_mode():
    summary = attribute_summary(pd.Series(["3", "NA", "3", "5", ""]), DataKind.INTEGER)
    assert summary["count"] == 5 and summary["missing"] == 2 and summary["distinct"] == 4
    assert summary["mode"] == "3"
    assert summary["numeric_values"] == 3 and summary["mean"] == pytest.approx(11 / 3)
    text = attribute_summary(pd.Series(["b", "a", "a", "b"]), DataKind.STRING)
    assert text["mode"] == "a" and "mean" not in text  # tie: first in sorted order


def test_class_sizes():
    frame = pd.DataFrame({"a": ["x", "x", "y", "y", "y", "z"], "b": ["1"] * 6})
    table = class_size_distribution(frame, ["a", "b"])
    assert table.to_dict(orient="list") == {"size": [1, 2, 3], "classes": [1, 1, 1],
                                            "records": [1, 2, 3]}


def test_entropy_and_granularity_loss():
    original = pd.Series(["1", "2", "3", "4"])
    none = np.zeros(4, bool)
    assert entropy_loss(original, original, none) == 0.0
    assert entropy_loss(original, pd.Series(["*"] * 4), none) == 1.0
    assert entropy_loss(original, original, np.ones(4, bool)) == 1.0
    # Pairs merged: each record loses log2(2) = 1 bit of log2(4) = 2 bits.
    assert entropy_loss(original, pd.Series(["a", "a", "b", "b"]), none) == pytest.approx(0.5)
    hierarchy = Hierarchy([("1", "a", "*"), ("2", "a", "*"), ("3", "b", "*"), ("4", "b", "*")])
    assert granularity_loss(original, hierarchy, 0, none) == 0.0
    assert granularity_loss(original, hierarchy, 2, none) == 1.0
    # Share 2/4 per record: (1/2 - 1/4) / (1 - 1/4) = 1/3; a suppressed record costs 1.
    flags = np.array([True, False, False, False])
    assert granularity_loss(original, hierarchy, 1, flags) == pytest.approx((1 + 3 / 3) / 4)


def _table():
    frame = pd.DataFrame({"age": ["21", "25", "32", "38", "45", "NA"],
                          "sex": ["F", "M", "F", "F", "M", "M"]})
    definition = DataDefinition([
        AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING, INTEGER),
        AttributeDefinition("sex", AttributeType.INSENSITIVE)])
    hierarchy = Hierarchy([(a, f"[{int(a) // 10 * 10}, {int(a) // 10 * 10 + 10}[", "*")
                           for a in ("21", "25", "32", "38", "45")] + [("NA", "NA", "*")])
    output = frame.assign(age=["[20, 30[", "[20, 30[", "[30, 40[", "[30, 40[", "*", "NA"])
    suppressed = np.array([False, False, False, False, True, False])
    return frame, output, definition, {"age": hierarchy}, suppressed


def test_utility_statistics_input_versus_output():
    frame, output, definition, hierarchies, suppressed = _table()
    stats = utility_statistics(frame, output, definition, suppressed, hierarchies, {"age": 1})
    age_in, age_out = stats.input_summary.loc["age"], stats.output_summary.loc["age"]
    assert age_in["count"] == 6 and age_in["missing"] == 1
    assert age_in["mean"] == pytest.approx((21 + 25 + 32 + 38 + 45) / 5)
    assert age_out["count"] == 5  # the suppressed record is not published
    assert age_out["mean"] == pytest.approx((25 + 25 + 35 + 35) / 4)  # interval midpoints
    assert age_out["basis"] == "interval midpoints"
    assert ("output", "mean") in stats.summary().columns
    assert stats.frequencies("age").set_index("value")["count"].to_dict() == {
        "[20, 30[": 2, "[30, 40[": 2, "NA": 1}
    assert stats.frequencies("age", side="input")["count"].sum() == 6
    table = stats.contingency("age", "sex")
    assert table.loc["[20, 30[", "F"] == 1 and table.loc["[30, 40[", "F"] == 2
    assert stats.class_sizes.to_dict(orient="list") == {"size": [1, 2], "classes": [1, 2],
                                                        "records": [1, 4]}
    quality = stats.quality.loc["age"]
    assert quality["level"] == 1 and quality["generalization_intensity"] == 0.5
    assert quality["missing_share"] == pytest.approx(1 / 6)
    with pytest.raises(ConfigurationError, match="side"):
        stats.frequencies("age", side="both")


def test_utility_statistics_is_a_cancellable_job():
    frame, output, definition, hierarchies, suppressed = _table()
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        utility_statistics(frame, output, definition, suppressed, cancel=token)
    with pytest.raises(ConfigurationError, match="keep suppressed rows"):
        utility_statistics(frame, output.iloc[:3], definition)
