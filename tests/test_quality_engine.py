"""The engine's optimum under each quality model equals a brute-force minimum.

The brute force groups the records itself (tests/test_quality_models.py helpers) and
scores every anonymous transformation of the lattice with a fresh model instance.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from test_quality_models import AGE, DISEASE, SEX, ZIP, encode, group

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.aecs import AverageClassSize
from arxpy.quality.classification import Classification
from arxpy.quality.discernibility import Discernibility
from arxpy.quality.entropy import NonUniformEntropy
from arxpy.quality.height import Height
from arxpy.quality.kl import KLDivergence
from arxpy.quality.precision import Precision
from arxpy.quality.registry import quality_model_from_dict

HIERARCHIES = {"age": AGE, "sex": SEX, "zip": ZIP}
QI = list(HIERARCHIES)


def table(seed: int, n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    columns = {name: rng.choice([r[0] for r in rows], n) for name, rows in HIERARCHIES.items()}
    columns["disease"] = rng.choice(DISEASE, n)
    return pd.DataFrame(columns).astype(str)


def definition(weights: dict[str, float]) -> DataDefinition:
    qis = [AttributeDefinition(name, AttributeType.QUASI_IDENTIFYING, weight=weights.get(name, 1))
           for name in QI]
    return DataDefinition(qis + [AttributeDefinition("disease", AttributeType.INSENSITIVE)])


def brute_force(frame, weights, model, k, limit) -> tuple[float, set[tuple[int, ...]]]:
    """Minimum score over the anonymous transformations, and the transformations reaching it."""
    records = list(frame[QI].itertuples(index=False, name=None))
    data = encode(records, list(HIERARCHIES.values()), QI, [weights.get(q, 1) for q in QI],
                  {"disease": list(frame["disease"])})
    model.prepare(data)
    budget = int(np.floor(limit * len(frame) + 1e-9))
    scores = {}
    for levels in itertools.product(*(range(len(rows[0])) for rows in HIERARCHIES.values())):
        classes = group(data, levels)
        suppressed = classes.sizes < k
        if classes.sizes[suppressed].sum() <= budget:
            scores[levels] = model.score(classes, suppressed)
    best = min(scores.values())
    return best, {lv for lv, s in scores.items() if s <= best + 1e-9 * max(1, abs(best))}


MODELS = [Discernibility(), Discernibility(monotonic=True), AverageClassSize(),
          NonUniformEntropy(), NonUniformEntropy(gs_factor=0.3), Precision(),
          Precision(gs_factor=0.2), Height(), KLDivergence(), Classification("disease"),
          Classification("sex", suppressed_penalty=0.25)]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: str(m.to_dict()))
@pytest.mark.parametrize(("seed", "k", "limit", "weights"), [
    (0, 3, 0.0, {}),
    (1, 2, 0.1, {"age": 3.0}),
    (2, 4, 0.25, {"zip": 0.5, "sex": 2.0}),
])
def test_engine_optimum_is_the_brute_force_minimum(model, seed, k, limit, weights):
    frame = table(seed)
    hierarchies = {name: Hierarchy(rows) for name, rows in HIERARCHIES.items()}
    engine_model = quality_model_from_dict(model.to_dict())
    config = AnonymizationConfig([KAnonymity(k)], quality_model=engine_model,
                                 suppression_limit=limit, strategy="optimal")
    result = anonymize(frame, definition(weights), hierarchies, config)
    best, argmins = brute_force(frame, weights, model, k, limit)
    assert result.optimum is not None
    assert result.optimum.score == pytest.approx(best, rel=1e-9, abs=1e-12)
    assert result.optimum.levels in argmins
