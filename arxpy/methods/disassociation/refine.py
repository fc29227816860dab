"""REFINE: joint clusters and shared chunks (Loukides et al. 2014, Sec. 4; the paper
gives no pseudo-code, so the joining strategy is the spec's inference, §2.3 and G4).

Adjacent units (clusters in HORPART order, or joint clusters built earlier) are joined
when codes that sit in the item chunks of both can be published as shared chunks:
the members' records projected on those codes are chunked by VERPART's lines 5-20
(same order, same k^m test, same constraint rule). Passes repeat until one changes
nothing. A code already in a record chunk or a shared chunk of either unit is never
taken, so each occurrence is published in exactly one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from arxpy.jobs import CancelToken
from arxpy.methods.disassociation.horpart import Part
from arxpy.methods.disassociation.verpart import Incidence, chunk_domains


@dataclass
class Cluster:
    """A cluster's records and its chunk domains (global code ids)."""

    part: Part
    record_domains: list[np.ndarray]
    item_chunk: set[int]


@dataclass(frozen=True)
class SharedChunk:
    """A chunk over the records of the clusters ``members`` (their indices), stored with
    the chunk because later joins make the unit larger than the chunk's scope."""

    domain: np.ndarray
    members: tuple[int, ...]


@dataclass
class Unit:
    """A joint cluster (or a single cluster): members, shared chunks, the codes it
    publishes in record or shared chunks and in its members' item chunks, and the
    item-chunk entries of its records (row counted over the members in order)."""

    members: list[int]
    shared: list[SharedChunk] = field(default_factory=list)
    chunked_codes: set[int] = field(default_factory=set)
    item_codes: set[int] = field(default_factory=set)
    records: int = 0
    item_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    item_entries: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: Occurrences of every code in the item-chunk entries (index: code id).
    item_counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @classmethod
    def of(cls, index: int, cluster: Cluster, n_codes: int) -> Unit:
        in_items = np.zeros(n_codes, dtype=bool)
        in_items[list(cluster.item_chunk)] = True
        keep = in_items[cluster.part.codes]
        return cls([index], [], {int(c) for d in cluster.record_domains for c in d},
                   set(cluster.item_chunk), len(cluster.part), cluster.part.owner[keep],
                   cluster.part.codes[keep],
                   np.bincount(cluster.part.codes[keep], minlength=n_codes))


def refine(clusters: list[Cluster], *, k: int, m: int, constraint_of: np.ndarray,
           sensitive: np.ndarray, cancel: CancelToken | None = None) -> list[Unit]:
    """Joint clusters in HORPART order; shared chunks added, item chunks of the members
    reduced in place. Passes stop when one joins nothing (at most one per cluster)."""
    n_codes = len(constraint_of)
    units = [Unit.of(i, cl, n_codes) for i, cl in enumerate(clusters)]
    excluded = set(np.flatnonzero(sensitive).tolist())
    for _ in range(len(clusters)):
        joined: list[Unit] = []
        i, changed = 0, False
        while i < len(units):
            if cancel is not None and i % 128 == 0:
                cancel.raise_if_cancelled()
            unit = None
            if i + 1 < len(units):
                unit = _join(units[i], units[i + 1], clusters, k, m, constraint_of, excluded)
            if unit is None:
                joined.append(units[i])
                i += 1
            else:
                joined.append(unit)
                changed = True
                i += 2  # the joint unit meets its right neighbour in the next pass
        units = joined
        if not changed:
            break
    return units


def _join(first: Unit, second: Unit, clusters: list[Cluster], k: int, m: int,
          constraint_of: np.ndarray, excluded: set[int]) -> Unit | None:
    """The joint unit of two adjacent units, or None if no shared chunk can be built.

    The projection uses item-chunk entries only: a refining code is in no record or
    shared chunk of either unit, so its occurrences there are all item-chunk ones.
    """
    refining = (first.item_codes & second.item_codes) - first.chunked_codes \
        - second.chunked_codes - excluded
    if not refining:
        return None
    candidates = np.array(sorted(refining), dtype=np.int64)
    counts = first.item_counts + second.item_counts
    frequent = candidates[counts[candidates] >= k]  # T_s': joint support at least k
    if frequent.size == 0:
        return None
    lookup = np.zeros(len(constraint_of), dtype=bool)
    lookup[frequent] = True
    rows = np.concatenate([first.item_rows, second.item_rows + first.records])
    entries = np.concatenate([first.item_entries, second.item_entries])
    take = lookup[entries]
    incidence = Incidence.of(first.records + second.records, rows[take], entries[take],
                             frequent)
    domains = chunk_domains(incidence, k=k, m=m, constraint_of=constraint_of)
    placed = frequent.tolist()  # every code of support >= k lands in a domain
    members = first.members + second.members
    for member in members:
        clusters[member].item_chunk.difference_update(placed)
    kept = ~lookup[entries]
    counts[placed] = 0
    return Unit(members, first.shared + second.shared +
                [SharedChunk(d, tuple(members)) for d in domains],
                first.chunked_codes | second.chunked_codes | set(placed),
                (first.item_codes | second.item_codes) - set(placed),
                first.records + second.records, rows[kept], entries[kept], counts)
