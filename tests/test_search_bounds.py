"""Classes-based lower bounds prune the optimal search without changing its answer.

Discernibility (DM* = sum of squared class sizes) and AECS (n / classes) bound every
generalization of a checked transformation, as in ARX's MetricSDNMDiscernability and
MetricSDAECS. The optimal search keeps checked transformations as pruning candidates
and prunes their up-sets once the best score is below their bound (ARX's
potentiallyInsufficientUtility). The exhaustive strategy is the reference.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_search import HIERARCHIES, definition, table

from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.aecs import AverageClassSize
from arxpy.quality.classification import Classification
from arxpy.quality.discernibility import Discernibility

MODELS = [Discernibility(), Discernibility(monotonic=True), AverageClassSize(),
          AverageClassSize(gs_factor=0.2), AverageClassSize(gs_factor=0.9)]


def run(frame, model, k, suppression, strategy):
    config = AnonymizationConfig([KAnonymity(k)], model.clone(), suppression, strategy)
    return anonymize(frame, definition(), HIERARCHIES, config)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(10, 300),
    k=st.integers(1, 8),
    suppression=st.sampled_from([0.0, 0.02, 0.1, 0.3]),
    model=st.sampled_from(MODELS),
)
def test_bound_pruning_keeps_the_optimum(seed, n, k, suppression, model):
    frame = table(seed, n)
    exhaustive = run(frame, model, k, suppression, "exhaustive")
    optimal = run(frame, model, k, suppression, "optimal")
    assert exhaustive.optimum is not None and optimal.optimum is not None
    assert optimal.optimum.levels == exhaustive.optimum.levels
    assert optimal.optimum.score == pytest.approx(exhaustive.optimum.score, rel=1e-12)


def test_pruned_transformations_cannot_beat_the_optimum():
    frame = table(4, 300)
    model = Discernibility()
    optimal = run(frame, model, 4, 0.05, "optimal")
    exhaustive = run(frame, model, 4, 0.05, "exhaustive")
    assert optimal.notes["pruned_by_bound"] > 0  # the bounds did prune here
    best = optimal.optimum.score
    for index in range(optimal.lattice.size):
        levels = optimal.lattice.levels(index)
        if not optimal.transformation(levels).checked:
            truth = exhaustive.transformation(levels)
            # Unchecked: either not anonymous or no better than the optimum.
            assert truth.state != "anonymous" or truth.score >= best - 1e-9 * best
    assert np.isfinite(best)


CLASSIFIERS = [Classification("disease"), Classification("disease", 0.2, 1.0, 0.6),
               Classification("disease", 1.0, 0.3, 2.0),
               # The class attribute a quasi-identifier: bounded level by level.
               Classification("sex"), Classification("sex", 0.2, 1.0, 0.6),
               Classification("sex", 1.0, 0.3, 2.0), Classification("age"),
               Classification("age", 0.2, 1.0, 0.6)]


def within_budget(rng, sizes: np.ndarray, budget: int) -> np.ndarray:
    """A random set of classes to suppress, at most ``budget`` records in all."""
    suppressed = np.zeros(len(sizes), dtype=bool)
    used = 0
    for i in rng.permutation(len(sizes)):
        if used + sizes[i] <= budget and rng.random() < 0.7:
            suppressed[i] = True
            used += int(sizes[i])
    return suppressed


@pytest.mark.parametrize("model", CLASSIFIERS, ids=lambda m: str(m.get_params()))
def test_classification_bound_holds_above_whatever_is_suppressed(model):
    # Brute force over a small lattice: the bound of every transformation is at most the
    # score of every generalization of it, whatever classes are suppressed within the
    # suppression budget (only anonymous transformations, which keep to it, compete).
    rng = np.random.default_rng(8)
    frame = table(2, 120)
    result = run(frame, model, 1, 0.1, "exhaustive")
    lattice = result.lattice
    nodes = [lattice.levels(i) for i in range(lattice.size)]
    prepared = result.config.quality_model
    assert prepared.suppression_budget == 12
    for low in nodes:
        bound = prepared.lower_bound(result.classes_of(low)[0])
        assert bound is not None
        for high in nodes:
            if all(a <= b for a, b in zip(low, high, strict=True)):
                classes = result.classes_of(high)[0]
                for _ in range(3):
                    suppressed = within_budget(rng, classes.sizes, 12)
                    assert bound <= prepared.score(classes, suppressed) + 1e-12
                assert bound <= prepared.score(classes, np.zeros(classes.n_classes, bool)) \
                    + 1e-12


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(10, 300),
    k=st.integers(1, 8),
    suppression=st.sampled_from([0.0, 0.02, 0.1, 0.3]),
    model=st.sampled_from(CLASSIFIERS),
)
def test_classification_bound_keeps_the_optimum(seed, n, k, suppression, model):
    frame = table(seed, n)
    exhaustive = run(frame, model, k, suppression, "exhaustive")
    optimal = run(frame, model, k, suppression, "optimal")
    assert optimal.optimum.levels == exhaustive.optimum.levels
    assert optimal.optimum.score == pytest.approx(exhaustive.optimum.score, rel=1e-12)
