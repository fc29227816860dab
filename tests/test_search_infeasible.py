"""When no transformation is anonymous, the search says so after a handful of checks.

The top of the lattice generalizes every transformation, so a model that is monotonic
under the configured suppression and fails there fails everywhere (Flash settles this
by tagging the top's down-set). The exhaustive strategy, which checks every node, is
the reference for the answer; the optimal and heuristic strategies must agree with it
while checking a number of nodes that does not grow with the lattice.
"""

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
from arxpy.privacy.ldiversity import EntropyLDiversity, RecursiveCLDiversity
from arxpy.privacy.tcloseness import TCloseness
from arxpy.quality.loss import Loss

#: Codes 0..31 generalized by halving: five levels, the last with two values.
HALVING = Hierarchy([[str(v >> shift) for shift in range(5)] for v in range(32)])


def table(seed: int, n: int, n_qi: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    columns = {f"q{i}": rng.integers(0, 32, n).astype(str) for i in range(n_qi)}
    columns["disease"] = rng.choice(["flu", "cold", "cough", "asthma"], n, p=[.55, .25, .15, .05])
    return pd.DataFrame(columns)


def definition(n_qi: int, max_level: int | None) -> DataDefinition:
    qis = [AttributeDefinition(f"q{i}", AttributeType.QUASI_IDENTIFYING, max_level=max_level)
           for i in range(n_qi)]
    return DataDefinition(qis + [AttributeDefinition("disease", AttributeType.SENSITIVE)])


def run(frame, n_qi, max_level, models, suppression, strategy, time_limit=None):
    config = AnonymizationConfig(models, Loss(), suppression, strategy, time_limit=time_limit)
    hierarchies = {f"q{i}": HALVING for i in range(n_qi)}
    return anonymize(frame, definition(n_qi, max_level), hierarchies, config)


def test_infeasible_non_monotonic_configuration_checks_a_handful_of_nodes():
    # Six attributes capped at level 3 (4,096 transformations): even the top leaves
    # most of the 150 records in classes below 20, far beyond 2 % suppression. With
    # t-closeness under suppression the models together are not monotonic, yet
    # k-anonymity alone is, and it settles the whole lattice at the top.
    frame = table(5, 150, 6)
    models = [KAnonymity(20), TCloseness("disease", 0.3, "equal")]
    optimal = run(frame, 6, 3, models, 0.02, "optimal")
    assert optimal.lattice_size == 4096
    assert optimal.optimum is None
    assert optimal.transformations_checked <= 3
    heuristic = run(frame, 6, 3, models, 0.02, "heuristic", time_limit=60.0)
    assert heuristic.optimum is None
    assert heuristic.transformations_checked <= 3


def test_infeasible_answer_is_the_exhaustive_one():
    # A smaller lattice (625 transformations) that the exhaustive strategy can walk.
    frame = table(6, 120, 4)
    models = [KAnonymity(15), RecursiveCLDiversity("disease", 2.0, 2)]
    exhaustive = run(frame, 4, 3, models, 0.05, "exhaustive")
    assert exhaustive.transformations_checked == exhaustive.lattice_size
    assert exhaustive.optimum is None
    optimal = run(frame, 4, 3, models, 0.05, "optimal")
    assert optimal.optimum is None
    assert optimal.transformations_checked <= 3
    for index in range(optimal.lattice.size):
        levels = optimal.lattice.levels(index)
        assert optimal.transformation(levels).state == "not anonymous"
        assert exhaustive.transformation(levels).state == "not anonymous"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(20, 160),
    k=st.integers(2, 12),
    sensitive=st.sampled_from([TCloseness("disease", 0.1, "equal"),
                               TCloseness("disease", 0.2, "ordered"),
                               TCloseness("disease", 0.35, "equal"),
                               RecursiveCLDiversity("disease", 3.0, 2),
                               EntropyLDiversity("disease", 2.0)]),
    suppression=st.sampled_from([0.02, 0.1, 0.3]),
    max_level=st.sampled_from([2, 3, None]),
)
def test_binary_search_on_k_anonymity_keeps_the_optimum(
        seed, n, k, sensitive, suppression, max_level):
    # These models are not monotonic under suppression; the search runs Flash's binary
    # phase on k-anonymity alone and propagates only its failures downwards. Optimum and
    # every claimed state agree with the exhaustive run.
    frame = table(seed, n, 3)
    models = [KAnonymity(k), sensitive.clone()]
    exhaustive = run(frame, 3, max_level, models, suppression, "exhaustive")
    optimal = run(frame, 3, max_level, models, suppression, "optimal")
    if exhaustive.optimum is None:
        assert optimal.optimum is None
    else:
        assert optimal.optimum is not None
        assert optimal.optimum.levels == exhaustive.optimum.levels
        assert optimal.optimum.score == pytest.approx(exhaustive.optimum.score, rel=1e-12)
    for index in range(optimal.lattice.size):
        levels = optimal.lattice.levels(index)
        claimed = optimal.transformation(levels).state
        if claimed != "not checked":
            assert claimed == exhaustive.transformation(levels).state
