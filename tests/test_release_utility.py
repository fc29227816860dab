"""Information loss across methods (Compare's rows), checked against hand computations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.analysis.compare import best_columns, compare_releases
from arxpy.analysis.release_utility import (
    CORRELATIONS,
    DEVIATIONS,
    ENTROPY,
    MEANS,
    utility_figures,
)
from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.release import Claim, Release, table_sha256


def _table() -> tuple[pd.DataFrame, DataDefinition]:
    frame = pd.DataFrame({"age": ["20", "30", "40", "50"], "stay": ["1", "2", "3", "10"],
                          "sex": ["f", "f", "m", "m"]})
    definition = DataDefinition.for_columns(frame.columns)
    for name in ("age", "stay"):
        definition = definition.with_attribute(name, data_type=DataType(DataKind.INTEGER))
    definition = definition.with_attribute("age", type=AttributeType.QUASI_IDENTIFYING)
    return frame, definition


def _release(frame, definition, table, synthetic=False, k=2):
    return Release(table, np.zeros(len(table), bool), definition, "test", {},
                   (Claim("k-anonymity", {"k": k}, ("age",)),), table_sha256(frame),
                   synthetic=synthetic)


def test_figures_of_a_generalized_release_by_hand():
    frame, definition = _table()
    released = frame.assign(age=["[20, 30]", "[20, 30]", "[40, 50]", "[40, 50]"])
    figures = utility_figures(frame, _release(frame, definition, released))
    # age: midpoints 25, 25, 45, 45: mean 35 = 35 exactly; sd 11.547 vs 12.910.
    sd_before, sd_after = np.std([20, 30, 40, 50], ddof=1), np.std([25, 25, 45, 45], ddof=1)
    assert figures[MEANS] == pytest.approx(0.0)  # stay unchanged too
    assert figures[DEVIATIONS] == pytest.approx(abs(sd_after - sd_before) / sd_before / 2)
    # Entropy loss of age: each published value stands for 2 of 4 equally likely values:
    # 1 bit lost of the 2 bits suppression would lose.
    assert figures[ENTROPY] == pytest.approx(0.5)
    r_before = np.corrcoef([20, 30, 40, 50], [1, 2, 3, 10])[0, 1]
    r_after = np.corrcoef([25, 25, 45, 45], [1, 2, 3, 10])[0, 1]
    assert figures[CORRELATIONS] == pytest.approx(abs(r_after - r_before))


def test_numbers_generalized_away_count_as_lost_and_synthetic_rows_say_why():
    frame, definition = _table()
    starred = utility_figures(frame, _release(frame, definition, frame.assign(age="*"),
                                              k=4))
    assert starred[MEANS] == pytest.approx(0.5)  # age lost (1), stay exact (0)
    assert starred[ENTROPY] == pytest.approx(1.0)
    synthetic = utility_figures(frame, _release(frame, definition, frame, synthetic=True))
    assert str(synthetic[ENTROPY]).startswith("not applicable: synthetic")
    assert synthetic[MEANS] == pytest.approx(0.0)


def test_best_values_are_marked_among_the_anonymous_releases():
    frame, definition = _table()
    coarse = _release(frame, definition, frame.assign(age="*"), k=4)
    fine = _release(frame, definition,
                    frame.assign(age=["[20, 30]", "[20, 30]", "[40, 50]", "[40, 50]"]))
    leaky = _release(frame, definition, frame, k=2)  # claims k = 2, releases every age
    table = compare_releases({"coarse": coarse, "fine": fine, "leaky": leaky}, frame)
    assert table.loc["anonymous"].tolist() == [True, True, False]
    assert best_columns(table, ENTROPY) == ["fine"]  # leaky loses nothing but is refused
    assert best_columns(table, "smallest class") == ["coarse"]
    assert table.attrs["better"][ENTROPY] == "lower"
