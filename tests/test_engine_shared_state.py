"""A run works on its own prepared copies of the models (issue 10, section 4).

``prepare()`` stores per-run data on a model (t-closeness: the global distribution of
the sensitive attribute). A run that prepared the configuration's own instances let a
later run on other data change what an earlier result reports.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy import TCloseness
from arxpy.quality import Loss

AGE = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 60)])
DEFINITION = DataDefinition([
    AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING),
    AttributeDefinition("disease", AttributeType.SENSITIVE),
])
T = 0.3


def table(seed: int, flu_share: float, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ages = rng.integers(20, 60, n)
    # The share of flu rises with age, so classes differ from the whole table.
    p_flu = np.clip(flu_share + (ages - 40) / 40, 0.02, 0.98)
    disease = np.where(rng.random(n) < p_flu, "flu", rng.choice(["cold", "asthma"], n))
    return pd.DataFrame({"age": ages.astype(str), "disease": disease})


def suppressed_by_oracle(frame: pd.DataFrame, t: float,
                         reference: pd.DataFrame | None = None) -> np.ndarray:
    """Rows whose age class is farther than t from the table (equal-distance EMD).

    ``reference`` (default: ``frame``) gives the overall distribution.
    """
    overall = (frame if reference is None else reference)["disease"].value_counts(
        normalize=True)
    overall = overall.reindex(sorted(set(overall.index) | set(frame["disease"])),
                              fill_value=0)
    far = set()
    for age, rows in frame.groupby("age"):
        share = rows["disease"].value_counts(normalize=True).reindex(overall.index, fill_value=0)
        if 0.5 * float(np.abs(share - overall).sum()) > t + 1e-12:
            far.add(age)
    return frame["age"].isin(far).to_numpy()


def test_reusing_a_configuration_leaves_earlier_results_unchanged() -> None:
    table_a, table_b = table(1, 0.5), table(2, 0.1)
    config = AnonymizationConfig([TCloseness("disease", T)], Loss(), suppression_limit=1.0)
    result_a = anonymize(table_a, DEFINITION, {"age": AGE}, config)
    anonymize(table_b, DEFINITION, {"age": AGE}, config)
    expected = suppressed_by_oracle(table_a, T)
    # The check below can tell A's own distribution from B's.
    assert 0 < expected.sum() < len(table_a)
    assert not np.array_equal(expected, suppressed_by_oracle(table_a, T, table_b))
    bottom = result_a.release(result_a.lattice.bottom)
    assert np.array_equal(bottom.suppressed, expected)


def test_a_run_leaves_the_configured_models_unprepared() -> None:
    model, quality = TCloseness("disease", T), Loss()
    config = AnonymizationConfig([model], quality, suppression_limit=1.0)
    result = anonymize(table(1, 0.5), DEFINITION, {"age": AGE}, config)
    assert model.global_counts is None and quality._n == 0.0
    prepared = result.config.privacy_models[0]
    assert prepared is not model and prepared.global_counts is not None
    scored = Loss(0.2)
    result.score_under(result.lattice.top, scored)
    assert scored._n == 0.0
