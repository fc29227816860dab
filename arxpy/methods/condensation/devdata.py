"""A synthetic cancer registry for developing and benchmarking condensation.

The paper's variables (Gal et al. 2014, L3021-3055) with planted effects [I], so that
linear, logistic and Cox models have a mix of strong, borderline and null coefficients:
the hazard rises with Stage (strong), DiagAge and current TobaccoUse (moderate),
uninsured PrimaryPayor and Black Race (weak, p near 0.05 at these sizes); Gender and
Appalachia have no effect. Survival is exponential given the covariates, censored by a
uniform follow-up of up to 72 months. VitalStat follows the KCR coding: 0 = deceased.
Sizes: colon 9,552 and lung 17,421 records (the paper's two datasets).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SIZES = {"colon": 9552, "lung": 17421}

_LEVELS = {
    "Gender": (("Female", "Male"), (0.5, 0.5), (0.0, 0.0)),
    "Race": (("White", "Black", "Other"), (0.86, 0.10, 0.04), (0.0, 0.12, 0.0)),
    "Stage": (("Local", "Regional", "Distant", "Unknown"), (0.35, 0.35, 0.22, 0.08),
              (0.0, 0.6, 1.6, 0.9)),
    "Appalachia": (("No", "Yes"), (0.7, 0.3), (0.0, 0.0)),
    "TobaccoUse": (("Never", "Former", "Current"), (0.35, 0.35, 0.30), (0.0, 0.1, 0.3)),
    "PrimaryPayor": (("Private", "Federal", "Uninsured"), (0.40, 0.52, 0.08),
                     (0.0, 0.05, 0.15)),
}


def cancer_registry(n: int | str = "colon", seed: int = 0) -> pd.DataFrame:
    """A registry table of ``n`` records (or the "colon"/"lung" size) as strings."""
    n = SIZES[n] if isinstance(n, str) else int(n)
    rng = np.random.default_rng(seed)
    age = np.clip(np.rint(rng.normal(68, 11, n)), 20, 99).astype(np.int64)
    log_hazard = 0.02 * (age - 68)
    columns: dict[str, np.ndarray] = {}
    for name, (levels, shares, effects) in _LEVELS.items():
        codes = rng.choice(len(levels), size=n, p=shares)
        columns[name] = np.asarray(levels, dtype=object)[codes]
        log_hazard = log_hazard + np.asarray(effects)[codes]
    event_time = rng.exponential(30.0 * np.exp(-log_hazard))  # months
    follow_up = rng.uniform(1.0, 72.0, n)
    died = event_time <= follow_up
    months = np.maximum(1, np.ceil(np.minimum(event_time, follow_up))).astype(np.int64)
    frame = pd.DataFrame({
        "VitalStat": np.where(died, "0", "1"),
        "SurvInterval": months.astype(str),
        "DiagAge": age.astype(str),
        **columns,
    })
    return frame.astype(object)
