"""Quality models on Adult against the values ARX's own test suite expects.

Reference values from arx-deidentifier/arx, src/test/org/deidentifier/arx/test/:
TestAnonymizationKAnonymity.java (monotonic entropy, ``Metric.createEntropyMetric(true)``)
and TestAnonymizationHeuristic.java (non-monotonic, ``createPrecomputedEntropyMetric(0.1)``)
with all nine Adult columns quasi-identifying and classes smaller than k suppressed;
TestAnonymizationOrderedDistanceTCloseness.java (DM*, ``createDiscernabilityMetric(true)``)
with every column but the sensitive "occupation" quasi-identifying.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import ADULT_DIR as ADULT
from conftest import ADULT_MISSING, load_adult

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.io import read_hierarchy
from arxpy.lattice.encoding import encode
from arxpy.lattice.grouping import Grouper
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.discernibility import Discernibility
from arxpy.quality.entropy import NonUniformEntropy

pytestmark = pytest.mark.skipif(not (ADULT / "adult.csv").exists(), reason=ADULT_MISSING)


def load(insensitive: tuple[str, ...] = ()):
    columns = pd.read_csv(ADULT / "adult.csv", sep=";", nrows=0).columns
    frame, definition, hierarchies = load_adult([c for c in columns if c not in insensitive])
    data = encode(frame, definition, hierarchies)
    return data, Grouper(data)


@pytest.fixture(scope="module")
def adult():
    return load()


@pytest.fixture(scope="module")
def adult_occupation_sensitive():
    return load(insensitive=("occupation",))


@pytest.mark.parametrize(("monotonic", "levels", "k", "expected"), [
    (True, (1, 0, 1, 1, 3, 2, 2, 0, 1), 5, 255559.85455731067),
    (True, (1, 1, 1, 1, 3, 2, 2, 1, 1), 100, 379417.3460570988),
    (True, (1, 2, 1, 1, 3, 2, 2, 1, 1), 5, 407289.5388925293),
    (True, (0, 4, 1, 1, 3, 2, 2, 1, 1), 100, 453196.8932458743),
    (False, (1, 1, 1, 1, 2, 2, 2, 2, 1), 100, 400196.319223464),
    (False, (0, 1, 1, 1, 2, 2, 2, 2, 0), 100, 377248.23689620313),
])
def test_entropy_matches_arx_reference(adult, monotonic, levels, k, expected):
    data, grouper = adult
    model = NonUniformEntropy(monotonic=monotonic)
    model.prepare(data)
    classes, _ = grouper.group_records(levels)
    suppressed = classes.sizes < k
    assert model.score(classes, suppressed) == pytest.approx(expected, rel=1e-12)
    assert model.lower_bounds_for_levels(np.array([levels]))[0] <= expected


@pytest.mark.parametrize(("levels", "expected"), [
    ((0, 0, 1, 1, 2, 2, 2, 0), 2712340.0),
    ((1, 0, 1, 2, 3, 2, 2, 1), 1.9937246e7),
    ((1, 4, 1, 1, 1, 2, 2, 1), 1.6231213e8),
])
def test_dm_star_matches_arx_reference(adult_occupation_sensitive, levels, expected):
    data, grouper = adult_occupation_sensitive
    model = Discernibility(monotonic=True)
    model.prepare(data)
    classes, _ = grouper.group_records(levels)
    assert model.score(classes, np.zeros(classes.n_classes, bool)) == expected


@pytest.mark.parametrize(("k", "limit", "levels", "expected"), [
    (5, 0.04, (1, 0, 1, 1, 3, 2, 2, 0, 1), 255559.85455731067),
    (100, 0.0, (0, 4, 1, 1, 3, 2, 2, 1, 1), 453196.8932458743),
])
def test_engine_finds_arx_optimum_for_monotonic_entropy(k, limit, levels, expected):
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    hierarchies = {c: read_hierarchy(ADULT / f"adult_hierarchy_{c}.csv") for c in frame.columns}
    definition = DataDefinition(AttributeDefinition(c, AttributeType.QUASI_IDENTIFYING)
                                for c in frame.columns)
    config = AnonymizationConfig([KAnonymity(k)], NonUniformEntropy(monotonic=True),
                                 suppression_limit=limit)
    optimum = anonymize(frame, definition, hierarchies, config).optimum
    assert optimum.levels == levels
    assert optimum.score == pytest.approx(expected, rel=1e-12)
