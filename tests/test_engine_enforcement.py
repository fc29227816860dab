"""Dataset-level privacy models make the engine suppress classes, as ARX does."""

from __future__ import annotations

import pandas as pd

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy import AverageRisk

# Classes at the bottom: a, b (1 record each) and c, d (4 records each).
FRAME = pd.DataFrame({"zip": ["a", "b"] + ["c"] * 4 + ["d"] * 4})
ZIP = Hierarchy([[v, "*"] for v in "abcd"])
DEFINITION = DataDefinition([AttributeDefinition("zip", AttributeType.QUASI_IDENTIFYING)])


def released_average_risk(output) -> float:
    """Classes over records among the released rows, recomputed with pandas."""
    released = output.table.loc[~output.suppressed]
    return released.groupby("zip").ngroups / len(released)


def test_average_risk_suppresses_smallest_classes_within_the_budget():
    # Unsuppressed, the bottom has 4 classes over 10 records (risk 0.4 > 0.3); dropping
    # the two singletons leaves 2 classes over 8 records (0.25) at a cost of 2 records.
    config = AnonymizationConfig([AverageRisk(0.3)], suppression_limit=0.2)
    result = anonymize(FRAME, DEFINITION, {"zip": ZIP}, config)
    assert result.optimum.levels == (0,)
    output = result.release()
    assert output.suppressed.tolist() == [True, True] + [False] * 8
    assert released_average_risk(output) <= 0.3


def test_average_risk_without_budget_generalizes_instead():
    config = AnonymizationConfig([AverageRisk(0.3)], suppression_limit=0.1)
    result = anonymize(FRAME, DEFINITION, {"zip": ZIP}, config)
    assert result.optimum.levels == (1,)
    assert released_average_risk(result.release()) <= 0.3
