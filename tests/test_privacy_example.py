"""Anonymize the bundled example and random tables; audit every output with the
independent audit (tests/audit.py).

The audit never uses arxpy's own checks. Suppressed rows (``*`` in every
quasi-identifier) are left out of the audit, as the released table's users would
treat them; t-closeness runs without suppression because the audit measures against
the table it is given while ARX measures against the input (see
tests/test_privacy_audit.py for the same reasoning on Adult).
"""

from __future__ import annotations

import math

import audit as anonymity
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.example import example_project
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)

SENSITIVE = "Length of stay"


@pytest.fixture(scope="module")
def example():
    project = example_project(records=5_000, seed=7)
    definition = project.definition.with_attribute(SENSITIVE, type=AttributeType.SENSITIVE)
    return project.data, definition, project.hierarchies


@pytest.fixture(scope="module")
def narrow(example):
    """The example with Hospital ID and County fixed at their top level: a lattice of
    1,080 transformations instead of 9,720, so the searches for models that are not
    monotonic with suppression (they check most of the lattice) stay short."""
    frame, definition, hierarchies = example
    for name in ("Hospital ID", "County"):
        top = hierarchies[name].height - 1
        definition = definition.with_attribute(name, min_level=top, max_level=top)
    return frame, definition, hierarchies


def release(example, models, suppression):
    frame, definition, hierarchies = example
    result = anonymize(frame, definition, hierarchies,
                       AnonymizationConfig(models, suppression_limit=suppression))
    assert result.optimum is not None
    output = result.release()
    released = output.table.loc[~output.suppressed].reset_index(drop=True)
    assert len(released) >= len(frame) * (1 - suppression) - 1e-9
    qis = definition.quasi_identifiers
    assert released[qis].drop_duplicates().shape[0] >= 2, "audit needs several classes"
    return released, qis


def test_k_anonymity(example):
    released, qis = release(example, [KAnonymity(5)], 0.02)
    assert anonymity.k_anonymity(released, qis) >= 5


def test_distinct_l_diversity(example):
    released, qis = release(example, [KAnonymity(2), DistinctLDiversity(SENSITIVE, 3)], 0.02)
    assert anonymity.l_diversity(released, qis, [SENSITIVE]) >= 3


def test_entropy_l_diversity(narrow):
    released, qis = release(narrow, [EntropyLDiversity(SENSITIVE, 3)], 0.02)
    # exp(smallest class entropy), an exact float: a class exactly at entropy ln 3 gives 3
    # up to rounding, so this is "every class entropy >= ln 3 - 1e-12".
    assert anonymity.entropy_l_diversity(released, qis, [SENSITIVE]) >= 3 * math.exp(-1e-12)


def test_recursive_cl_diversity(narrow):
    released, qis = release(narrow, [RecursiveCLDiversity(SENSITIVE, 3, 2)], 0.02)
    # Recomputed with pandas (the audit has no recursive (c,l)-diversity).
    counts = released.groupby(qis)[SENSITIVE].value_counts().rename("n").reset_index()
    for _, group in counts.groupby(qis):
        r = np.sort(group["n"].to_numpy())[::-1]
        assert len(r) >= 2 and r[0] < 3 * r[1:].sum()


@pytest.mark.parametrize("distance", ["equal", "ordered"])
def test_t_closeness(example, distance):
    frame, definition, hierarchies = example
    if distance == "ordered":
        definition = definition.with_attribute(SENSITIVE, data_type=DataType(DataKind.INTEGER))
        audited = frame.assign(**{SENSITIVE: frame[SENSITIVE].astype(int)})
    else:
        audited = frame
    released, qis = release((frame, definition, hierarchies),
                            [TCloseness(SENSITIVE, 0.3, distance)], 0.0)
    # The audit: equal distance for strings, ordered (rank) distance for numbers.
    released = released.assign(**{SENSITIVE: audited[SENSITIVE].to_numpy()})
    assert anonymity.t_closeness(released, qis, [SENSITIVE]) <= 0.3 + 1e-9


# --- Random tables: optimal = exhaustive, and every output passes the audit ------------

AGE = Hierarchy([[str(a), f"{a // 2 * 2}-{a // 2 * 2 + 1}", "*"] for a in range(8)])
ZIP = Hierarchy([[z, z[:2] + "*", "*"] for z in ("130", "131", "140", "141")])


def random_table(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(0, 8, n).astype(str),
        "zip": rng.choice(["130", "131", "140", "141"], n),
        "disease": rng.choice(["flu", "cold", "cancer", "asthma"], n, p=[.4, .3, .2, .1]),
    })


def random_definition() -> DataDefinition:
    definition = DataDefinition.for_columns(["age", "zip", "disease"])
    for name in ("age", "zip"):
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    return definition.with_attribute("disease", type=AttributeType.SENSITIVE)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(20, 120), l=st.integers(2, 3),
       suppression=st.sampled_from([0.0, 0.05, 0.2]))
def test_optimal_equals_exhaustive_under_l_diversity(seed, n, l, suppression):  # noqa: E741
    frame = random_table(seed, n)
    models = [KAnonymity(2), DistinctLDiversity("disease", l)]
    outcomes = {}
    for strategy in ("optimal", "exhaustive"):
        config = AnonymizationConfig(models, suppression_limit=suppression, strategy=strategy)
        outcomes[strategy] = anonymize(frame, random_definition(), {"age": AGE, "zip": ZIP},
                                       config)
    best = {s: r.optimum for s, r in outcomes.items()}
    if best["exhaustive"] is None:
        assert best["optimal"] is None
        return
    assert best["optimal"].score == pytest.approx(best["exhaustive"].score, rel=1e-12)
    output = outcomes["optimal"].release()
    released = output.table.loc[~output.suppressed].reset_index(drop=True)
    assert output.suppressed.sum() <= suppression * n + 1e-9
    if len(released):
        assert anonymity.k_anonymity(released, ["age", "zip"]) >= 2
        assert anonymity.l_diversity(released, ["age", "zip"], ["disease"]) >= l
