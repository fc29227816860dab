"""Outputs: generalized labels, suppressed rows, removed identifiers, independent checks."""

from __future__ import annotations

import audit as anonymity
import numpy as np
import pandas as pd
import pytest

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.loss import Loss

AGE = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 60)])
ZIP = Hierarchy([[f"{z}", f"{z // 10}*", "*"] for z in range(100, 140)])


def data(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "name": [f"person{i}" for i in range(n)],
        "age": rng.integers(20, 60, n).astype(str),
        "zip": rng.integers(100, 140, n).astype(str),
        "diagnosis": rng.choice(["flu", "cold", "NA"], n),
    })


DEFINITION = DataDefinition([
    AttributeDefinition("name", AttributeType.IDENTIFYING),
    AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING),
    AttributeDefinition("zip", AttributeType.QUASI_IDENTIFYING),
    AttributeDefinition("diagnosis", AttributeType.INSENSITIVE),
])


def result(k=4, suppression=0.05, **kw):
    return anonymize(data(), DEFINITION, {"age": AGE, "zip": ZIP},
                     AnonymizationConfig([KAnonymity(k)], Loss(), suppression, **kw))


@pytest.mark.parametrize("k", [2, 3, 5, 10])
@pytest.mark.parametrize("suppression", [0.0, 0.05, 0.2])
def test_outputs_are_k_anonymous_by_the_independent_audit(k, suppression):
    res = result(k, suppression)
    for levels in [res.optimum.levels] + [t.levels for t in res.checked_transformations()
                                          if t.state == "anonymous"][:5]:
        out = res.release(levels)
        kept = out.table[~out.suppressed]
        assert anonymity.k_anonymity(kept, ["age", "zip"]) >= k
        assert out.suppressed.sum() <= suppression * len(out.table)


def test_output_format():
    frame = data()
    res = result(5, 0.1)
    out = res.release()
    age_level, zip_level = out.levels
    assert "name" not in out.table.columns
    assert list(out.table.columns) == ["age", "zip", "diagnosis"]
    assert (out.table["diagnosis"] == frame["diagnosis"]).all()  # untouched, same order
    assert list(out.table.index) == list(frame.index)
    kept = ~out.suppressed
    expected_age = frame["age"].map(AGE.mapping(age_level))
    assert (out.table["age"][kept] == expected_age[kept]).all()
    expected_zip = frame["zip"].map(ZIP.mapping(zip_level))
    assert (out.table["zip"][kept] == expected_zip[kept]).all()
    assert (out.table.loc[out.suppressed, ["age", "zip"]] == "*").all().all()
    stats = out.statistics
    assert stats.suppressed_records == int(out.suppressed.sum()) == res.optimum.suppressed_records
    assert stats.min_size >= 5
    assert stats.n_classes == out.table[kept].groupby(["age", "zip"]).ngroups
    assert stats.mean_size == pytest.approx(kept.sum() / stats.n_classes)


def test_suppressed_rows_can_be_removed():
    res = result(5, 0.1)
    marked = res.release((1, 0))  # fine enough that some classes are too small
    removed = res.release((1, 0)).export_table(remove_suppressed=True)
    assert marked.statistics.suppressed_records > 0
    assert len(removed) == len(marked.table) - marked.statistics.suppressed_records
    assert not (removed[["age", "zip"]] == "*").any().any()
    assert list(removed.index) == list(np.flatnonzero(~marked.suppressed))
    again = result(5, 0.1, remove_suppressed=True).release((1, 0)).export_table()
    assert len(again) == len(removed)
    assert marked.anonymous is False  # more than 10 % suppressed
    assert anonymity.k_anonymity(removed, ["age", "zip"]) >= 5


def test_outputs_are_cached_and_any_transformation_can_be_shown():
    res = result(5, 0.1)
    assert res.release() is res.release()
    top = res.release(res.lattice.top)
    assert (top.table[["age", "zip"]] == "*").all().all()
    assert res.release({"age": 0, "zip": 0}).levels == (0, 0)
    with pytest.raises(ConfigurationError, match="outside the lattice"):
        res.release((5, 0))


def test_report_and_states():
    res = result(5, 0.1)
    report = res.to_dict()
    assert report["quasi_identifiers"] == ["age", "zip"]
    assert report["transformation"] == dict(zip(["age", "zip"], res.optimum.levels, strict=True))
    assert report["privacy_models"] == [{"kind": "k-anonymity", "k": 5}]
    assert report["quality_model"]["name"] == "loss"
    assert report["records"] == 300
    states = {res.transformation(res.lattice.levels(i)).state for i in range(res.lattice_size)}
    assert states <= {"anonymous", "not anonymous", "not checked"}
    assert res.transformation(res.lattice.top).state == "anonymous"
    low, high = res.score_range
    assert low <= res.optimum.score <= high
