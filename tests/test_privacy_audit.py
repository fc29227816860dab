"""Anonymize the Adult data under each sensitive-attribute model and audit the output.

No check here uses arxpy's own: the independent audit (tests/audit.py, which does not
import arxpy) or a plain pandas/scipy recomputation reads the released table,
grouped by the generalized quasi-identifiers. Where the audit's definitions differ from
ARX's, the comment at the check says how, and only the coinciding part is compared:
- The audit measures distributions against the table it is given. ARX measures them
  against the input data, so the models that compare with the global distribution
  (t-closeness, delta-disclosure, beta-likeness) run without suppression, where the
  released table and the input hold the same records.
- The audit's t_closeness is ARX's equal distance for string columns and ARX's ordered
  distance (ranks of the distinct values, normalized by m - 1) for numeric columns; it
  has no hierarchical distance, which is checked with a transportation LP instead.
- The audit's delta uses the natural logarithm, ARX's log2: delta_audit = delta * ln 2.
- The audit has no recursive (c,l)-diversity and no enhanced beta-likeness, so both are
  recomputed with pandas.
"""

from __future__ import annotations

import math

import audit as anonymity
import numpy as np
import pandas as pd
import pytest
from conftest import ADULT_DIR as ADULT
from scipy.optimize import linprog

from arxpy.data.definition import (
    AttributeDefinition,
    AttributeType,
    DataDefinition,
    DataKind,
    DataType,
)
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.io import read_hierarchy
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy.disclosure import DeltaDisclosure
from arxpy.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from arxpy.privacy.likeness import BasicBetaLikeness, EnhancedBetaLikeness
from arxpy.privacy.tcloseness import TCloseness

QIS = ["age", "sex", "race", "marital-status"]
# For ordered distance on the numeric age, age is the sensitive attribute instead.
QIS_AGE_SENSITIVE = ["sex", "race", "marital-status", "education"]

pytestmark = pytest.mark.skipif(not (ADULT / "adult.csv").exists(),
                                reason=f"Adult benchmark data not found at {ADULT}")


def adult_hierarchy(name: str) -> Hierarchy:
    return read_hierarchy(ADULT / f"adult_hierarchy_{name}.csv")


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)


def release(frame, qis, sensitive, model, suppression, data_type=None):
    """Anonymize; return the released (non-suppressed) rows and the optimum's classes."""
    released, classes, _ = release_with_model(frame, qis, sensitive, model, suppression,
                                              data_type)
    return released, classes


def release_with_model(frame, qis, sensitive, model, suppression, data_type=None):
    """As :func:`release`, plus the run's prepared copy of ``model`` (a run prepares
    clones, so ``model`` itself holds no global distribution)."""
    columns = [*qis, sensitive]
    frame = frame[columns]
    definition = DataDefinition(
        [AttributeDefinition(q, AttributeType.QUASI_IDENTIFYING) for q in qis]
        + [AttributeDefinition(sensitive, AttributeType.SENSITIVE, data_type or DataType())]
    )
    hierarchies = {name: adult_hierarchy(name) for name in columns}
    config = AnonymizationConfig([model], suppression_limit=suppression)
    result = anonymize(frame, definition, hierarchies, config)
    assert result.optimum is not None, f"no solution for {model.describe()}"
    output = result.release()
    assert output.anonymous
    released = output.table.loc[~output.suppressed].reset_index(drop=True)
    # Parameters are chosen so that the audit sees several classes, not just the top.
    assert output.statistics.n_classes >= 4
    assert len(released) >= (1 - suppression) * len(frame) - 1e-9
    classes, _ = result.classes_of(output.levels)
    return released, classes, result.config.privacy_models[0]


def class_counts(released: pd.DataFrame, qis: list[str], sensitive: str) -> pd.DataFrame:
    """(classes x values) counts of the sensitive attribute, recomputed from the table."""
    return released.groupby(qis)[sensitive].value_counts().unstack(fill_value=0)


# ---- l-diversity (class-local: suppression allowed) -----------------------------------


def test_distinct_l_diversity(adult) -> None:
    released, _ = release(adult, QIS, "occupation", DistinctLDiversity("occupation", 4), 0.05)
    assert anonymity.l_diversity(released, QIS, ["occupation"]) >= 4


def test_entropy_l_diversity(adult) -> None:
    released, _ = release(adult, QIS, "occupation", EntropyLDiversity("occupation", 4), 0.05)
    # exp(smallest class entropy), an exact float: a class exactly at ln 4 (four values
    # once each) gives exp(ln 4) = 3.9999999999999996, so this is "every class entropy
    # >= ln 4 - 1e-12".
    assert anonymity.entropy_l_diversity(released, QIS, ["occupation"]) >= 4 * math.exp(-1e-12)


def test_recursive_cl_diversity(adult) -> None:
    c, l = 3, 3  # noqa: E741
    released, _ = release(adult, QIS, "occupation", RecursiveCLDiversity("occupation", c, l),
                          0.05)
    assert anonymity.l_diversity(released, QIS, ["occupation"]) >= l
    for row in class_counts(released, QIS, "occupation").to_numpy():
        r = np.sort(row[row > 0])[::-1]
        assert r[0] < c * r[l - 1:].sum()


# ---- models relative to the global distribution (no suppression) ------------------------


def test_t_closeness_equal_distance_matches_the_independent_audit(adult) -> None:
    model = TCloseness("occupation", 0.4, "equal")
    released, classes, model = release_with_model(adult, QIS, "occupation", model, 0.0)
    t = anonymity.t_closeness(released, QIS, ["occupation"])  # string column: equal distance
    assert t <= 0.4
    assert model.emd(classes).max() == pytest.approx(t, abs=1e-12)


def test_t_closeness_ordered_distance_matches_the_independent_audit(adult) -> None:
    model = TCloseness("age", 0.1, "ordered")
    released, classes, model = release_with_model(adult, QIS_AGE_SENSITIVE, "age", model, 0.0,
                               DataType(DataKind.INTEGER))
    numeric = released.astype({"age": int})  # numeric column: the audit's ordered distance
    t = anonymity.t_closeness(numeric, QIS_AGE_SENSITIVE, ["age"])
    assert t <= 0.1
    assert model.emd(classes).max() == pytest.approx(t, abs=1e-12)


def lca_distance(hierarchy: Hierarchy, values: list[str]) -> np.ndarray:
    """Ground distance level(lowest common ancestor) / H between the given values."""
    rows = {r[0]: r for r in hierarchy.rows}
    height = hierarchy.height - 1
    d = np.zeros((len(values), len(values)))
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            d[i, j] = next(k for k in range(height + 1) if rows[a][k] == rows[b][k]) / height
    return d


def transport_emd(p: np.ndarray, q: np.ndarray, d: np.ndarray) -> float:
    n = len(p)
    equalities = np.vstack([np.kron(np.eye(n), np.ones(n)), np.kron(np.ones(n), np.eye(n))])
    result = linprog(d.ravel(), A_eq=equalities, b_eq=np.concatenate([p, q]),
                     bounds=(0, None), method="highs")
    return float(result.fun)


def test_t_closeness_hierarchical_distance_solves_the_transport_problem(adult) -> None:
    model = TCloseness("occupation", 0.3, "hierarchical")
    released, classes, model = release_with_model(adult, QIS, "occupation", model, 0.0)
    counts = class_counts(released, QIS, "occupation")
    q = counts.to_numpy().sum(axis=0) / counts.to_numpy().sum()
    d = lca_distance(adult_hierarchy("occupation"), [str(c) for c in counts.columns])
    emds = [transport_emd(row / row.sum(), q, d) for row in counts.to_numpy()]
    assert max(emds) <= 0.3 + 1e-9
    assert sorted(model.emd(classes)) == pytest.approx(sorted(emds), abs=1e-9)
    # The hierarchical ground distance never exceeds the equal one (the audit's, here).
    assert max(emds) <= anonymity.t_closeness(released, QIS, ["occupation"]) + 1e-12


def test_delta_disclosure_matches_the_independent_audit(adult) -> None:
    model = DeltaDisclosure("occupation", 3.0)
    released, classes, model = release_with_model(adult, QIS, "occupation", model, 0.0)
    delta_ln = anonymity.delta_disclosure(released, QIS, ["occupation"])  # natural log
    assert delta_ln < 3.0 * math.log(2)
    assert model.class_disclosure(classes).max() * math.log(2) == \
        pytest.approx(delta_ln, abs=1e-12)


def test_basic_beta_likeness_matches_the_independent_audit(adult) -> None:
    model = BasicBetaLikeness("occupation", 3.0)
    released, classes, model = release_with_model(adult, QIS, "occupation", model, 0.0)
    beta = anonymity.basic_beta_likeness(released, QIS, ["occupation"])
    assert beta <= 3.0
    assert model.class_gain(classes).max() == pytest.approx(beta, abs=1e-12)


def test_enhanced_beta_likeness(adult) -> None:
    model = EnhancedBetaLikeness("occupation", 3.0)
    released, _ = release(adult, QIS, "occupation", model, 0.0)
    counts = class_counts(released, QIS, "occupation").to_numpy()
    q = counts.sum(axis=0) / counts.sum()
    gain = (counts / counts.sum(axis=1, keepdims=True) - q) / q
    assert np.all(gain <= np.minimum(3.0, -np.log(q)) + 1e-12)
    # Basic beta-likeness with the same beta holds a fortiori.
    assert anonymity.basic_beta_likeness(released, QIS, ["occupation"]) <= 3.0
