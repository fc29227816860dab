"""Improved condensation (Gal et al. 2014, Algorithm 2, L1686-1954).

Deceased and alive records (any binary status attribute, or one subset without one) are
clustered separately by k-means on z-scored attributes weighted towards the response
(weight w, paper: 0.5), clusters below k are topped up from clusters above k (step 2c),
each cluster is replaced by synthetic records (Alg. 3) whose status is left unchanged,
and the cluster's original survival times are put back by rank (step 2d-ii).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from arxpy.data.roles import NUMERIC, STATUS_NAMES, SURVIVAL_TIME_NAMES
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, ThrottledProgress
from arxpy.methods.condensation.clustering import fill_small_clusters, kmeans
from arxpy.methods.condensation.encoding import Encoded
from arxpy.methods.condensation.method import _COMMON, _GENERATOR, CAVEAT, _ClusterMethod
from arxpy.methods.registry import register_method
from arxpy.params import Param

SMALL_SUBSET_POLICIES = ("error", "suppress", "merge")


@register_method
class ImprovedCondensation(_ClusterMethod):
    """Gal et al.'s improved condensation for regression and survival analyses."""

    name = "improved-condensation"
    label = "Improved condensation (Gal et al.)"
    description = ("Clusters deceased and alive patients separately by k-means weighted towards "
                   "survival time, replaces each cluster of at least k by synthetic records with "
                   "its mean and covariance, keeps vital status and puts the original survival "
                   "times back by rank.")
    guidance = ("Choose it for survival or regression studies: it is designed to keep Cox and "
                "linear model coefficients close to the original while releasing synthetic "
                "records, and keeps each patient's vital status and the original survival "
                "times.")
    params = (
        *_COMMON, _GENERATOR,
        Param("time", "attribute", label="survival time", help="the survival time attribute",
              step="Alg. 2 step 2d-ii", data_types=NUMERIC, named_like=SURVIVAL_TIME_NAMES),
        Param("status", "attribute", None, optional=True, label="vital status",
              help="the binary survival status attribute (none: one subset) [I]",
              step="Alg. 2 step 1", named_like=STATUS_NAMES),
        Param("event_value", "text", None, optional=True, label="event value",
              help="the status value meaning the event (death); used for reporting only"),
        Param("response", "attribute", None, optional=True, label="response",
              help="the attribute that gets weight w (default: the time attribute)",
              step="Alg. 2 step 2a", data_types=NUMERIC),
        Param("weight", "float", 0.5, low=0.0, high=1.0, label="weight w",
              help="share of the distance given to the response (paper: 0.5)",
              step="Alg. 2 step 2a (L1677-1683)"),
        Param("weight_split", "choice", "attribute", choices=("attribute", "column"),
              label="weight split", help="split the other attributes' weight per attribute "
              "(dummies share their attribute's part) or per encoded column [I]"),
        Param("kmeans_iter", "int", 10, low=1, label="k-means iterations",
              help="most Lloyd iterations (R's default: 10, L2575)", step="Alg. 2 step 2a"),
        Param("kmeans_restarts", "int", 1, low=1, label="k-means restarts",
              help="k-means runs from random rows; the best is kept [I]"),
        Param("small_subset", "choice", "error", choices=SMALL_SUBSET_POLICIES,
              label="small status subset", help="what to do with a status subset of fewer "
              "than k records: error, suppress its records, or merge it with the other [I]"),
    )

    def check_together(self) -> None:
        super().check_together()
        if self.status is not None and self.status == self.time:
            raise ConfigurationError(
                f"{self.owner_name()}: status and time must be different attributes.")

    def claim_text(self) -> str:
        return (f"every cluster holds at least {self.k} records of one vital status; rows are "
                f"synthetic from their cluster's mean and covariance. Caveat: {CAVEAT}")

    # --- Alg. 2 steps 1-2c ---------------------------------------------------------------

    def group(self, encoded: Encoded, frame: pd.DataFrame, rng: np.random.Generator,
              cancel: CancelToken | None, report: ThrottledProgress
              ) -> tuple[np.ndarray, int]:
        for name in (self.time, self.response or self.time):
            if encoded.block(name).kind == "categorical":
                raise ConfigurationError(
                    f"{self.owner_name()}: '{name}' must be numeric (integer or continuous); "
                    "declare its kind or choose another attribute.")
        points = self.weighted_points(encoded)
        groups = np.full(len(frame), -1, dtype=np.int64)
        moved, next_id = 0, 0
        subsets = self.subsets(frame)
        for i, rows in enumerate(subsets):
            s = len(rows) // self.k

            def on_iteration(fraction: float, i: int = i) -> None:
                report(0.05 + 0.3 * (i + fraction) / len(subsets), "k-means clustering")

            labels, centres = kmeans(points[rows], s, rng, self.kmeans_iter,
                                     self.kmeans_restarts, cancel, on_iteration)
            labels, count = fill_small_clusters(points[rows], labels, centres, self.k, cancel)
            groups[rows] = labels + next_id
            moved += count
            next_id += s
        return groups, moved

    def subsets(self, frame: pd.DataFrame) -> list[np.ndarray]:
        """Step 1: the records of each status value (spec decision 5 for small subsets)."""
        n = len(frame)
        if self.status is None:
            return [np.arange(n)]
        if self.status not in frame.columns:
            raise ConfigurationError(f"{self.owner_name()}: no attribute '{self.status}'.")
        codes, values = pd.factorize(frame[self.status].astype(str), sort=True)
        if len(values) > 2:
            raise ConfigurationError(
                f"{self.owner_name()}: status attribute '{self.status}' has {len(values)} "
                "values; it must be binary (for example 0/1).")
        subsets = [np.flatnonzero(codes == c) for c in range(len(values))]
        small = [(values[i], len(r)) for i, r in enumerate(subsets) if len(r) < self.k]
        if not small:
            return subsets
        if self.small_subset == "error" or len(small) == len(subsets):
            value, size = small[0]
            raise ConfigurationError(
                f"{self.owner_name()}: only {size} records have {self.status} = {value}, fewer "
                f"than k = {self.k}; lower k to at most {size}, or set small_subset to "
                "suppress or merge.")
        big = [r for r in subsets if len(r) >= self.k]
        if self.small_subset == "suppress":
            return big
        return [np.sort(np.concatenate(subsets))]  # merge: one subset, status mixed

    def weighted_points(self, encoded: Encoded) -> np.ndarray:
        """z-scored columns times √weight: k-means on them is weighted-Euclidean k-means.

        The response gets w; the other attributes (status excluded, it is constant in a
        subset) share 1-w per attribute or per column (spec §2.2 decisions 1-2 [I]).
        """
        matrix = encoded.matrix
        sd = matrix.std(axis=0)
        sd[sd == 0] = 1.0
        z = (matrix - matrix.mean(axis=0)) / sd if self.standardize else matrix.copy()
        response = self.response or self.time
        others = [b for b in encoded.blocks if b.name not in (response, self.status)]
        weights = np.zeros(matrix.shape[1])
        weights[encoded.block(response).columns] = self.weight
        columns = sum(b.stop - b.start for b in others)
        for block in others:
            width = block.stop - block.start
            share = (1 - self.weight) / len(others) / width if self.weight_split == \
                "attribute" else (1 - self.weight) / columns
            weights[block.columns] = share
        return z * np.sqrt(weights)

    # --- Alg. 2 step 2d ------------------------------------------------------------------

    def synthesize_groups(self, encoded, groups, rng, progress, cancel):
        raw = super().synthesize_groups(encoded, groups, rng, progress, cancel)
        kept = groups >= 0
        if self.status is not None:  # step 2d-i: the status is not changed
            columns = encoded.block(self.status).columns
            raw[kept, columns] = encoded.matrix[kept, columns]
        t = encoded.block(self.time).start
        raw[:, t] = reassign_by_rank(raw[:, t], encoded.matrix[:, t], groups)
        return raw


#: Fewer groups than this in a status subset earns a warning (spec §2.2 parameters [I]).
FEW_GROUPS = 20


def subset_readout(frame: pd.DataFrame, status: str | None, k: int) -> list[dict]:
    """Per status value: records, ⌊n/k⌋ groups, and a warning when that is below
    :data:`FEW_GROUPS` or zero (the live readout the spec asks the form to show)."""
    if status is None:
        counts = {"(all)": len(frame)}
    else:
        counts = frame[status].astype(str).value_counts().sort_index().to_dict()
    out = []
    for value, n in counts.items():
        groups = int(n) // k
        warning = ""
        if groups == 0:
            warning = f"fewer records than k = {k}"
        elif groups < FEW_GROUPS:
            warning = f"only {groups} groups (fewer than {FEW_GROUPS})"
        out.append({"value": value, "records": int(n), "groups": groups, "warning": warning})
    return out


def reassign_by_rank(synthetic: np.ndarray, original: np.ndarray, groups: np.ndarray
                     ) -> np.ndarray:
    """Step 2d-ii: within each group, the k-th smallest synthetic time becomes the k-th
    smallest original time (ties in synthetic time broken by row order)."""
    out = synthetic.copy()
    kept = np.flatnonzero(groups >= 0)
    by_synthetic = kept[np.lexsort((kept, synthetic[kept], groups[kept]))]
    by_original = kept[np.lexsort((original[kept], groups[kept]))]
    out[by_synthetic] = original[by_original]
    return out
