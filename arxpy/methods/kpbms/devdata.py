"""A synthetic screening table for developing, testing and showing kPB-MS.

Categorical features of a diabetes screening visit with planted effects [I]: the
outcome depends strongly on the glucose measurement (continuous, so MDL cuts it), on
the BMI band and on age, weakly on family history and not at all on the region or
the visit month, so PB-FSS has something to find and something to leave out, and at
k = 10 some patterns are trimmed and some removed whole.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def screening_data(n: int = 800, seed: int = 0) -> pd.DataFrame:
    """``n`` screening records (all cells text): age band, sex, BMI band, smoking,
    family history, region, visit month, fasting glucose (mmol/l) and the outcome
    (``normal`` / ``prediabetes`` / ``diabetes``)."""
    rng = np.random.default_rng(seed)
    age = rng.choice(["18-39", "40-59", "60-79", "80+"], n, p=[0.3, 0.35, 0.27, 0.08])
    bmi = rng.choice(["<25", "25-30", "30-35", ">35"], n, p=[0.35, 0.35, 0.2, 0.1])
    family = rng.choice(["no", "yes"], n, p=[0.7, 0.3])
    risk = (np.searchsorted(["18-39", "40-59", "60-79", "80+"], age) * 0.5
            + np.searchsorted(["<25", "25-30", "30-35", ">35"], bmi) * 0.7
            + (family == "yes") * 0.4 + rng.normal(0, 0.8, n))
    # A single glucose reading is a noisy measure of the risk the outcome reflects.
    glucose = np.round(4.8 + 0.45 * risk + rng.normal(0, 0.6, n), 1)
    status = risk + rng.normal(0, 0.6, n)
    outcome = np.where(status >= 2.6, "diabetes",
                       np.where(status >= 1.6, "prediabetes", "normal"))
    return pd.DataFrame({
        "age": age, "sex": rng.choice(["F", "M"], n), "bmi": bmi,
        "smoking": rng.choice(["never", "former", "current"], n, p=[0.5, 0.3, 0.2]),
        "family_history": family,
        "region": rng.choice(["north", "south", "east", "west", "centre"], n),
        "visit_month": rng.integers(1, 13, n).astype(str),
        "glucose": [f"{g:.1f}" for g in glucose], "outcome": outcome,
    }).astype(object)
