"""What the interval-generalisation result views show, computed without Qt
(arxpy.analysis.interval_report), checked against independent recounts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.analysis.interval_report import (
    default_statistics,
    interval_summary,
    release_bounds,
    statistics_table,
    width_sweep,
)
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.errors import CancelledError, ConfigurationError
from arxpy.jobs import CancelToken
from arxpy.methods import method_from_dict


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    bp = np.rint(rng.normal(139.3, 32.9, n) / 5) * 5
    glu = np.rint(rng.normal(120, 30, n))
    return pd.DataFrame({"bp": bp.astype(int).astype(str), "glu": glu.astype(int).astype(str),
                         "sex": rng.choice(["F", "M"], n)}).astype(object)


def _release(data, k=4, statistic="mean:bp"):
    definition = DataDefinition(AttributeDefinition(c, AttributeType.QUASI_IDENTIFYING)
                                for c in data.columns)
    method = method_from_dict({"name": "intervals", "attributes": ["bp", "glu"], "k": k,
                               "statistic": statistic})
    return method, method.run(data, definition)


def test_bounds_contain_every_original_value_and_summary_recounts_boxes():
    data = _data()
    _, release = _release(data)
    bounds = release_bounds(release.table, ["bp", "glu"])
    for name, (lo, hi) in bounds.items():
        values = pd.to_numeric(data[name]).to_numpy(float)
        assert len(lo) == len(data)
        assert ((lo <= values) & (values <= hi)).all()
    summary = interval_summary(bounds, release.groups, 4)
    # Independent recount: records sharing one released box over both attributes.
    shared = release.table.groupby(["bp", "glu"]).size()
    assert summary.boxes == len(shared)
    assert summary.min_box_size == shared.min() >= 4
    assert sorted(summary.box_sizes) == sorted(shared.to_numpy())
    assert summary.leftovers == len(data) - 4 * len(shared)
    unchanged = (release.table["bp"].str.extract(r"\[(.*), (.*)\]")
                 .pipe(lambda t: (t[0] == t[1]).sum()))
    assert summary.unchanged["bp"] == unchanged
    assert summary.nesting["bp"] in (False, True)


def test_bounds_refuse_cells_that_are_not_intervals():
    with pytest.raises(ConfigurationError, match="expected '\\[lo, hi\\]'"):
        release_bounds(pd.DataFrame({"a": ["[1, 2]", "3"]}), ["a"])
    with pytest.raises(ConfigurationError, match="no attribute"):
        release_bounds(pd.DataFrame({"a": ["[1, 2]"]}), ["b"])


def test_statistics_table_holds_the_true_values_inside_their_ranges():
    data = _data()
    _, release = _release(data, k=5, statistic="variance:bp")
    bounds = release_bounds(release.table, ["bp", "glu"])
    original = {a: pd.to_numeric(data[a]).to_numpy(float) for a in ("bp", "glu")}
    table = statistics_table(bounds, default_statistics(["bp", "glu"]) + ",q:0.9,ci:0.95",
                             original).set_index("statistic")
    bp, glu = original["bp"], original["glu"]
    truths = {"mean(bp)": bp.mean(), "median(glu)": np.median(glu),
              "variance(bp)": bp.var(), "sd(glu)": glu.std(),
              "cov(bp,glu)": np.cov(bp, glu, ddof=0)[0, 1],
              "corr(bp,glu)": np.corrcoef(bp, glu)[0, 1],
              "q:0.9(bp)": np.quantile(bp, 0.9)}
    for key, true in truths.items():
        row = table.loc[key]
        assert row["true"] == pytest.approx(true), key
        assert row["lo"] - 1e-9 <= true <= row["hi"] + 1e-9, key
        assert bool(row["inside"])
        assert row["width"] == pytest.approx(row["hi"] - row["lo"])
    assert set(table["flag"]) <= {"exact", "outer"}
    assert table["inside"].all()


def test_statistics_table_without_original_has_no_true_values():
    data = _data(60)
    _, release = _release(data)
    bounds = release_bounds(release.table, ["bp", "glu"])
    table = statistics_table(bounds, "mean,ecdf", None)
    assert table["true"].isna().all()
    assert table["inside"].isna().all()
    assert "ecdf(bp)" in set(table["statistic"])


def test_width_sweep_builds_every_k_and_can_be_cancelled():
    data = _data(80)
    values = np.column_stack([pd.to_numeric(data[a]).to_numpy(float) for a in ("bp", "glu")])
    asked = []

    def boxes_for_k(k):  # a trivial box rule with widths growing in k
        asked.append(k)
        return values - k, values + k

    sweep = width_sweep(boxes_for_k, ["bp", "glu"], [2, 3, 5])
    assert asked == [2, 3, 5]
    mean_bp = sweep.query("statistic == 'mean' and attribute == 'bp'").set_index("k")["width"]
    assert mean_bp.to_dict() == pytest.approx({2: 4.0, 3: 6.0, 5: 10.0})
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        width_sweep(boxes_for_k, ["bp"], [2, 3], cancel=token)


def test_covariance_of_more_than_1023_free_coordinates_falls_back_to_outer():
    """2.0 ** free overflowed (OverflowError) on releases of a few thousand records."""
    from arxpy.analysis.interval_statistics import covariance

    rng = np.random.default_rng(1)
    x, y = rng.normal(size=1200), rng.normal(size=1200)
    result = covariance(x - 0.5, x + 0.5, y - 0.5, y + 0.5)
    assert result.flag == "outer"
    assert result.lo <= np.cov(x, y, ddof=0)[0, 1] <= result.hi


def test_width_limits_read_as_the_cli_writes_them():
    from arxpy.analysis.interval_report import parse_width_limits

    assert parse_width_limits("mean:bp=5, variance:bp=10,cov:bp, glu=3") == \
        {"mean:bp": 5.0, "variance:bp": 10.0, "cov:bp,glu": 3.0}
    assert parse_width_limits("") == {}
    for bad in ("mean:bp", "mean:bp=-1", "mean:bp=x"):
        with pytest.raises(ConfigurationError, match="width limit"):
            parse_width_limits(bad)


def test_largest_k_within_limits_agrees_with_the_methods_search():
    from arxpy.analysis.interval_report import largest_within
    from arxpy.analysis.interval_statistics import width_evaluator
    from arxpy.methods.interval_boxes import largest_feasible_k

    data = _data(90, seed=3)
    method, _ = _release(data, k=2)
    limits = {"mean:bp": 4.0, "variance:glu": 900.0}

    def boxes_for_k(k):
        boxes = type(method)(**{**method.get_params(), "k": k}).boxes(data)
        return boxes.record_lo(), boxes.record_hi()

    sweep = width_sweep(boxes_for_k, ["bp", "glu"], list(range(2, 13)), extra=list(limits))
    expected = largest_feasible_k(method, data, limits,
                                  width_evaluator(["bp", "glu"], limits), 12)
    assert largest_within(sweep, limits) == expected.best_k
    assert largest_within(sweep, {"mean:bp": 0.0}) is None
