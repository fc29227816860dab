"""Encoding and the errors a user can cause, all raised before any search."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy import search as search_package
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.errors import ConfigurationError, DefinitionError, HierarchyError
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.encoding import encode
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.loss import Loss

QI = AttributeType.QUASI_IDENTIFYING
FRAME = pd.DataFrame({"zip": ["130", "131", "130", "NA"], "sex": ["m", "f", "f", "m"],
                      "disease": ["flu", "cold", "flu", "flu"]})
ZIP = Hierarchy([["130", "13*", "*"], ["131", "13*", "*"], ["NA", "NA", "*"], ["140", "14*", "*"]])
SEX = Hierarchy([["m", "*"], ["f", "*"]])


def definition(**zip_changes) -> DataDefinition:
    return DataDefinition([AttributeDefinition("zip", QI, **zip_changes),
                           AttributeDefinition("sex", QI),
                           AttributeDefinition("disease", AttributeType.SENSITIVE)])


def test_encode_codes_and_level_maps():
    data = encode(FRAME, definition(), {"zip": ZIP, "sex": SEX}, tracked=["disease"])
    assert data.qi_names == ["zip", "sex"]
    z = data.quasi_identifiers[0]
    assert z.codes.tolist() == [0, 1, 0, 2]  # hierarchy row order
    assert z.labels[1] == ["13*", "NA", "14*"]
    assert [z.labels[1][c] for c in z.level_maps[1][z.codes]] == ["13*", "13*", "13*", "NA"]
    assert (z.min_level, z.max_level, z.height) == (0, 2, 3)
    assert z.domain_size(0) == 4  # rows not in the data still count (ARX's domain)
    disease = data.tracked["disease"]
    assert disease.values == ["cold", "flu"]
    assert disease.global_counts.tolist() == [1, 3]


def search_must_not_run(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("search started despite a bad input")
    monkeypatch.setattr(search_package, "STRATEGIES", {"optimal": boom})


@pytest.mark.parametrize(
    ("hierarchies", "changes", "config", "error", "match"),
    [
        ({"sex": SEX}, {}, {}, HierarchyError, "'zip' has no generalization hierarchy"),
        ({"zip": Hierarchy([["130", "13*", "*"], ["131", "*"]]), "sex": SEX}, {}, {},
         HierarchyError, "row 2 has 2 values.*same number of levels"),
        ({"zip": Hierarchy([["130", "1*", "*"], ["131", "1*", "+"], ["NA", "N", "*"]]),
          "sex": SEX}, {}, {}, HierarchyError, "'1\\*' at level 1 generalizes to different"),
        ({"zip": Hierarchy([["130", "*"], ["131", "*"]]), "sex": SEX}, {}, {},
         HierarchyError, "'zip'.*not in the hierarchy: 'NA'"),
        ({"zip": ZIP, "sex": SEX, "height": SEX}, {}, {}, DefinitionError, "Unknown attribute"),
        ({"zip": ZIP, "sex": SEX}, {"max_level": 3}, {}, DefinitionError, "maximum.*levels 0 to 2"),
        ({"zip": ZIP, "sex": SEX}, {"min_level": 5, "max_level": 6}, {}, DefinitionError,
         "minimum"),
        ({"zip": ZIP, "sex": SEX}, {}, {"k": 5}, ConfigurationError, "larger than the number"),
    ],
)
def test_bad_inputs_fail_before_search(monkeypatch, hierarchies, changes, config, error, match):
    search_must_not_run(monkeypatch)
    cfg = AnonymizationConfig([KAnonymity(config.get("k", 2))], Loss())
    with pytest.raises(error, match=match):
        anonymize(FRAME, definition(**changes), hierarchies, cfg)


@pytest.mark.parametrize("limit", [-0.1, 1.5, float("nan")])
def test_suppression_limit_outside_unit_interval(limit):
    message = "suppression_limit must be (a finite number )?between 0 and 1"
    with pytest.raises(ConfigurationError, match=message):
        AnonymizationConfig([KAnonymity(2)], suppression_limit=limit)


def test_other_configuration_errors():
    with pytest.raises(ConfigurationError, match="at least one privacy model"):
        AnonymizationConfig([])
    with pytest.raises(ConfigurationError, match="strategy"):
        AnonymizationConfig([KAnonymity(2)], strategy="fast")
    with pytest.raises(ConfigurationError, match="whole number"):
        KAnonymity(0)
    with pytest.raises(DefinitionError, match="columns without a definition"):
        anonymize(FRAME.assign(extra="x"), definition(), {"zip": ZIP, "sex": SEX},
                  AnonymizationConfig([KAnonymity(2)]))


def test_config_round_trip():
    config = AnonymizationConfig([KAnonymity(3)], Loss(0.3, "sum"), 0.05, "heuristic", 4.0)
    settings = config.to_dict()
    assert settings == {
        "privacy_models": [{"kind": "k-anonymity", "k": 3}],
        "quality_model": {"name": "loss", "gs_factor": 0.3, "aggregate": "sum"},
        "suppression_limit": 0.05, "strategy": "heuristic", "time_limit": 4.0,
    }
    again = AnonymizationConfig.from_dict(settings)
    assert again.to_dict() == settings
    with pytest.raises(ConfigurationError, match="Unknown privacy model"):
        AnonymizationConfig.from_dict({"privacy_models": [{"kind": "nope"}]})


def test_empty_frame_has_no_anonymous_transformation_for_k_above_zero_records():
    empty = FRAME.iloc[:0]
    with pytest.raises(ConfigurationError):
        anonymize(empty, definition(), {"zip": ZIP, "sex": SEX},
                  AnonymizationConfig([KAnonymity(1)]))
    assert np.all(encode(FRAME, definition(), {"zip": ZIP, "sex": SEX}).quasi_identifiers[1]
                  .codes >= 0)


def test_sensitive_attribute_models_need_the_attribute_marked_sensitive(monkeypatch):
    from arxpy.privacy.ldiversity import DistinctLDiversity

    search_must_not_run(monkeypatch)
    insensitive = definition().with_attribute("disease", type=AttributeType.INSENSITIVE)
    config = AnonymizationConfig([KAnonymity(1), DistinctLDiversity("disease", 2)])
    with pytest.raises(ConfigurationError, match="'disease' is insensitive; mark it sensitive"):
        anonymize(FRAME, insensitive, {"zip": ZIP, "sex": SEX}, config)
