"""The search on a histogram of distinct rows gives the answers of the search on records.

A scalable engine's first pass reduces the records to distinct (quasi-identifier,
tracked) value combinations with counts (issue 17). Everything the search and the
models compute must then be the same: optimum, score, suppressed records and the state
of every checked transformation. The histogram here is built by pandas from a shuffled
copy of the records, independently of the engine's grouping.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import load_adult
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.backends import histogram_of_frame
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy

#: Configurations covering every privacy model the scalable engines serve and every
#: quality model; "S" is the sensitive attribute, "C" the class attribute.
CONFIGURATIONS = {
    "k-loss-0": {"privacy_models": [{"kind": "k-anonymity", "k": 3}],
                 "quality_model": {"name": "loss"}, "suppression_limit": 0.0},
    "k-loss-10": {"privacy_models": [{"kind": "k-anonymity", "k": 4}],
                  "quality_model": {"name": "loss"}, "suppression_limit": 0.1},
    "ldiv-dm": {"privacy_models": [{"kind": "k-anonymity", "k": 2},
                                   {"kind": "distinct-l-diversity", "attribute": "S", "l": 2}],
                "quality_model": {"name": "dm"}, "suppression_limit": 0.05},
    "entropy-l-kl": {"privacy_models": [{"kind": "entropy-l-diversity", "attribute": "S",
                                         "l": 1.5}],
                     "quality_model": {"name": "kl"}, "suppression_limit": 0.05},
    "recursive-entropy": {"privacy_models": [{"kind": "recursive-cl-diversity",
                                              "attribute": "S", "c": 3, "l": 2}],
                          "quality_model": {"name": "entropy"}, "suppression_limit": 0.05},
    "tcloseness-aecs": {"privacy_models": [{"kind": "k-anonymity", "k": 2},
                                           {"kind": "t-closeness", "attribute": "S",
                                            "t": 0.4, "distance": "equal"}],
                        "quality_model": {"name": "aecs"}, "suppression_limit": 0.05},
    "delta-precision": {"privacy_models": [{"kind": "delta-disclosure", "attribute": "S",
                                            "delta": 2.0}],
                        "quality_model": {"name": "precision"}, "suppression_limit": 0.05},
    "beta-height": {"privacy_models": [{"kind": "enhanced-beta-likeness", "attribute": "S",
                                        "beta": 2.0}],
                    "quality_model": {"name": "height"}, "suppression_limit": 0.05},
    "population-uniqueness-loss": {
        "privacy_models": [{"kind": "population-uniqueness", "threshold": 0.2,
                            "estimator": "zayatz", "population_size": 100000}],
        "quality_model": {"name": "loss"}, "suppression_limit": 0.05},
    "prosecutor-risk-loss": {"privacy_models": [{"kind": "prosecutor-risk", "threshold": 0.5}],
                             "quality_model": {"name": "loss"}, "suppression_limit": 0.0},
    "average-risk-classification": {
        "privacy_models": [{"kind": "average-risk", "threshold": 0.3}],
        "quality_model": {"name": "classification", "class_attribute": "C"},
        "suppression_limit": 0.05},
}

def _hierarchy(values: int, fanouts: list[int]) -> Hierarchy:
    """Values 0..values-1 grouped by ``fanouts`` per level, topped by '*'."""
    rows = []
    for v in range(values):
        row, group = [str(v)], v
        for level, fanout in enumerate(fanouts, 1):
            group //= fanout
            row.append(f"L{level}:{group}")
        rows.append(row + ["*"])
    return Hierarchy(rows)


def _random_table(seed: int, n: int, qis: int):
    rng = np.random.default_rng(seed)
    columns, hierarchies, attributes = {}, {}, []
    for q in range(qis):
        values = int(rng.integers(2, 9))
        # Skewed value frequencies give classes of every size.
        p = rng.dirichlet(np.full(values, 0.6))
        columns[f"Q{q}"] = rng.choice(values, size=n, p=p).astype(str)
        hierarchies[f"Q{q}"] = _hierarchy(values, [int(rng.integers(2, 4))])
        attributes.append(AttributeDefinition(f"Q{q}", AttributeType.QUASI_IDENTIFYING))
    columns["S"] = rng.choice(["a", "b", "c", "d"], size=n, p=[0.4, 0.3, 0.2, 0.1])
    columns["C"] = rng.choice(["yes", "no"], size=n)
    attributes += [AttributeDefinition("S", AttributeType.SENSITIVE),
                   AttributeDefinition("C", AttributeType.INSENSITIVE)]
    return pd.DataFrame(columns), DataDefinition(attributes), hierarchies


def _on_histogram(frame, definition, hierarchies, config, seed=0):
    """The same run on a histogram of a shuffled copy of the records."""
    tracked = [m.sensitive_attribute for m in config.privacy_models if m.sensitive_attribute]
    tracked += list(config.quality_model.tracked_attributes)
    columns = list(dict.fromkeys(definition.quasi_identifiers + tracked))
    shuffled = frame.sample(frac=1.0, random_state=seed)
    histogram = histogram_of_frame(shuffled, columns)
    assert histogram.n_records == len(frame)
    kept = DataDefinition(a for a in definition if a.name in columns)
    return anonymize(histogram.frame[columns], kept, hierarchies, config,
                     weights=histogram.counts)


def _assert_same_answers(records, histogram):
    assert histogram.records == records.records
    if records.optimum is None:
        assert histogram.optimum is None
        return
    assert histogram.optimum.levels == records.optimum.levels
    assert histogram.optimum.score == pytest.approx(records.optimum.score, rel=1e-12, abs=1e-12)
    assert histogram.optimum.suppressed_records == records.optimum.suppressed_records
    mine = histogram._outcome.checks  # every checked transformation agrees too
    theirs = records._outcome.checks
    assert mine.keys() == theirs.keys()
    for levels, check in theirs.items():
        assert mine[levels].anonymous == check.anonymous
        assert mine[levels].suppressed_records == check.suppressed_records
        assert mine[levels].score == pytest.approx(check.score, rel=1e-12, abs=1e-12,
                                                   nan_ok=True)  # not anonymous: no score


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 300), qis=st.integers(2, 4))
def test_histogram_search_gives_the_record_search_answers(name, seed, n, qis):
    frame, definition, hierarchies = _random_table(seed, n, qis)
    config = AnonymizationConfig.from_dict(CONFIGURATIONS[name])
    records = anonymize(frame, definition, hierarchies, config)
    _assert_same_answers(records, _on_histogram(frame, definition, hierarchies, config, seed))


@pytest.mark.parametrize("name", ["k-loss-10", "ldiv-dm", "entropy-l-kl",
                                  "average-risk-classification"])
def test_adult_histogram_search_gives_the_record_search_answers(adult_dir, name):
    qis = ["age", "sex", "race", "marital-status", "education"]
    frame, definition, hierarchies = load_adult(qis)
    definition = DataDefinition(
        AttributeDefinition(a.name, AttributeType.SENSITIVE) if a.name == "occupation"
        else a for a in definition)
    settings = dict(CONFIGURATIONS[name])
    text = repr(settings).replace("'S'", "'occupation'").replace("'C'", "'salary-class'")
    config = AnonymizationConfig.from_dict(eval(text))  # noqa: S307 - our own literal
    records = anonymize(frame, definition, hierarchies, config)
    histogram = _on_histogram(frame, definition, hierarchies, config)
    _assert_same_answers(records, histogram)


def test_a_histogram_result_refuses_to_make_a_record_release():
    frame, definition, hierarchies = _random_table(1, 200, 2)
    config = AnonymizationConfig.from_dict(CONFIGURATIONS["k-loss-10"])
    result = _on_histogram(frame, definition, hierarchies, config)
    with pytest.raises(ConfigurationError, match="histogram"):
        result.release()


@pytest.mark.parametrize("weights", [[1, -1], [1.5, 1], [1]])
def test_bad_weights_are_refused(weights):
    frame, definition, hierarchies = _random_table(2, 2, 1)
    config = AnonymizationConfig.from_dict(CONFIGURATIONS["k-loss-0"])
    with pytest.raises(ValueError, match="weights"):
        anonymize(frame, definition, hierarchies, config, weights=np.asarray(weights))
