"""Loss against a hand computation of ARX's definition, its aggregates and its bound."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.encoding import encode
from arxpy.lattice.grouping import Grouper
from arxpy.quality.loss import AGGREGATES, Loss
from arxpy.quality.registry import quality_model_from_dict

# Five leaves for age (one, "50", absent from the data), two for sex.
AGE = Hierarchy([["20", "20-29", "*"], ["25", "20-29", "*"], ["30", "30-49", "*"],
                 ["45", "30-49", "*"], ["50", "50+", "*"]])
SEX = Hierarchy([["m", "*"], ["f", "*"]])
FRAME = pd.DataFrame({"age": ["20", "25", "25", "30", "45", "45"],
                      "sex": ["m", "m", "f", "f", "f", "f"]})


def setup(weights=(1.0, 1.0), model=None):
    definition = DataDefinition([
        AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING, weight=weights[0]),
        AttributeDefinition("sex", AttributeType.QUASI_IDENTIFYING, weight=weights[1])])
    data = encode(FRAME, definition, {"age": AGE, "sex": SEX})
    model = model or Loss()
    model.prepare(data)
    return data, Grouper(data), model


def by_hand(levels, suppressed_rows, gs=0.5):
    """Per-attribute loss straight from ARX's definition, record by record."""
    s = 2 * gs if gs < 0.5 else 1.0
    g = 1.0 if gs <= 0.5 else 1 - 2 * (gs - 0.5)
    n = len(FRAME)
    out = []
    for name, hierarchy, level in (("age", AGE, levels[0]), ("sex", SEX, levels[1])):
        column = [r[level] for r in hierarchy.rows]
        total = 0.0
        for i, value in enumerate(FRAME[name]):
            share = column.count(hierarchy.mapping(level)[value]) / len(hierarchy)
            total += (share + s * (1 - share)) if i in suppressed_rows else g * share
        low = g * n / len(hierarchy)
        out.append(max(0.0, math.floor((total - low) / (n - low) * 1e10) / 1e10))
    return out


@pytest.mark.parametrize("gs", [0.0, 0.25, 0.5, 0.75, 1.0])
@pytest.mark.parametrize("levels", list(itertools.product(range(3), range(2))))
def test_values_match_hand_computation(gs, levels):
    data, grouper, model = setup(model=Loss(gs_factor=gs))
    classes, inverse = grouper.group_records(levels)
    suppressed = classes.sizes < 2  # suppress the singletons
    rows = {i for i in range(len(FRAME)) if suppressed[inverse[i]]}
    # Floored to 10 decimals after sums in different orders: equal up to one step.
    assert model.values(classes, suppressed) == pytest.approx(by_hand(levels, rows, gs), abs=2e-10)


def test_known_values():
    data, grouper, model = setup()
    bottom, _ = grouper.group_records((0, 0))
    none = np.zeros(bottom.n_classes, dtype=bool)
    assert model.values(bottom, none) == [0.0, 0.0]
    assert model.score(bottom, none) == 0.0
    top, _ = grouper.group_records((2, 1))
    assert model.values(top, np.zeros(1, dtype=bool)) == [1.0, 1.0]
    assert model.score(top, np.zeros(1, dtype=bool)) == pytest.approx(1.0)
    # Everything suppressed at the bottom loses everything (gs-factor 0.5: s = 1).
    assert model.values(bottom, ~none) == [1.0, 1.0]
    # age at level 1: shares 2/5 (20-29, 3 records) and 2/5 (30-49, 3 records).
    middle, _ = grouper.group_records((1, 0))
    expected = (6 * 2 / 5 - 6 / 5) / (6 - 6 / 5)
    assert model.values(middle, np.zeros(middle.n_classes, bool))[0] == pytest.approx(expected)


@pytest.mark.parametrize("aggregate", AGGREGATES)
def test_aggregates(aggregate):
    data, grouper, model = setup(weights=(2.0, 1.0), model=Loss(aggregate=aggregate))
    classes, _ = grouper.group_records((1, 1))
    suppressed = np.zeros(classes.n_classes, dtype=bool)
    v = model.values(classes, suppressed)
    w = [1.0, 0.5]  # weights divided by the largest
    score, key = model.evaluate(classes, suppressed)
    expected = {
        "sum": v[0] * w[0] + v[1] * w[1],
        "max": max(v[0] * w[0], v[1] * w[1]),
        "arithmetic_mean": v[0] / 2 * w[0] + v[1] / 2 * w[1],
        "geometric_mean": math.sqrt(v[0] * w[0] + 1) * math.sqrt(v[1] * w[1] + 1) - 1,
        "rank": math.sqrt(v[0] + 1) * math.sqrt(v[1] + 1) - 1,
    }[aggregate]
    assert score == pytest.approx(expected)
    if aggregate == "rank":
        assert key == tuple(sorted([v[0] * w[0], v[1] * w[1]], reverse=True))
    else:
        assert key == (score,)


@pytest.mark.parametrize("aggregate", AGGREGATES)
@pytest.mark.parametrize("gs", [0.0, 0.5, 1.0])
def test_lower_bound_never_exceeds_scores_above(aggregate, gs):
    data, grouper, model = setup(weights=(1.0, 3.0), model=Loss(gs, aggregate))
    all_levels = list(itertools.product(range(3), range(2)))
    level_bounds = model.lower_bounds_for_levels(np.array(all_levels))
    rng = np.random.default_rng(0)
    for i, low in enumerate(all_levels):
        bound_key = model.lower_bound_key(grouper.group_records(low)[0])
        if level_bounds is not None:
            assert level_bounds[i] == pytest.approx(bound_key[0], abs=1e-12)
        for high in all_levels:
            if high[0] >= low[0] and high[1] >= low[1]:
                classes, _ = grouper.group_records(high)
                suppressed = rng.random(classes.n_classes) < 0.4
                _, key = model.evaluate(classes, suppressed)
                assert bound_key <= tuple(k + 1e-12 for k in key)


def test_parameters_and_round_trip():
    model = Loss(0.3, "rank")
    assert model.to_dict() == {"name": "loss", "gs_factor": 0.3, "aggregate": "rank"}
    again = quality_model_from_dict(model.to_dict())
    assert isinstance(again, Loss) and again.to_dict() == model.to_dict()
    assert (Loss.name, Loss.label) == ("loss", "Loss")
    with pytest.raises(ConfigurationError, match="gs_factor must be between 0 and 1"):
        Loss(1.5)
    with pytest.raises(ConfigurationError, match="aggregate"):
        Loss(aggregate="median")


@settings(max_examples=60, deadline=None)
@given(
    weights=st.tuples(*[st.floats(0.001, 100.0)] * 2),
    aggregate=st.sampled_from(AGGREGATES),
    gs=st.sampled_from([0.0, 0.3, 0.5, 0.8, 1.0]),
    levels=st.tuples(st.integers(0, 2), st.integers(0, 1)),
    seed=st.integers(0, 2**16),
)
def test_loss_is_never_negative(weights, aggregate, gs, levels, seed):
    # A weight far below the others once pushed the weighted geometric mean below 0.
    _, grouper, model = setup(weights=weights, model=Loss(gs, aggregate))
    classes, _ = grouper.group_records(levels)
    suppressed = np.random.default_rng(seed).random(classes.n_classes) < 0.3
    score, key = model.evaluate(classes, suppressed)
    assert score >= 0.0
    assert min(key) >= 0.0
    bound = model.lower_bounds_for_levels(np.array([levels]))
    assert bound is None or bound[0] >= 0.0


@pytest.mark.parametrize("gs", [0.0, 0.3, 0.5, 0.8, 1.0])
def test_histogram_rows_score_as_their_records(gs):
    # The same table once as records and once as distinct rows with counts: every
    # transformation and suppression scores bit for bit alike, and with nothing
    # suppressed the score is its level bound, also bit for bit (the search prunes with
    # the bound, so a bound an ulp above the score would skip the optimum).
    definition = DataDefinition([AttributeDefinition(c, AttributeType.QUASI_IDENTIFYING)
                                 for c in ("age", "sex")])
    counts = FRAME.value_counts(sort=False)
    histogram = counts.index.to_frame(index=False)
    models = []
    for frame, weights in ((FRAME, None), (histogram, counts.to_numpy())):
        data = encode(frame, definition, {"age": AGE, "sex": SEX}, weights=weights)
        model = Loss(gs_factor=gs)
        model.prepare(data)
        models.append((model, Grouper(data)))
    all_levels = list(itertools.product(range(3), range(2)))
    bounds = models[0][0].lower_bounds_for_levels(np.array(all_levels))
    for i, levels in enumerate(all_levels):
        scored = []
        for model, grouper in models:
            classes, _ = grouper.group_records(levels)
            order = np.lexsort(classes.keys.T)  # the two groupings may order classes apart
            classes = type(classes)(classes.levels, classes.keys[order], classes.sizes[order])
            suppressed = classes.sizes < 2
            scored.append((model.values(classes, suppressed),
                           model.evaluate(classes, np.zeros(classes.n_classes, bool))[0]))
        assert scored[0] == scored[1]
        assert scored[0][1] == bounds[i]
