"""The risk-based privacy models: prosecutor risk (k = ceil(1/x)) and population uniqueness."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.privacy.population_uniqueness import PopulationUniqueness
from arxpy.privacy.prosecutor_risk import ProsecutorRisk, smallest_class_size
from arxpy.privacy.registry import privacy_model_from_dict
from arxpy.risk import ClassSizeHistogram, PopulationModel, population_uniqueness


def classes(*sizes: int) -> EquivalenceClasses:
    sizes_array = np.array(sizes, dtype=np.int64)
    return EquivalenceClasses((0,), np.arange(len(sizes)).reshape(-1, 1), sizes_array)


@pytest.mark.parametrize(("x", "k"), [(1.0, 1), (0.5, 2), (1 / 3, 3), (0.33, 4), (0.2, 5),
                                      (0.1, 10), (0.07, 15), (0.001, 1000)])
def test_prosecutor_threshold_to_k(x, k):
    assert smallest_class_size(x) == k
    assert 1 / k <= x and (k == 1 or 1 / (k - 1) > x)


def test_prosecutor_risk_is_k_anonymity():
    model = ProsecutorRisk(0.2)
    assert model.satisfied(classes(1, 4, 5, 9)).tolist() == [False, False, True, True]
    assert model.monotonic_with_suppression and model.monotonic_without_suppression
    assert privacy_model_from_dict(model.to_dict()) == model
    assert "at most 0.2" in model.describe()
    with pytest.raises(ConfigurationError, match="above 0 and at most 1"):
        ProsecutorRisk(0.0)


def test_prosecutor_risk_in_the_engine_matches_k_anonymity():
    from arxpy.data.definition import AttributeType, DataDefinition
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.hierarchy.model import Hierarchy

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"age": rng.integers(20, 40, 300).astype(str),
                          "sex": rng.choice(["F", "M"], 300)})
    definition = DataDefinition.for_columns(frame.columns)
    for name in frame.columns:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    hierarchies = {
        "age": Hierarchy([[str(a), f"{a // 10 * 10}s", "*"] for a in range(20, 40)]),
        "sex": Hierarchy([["F", "*"], ["M", "*"]]),
    }
    by_risk = anonymize(frame, definition, hierarchies,
                        AnonymizationConfig([ProsecutorRisk(0.1)]))
    by_k = anonymize(frame, definition, hierarchies,
                     AnonymizationConfig([privacy_model_from_dict({"kind": "k-anonymity",
                                                                   "k": 10})]))
    assert by_risk.optimum.levels == by_k.optimum.levels
    output = by_risk.release()
    assert output.statistics.min_size >= 10


def test_population_uniqueness_model_judges_the_kept_classes():
    model = PopulationUniqueness(0.01, "zayatz", population_size=1000)
    sizes = classes(1, 1, 1, 2, 5, 10)
    kept = np.ones(6, bool)
    histogram = ClassSizeHistogram.from_class_sizes(sizes.sizes)
    expected = population_uniqueness(histogram, PopulationModel(1000)).zayatz
    assert model.dataset_satisfied(sizes, kept) == (0 < expected <= 0.01)
    assert not model.dataset_satisfied(sizes, kept)  # Zayatz: 2.5% of the population unique
    # Without the uniques nothing is unique: 0 is accepted only then.
    assert model.dataset_satisfied(sizes, np.array([False, False, False, True, True, True]))
    assert model.satisfied(sizes).all()
    assert model.monotonic_without_suppression and not model.monotonic_with_suppression
    assert not PopulationUniqueness(0.05, population_size=1000).monotonic_without_suppression


def test_population_uniqueness_enforce_suppresses_smallest_classes_within_budget():
    model = PopulationUniqueness(0.01, "zayatz", population_size=1000)
    sizes = classes(5, 1, 10, 1, 2, 1)
    kept = model.enforce(sizes, np.ones(6, bool), budget=3)
    # Two of the three uniques must go (stable order: the first two); one unique may stay.
    assert kept.tolist() == [True, False, True, False, True, True]
    assert model.dataset_satisfied(sizes, kept)
    assert not model.dataset_satisfied(sizes, np.array([True, False, True, True, True, True]))
    # Over the budget ARX's binary search still ends where it ends (2 records for a
    # budget of 1); the transformation then fails the suppression limit, as in ARX.
    over = model.enforce(sizes, np.ones(6, bool), budget=1)
    assert over.tolist() == [True, False, True, False, True, True]
    assert int(sizes.sizes[~over].sum()) > 1


def test_population_uniqueness_round_trip_and_errors():
    model = PopulationUniqueness(0.01, "pitman", region="usa")
    assert privacy_model_from_dict(model.to_dict()) == model
    assert model.to_dict() == {"kind": "population-uniqueness", "threshold": 0.01,
                               "estimator": "pitman", "region": "usa"}
    with pytest.raises(ConfigurationError, match="estimator"):
        PopulationUniqueness(0.01, "magic", population_size=10)
    with pytest.raises(ConfigurationError, match="not both"):
        PopulationUniqueness(0.01, population_size=10, region="usa")
    with pytest.raises(ConfigurationError, match="below 1"):
        PopulationUniqueness(1.0, population_size=10)
