"""Distinction and separation: ARX's own hand-computed table, and properties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.errors import CancelledError
from arxpy.jobs import CancelToken
from arxpy.risk import analyze_quasi_identifiers
from arxpy.risk.quasi_identifiers import distinction_and_separation


def arx_table() -> pd.DataFrame:
    """The table of ARX's TestRiskQuasiIdentifiers."""
    return pd.DataFrame([("20", "Female", "CA"), ("30", "Female", "CA"), ("40", "Female", "TX"),
                         ("20", "Male", "NY"), ("40", "Male", "CA")],
                        columns=["age", "sex", "state"])


def test_matches_arx_hand_computed_results_in_arx_order():
    analysis = analyze_quasi_identifiers(arx_table(), ["age", "sex", "state"])
    got = [("[" + ", ".join(r.attributes) + "]", r.distinction, r.separation)
           for r in analysis.risks]
    # ARX TestRiskQuasiIdentifiers.testWithDefinedDataSet ("calculated by hand").
    assert got == [("[sex]", 0.4, 0.6), ("[state]", 0.6, 0.7), ("[age]", 0.6, 0.8),
                   ("[sex, state]", 0.8, 0.9), ("[age, sex]", 1.0, 1.0),
                   ("[age, state]", 1.0, 1.0), ("[age, sex, state]", 1.0, 1.0)]
    table = analysis.summary()
    assert list(table.columns) == ["attributes", "size", "distinction", "separation"]
    assert table["size"].tolist() == [1, 1, 1, 2, 2, 2, 3]


def test_max_size_and_suppression():
    analysis = analyze_quasi_identifiers(arx_table(), ["state", "age"], max_size=1)
    assert [r.attributes for r in analysis.risks] == [("state",), ("age",)]
    suppressed = np.array([False, False, True, True, True])
    analysis = analyze_quasi_identifiers(arx_table(), ["sex"], suppressed=suppressed)
    assert analysis.risks[0].distinction == 0.5  # two Female records left, one value
    assert analysis.risks[0].separation == 0.0


def test_separation_formula_by_hand():
    # Sizes 1, 1, 2, 3, 3, 3 (n = 13): pairs 78, same-class pairs 0+0+1+3+3+3 = 10.
    distinction, separation = distinction_and_separation(np.array([1, 1, 2, 3, 3, 3]))
    assert distinction == pytest.approx(6 / 13)
    assert separation == pytest.approx(68 / 78)
    assert distinction_and_separation(np.array([1])) == (1.0, 0.0)


def test_cancel_and_progress():
    seen: list[float] = []
    analyze_quasi_identifiers(arx_table(), ["age", "sex", "state"],
                              progress=lambda f, m: seen.append(f))
    assert seen[-1] == 1.0
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        analyze_quasi_identifiers(arx_table(), ["age"], cancel=token)
