"""ARX parity on the Adult data: optimum transformation and Loss score to 1e-9.

ARX 3.x, all nine attributes quasi-identifying with the bundled hierarchies, 5-anonymity,
Loss with its defaults (gs-factor 0.5, geometric mean). The expected figures are ARX's;
nothing in the engine knows them.
"""

from __future__ import annotations

import pytest

from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.loss import Loss

ORDER = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
         "occupation", "salary-class"]


@pytest.mark.parametrize(
    ("suppression", "levels", "score", "suppressed"),
    [
        (0.0, [0, 4, 1, 1, 3, 2, 2, 1, 0], 0.5731509655590044, 0),
        (0.02, [0, 3, 0, 2, 2, 1, 1, 2, 0], 0.3137130352819242, 506),
        (0.10, [0, 3, 0, 0, 2, 1, 1, 1, 0], 0.22041192847984292, 2553),
    ],
)
def test_adult_optimum_matches_arx(adult, suppression, levels, score, suppressed):
    frame, definition, hierarchies = adult
    config = AnonymizationConfig([KAnonymity(5)], Loss(), suppression_limit=suppression)
    result = anonymize(frame, definition, hierarchies, config)
    assert list(frame.columns) == ORDER
    assert result.quasi_identifiers == ORDER
    best = result.optimum
    assert list(best.levels) == levels
    assert best.score == pytest.approx(score, rel=1e-9)
    assert best.suppressed_records == suppressed
    assert result.optimal
    # Optimal search must settle the lattice with far fewer checks than it holds.
    assert result.transformations_checked < result.lattice_size // 4
    assert result.rollups > 0
    assert 0.0 <= best.relative_score <= 1.0
    output = result.release()
    assert output.statistics.suppressed_records == suppressed
    assert output.statistics.min_size >= 5
