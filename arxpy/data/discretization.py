"""Discretization of continuous attributes before kPB-MS (spec 003 §3): supervised MDL
(:mod:`arxpy.data.mdl`, the paper's choice) or unsupervised equal-frequency bins, which
the specification names as the alternative. One entry point, :func:`fit_cuts`, serves
the method and the evaluation's folds alike.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from arxpy.data.mdl import fit_mdl, numeric_attributes, numeric_values
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken

#: How continuous attributes are cut: MDL (Fayyad-Irani), equal-frequency bins, or not.
DISCRETIZATIONS = ("mdl", "eqfreq", "none")
#: Bins of equal-frequency discretization unless told otherwise.
DEFAULT_BINS = 5
#: Most equal-frequency bins: far beyond any use for pattern-based classification (a
#: pattern over binned features needs a few records per bin), and a bound on the cut
#: tables a typo such as eqfreq:1000000000 would allocate.
MAX_BINS = 1000


def equal_frequency_cut_points(values: np.ndarray, bins: int) -> list[float]:
    """Cuts (ascending) splitting ``values`` into ``bins`` bins of about n / bins values.

    A cut lies midway between two adjacent distinct values, at the boundary whose
    cumulative count is nearest to i n / bins; equal values never straddle a cut, so
    ties make bins unequal and can merge two of them (fewer than ``bins`` bins).
    """
    if bins < 1:
        raise ConfigurationError(f"Equal-frequency discretization needs at least one bin, "
                                 f"got {bins}.")
    distinct, counts = np.unique(np.asarray(values, dtype=float), return_counts=True)
    if len(distinct) < 2:
        return []
    below = np.cumsum(counts)[:-1]  # values at or below each boundary between distinct ones
    targets = np.arange(1, bins) * counts.sum() / bins
    nearest = np.abs(below[None, :] - targets[:, None]).argmin(axis=1)  # ties: the lower
    at = np.unique(nearest)
    return [float((distinct[i] + distinct[i + 1]) / 2) for i in at]


def fit_equal_frequency(frame: pd.DataFrame, attributes: Sequence[str], bins: int,
                        cancel: CancelToken | None = None) -> dict[str, list[float]]:
    """Equal-frequency cuts of each numeric attribute among ``attributes`` (missing values
    take no part and stay a category of their own)."""
    cuts: dict[str, list[float]] = {}
    for name in numeric_attributes(frame, attributes):
        if cancel is not None:
            cancel.raise_if_cancelled()
        values, present = numeric_values(frame[name])  # type: ignore[misc]
        cuts[name] = equal_frequency_cut_points(values[present], bins)
    return cuts


def fit_cuts(frame: pd.DataFrame, attributes: Sequence[str], labels: np.ndarray,
             how: str, bins: int = DEFAULT_BINS, cancel: CancelToken | None = None
             ) -> dict[str, list[float]]:
    """Cut points of the numeric ``attributes`` by ``how`` (one of
    :data:`DISCRETIZATIONS`); ``labels`` are the class codes MDL needs."""
    if how == "mdl":
        return fit_mdl(frame, attributes, labels, cancel)
    if how == "eqfreq":
        return fit_equal_frequency(frame, attributes, bins, cancel)
    if how == "none":
        return {}
    raise ConfigurationError(f"Unknown discretization {how!r}; use "
                             f"{', '.join(DISCRETIZATIONS)}.")
