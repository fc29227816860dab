"""An independent k^m-anonymity checker for published disassociated data.

Definition 1 of Loukides et al. 2014 (J Biomed Inform 50:46-61) through the chunk rules
of Terrovitis et al. 2012 (spec 002 §1, §5 items 1-2): a publication is k^m-anonymous if

* every cluster holds at least k records, and
* in every record chunk and every shared chunk, each itemset of 1..m codes that occurs
  in some subrecord occurs in at least k subrecords.

This module reads only the published JSON (:mod:`arxpy.data.disassociated`) and shares
no code with the disassociation algorithm, so it can judge that algorithm's output (and
any other publication in the schema). It reports the *minimal* violating itemsets: each
occurs in 1..k-1 subrecords while every proper subset occurs in at least k (a larger
itemset containing a violation violates too and adds nothing to read).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arxpy.data.disassociated import (
    MAX_M,
    MAX_M_TEXT,
    PublishedChunk,
    PublishedFormatError,
    cluster_sizes,
    iter_chunks,
    validate_published,
)
from arxpy.data.itemsets import count_itemsets
from arxpy.data.transactions import CodeSets
from arxpy.errors import ConfigurationError

#: Violations kept in a result (the count of all of them is kept regardless).
MAX_LISTED = 10_000
#: Most itemsets of up to m codes (occurrences in subrecords) counted in one chunk.
MAX_CHUNK_ITEMSETS = 5_000_000


@dataclass(frozen=True)
class ItemsetViolation:
    """An itemset of a chunk shared by fewer than k (but at least one) subrecords."""

    location: str
    itemset: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class ClusterViolation:
    """A cluster of fewer than k records."""

    location: str
    size: int


@dataclass
class KmCheck:
    """The verdict on one publication for a given k and m."""

    k: int
    m: int
    clusters: int = 0
    record_chunks: int = 0
    shared_chunks: int = 0
    itemset_violations: list[ItemsetViolation] = field(default_factory=list)
    cluster_violations: list[ClusterViolation] = field(default_factory=list)
    violations_found: int = 0  # itemset violations, including any not listed
    elapsed_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.violations_found == 0 and not self.cluster_violations

    def describe(self) -> str:
        """The verdict in one sentence."""
        if self.ok:
            return (f"k^m-anonymous (k = {self.k}, m = {self.m}): all {self.record_chunks} "
                    f"record chunks and {self.shared_chunks} shared chunks pass; all "
                    f"{self.clusters} clusters have >= {self.k} records.")
        return (f"NOT k^m-anonymous (k = {self.k}, m = {self.m}): "
                f"{self.violations_found} itemsets shared by fewer than {self.k} "
                f"subrecords, {len(self.cluster_violations)} clusters with fewer than "
                f"{self.k} records.")

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k, "m": self.m, "k_m_anonymous": self.ok,
            "clusters": self.clusters, "record_chunks": self.record_chunks,
            "shared_chunks": self.shared_chunks,
            "itemset_violations": self.violations_found,
            "undersized_clusters": len(self.cluster_violations),
            "violations": [{"location": v.location, "itemset": list(v.itemset),
                            "count": v.count} for v in self.itemset_violations],
            "clusters_below_k": [{"location": v.location, "size": v.size}
                                 for v in self.cluster_violations],
            "elapsed_seconds": self.elapsed_seconds,
        }


def check_km_anonymity(published: dict[str, Any], k: int | None = None, m: int | None = None,
                       *, progress: Callable[[float, str], None] | None = None,
                       cancel: Any = None) -> KmCheck:
    """Check a published document (schema v1) for k^m-anonymity.

    ``k`` and ``m`` default to the document's own; give them to check a stronger claim.
    Raises PublishedFormatError for a malformed document, ConfigurationError for k or m
    below 1.
    """
    validate_published(published)
    k = published["k"] if k is None else k
    m = published["m"] if m is None else m
    _check_parameters(k, m)
    started = time.perf_counter()
    result = KmCheck(k=k, m=m)
    check = cancel.raise_if_cancelled if cancel is not None else None
    sizes = cluster_sizes(published)
    result.clusters = len(sizes)
    result.cluster_violations = _small_clusters(published, k)
    chunks = list(iter_chunks(published))
    _check_chunk_work(chunks, m)
    for done, chunk in enumerate(chunks):
        if chunk.kind == "record":
            result.record_chunks += 1
        else:
            result.shared_chunks += 1
        for itemset, count in violating_itemsets(chunk.subrecords, k, m, check=check):
            result.violations_found += 1
            if len(result.itemset_violations) < MAX_LISTED:
                result.itemset_violations.append(ItemsetViolation(chunk.location, itemset,
                                                                  count))
        if progress is not None and done % 64 == 0:
            progress(done / max(len(chunks), 1), f"checking chunk {done + 1} of {len(chunks)}")
    result.elapsed_seconds = time.perf_counter() - started
    return result


def violating_itemsets(subrecords: Sequence[Iterable[str]], k: int, m: int, *,
                       check: Callable[[], None] | None = None
                       ) -> list[tuple[tuple[str, ...], int]]:
    """Minimal itemsets of 1..m codes occurring in 1..k-1 of ``subrecords`` (codes sorted
    within an itemset; itemsets by size, then codes)."""
    _check_parameters(k, m)
    sets = CodeSets.from_sets(subrecords)
    found = []
    for level in count_itemsets(sets, m, k, check=check):
        for row in (level.counts < k).nonzero()[0]:
            codes = tuple(sets.vocabulary[c] for c in level.itemsets[row])
            found.append((codes, int(level.counts[row])))
    return found


def _check_parameters(k: int, m: int) -> None:
    for name, value in (("k", k), ("m", m)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigurationError(f"{name} must be a whole number >= 1, not {value!r}.")
    if m > MAX_M:
        raise ConfigurationError(f"m = {m} cannot be checked: {MAX_M_TEXT}.")


def _check_chunk_work(chunks: Sequence[PublishedChunk], m: int) -> None:
    """Refuse a chunk whose subrecords hold more itemsets of up to m codes than
    :data:`MAX_CHUNK_ITEMSETS`: a short forged document could otherwise make the count
    run for hours (a disassociation's chunks hold a few hundred)."""
    for chunk in chunks:
        lengths = Counter(len(subrecord) for subrecord in chunk.subrecords)
        work = sum(count * sum(math.comb(length, s) for s in range(1, m + 1))
                   for length, count in lengths.items())
        if work > MAX_CHUNK_ITEMSETS:
            raise PublishedFormatError(
                f"{chunk.location} holds {work:,} itemsets of up to m = {m} codes, more "
                f"than the {MAX_CHUNK_ITEMSETS:,} a check counts per chunk (a "
                "disassociation's chunks hold a few hundred); is it the right file?")


def _small_clusters(published: dict[str, Any], k: int) -> list[ClusterViolation]:
    return [ClusterViolation(f"joint cluster {j}, cluster {c}", cluster["size"])
            for j, joint in enumerate(published["joint_clusters"])
            for c, cluster in enumerate(joint["clusters"]) if cluster["size"] < k]
