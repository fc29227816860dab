"""Sample risks, risk distribution and grouping, on hand-computed tables and by property."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.errors import CancelledError, ConfigurationError, DefinitionError
from arxpy.jobs import CancelToken
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.privacy.risk_threshold import AverageRisk
from arxpy.risk import (
    ClassSizeHistogram,
    RiskLimits,
    group_records,
    record_risks,
    risk_distribution,
    risk_limits,
    sample_risks,
    sample_uniqueness,
)


def table_1_1_2_3_3_3() -> pd.DataFrame:
    """Classes of sizes 1, 1, 2, 3, 3, 3 over (sex, zip): 13 records, 6 classes."""
    rows = ([("F", "1")] + [("M", "1")] + [("F", "2")] * 2 + [("M", "2")] * 3
            + [("F", "3")] * 3 + [("M", "3")] * 3)
    return pd.DataFrame(rows, columns=["sex", "zip"]).assign(note="x")


def test_grouping_finds_the_classes():
    classes = group_records(table_1_1_2_3_3_3(), ["sex", "zip"])
    assert sorted(classes.class_sizes.tolist()) == [1, 1, 2, 3, 3, 3]
    histogram = classes.histogram
    assert histogram.sizes.tolist() == [1, 2, 3]
    assert histogram.counts.tolist() == [2, 1, 3]
    assert (histogram.n_records, histogram.n_classes) == (13, 6)
    assert classes.record_sizes().tolist()[:4] == [1, 1, 2, 2]


def test_hand_computed_prosecutor_journalist_marketer():
    histogram = group_records(table_1_1_2_3_3_3(), ["sex", "zip"]).histogram
    risks = sample_risks(histogram, threshold=0.4)
    p = risks.prosecutor
    assert p.highest == 1.0
    assert p.records_at_highest == pytest.approx(2 / 13)
    assert p.average == pytest.approx(6 / 13)  # classes / records
    assert p.estimated == 1.0  # no privacy model guarantees anything
    assert p.records_above_threshold == pytest.approx(4 / 13)  # risks 1, 1, 1/2, 1/2 > 0.4
    assert risks.journalist == p  # no population table: journalist = prosecutor (ARX)
    assert risks.marketer_average == pytest.approx(6 / 13)
    assert risks.lowest == pytest.approx(1 / 3)
    assert risks.records_at_lowest == pytest.approx(9 / 13)
    assert sample_uniqueness(histogram) == pytest.approx(2 / 13)
    # "Above" is strict, as in ARX: risk 1/2 is not above 0.5.
    assert sample_risks(histogram, threshold=0.5).prosecutor.records_above_threshold == \
        pytest.approx(2 / 13)
    assert sample_risks(histogram, threshold=0.0).prosecutor.records_above_threshold == 1.0


def test_estimated_risks_are_capped_by_the_models_of_an_anonymous_output():
    histogram = ClassSizeHistogram.from_class_sizes(np.array([2, 2, 4]))
    from arxpy.engine.apply import claims_of
    from arxpy.engine.config import AnonymizationConfig

    claims = claims_of(AnonymizationConfig([KAnonymity(3), AverageRisk(0.1)]), ["sex"])
    limits = risk_limits(claims)
    assert limits == RiskLimits(1 / 3, 1 / 3, 0.1)
    risks = sample_risks(histogram, 0.2, limits)
    assert risks.prosecutor.highest == 0.5
    assert risks.prosecutor.estimated == pytest.approx(1 / 3)
    assert risks.marketer_average == pytest.approx(3 / 8)
    assert risks.marketer_estimated == pytest.approx(0.1)


def test_suppressed_records_are_left_out():
    frame = table_1_1_2_3_3_3()
    suppressed = np.zeros(len(frame), bool)
    suppressed[:2] = True  # the two uniques
    classes = group_records(frame, ["sex", "zip"], suppressed)
    assert classes.class_of[:2].tolist() == [-1, -1]
    risks = sample_risks(classes.histogram)
    assert risks.prosecutor.highest == 0.5
    assert risks.prosecutor.average == pytest.approx(4 / 11)
    risk = record_risks(classes)
    assert np.isnan(risk[:2]).all() and risk[2] == 0.5 and risk[-1] == pytest.approx(1 / 3)


def test_empty_sample_has_zero_risks():
    risks = sample_risks(ClassSizeHistogram.from_class_sizes(np.array([], np.int64)))
    assert risks.prosecutor.highest == 0.0 and risks.marketer_average == 0.0
    assert risk_distribution(ClassSizeHistogram.from_class_sizes(np.zeros(0))).fraction.sum() == 0


def test_risk_distribution_uses_arx_bins():
    histogram = ClassSizeHistogram.from_class_sizes(np.array([1, 1, 2, 3, 3, 3]))
    dist = risk_distribution(histogram)
    by_upper = dict(zip(dist.upper.tolist(), dist.fraction.tolist(), strict=True))
    assert by_upper[1.0] == pytest.approx(2 / 13)
    assert by_upper[0.5] == pytest.approx(2 / 13)  # upper bounds are inclusive
    assert by_upper[0.334] == pytest.approx(9 / 13)  # 1/3 falls in (0.25, 0.334]
    assert dist.cumulative[-1] == pytest.approx(1.0)
    assert dist.lower[0] == 0.0 and dist.upper.size == 24


def test_bad_threshold_and_unknown_attribute():
    histogram = ClassSizeHistogram.from_class_sizes(np.array([1]))
    with pytest.raises(ConfigurationError, match=r"\[0, 1\]"):
        sample_risks(histogram, threshold=1.5)
    with pytest.raises(DefinitionError, match="'nope'"):
        group_records(table_1_1_2_3_3_3(), ["sex", "nope"])


def test_grouping_stops_on_cancel():
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        group_records(table_1_1_2_3_3_3(), ["sex", "zip"], cancel=token)


def test_grouping_many_wide_columns_does_not_overflow():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({f"c{i}": rng.integers(0, 5000, 3000).astype(str) for i in range(8)})
    classes = group_records(frame, list(frame.columns))
    expected = frame.groupby(list(frame.columns)).size().sort_values().to_numpy()
    assert np.sort(classes.class_sizes).tolist() == expected.tolist()


frames = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 6), st.integers(0, 3)),
                  min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(frames, st.floats(0, 1))
def test_risks_lie_in_unit_interval(rows, threshold):
    frame = pd.DataFrame(rows, columns=["a", "b", "c"]).astype(str)
    histogram = group_records(frame, ["a", "b", "c"]).histogram
    risks = sample_risks(histogram, threshold)
    values = [*risks.prosecutor.to_dict().values(), *risks.journalist.to_dict().values(),
              risks.marketer_average, risks.marketer_estimated, risks.lowest,
              risks.records_at_lowest, sample_uniqueness(histogram)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert risks.lowest <= risks.prosecutor.average <= risks.prosecutor.highest
    assert risk_distribution(histogram).fraction.sum() == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(frames, st.lists(st.integers(0, 2), min_size=7, max_size=7))
def test_generalizing_never_raises_the_highest_prosecutor_risk(rows, merge):
    frame = pd.DataFrame(rows, columns=["a", "b", "c"]).astype(str)
    # Generalize attribute b: values map onto coarser groups (a functional hierarchy level).
    general = frame.assign(b=frame["b"].map({str(v): f"g{merge[v]}" for v in range(7)}))
    before = sample_risks(group_records(frame, ["a", "b", "c"]).histogram)
    after = sample_risks(group_records(general, ["a", "b", "c"]).histogram)
    assert after.prosecutor.highest <= before.prosecutor.highest
    assert after.prosecutor.average <= before.prosecutor.average
