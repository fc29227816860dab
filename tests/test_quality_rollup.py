"""What quality models read from rolled-up classes equals what they compute from records.

KL divergence reads each class's share of the original tuples' weights from
``EquivalenceClasses.sums``, rolled up with the classes, instead of matching every
distinct original tuple to its class on every check; a classification model whose
class attribute is a quasi-identifier reads it from the class keys, so the search no
longer carries that attribute's distribution.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_quality_models import AGE, SEX, ZIP, encode, group, prepared

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.grouping import Grouper
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.classification import Classification
from arxpy.quality.kl import TUPLE_WEIGHT, KLDivergence

HIERARCHIES = [AGE, SEX, ZIP]
NAMES = ["age", "sex", "zip"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.floats(0.0, 0.5))
def test_kl_from_rolled_up_sums_equals_kl_from_records(seed, n, suppressed_share):
    rng = np.random.default_rng(seed)
    records = [tuple(rows[rng.integers(len(rows))][0] for rows in HIERARCHIES)
               for _ in range(n)]
    data = encode(records, HIERARCHIES, NAMES)
    kl = prepared(KLDivergence(), data)
    grouper = Grouper(data, (), kl.record_sums())
    bottom, _ = grouper.group_records((0, 0, 0))
    for levels in itertools.product(*(range(len(rows[0])) for rows in HIERARCHIES)):
        rolled = grouper.roll_up(bottom, levels)
        direct = group(data, levels)  # from the records, without sums: the old path
        assert TUPLE_WEIGHT in rolled.sums and not direct.sums
        # Both list classes in their own order: compare scores under the same suppression.
        order_rolled = np.lexsort(rolled.keys.T[::-1])
        order_direct = np.lexsort(direct.keys.T[::-1])
        assert np.array_equal(rolled.keys[order_rolled], direct.keys[order_direct])
        chosen = rng.random(rolled.n_classes) < suppressed_share
        suppressed_rolled = np.zeros(rolled.n_classes, bool)
        suppressed_rolled[order_rolled] = chosen
        suppressed_direct = np.zeros(direct.n_classes, bool)
        suppressed_direct[order_direct] = chosen
        assert kl.score(rolled, suppressed_rolled) == pytest.approx(
            kl.score(direct, suppressed_direct), rel=1e-12, abs=1e-12)


def test_kl_weights_sum_to_the_tuple_weights():
    records = [("20", "m", "81667")] * 3 + [("25", "f", "81668")] + [("30", "f", "81675")] * 2
    data = encode(records, HIERARCHIES, NAMES)
    kl = prepared(KLDivergence(), data)
    top, _ = Grouper(data, (), kl.record_sums()).group_records((2, 1, 3))
    # One class holding tuples of counts 3, 1 and 2: weights (9 + 1 + 4) / 6.
    assert top.sums[TUPLE_WEIGHT].tolist() == pytest.approx([14 / 6])


def test_classification_with_quasi_identifying_class_attribute_tracks_nothing_extra():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({
        "age": rng.choice([r[0] for r in AGE], 80), "sex": rng.choice(["m", "f"], 80),
        "zip": rng.choice([r[0] for r in ZIP], 80),
    })
    definition = DataDefinition(AttributeDefinition(c, AttributeType.QUASI_IDENTIFYING)
                                for c in frame.columns)
    hierarchies = {"age": Hierarchy(AGE), "sex": Hierarchy(SEX), "zip": Hierarchy(ZIP)}
    config = AnonymizationConfig([KAnonymity(3)], Classification("sex"), 0.05)
    result = anonymize(frame, definition, hierarchies, config)
    classes, _ = result.classes_of(result.optimum.levels)
    assert "sex" not in classes.distributions
    # Scoring under another classification model with a quasi-identifying class
    # attribute still works (it reads the class keys).
    score = result.score_under(result.optimum.levels, Classification("sex"))
    assert score == pytest.approx(result.optimum.score, rel=1e-12)
