"""HORPART: horizontal partitioning of the records into clusters (Loukides et al. 2014,
Fig. 8, rebuilt in spec §2.1), with the split guard and post-merge of gap G1.

A part is split on a code a into the records holding a (D1) and the rest (D2) until it
has fewer than ``max_cluster_size`` records. a is the most frequent candidate code of
the previous code's constraint, else of any constraint, else of all codes (ties: the
smallest code). Supports are counted inside the part. Clusters come out depth first,
D1 before D2, which REFINE's "adjacent clusters" rely on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from arxpy.data.transactions import CodeSets
from arxpy.jobs import CancelToken

SMALL_CLUSTER_MODES = ("guard", "merge")


@dataclass(frozen=True)
class Part:
    """Records of a part (ids in the input) and their codes as flat entries; ``owner``
    holds each entry's record as a position in ``rows``."""

    rows: np.ndarray
    codes: np.ndarray
    owner: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    @classmethod
    def of(cls, sets: CodeSets) -> Part:
        return cls(np.arange(len(sets), dtype=np.int64), sets.indices.astype(np.int64),
                   sets.owners)

    def split(self, code: int) -> tuple[Part, Part]:
        """(records holding ``code``, the others), each keeping its record order."""
        hit = np.zeros(len(self.rows), dtype=bool)
        hit[self.owner[self.codes == code]] = True
        return self._take(hit), self._take(~hit)

    def _take(self, keep: np.ndarray) -> Part:
        renumber = np.cumsum(keep) - 1
        entries = keep[self.owner]
        return Part(self.rows[keep], self.codes[entries], renumber[self.owner[entries]])

    @staticmethod
    def join(parts: list[Part]) -> Part:
        offsets = np.cumsum([0] + [len(p) for p in parts[:-1]])
        return Part(np.concatenate([p.rows for p in parts]),
                    np.concatenate([p.codes for p in parts]),
                    np.concatenate([p.owner + o for p, o in zip(parts, offsets, strict=True)]))


def horpart(sets: CodeSets, *, min_size: int, max_cluster_size: int,
            constraint_of: np.ndarray, ignore: np.ndarray, small_clusters: str = "guard",
            cancel: CancelToken | None = None,
            progress: Callable[[float], None] | None = None) -> list[Part]:
    """Clusters of at least ``min_size`` records (max(k, l)), in depth-first order.

    ``constraint_of[c]`` is the constraint of code c (-1: none); ``ignore`` marks codes
    never split on (the sensitive codes of the l-diversity variant). With ``guard`` a
    code is eligible only if both parts keep ``min_size`` records; post-merge runs in
    both modes as the safety net.
    """
    guard = small_clusters == "guard"
    n_codes = len(sets.vocabulary)
    clusters: list[Part] = []
    # The explicit stack replaces the recursion (parts can nest hundreds deep).
    stack: list[tuple[Part, np.ndarray, int]] = [(Part.of(sets), ignore.copy(), -1)]
    done = 0
    while stack:
        part, ignored, constraint = stack.pop()
        if cancel is not None and len(clusters) % 256 == 0:
            cancel.raise_if_cancelled()
        code = _split_code(part, ignored, constraint, constraint_of, n_codes, min_size,
                           max_cluster_size, guard)
        if code < 0:
            if len(part):  # the literal HORPART leaves D2 empty when every record has a
                clusters.append(part)
            done += len(part)
            if progress is not None and len(clusters) % 256 == 0:
                progress(done / max(1, len(sets)))
            continue
        with_code, without = part.split(code)
        below = ignored.copy()
        below[code] = True
        stack.append((without, ignored, -1))  # popped after D1's whole subtree
        stack.append((with_code, below, int(constraint_of[code])))
    return merge_small_clusters(clusters, min_size)


def _split_code(part: Part, ignored: np.ndarray, constraint: int, constraint_of: np.ndarray,
                n_codes: int, min_size: int, max_cluster_size: int, guard: bool) -> int:
    """The code HORPART splits ``part`` on (Fig. 8 lines 2-9), -1 to make it a cluster."""
    size = len(part)
    if size < max_cluster_size:
        return -1
    support = np.bincount(part.codes, minlength=n_codes)
    eligible = (support > 0) & ~ignored
    if guard:
        eligible &= (support >= min_size) & (support <= size - min_size)
    stages = [eligible & (constraint_of >= 0), eligible]
    if constraint >= 0:
        stages.insert(0, eligible & (constraint_of == constraint))
    for stage in stages:
        if stage.any():
            return int(np.argmax(np.where(stage, support, -1)))  # first maximum: smallest code
    return -1


def merge_small_clusters(clusters: list[Part], min_size: int) -> list[Part]:
    """Each cluster under ``min_size`` joins the one before it (the first joins the next)."""
    groups: list[list[Part]] = []
    sizes: list[int] = []
    pending: list[Part] = []
    for cluster in clusters:
        group = [*pending, cluster]
        size = sum(len(p) for p in group)
        pending = []
        if size >= min_size:
            groups.append(group)
            sizes.append(size)
        elif groups:
            groups[-1].extend(group)
            sizes[-1] += size
        else:
            pending = group
    if pending:  # fewer than min_size records in all: the caller refuses that earlier
        groups.append(pending)
    return [group[0] if len(group) == 1 else Part.join(group) for group in groups]
