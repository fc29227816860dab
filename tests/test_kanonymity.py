"""k-anonymity: the per-class test, its contract flags and its parameters."""

from __future__ import annotations

import numpy as np
import pytest

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.privacy.registry import privacy_model_from_dict


def classes(sizes):
    sizes = np.asarray(sizes, dtype=np.int64)
    return EquivalenceClasses((0,), np.arange(len(sizes)).reshape(-1, 1), sizes)


def test_satisfied_per_class():
    model = KAnonymity(3)
    assert model.satisfied(classes([1, 2, 3, 7])).tolist() == [False, False, True, True]
    assert KAnonymity(1).satisfied(classes([1, 1])).all()


def test_contract_and_round_trip():
    model = KAnonymity(5)
    assert model.monotonic_with_suppression and model.monotonic_without_suppression
    assert model.sensitive_attribute is None
    assert model.describe() == "5-anonymity"
    assert model.to_dict() == {"kind": "k-anonymity", "k": 5}
    assert privacy_model_from_dict(model.to_dict()) == model


@pytest.mark.parametrize("k", [0, -1, 2.5, "3", True])
def test_invalid_k(k):
    with pytest.raises(ConfigurationError):
        KAnonymity(k)


def test_k_larger_than_records():
    with pytest.raises(ConfigurationError, match="k = 4 is larger than the number of records"):
        KAnonymity(4).validate(EncodedData(3, [], {}))
    KAnonymity(3).validate(EncodedData(3, [], {}))
