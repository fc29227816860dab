"""Condensation methods on the methods protocol: improved condensation (Gal et al. 2014,
Alg. 2), condensation (Aggarwal & Yu, Alg. 1) and the microaggregation baselines TFRP
and MDAV. Each returns a :class:`CondensationRelease` with the input's columns (minus
identifying attributes), one synthetic row per input record and the cluster of each row.

Privacy (spec §7.13): what is promised is that every cluster holds at least k records;
the rows are synthetic, so no class-size or re-identification-risk bound is claimed.
Improved condensation releases every survival time and status value exactly; within a
cluster only which record a time belongs to is hidden.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.methods.base import Method
from arxpy.methods.condensation.clustering import seeded_groups
from arxpy.methods.condensation.encoding import (
    ATTRIBUTE_KINDS,
    Encoded,
    as_text,
    decode,
    encode,
)
from arxpy.methods.condensation.generator import GENERATORS, synthesize
from arxpy.methods.condensation.microaggregation import group_means, mdav_groups, tfrp_groups
from arxpy.methods.registry import register_method
from arxpy.params import Param, drawn_seed
from arxpy.release import SUPPRESSED_VALUE, Claim, Release, table_sha256

REFERENCE = ("Gal, Tucker, Gangopadhyay & Chen (2014), A data recipient centered "
             "de-identification method to retain statistical attributes, J. Biomed. Inform.")

CAVEAT = ("improved condensation releases every survival time and vital status exactly; "
          "within a cluster only which record a time belongs to is hidden. If survival time "
          "is quasi-identifying, use condensation or generalize time first.")


@dataclass(frozen=True, eq=False)
class CondensationRelease(Release):
    """A release plus what condensation-specific reports need.

    ``table`` rows are output rows (shuffled unless ``shuffle_output`` is off) and
    ``groups``/``suppressed`` describe those rows; ``input_groups`` is the cluster of
    each *input* record (-1: suppressed) and ``order[i]`` the input position whose slot
    output row i was generated in. ``raw`` and ``encoded`` are the synthetic and the
    original encoded matrices in input order, before decoding (``raw`` is NaN in the
    rows of suppressed records).
    """

    input_groups: np.ndarray | None = None
    order: np.ndarray | None = None
    moved_records: int = 0
    clipped: Mapping[str, int] = field(default_factory=dict)
    raw: np.ndarray | None = None
    encoded: Encoded | None = None

    def input_rows(self) -> np.ndarray | None:
        """Output row i was generated in the slot of input record ``order[i]``."""
        return np.arange(len(self.table)) if self.order is None else np.asarray(self.order)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out.update({"moved_records": self.moved_records, "clipped": dict(self.clipped)})
        return out


_COMMON = (
    # At k = 1 every output row is an input record; at k = 2 the exact generator, which
    # reproduces each cluster's mean and covariance, pins both records of a pair down
    # (two points are their mean plus or minus the covariance's one principal axis).
    Param("k", "int", 100, low=3, label="k", unit="records",
          help="smallest number of records per cluster (paper: K = 100); at least 3, "
               "since clusters of 1 or 2 records would be released as they are",
          step="Alg. 1 step 1 / Alg. 2 step 2a"),
    Param("seed", "int", None, optional=True, low=0, label="seed",
          help="seed of the random generator; the same seed gives the same output"),
    Param("shuffle_output", "bool", True, label="shuffle output",
          help="shuffle output rows so that row position reveals no cluster [I]"),
    Param("types", "mapping", {}, label="attribute kinds",
          help="attribute -> categorical|integer|continuous (default: from the data type)",
          step="Alg. 1 step 7 / Alg. 2 step 2d-iii [I]"),
    Param("clip_continuous", "bool", True, label="clip continuous values",
          help="clip continuous values to the observed range [I]",
          step="Alg. 2 step 2d-iii [I]"),
    Param("standardize", "bool", True, label="standardize",
          help="z-score attributes before measuring distances [I]"),
)
_GENERATOR = Param("generator", "choice", "exact", choices=GENERATORS, label="generator",
                   help="exact: per-cluster mean and covariance reproduced; moments: the "
                   "paper's wording; uniform: Aggarwal-style", step="Alg. 3")


class _ClusterMethod(Method):
    """Shared pipeline: encode, scale, group, synthesize, decode, build the release."""

    reference = REFERENCE
    params = _COMMON
    #: Released rows are drawn from each cluster's distribution, not input records
    #: (microaggregation releases each cluster's mean instead: False).
    synthesizes: ClassVar[bool] = True

    def check_together(self) -> None:
        bad = {a: v for a, v in self.types.items() if v not in ATTRIBUTE_KINDS}
        if bad:
            name, kind = next(iter(bad.items()))
            raise ConfigurationError(
                f"{self.owner_name()}: attribute kind {kind!r} of '{name}' is unknown; use "
                f"one of {', '.join(ATTRIBUTE_KINDS)}.")

    # --- the steps each method fills in ------------------------------------------------

    def group(self, encoded: Encoded, frame: pd.DataFrame, rng: np.random.Generator,
              cancel: CancelToken | None, report: ThrottledProgress
              ) -> tuple[np.ndarray, int]:
        """(group id per record, -1 = suppressed; records moved); progress 0.05-0.4."""
        raise NotImplementedError

    def synthesize_groups(self, encoded: Encoded, groups: np.ndarray,
                          rng: np.random.Generator, progress: ThrottledProgress,
                          cancel: CancelToken | None) -> np.ndarray:
        return synthesize_all(encoded.matrix, groups, rng, self.generator, progress, cancel)

    def claim_text(self) -> str:
        return (f"every cluster holds at least {self.k} records; rows are synthetic from "
                "their cluster's mean and covariance")

    def row_order(self) -> str:
        return "shuffled" if self.shuffle_output else "input"

    # --- the shared pipeline ------------------------------------------------------------

    def run(self, data: pd.DataFrame, definition: DataDefinition, *,
            hierarchies: Mapping[str, Hierarchy] | None = None,
            progress: Progress | None = None,
            cancel: CancelToken | None = None) -> CondensationRelease:
        started = time.perf_counter()
        report = ThrottledProgress(progress)
        seed = self.seed if self.seed is not None else \
            drawn_seed()
        rng = np.random.default_rng(seed)
        definition.check_columns(data.columns)
        identifying = set(definition.identifying)
        attributes = [c for c in data.columns if c not in identifying]
        if not attributes:
            raise ConfigurationError("Condensation needs at least one non-identifying attribute.")
        if len(data) < self.k:
            raise ConfigurationError(
                f"{self.owner_name()}: k = {self.k} exceeds the {len(data)} records; choose "
                f"k of at most {len(data)}.")
        report(0.0, "Encoding attributes")
        encoded = encode(data, definition, attributes, self.types)
        report(0.05, "Grouping records")
        groups, moved = self.group(encoded, data, rng, cancel, report)
        report(0.4, "Generating synthetic records")
        raw = self.synthesize_groups(encoded, groups, rng, report, cancel)
        values, clipped = decode(raw, encoded, clip=self.clip_continuous)
        table = _table(values, encoded, groups, attributes)
        raw[groups < 0] = np.nan  # suppressed records: nothing synthetic, nothing original
        order = rng.permutation(len(table)) if self.shuffle_output else np.arange(len(table))
        release = CondensationRelease(
            table=table.iloc[order].reset_index(drop=True),
            suppressed=(groups < 0)[order], definition=definition, method=self.name,
            parameters={**self.get_params(), "seed": seed},
            claims=(Claim("k-cluster", {"k": self.k}, tuple(attributes), self.claim_text()),),
            input_sha256=table_sha256(data), groups=groups[order], seed=seed,
            synthetic=self.synthesizes,
            elapsed_seconds=time.perf_counter() - started, input_groups=groups, order=order,
            moved_records=moved, clipped=clipped, raw=raw, encoded=encoded)
        if cancel is not None:  # cancelled while the release was built: return nothing
            cancel.raise_if_cancelled()
        report(1.0, "Done")
        return release


def synthesize_all(matrix: np.ndarray, groups: np.ndarray, rng: np.random.Generator,
                   mode: str, progress: ThrottledProgress | None = None,
                   cancel: CancelToken | None = None) -> np.ndarray:
    """Alg. 3 for every group; suppressed records (-1) keep their values (never shown)."""
    raw = matrix.copy()
    members = _members(groups)
    for i, rows in enumerate(members):
        if cancel is not None and i % 16 == 0:
            cancel.raise_if_cancelled()
        raw[rows] = synthesize(matrix[rows], rng, mode)
        if progress is not None:
            progress(0.4 + 0.6 * (i + 1) / max(1, len(members)), "Generating synthetic records")
    return raw


def _members(groups: np.ndarray) -> list[np.ndarray]:
    """Row indices of each group 0..G-1 in ascending row order."""
    kept = np.flatnonzero(groups >= 0)
    order = kept[np.argsort(groups[kept], kind="stable")]
    counts = np.bincount(groups[kept])
    return np.split(order, np.cumsum(counts)[:-1])


def _table(values: dict[str, np.ndarray], encoded: Encoded, groups: np.ndarray,
           attributes: list[str]) -> pd.DataFrame:
    out = {}
    suppressed = groups < 0
    for block in encoded.blocks:
        text = as_text(values[block.name], block.kind)
        text[suppressed] = SUPPRESSED_VALUE
        out[block.name] = text
    return pd.DataFrame(out, columns=attributes)


def scaled(encoded: Encoded, standardize: bool) -> np.ndarray:
    """The matrix z-scored over all records (constant columns left centred), or raw."""
    matrix = encoded.matrix
    if not standardize:
        return matrix
    sd = matrix.std(axis=0)
    sd[sd == 0] = 1.0
    return (matrix - matrix.mean(axis=0)) / sd


@register_method
class Condensation(_ClusterMethod):
    """Aggarwal & Yu's condensation (Gal et al., Alg. 1)."""

    name = "condensation"
    label = "Condensation (Aggarwal & Yu)"
    description = ("Groups each random seed record with its k-1 nearest records and replaces every "
                   "group by synthetic records with the group's mean and covariance.")
    guidance = ("Choose it to share a table of numeric attributes for regression analyses when "
                "synthetic records are acceptable: means and covariances survive within groups "
                "of k, no released row is a real record. Prefer improved condensation for "
                "survival data.")
    params = (*_COMMON, _GENERATOR)

    def group(self, encoded, frame, rng, cancel, report):
        return seeded_groups(scaled(encoded, self.standardize), self.k, rng, cancel), 0


@register_method
class MDAV(_ClusterMethod):
    """MDAV microaggregation with mean replacement (an arxpy extra baseline)."""

    name = "mdav"
    label = "Microaggregation MDAV (arxpy extra)"
    description = ("Groups records by maximum distance to average vector into groups of at least "
                   "k and replaces every attribute by its group mean.")
    guidance = ("Choose it when every released row must stand for real records (no synthetic "
                "values) and group means are acceptable; a classic microaggregation baseline "
                "for numeric attributes.")
    reference = "Domingo-Ferrer & Mateo-Sanz (2002), IEEE TKDE; not in Gal et al."

    def group(self, encoded, frame, rng, cancel, report):
        return mdav_groups(scaled(encoded, self.standardize), self.k, cancel), 0

    synthesizes = False

    def synthesize_groups(self, encoded, groups, rng, progress, cancel):
        return group_means(encoded.matrix, groups)

    def claim_text(self) -> str:
        return f"every group holds at least {self.k} records; attributes are group means"


@register_method
class TFRP(MDAV):
    """TFRP microaggregation (Chang, Li & Huang 2007) as read in spec §2.5 [I]."""

    name = "tfrp"
    label = "Microaggregation TFRP"
    description = ("Two fixed reference points start groups of k nearest records, groups that do "
                   "not lower the within-group error are dissolved, and every attribute is "
                   "replaced by its group mean.")
    guidance = ("An alternative grouping to MDAV with the same guarantee (groups of at least k, "
                "attributes replaced by group means); compare both on your data.")
    reference = "Chang, Li & Huang (2007), J. Syst. Softw. (as read by the spec [I])"

    def group(self, encoded, frame, rng, cancel, report):
        return tfrp_groups(scaled(encoded, self.standardize), self.k, cancel), 0
