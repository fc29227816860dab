"""Disassociation on the methods protocol (Loukides, Liagouris, Gkoulalas-Divanis &
Terrovitis 2014, Fig. 6): HORPART, VERPART per cluster, REFINE, then publication.

The release's document (:attr:`DisassociationRelease.published`, schema v1) is what is
published. Its ``table`` is NOT the input with codes moved around: putting a record's
chunk parts back together is exactly the association disassociation hides. The table is
one random reconstruction built only from the published document (a synthetic possible
original), one row per record in shuffled order, so Utility, Risk, Compare and Export
work on releases of this method as on any other without leaking anything.
"""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.data.disassociated import MAX_M, reconstruct
from arxpy.data.icd9 import base_code, normalize_code
from arxpy.data.transactions import (
    DEFAULT_CODE_DELIMITER,
    CodeSets,
    number_occurrences,
    split_cell,
)
from arxpy.data.utility_policy import (
    POLICY_HELP,
    constraint_index,
    parse_policy,
    policy_constraints,
    policy_files,
    published_policy,
)
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.methods.base import Method
from arxpy.methods.disassociation.horpart import SMALL_CLUSTER_MODES, horpart
from arxpy.methods.disassociation.publish import publish, published_json
from arxpy.methods.disassociation.refine import Cluster, Unit, refine
from arxpy.methods.disassociation.verpart import verpart
from arxpy.methods.registry import register_method
from arxpy.params import Param, drawn_seed
from arxpy.privacy.km_anonymity import check_km_anonymity
from arxpy.release import Claim, ClaimCheck, Release, register_claim_checker, table_sha256

REFERENCE = ("Loukides, Liagouris, Gkoulalas-Divanis & Terrovitis (2014), Disassociation "
             "for electronic health record privacy, J. Biomed. Inform. 50:46-61")

#: Known weakness of the method, shown with it (spec §1).
CAVEAT = ("Disassociation does not defend against the 'cover problem' attack on tightly "
          "coupled codes (Awad et al., Safe Disassociation of Set-Valued Datasets, 2019).")

#: Where m starts to make the k^m test expensive on large clusters.
COSTLY_M = 4


@register_claim_checker("k^m-anonymity")
def check_km_claim(release: Release, claim: Claim) -> ClaimCheck:
    """k^m-anonymity is a property of the published document (every record chunk, every
    cluster): the independent checker of :mod:`arxpy.privacy.km_anonymity` reads it at
    the claim's k and m; the synthetic table proves nothing."""
    document = getattr(release, "published", None)
    if not document:
        return ClaimCheck(claim, None, "the release carries no published document")
    check = check_km_anonymity(dict(document), int(claim.parameters["k"]),
                               int(claim.parameters["m"]))
    return ClaimCheck(claim, bool(check.ok), check.describe())


@dataclass(frozen=True, eq=False)
class DisassociationRelease(Release):
    """A release plus the published document and per-phase timings (seconds).

    ``table`` is one random reconstruction of ``published`` (synthetic; see the module
    docstring) and ``groups`` the cluster of each of its rows.
    """

    published: Mapping[str, Any] = field(default_factory=dict)
    timings: Mapping[str, float] = field(default_factory=dict)

    def input_rows(self) -> np.ndarray | None:
        """A reconstruction's rows stand for no particular input record."""
        return None

    def published_json(self) -> str:
        """The document as published: byte-identical for the same input and seed."""
        return published_json(self.published)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["timings"] = dict(self.timings)
        return out


@dataclass(frozen=True)
class Disassociated:
    """The published document and what only the custodian may see: the input records of
    every cluster in document order, the policy's constraints, per-phase timings."""

    published: dict[str, Any]
    cluster_records: list[np.ndarray]
    constraints: list[tuple[str, ...]]
    timings: dict[str, float]


@register_method
class Disassociation(Method):
    """Disassociation of set-valued codes into k^m-anonymous chunks."""

    name = "disassociation"
    label = "Disassociation (k^m-anonymity for sets of codes)"
    description = ("Clusters the records and splits each cluster's codes into chunks that are "
                   "k^m-anonymous, publishing rare codes only as a set per cluster: an attacker "
                   "who knows up to m codes of a patient finds at least k candidate records, and "
                   "no code is generalized or suppressed.")
    guidance = ("Choose it for diagnosis or procedure codes per patient (set-valued data), when "
                "every code must stay as it is and an attacker may know up to m codes of a "
                "patient.")
    reference = REFERENCE
    params = (
        Param("k", "int", low=2, suggested=5, label="k", unit="records",
              help="smallest number of candidate records for any m known codes",
              step="Def. 1"),
        Param("m", "int", 2, low=1, high=MAX_M, label="m", unit="codes",
              help=f"most codes an attacker knows (costly from {COSTLY_M})", step="Def. 1"),
        Param("codes_column", "attribute", label="codes column",
              help="the attribute holding each record's codes"),
        Param("max_cluster_size", "int", None, optional=True, low=2, label="max cluster size",
              unit="records", help="HORPART stops splitting below this size (default 2k)",
              step="Fig. 8 line 2, footnote 4"),
        Param("policy", "text", "none", label="utility policy", help=POLICY_HELP,
              step="Sec. 3.1, Table 2", reads_files=policy_files),
        Param("small_clusters", "choice", "guard", choices=SMALL_CLUSTER_MODES,
              label="small clusters", help="guard: split only when both parts keep k "
              "records (then merge); merge: the paper's split, then merge clusters under k [I]",
              step="Fig. 8 (gap G1)"),
        Param("refine", "bool", True, label="refine",
              help="join adjacent clusters through shared chunks", step="Fig. 6 line 4"),
        Param("sensitive_codes", "text", None, optional=True, label="sensitive codes",
              help="codes always published in item chunks (l-diversity variant), separated "
              "by commas, semicolons or spaces", step="Sec. 7.2"),
        Param("l", "int", None, optional=True, low=2, label="l", unit="records",
              help="smallest cluster size with sensitive codes (default k) [I]",
              step="Sec. 7.2"),
        Param("multiset", "bool", False, label="multiset",
              help="keep repeated codes as code#1, code#2, ... instead of dropping them",
              step="Sec. 7.1"),
        Param("delimiter", "text", DEFAULT_CODE_DELIMITER, label="code delimiter",
              help="separates the codes in a cell"),
        Param("seed", "int", None, optional=True, low=0, label="seed",
              help="seed of the shuffles; keep it secret (it undoes them). Default: drawn "
              "and reported"),
    )

    def check_together(self) -> None:
        parse_policy(self.policy)
        if self.max_cluster_size is not None and self.max_cluster_size < self.k:
            raise ConfigurationError(
                f"{self.owner_name()}: max_cluster_size ({self.max_cluster_size}) must be at "
                f"least k ({self.k}); the paper uses 2k.")
        if not self.delimiter or "." in self.delimiter:
            raise ConfigurationError(
                f"{self.owner_name()}: the code delimiter {self.delimiter!r} cannot separate "
                "ICD codes (they contain '.'); use ';', '|' or a space.")

    @property
    def min_cluster_size(self) -> int:
        """Every cluster holds at least max(k, l) records."""
        return max(self.k, self.l or 0)

    def row_order(self) -> str:
        return "unlinked"  # a reconstruction: rows stand for no particular record

    def cost_warning(self) -> str | None:
        """A warning for settings that may run long, or None."""
        if self.m >= COSTLY_M:
            return (f"m = {self.m}: the k^m test counts every itemset of up to {self.m} codes "
                    "in each chunk; large clusters of long records may take minutes.")
        return None

    def sensitive_set(self) -> set[str]:
        return set(re.split(r"[,;\s]+", self.sensitive_codes.strip())) - {""} \
            if self.sensitive_codes else set()

    def read_codes(self, data: pd.DataFrame, cancel: CancelToken | None = None) -> CodeSets:
        """The codes column as code sets (multiset mode: the j-th repeat as ``c#j``)."""
        if self.codes_column not in data.columns:
            raise ConfigurationError(
                f"{self.owner_name()}: no column '{self.codes_column}' for the codes; the "
                f"columns are {', '.join(map(str, data.columns))}.")
        column = data[self.codes_column]
        if not self.multiset:
            return CodeSets.from_column(column, self.delimiter, cancel=cancel)
        return CodeSets.from_sets((number_occurrences(split_cell(v, self.delimiter))
                                   for v in column), cancel=cancel)

    def run(self, data: pd.DataFrame, definition: DataDefinition, *,
            hierarchies: Mapping[str, Hierarchy] | None = None,
            progress: Progress | None = None,
            cancel: CancelToken | None = None) -> DisassociationRelease:
        started = time.perf_counter()
        report = ThrottledProgress(progress)
        definition.check_columns(data.columns)
        seed = self.seed if self.seed is not None else \
            drawn_seed()
        outcome = self.disassociate(self.read_codes(data, cancel), seed=seed,
                                    progress=report, cancel=cancel)
        clock = time.perf_counter()
        table, groups = self._synthetic_table(outcome.published, seed, cancel)
        timings = {**outcome.timings, "reconstruct": time.perf_counter() - clock}
        release = DisassociationRelease(
            table=table, suppressed=np.zeros(len(table), dtype=bool),
            definition=self._table_definition(definition), method=self.name,
            parameters={**self.get_params(), "seed": seed}, claims=(self._claim(),),
            input_sha256=table_sha256(data), groups=groups, seed=seed, synthetic=True,
            elapsed_seconds=time.perf_counter() - started, published=outcome.published,
            timings=timings)
        if cancel is not None:  # cancelled while the release was built: return nothing
            cancel.raise_if_cancelled()
        report(1.0, "Done")
        return release

    def disassociate(self, sets: CodeSets, *, seed: int,
                     progress: Progress | None = None,
                     cancel: CancelToken | None = None) -> Disassociated:
        """Fig. 6 on code sets: HORPART, VERPART per cluster, REFINE, publication."""
        report = progress or (lambda fraction, message: None)
        self._check_input(sets)
        report(0.0, "Preparing the utility policy")
        constraints = policy_constraints(self.policy, sets)
        constraint_of = constraint_index(constraints, sets.vocabulary)
        sensitive = self._sensitive_mask(sets.vocabulary)
        timings: dict[str, float] = {}

        clock = time.perf_counter()
        parts = horpart(sets, min_size=self.min_cluster_size,
                        max_cluster_size=self.max_cluster_size or 2 * self.k,
                        constraint_of=constraint_of, ignore=sensitive,
                        small_clusters=self.small_clusters, cancel=cancel,
                        progress=lambda f: report(0.3 * f, "Clustering records (HORPART)"))
        timings["horpart"] = time.perf_counter() - clock

        clock = time.perf_counter()
        clusters = []
        for i, part in enumerate(parts):
            if cancel is not None:  # one cluster takes well under 200 ms
                cancel.raise_if_cancelled()
            domains, items = verpart(len(part), part.owner, part.codes, k=self.k, m=self.m,
                                     constraint_of=constraint_of, sensitive=sensitive)
            clusters.append(Cluster(part, domains, set(items.tolist())))
            report(0.3 + 0.4 * (i + 1) / len(parts), "Chunking clusters (VERPART)")
        timings["verpart"] = time.perf_counter() - clock

        clock = time.perf_counter()
        report(0.7, "Joining clusters (REFINE)")
        if self.refine:
            units = refine(clusters, k=self.k, m=self.m, constraint_of=constraint_of,
                           sensitive=sensitive, cancel=cancel)
        else:
            units = [Unit([i]) for i in range(len(clusters))]
        timings["refine"] = time.perf_counter() - clock

        clock = time.perf_counter()
        report(0.9, "Publishing chunks")
        with _collector_paused():
            published = publish(clusters, units, sets.vocabulary, k=self.k, m=self.m,
                                 params=self._published_params(),
                                 rng=np.random.default_rng(seed), cancel=cancel)
        timings["publish"] = time.perf_counter() - clock
        members = [clusters[i].part.rows for unit in units for i in unit.members]
        return Disassociated(published, members, constraints, timings)

    # --- steps ------------------------------------------------------------------------

    def _check_input(self, sets: CodeSets) -> None:
        if len(sets) == 0 or sets.n_codes == 0:
            raise ConfigurationError(
                f"{self.owner_name()}: the column '{self.codes_column}' holds no codes; "
                f"check the column and the code delimiter {self.delimiter!r}.")
        if len(sets) < self.min_cluster_size:
            raise ConfigurationError(
                f"{self.owner_name()}: {len(sets)} records cannot form a cluster of "
                f"{self.min_cluster_size}; choose k (and l) of at most {len(sets)}.")

    def _sensitive_mask(self, vocabulary: tuple[str, ...]) -> np.ndarray:
        # Compared normalised: 296.00 in the list marks 29600 in the data and back.
        wanted = {normalize_code(c) for c in self.sensitive_set()}
        return np.array([normalize_code(base_code(c)) in wanted for c in vocabulary],
                        dtype=bool)

    def _published_params(self) -> dict[str, Any]:
        """Settings a reader needs; never the seed (it would undo the shuffles)."""
        return {"max_cluster_size": self.max_cluster_size or 2 * self.k,
                "policy": published_policy(self.policy),
                "small_clusters": self.small_clusters, "refine": self.refine,
                "multiset": self.multiset, "l": self.l,
                "sensitive_codes": sorted(self.sensitive_set())}

    def _synthetic_table(self, published: Mapping[str, Any], seed: int,
                         cancel: CancelToken | None = None
                         ) -> tuple[pd.DataFrame, np.ndarray]:
        """One reconstruction of the document, rows shuffled, and each row's cluster."""
        rng = np.random.default_rng([seed, 1])
        with _collector_paused():
            rows = reconstruct(published, rng, "one", cancel)
        sizes = [c["size"] for j in published["joint_clusters"] for c in j["clusters"]]
        cluster_of_row = np.repeat(np.arange(len(sizes)), sizes)
        order = rng.permutation(len(rows))
        codes = rows.subset(order).to_column(self.delimiter, cancel)
        return pd.DataFrame({self.codes_column: codes}), cluster_of_row[order]

    def _table_definition(self, definition: DataDefinition) -> DataDefinition:
        return DataDefinition([definition[self.codes_column]])

    def _claim(self) -> Claim:
        return Claim(
            "k^m-anonymity", {"k": self.k, "m": self.m}, (self.codes_column,),
            f"any {self.m} codes of a record match at least {self.k} records in every "
            "possible original of the published document; every cluster holds at least "
            f"{self.min_cluster_size} records. The table is a synthetic random "
            "reconstruction; the published document is the release.",
            min_class_size=self.min_cluster_size)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Publication builds millions of small lists (mostly empty subrecords of shared
    chunks) and no cycles; the collector's full passes over them made it quadratic."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
