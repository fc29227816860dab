"""The B-gen and B-sup proxy baselines (spec 002 §7), checked by a brute-force k^m test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from km_reference import is_km_anonymous

from arxpy.data.synth_ehr import generate_code_sets
from arxpy.data.transactions import CodeSets
from arxpy.errors import ConfigurationError
from arxpy.methods.setvalued_baselines import global_generalization, global_suppression


@pytest.fixture(scope="module")
def data():
    return generate_code_sets(records=400, codes=60, seed=11)


@pytest.mark.parametrize("k, m", [(2, 1), (3, 2), (5, 2)])
def test_global_generalization_is_km_anonymous_by_brute_force(data, k, m):
    result = global_generalization(data, k, m)
    # Rebuild the generalised records from the mapping alone.
    records = [{result.mapping[c] for c in r if result.mapping[c] is not None}
               for r in data.to_sets()]
    assert is_km_anonymous(records, k, m)
    assert set(result.mapping) == set(data.vocabulary)
    # Full subtrees: a node that replaced a code covers every domain code under it.
    assert sum(result.leaves_under.values()) == len(data.vocabulary) - len(result.suppressed)


@pytest.mark.parametrize("k, m", [(2, 1), (3, 2), (5, 2)])
def test_global_suppression_is_km_anonymous_by_brute_force(data, k, m):
    result = global_suppression(data, k, m)
    gone = set(result.suppressed)
    assert is_km_anonymous([r - gone for r in data.to_sets()], k, m)
    assert result.suppressed_share < 1
    # Something is suppressed exactly when the data was not k^m-anonymous already.
    assert bool(result.suppressed) != is_km_anonymous(data.to_sets(), k, m)
    assert result.released.to_sets() == [r - gone for r in data.to_sets()]


def test_uniform_leaf_estimate_by_hand():
    # 2950x codes generalise to 2950 (5 domain codes under it after the move).
    records = [{"29500", "4019"}, {"29501", "4019"}, {"29502"}, {"29503"}, {"29504", "4019"},
               {"29500", "4019"}]
    sets = CodeSets.from_sets(records)
    result = global_generalization(sets, 2, 1)
    assert {result.mapping[c] for c in ("29500", "29501", "29502", "29503", "29504")} == {"2950"}
    assert result.mapping["4019"] == "4019"
    # C({2950, 4019}) = 4, n_2950 = 5: estimate 4 * 1/5; single 29501: 6 * 1/5.
    assert result.estimate([("29501", "4019"), ("29501",)]).tolist() == pytest.approx(
        [0.8, 1.2])
    assert result.estimate([("29501",)], reading="nonempty")[0] == pytest.approx(
        6 * 2 ** 4 / (2 ** 5 - 1))


def test_suppressed_codes_answer_zero_and_bad_parameters_are_refused(data):
    result = global_suppression(data, 5, 2)
    assert result.estimate([(result.suppressed[0],)]).tolist() == [0.0]
    with pytest.raises(ConfigurationError, match="k >= 2"):
        global_suppression(data, 1, 2)
    with pytest.raises(ConfigurationError, match="at least k = 5 records"):
        global_generalization(CodeSets.from_sets([{"4019"}] * 3), 5, 1)


POOL = ["29500", "29501", "29502", "29610", "4011", "4019", "25000", "25001", "V5861",
        "E8889", "ZZZ9"]


@settings(max_examples=60, deadline=None)
@given(records=st.lists(st.sets(st.sampled_from(POOL), min_size=1, max_size=5), min_size=4,
                        max_size=16),
       k=st.integers(2, 4), m=st.integers(1, 3))
def test_both_baselines_are_km_anonymous_on_random_data(records, k, m):
    sets = CodeSets.from_sets(records)
    if len(sets) < k:
        return
    gen = global_generalization(sets, k, m)
    generalized = [{gen.mapping[c] for c in r if gen.mapping[c] is not None}
                   for r in sets.to_sets()]
    assert is_km_anonymous(generalized, k, m)
    sup = global_suppression(sets, k, m)
    assert is_km_anonymous([r - set(sup.suppressed) for r in sets.to_sets()], k, m)
