"""Search strategies: optimal agrees with exhaustive; Lightning claims optimality only when
nothing was left to expand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.loss import AGGREGATES, Loss

AGE = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "<50" if a < 50 else ">=50", "*"]
                 for a in range(20, 80)])
ZIP = Hierarchy([[f"{z}", f"{z // 10}*", f"{z // 100}**", "*"] for z in range(1000, 1040)])
SEX = Hierarchy([["m", "*"], ["f", "*"], ["x", "*"]])
HIERARCHIES = {"age": AGE, "zip": ZIP, "sex": SEX}


def table(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(20, 80, n).astype(str),
        "zip": rng.integers(1000, 1040, n).astype(str),
        "sex": rng.choice(["m", "f", "x"], n, p=[0.5, 0.45, 0.05]),
        "disease": rng.choice(["flu", "cold"], n),
    }).astype(str)


def definition() -> DataDefinition:
    return DataDefinition([
        AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("zip", AttributeType.QUASI_IDENTIFYING, weight=2.0),
        AttributeDefinition("sex", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("disease", AttributeType.SENSITIVE),
    ])


def run(frame, k, suppression, strategy, aggregate="geometric_mean", gs=0.5):
    config = AnonymizationConfig([KAnonymity(k)], Loss(gs, aggregate), suppression, strategy)
    return anonymize(frame, definition(), HIERARCHIES, config)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(6, 300),
    k=st.integers(1, 6),
    suppression=st.sampled_from([0.0, 0.02, 0.1, 0.3]),
    aggregate=st.sampled_from(AGGREGATES),
    gs=st.sampled_from([0.0, 0.3, 0.5, 0.8, 1.0]),
)
def test_optimal_matches_exhaustive(seed, n, k, suppression, aggregate, gs):
    frame = table(seed, n)
    optimal = run(frame, k, suppression, "optimal", aggregate, gs)
    exhaustive = run(frame, k, suppression, "exhaustive", aggregate, gs)
    assert exhaustive.transformations_checked == exhaustive.lattice_size
    if exhaustive.optimum is None:
        assert optimal.optimum is None
        return
    assert optimal.optimum.score == pytest.approx(exhaustive.optimum.score, rel=1e-12, abs=1e-15)
    assert optimal.optimum.levels == exhaustive.optimum.levels
    # Every state the optimal search claims agrees with the exhaustive truth.
    for levels in np.ndindex(*optimal.lattice.widths):
        claimed = optimal.transformation(levels).state
        if claimed != "not checked":
            assert claimed == exhaustive.transformation(levels).state


def test_optimal_checks_fewer_than_lattice():
    frame = table(1, 400)
    optimal = run(frame, 5, 0.05, "optimal")
    assert optimal.transformations_checked < optimal.lattice_size
    assert optimal.optimal


def test_lightning_finds_the_optimum_when_nothing_is_left_to_expand():
    frame = table(7, 300)
    result = anonymize(frame, definition(), HIERARCHIES, AnonymizationConfig(
        [KAnonymity(4)], Loss(), 0.05, "lightning", time_limit=30.0))
    exact = run(frame, 4, 0.05, "optimal")
    assert result.optimal  # the queue ran dry: every transformation that could win was seen
    assert result.optimum.score == pytest.approx(exact.optimum.score, abs=1e-12)


def test_lightning_out_of_time_is_anonymous_and_never_claims_optimal():
    frame = table(7, 300)
    result = anonymize(frame, definition(), HIERARCHIES, AnonymizationConfig(
        [KAnonymity(4)], Loss(), 0.05, "heuristic", time_limit=1e-6))  # the former name
    exact = run(frame, 4, 0.05, "optimal")
    assert result.optimal is False
    assert result.optimum.state == "anonymous"
    assert result.optimum.score >= exact.optimum.score - 1e-12


def test_states_are_monotone_for_k_anonymity():
    result = run(table(3, 200), 3, 0.0, "exhaustive")
    lattice = result.lattice
    for index in range(lattice.size):
        levels = lattice.levels(index)
        if result.transformation(levels).state == "anonymous":
            for successor in lattice.successors(levels):
                assert result.transformation(successor).state == "anonymous"


def test_only_anonymous_transformations_are_scored_except_by_the_heuristic():
    # As ARX's NodeChecker: a check that is not anonymous gets no score (NaN; None in its
    # state), and the score of an anonymous one is the quality model's, to the last bit.
    frame = table(5, 250)
    result = run(frame, 4, 0.02, "exhaustive")
    model = result.config.quality_model
    states = [result.transformation(levels) for levels in result._outcome.checks]
    assert {s.state for s in states} == {"anonymous", "not anonymous"}
    for state in states:
        if state.state == "not anonymous":
            assert state.score is None and state.relative_score is None
            assert np.isnan(result._outcome.checks[state.levels].score)
        else:
            classes, kept = result.classes_of(state.levels)
            assert state.score == model.score(classes, ~kept)
    heuristic = anonymize(frame, definition(), HIERARCHIES, AnonymizationConfig(
        [KAnonymity(4)], Loss(), 0.02, "heuristic", time_limit=2.0))
    # Its expansion is ordered by the scores of transformations that are not anonymous.
    assert all(np.isfinite(c.score) for c in heuristic._outcome.checks.values())
    assert any(not c.anonymous for c in heuristic._outcome.checks.values())
