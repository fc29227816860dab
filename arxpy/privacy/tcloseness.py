"""t-closeness of a sensitive attribute with ARX's three ground distances.

Li, Li, Venkatasubramanian: t-Closeness: Privacy beyond k-anonymity and l-diversity
(ICDE 2007), Section 4.2: the Earth Mover's Distance between a class's distribution of
the sensitive values and their distribution in the whole dataset must be at most t, with
- equal distance: every pair of values 1 apart, so EMD = half the L1 distance;
- ordered distance: |i - j| / (m - 1) on the m sorted values, so
  EMD = sum_k |r_1 + ... + r_k| / (m - 1) with r = p - q in value order;
- hierarchical distance: level(lowest common ancestor) / H over a generalization hierarchy
  of height H. ARX's algorithm matches the extras of each node bottom-up; its costs
  telescope to (1/H) times the sum, over the nodes of every level below the root, of
  each node's positive extra, which is how it is computed here.

Each EMD is computed for all classes at once from the sparse per-class triples (ordered
distance from a (classes x values) table when that is small), with exact integer
numerators: class frequencies p = n / size and global frequencies q = G / N are both
scaled by N * size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from arxpy.arrays import count_distinct
from arxpy.data.definition import DataKind
from arxpy.errors import ConfigurationError
from arxpy.formatting import plain, plural
from arxpy.lattice.classes import Distribution, EquivalenceClasses
from arxpy.lattice.encoding import EncodedData, TrackedAttribute
from arxpy.lattice.grouping import dense_enough
from arxpy.params import Param
from arxpy.privacy.registry import register_privacy_model
from arxpy.privacy.sensitive import ATTRIBUTE, SensitiveAttributeModel

DISTANCES = ("equal", "hierarchical", "ordered")


def class_sums(class_index: np.ndarray, values: np.ndarray, n_classes: int) -> np.ndarray:
    """Exact int64 per-class sums of ``values``; ``class_index`` must be non-decreasing."""
    ends = np.cumsum(np.bincount(class_index, minlength=n_classes))
    running = np.concatenate(([0], np.cumsum(values, dtype=np.int64)))
    # Differences of a wrapped cumulative sum stay exact while each class sum fits in int64.
    return running[ends] - running[np.concatenate(([0], ends[:-1]))]


def positive_excess(class_index: np.ndarray, node: np.ndarray, count: np.ndarray,
                    sizes: np.ndarray, mass: np.ndarray, n_records: int) -> np.ndarray:
    """Per class, the exact int64 sum over its triples of max(count * N - mass * size, 0).

    That is N * size times the mass by which the class's frequency of each node exceeds
    the global one, for sparse triples with one (class, node) pair each and
    ``class_index`` non-decreasing.
    """
    excess = count * n_records - mass[node] * sizes[class_index]
    np.maximum(excess, 0, out=excess)
    if n_records**2 < 2**53:  # each class total is at most N * size <= N**2: exact float
        summed = np.bincount(class_index, weights=excess, minlength=sizes.size)
        return summed.astype(np.int64)
    return class_sums(class_index, excess, sizes.size)


def equal_distance_emd(
    dist: Distribution, sizes: np.ndarray, global_counts: np.ndarray
) -> np.ndarray:
    """Per class, EMD with equal ground distance: (1/2) sum_v |p_v - q_v|, in [0, 1]."""
    n_records = int(global_counts.sum())
    # sum_v (p_v - q_v) = 0, so half the L1 distance is the sum of the positive
    # differences; absent values (p_v = 0) have none, so the present triples suffice.
    numerator = positive_excess(dist.class_index, dist.value, dist.count, sizes,
                                global_counts, n_records)
    return numerator / (float(n_records) * sizes)


@dataclass(frozen=True)
class OrderedDomain:
    """The sorted domain of a sensitive attribute for ordered-distance EMD."""

    rank: np.ndarray  # value code -> position among the m present values (-1 if absent)
    cumulative: np.ndarray  # (m,) global counts summed in value order; last = N
    prefix: np.ndarray  # (m + 1,) prefix[k] = cumulative[0] + ... + cumulative[k - 1]
    #: Do value codes ascend with the order (codes of numbers and dates usually do)? Then
    #: triples sorted by (class, value) are sorted by (class, rank) too.
    codes_in_order: bool = False

    @classmethod
    def from_order(cls, order: np.ndarray, global_counts: np.ndarray) -> OrderedDomain:
        """``order`` lists the codes of the present values, lowest first."""
        rank = np.full(global_counts.size, -1, dtype=np.int64)
        rank[order] = np.arange(order.size)
        cumulative = np.cumsum(global_counts[order].astype(np.int64))
        prefix = np.concatenate(([0], np.cumsum(cumulative)))
        return cls(rank, cumulative, prefix, bool((np.diff(order) > 0).all()))


def cumulative_table_pays(cells: int, entries: int) -> bool:
    """Are a (classes x values) table's running sums cheaper than sorting ``entries``
    triples? Measured on Adult and the synthetic tables: up to about 6 cells a triple."""
    return cells <= 6 * entries


def _segment_sums(s: np.ndarray, size: np.ndarray, a: np.ndarray, b: np.ndarray,
                  domain: OrderedDomain) -> np.ndarray:
    """sum_{k=a}^{b-1} |s - cumulative[k] * size| for each segment (all int64)."""
    cumulative, prefix = domain.cumulative, domain.prefix
    # cumulative is non-decreasing: terms switch sign once, at the first k with
    # cumulative[k] * size >= s, i.e. cumulative[k] >= ceil(s / size).
    x = np.clip(np.searchsorted(cumulative, -(-s // size), side="left"), a, b)
    below = s * (x - a) - size * (prefix[x] - prefix[a])
    above = size * (prefix[b] - prefix[x]) - s * (b - x)
    return below + above


def ordered_distance_emd(
    dist: Distribution, sizes: np.ndarray, domain: OrderedDomain
) -> np.ndarray:
    """Per class, EMD with ordered ground distance (ARX's normalization by m - 1), in [0, 1]."""
    n_classes, m = sizes.size, domain.cumulative.size
    if m <= 1:
        return np.zeros(n_classes)
    n_records = int(domain.cumulative[-1])
    rank = domain.rank[dist.value]
    if cumulative_table_pays(n_classes * m, dist.count.size):
        # Running sums of each class's counts in value order, one table row per class.
        table = np.bincount(dist.class_index * m + rank, weights=dist.count,
                            minlength=n_classes * m).astype(np.int64).reshape(n_classes, m)
        running = np.cumsum(table, axis=1)[:, :-1]
        gap = running * n_records - sizes[:, None] * domain.cumulative[:-1]
        total = np.abs(gap, out=gap).sum(axis=1)
    else:
        total = _ordered_numerators(dist, rank, sizes, domain)
    return total / (float(m - 1) * n_records * sizes)


def _ordered_numerators(dist: Distribution, rank: np.ndarray, sizes: np.ndarray,
                        domain: OrderedDomain) -> np.ndarray:
    """sum_k |S_k * N - cumulative[k] * size| per class, from the triples sorted by rank:
    between two of a class's values its running sum S_k is constant."""
    n_classes, m = sizes.size, domain.cumulative.size
    n_records = int(domain.cumulative[-1])
    if domain.codes_in_order:  # Distribution's (class, value) order is the one needed
        cls, pos, count = dist.class_index, rank, dist.count
    else:
        # Stable argsort of one int64 key is far faster than lexsort (runs within classes).
        order = np.argsort(dist.class_index * m + rank, kind="stable")
        cls, pos, count = dist.class_index[order], rank[order], dist.count[order]
    distinct = np.bincount(cls, minlength=n_classes)
    first = np.cumsum(distinct) - distinct
    running = np.cumsum(count)
    before_class = (running - count)[first]  # records of earlier classes
    class_cumulative = running - before_class[cls]
    # Triple j opens the segment [its rank, next rank in the class (or m)).
    following = np.empty_like(pos)
    following[:-1] = pos[1:]
    following[first + distinct - 1] = m
    size = sizes[cls]
    segments = _segment_sums(class_cumulative * n_records, size, pos, following, domain)
    head = sizes * domain.prefix[pos[first]]  # ranks before the class's lowest value
    return class_sums(cls, segments, n_classes) + head


@dataclass(frozen=True)
class HierarchyTree:
    """A sensitive attribute's hierarchy as maps from leaf codes to their ancestors."""

    ancestors: tuple[np.ndarray, ...]  # ancestors[i]: leaf code -> node code at level i
    mass: tuple[np.ndarray, ...]  # mass[i]: global record count of each node at level i

    @property
    def height(self) -> int:
        return len(self.ancestors) - 1


def hierarchical_distance_emd(
    dist: Distribution, sizes: np.ndarray, tree: HierarchyTree
) -> np.ndarray:
    """Per class, EMD with hierarchical ground distance, in [0, 1].

    Li et al., Section 4.2 (and ARX's HierarchicalDistanceTCloseness): each inner node N
    at level i costs (i / H) * min(pos_extra(N), neg_extra(N)), where pos_extra(N) sums
    the positive extras p(C) - q(C) of its children and neg_extra(N) = pos_extra(N) -
    extra(N). So N costs (i / H) * (pos_extra(N) - max(extra(N), 0)); summed over the
    levels this telescopes (the root's extra is 0) to (1 / H) times the sum, over every
    node below the root, of max(extra, 0): each level's positive excess, as in equal
    distance.
    """
    n_records = int(tree.mass[0].sum())
    cost = positive_excess(dist.class_index, dist.value, dist.count, sizes, tree.mass[0],
                           n_records)
    for level in range(1, tree.height):
        cost += _level_excess(dist, sizes, tree.ancestors[level], tree.mass[level], n_records)
    return cost / (float(tree.height) * n_records * sizes)


def _level_excess(dist: Distribution, sizes: np.ndarray, ancestor: np.ndarray,
                  mass: np.ndarray, n_records: int) -> np.ndarray:
    """Per class, the positive excess of the nodes of one level, summed exactly (int64).

    Small (classes x nodes) spaces are summed by bincount into a table, where the nodes a
    class lacks only add max(negative, 0) = 0; larger ones by sorting the triples.
    """
    n_classes, n_nodes = sizes.size, mass.size
    key = dist.class_index * n_nodes + ancestor[dist.value]
    if dense_enough(n_classes * n_nodes, key.size):
        table = np.bincount(key, weights=dist.count, minlength=n_classes * n_nodes)
        excess = table.astype(np.int64).reshape(n_classes, n_nodes) * n_records
        excess -= sizes[:, None] * mass
        return np.maximum(excess, 0, out=excess).sum(axis=1)
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.concatenate(([True], key[1:] != key[:-1])).nonzero()[0]
    cls, node = np.divmod(key[starts], n_nodes)
    count = np.add.reduceat(dist.count[order], starts)
    return positive_excess(cls, node, count, sizes, mass, n_records)


def hierarchy_tree(tracked: TrackedAttribute, model: str) -> HierarchyTree:
    """Ancestor maps of ``tracked``'s hierarchy; ConfigurationError if it cannot serve."""
    hierarchy, name = tracked.hierarchy, tracked.name
    if hierarchy is None:
        raise ConfigurationError(
            f"{model} needs a generalization hierarchy for '{name}'; assign one to the "
            f"attribute, or choose equal or ordered distance."
        )
    if not hierarchy.is_rectangular or hierarchy.height < 2:
        raise ConfigurationError(
            f"{model}: the hierarchy of '{name}' must have at least two levels and the same "
            f"number of levels in every row."
        )
    rows = _leaf_rows(tracked, model)
    level_codes = [np.arange(len(tracked.values), dtype=np.int64)]
    for level in range(1, hierarchy.height):
        labels = [r[level] if r else "" for r in rows]
        codes = {label: i for i, label in enumerate(dict.fromkeys(labels))}
        current = np.array([codes[label] for label in labels], dtype=np.int64)
        _check_parents(level_codes[-1], current, rows, level, model, name)
        level_codes.append(current)
    if count_distinct(level_codes[-1][[r is not None for r in rows]]) > 1:
        # ARX would charge nothing for moving mass between separate tops, so the distance
        # would understate the gap; a single top keeps EMD the paper's bounded metric.
        raise ConfigurationError(
            f"{model}: the top level of the hierarchy of '{name}' must hold a single value "
            f"(such as '*'); add a level that generalizes everything to one value."
        )
    counts = tracked.global_counts.astype(np.int64)
    mass = tuple(
        np.bincount(c, weights=counts, minlength=int(c.max()) + 1).astype(np.int64)
        for c in level_codes
    )
    return HierarchyTree(tuple(level_codes), mass)


def _leaf_rows(tracked: TrackedAttribute, model: str) -> list[tuple[str, ...] | None]:
    """The hierarchy row of each value code (None for values absent from data and hierarchy)."""
    by_value: dict[str, tuple[str, ...]] = {}
    for row in tracked.hierarchy.rows if tracked.hierarchy else ():
        if row[0] in by_value and by_value[row[0]] != row:
            raise ConfigurationError(
                f"{model}: the hierarchy of '{tracked.name}' lists '{row[0]}' twice with "
                f"different generalizations; keep one row per value."
            )
        by_value[row[0]] = row
    counts = tracked.global_counts
    missing = [v for v, c in zip(tracked.values, counts, strict=True) if c and v not in by_value]
    if missing:
        shown = ", ".join(repr(v) for v in missing[:5])
        raise ConfigurationError(
            f"{model}: the hierarchy of '{tracked.name}' has no row for "
            f"{plural(len(missing), 'value')} of the data ({shown}); add rows for them."
        )
    return [by_value.get(v) for v in tracked.values]


def _check_parents(children: np.ndarray, parents: np.ndarray, rows: list, level: int,
                   model: str, name: str) -> None:
    """ConfigurationError unless each child code has exactly one parent code."""
    known = np.array([r is not None for r in rows])
    # Values without a row hold no records anywhere; they play no part.
    out = np.zeros(int(children.max()) + 1, dtype=np.int64)
    out[children[known]] = parents[known]
    if np.any(out[children[known]] != parents[known]):
        bad = next(r for r, c, p in zip(rows, children, parents, strict=True)
                   if r is not None and out[c] != p)
        raise ConfigurationError(
            f"{model}: in the hierarchy of '{name}', '{bad[level - 1]}' at level {level - 1} "
            f"generalizes to more than one value at level {level}; each value must have one "
            f"parent."
        )


def value_order(tracked: TrackedAttribute, model: str) -> np.ndarray:
    """Codes of the values present in the data, lowest first, by the attribute's data type.

    Integers and decimals sort numerically, dates chronologically, ordinals by their
    declared order and strings lexicographically (as ARX's data types compare them).
    """
    present = np.flatnonzero(tracked.global_counts > 0)
    values = [tracked.values[i] for i in present]
    keys, bad = _sort_keys(values, tracked)
    if bad:
        kind = tracked.data_type.describe()
        shown = ", ".join(repr(v) for v in bad[:5])
        raise ConfigurationError(
            f"{model} orders the values of '{tracked.name}' as {kind}, but "
            f"{plural(len(bad), 'value')} of the data cannot be read as {kind} ({shown}); fix "
            "the data or change the attribute's data type."
        )
    ordering = sorted(range(len(values)), key=keys.__getitem__)
    return present[np.array(ordering, dtype=np.int64)]


def _sort_keys(values: list[str], tracked: TrackedAttribute) -> tuple[list[Any], list[str]]:
    """One sort key per value, and the values that have none."""
    data_type = tracked.data_type
    keys: list[Any] = []
    bad: list[str] = []
    positions = {v: i for i, v in enumerate(data_type.order or ())}
    for value in values:
        try:
            if data_type.is_numeric:
                key: Any = float(value)
                if not np.isfinite(key):
                    raise ValueError(value)
            elif data_type.kind is DataKind.DATE:
                key = datetime.strptime(value, data_type.format or "")
            elif data_type.kind is DataKind.ORDINAL:
                key = positions[value]
            else:
                key = value
        except (ValueError, KeyError):
            bad.append(value)
            key = None
        keys.append(key)
    return keys, bad


@register_privacy_model
class TCloseness(SensitiveAttributeModel):
    """Every class's distribution of the sensitive values is within EMD t of the global one.

    ``distance`` is ``"equal"``, ``"hierarchical"`` (needs the attribute's hierarchy) or
    ``"ordered"`` (needs values that sort by the attribute's data type).
    """

    kind = "t-closeness"
    label = "t-Closeness"
    description = ("The distribution of the sensitive attribute in every class is within "
                   "distance t of its distribution in the whole dataset.")
    params = (ATTRIBUTE,
              Param("t", "float", suggested=0.2, low=0, high=1,
                    help="Largest distance to the overall distribution (earth mover's "
                         "distance, 0 to 1)"),
              Param("distance", "choice", "equal", choices=DISTANCES, label="ground distance",
                    help="equal, ordered (by the data type) or hierarchical (by the "
                         "attribute's hierarchy)"))
    # ARX TCloseness (all three distances): super(attribute, false, true)
    monotonic_with_suppression = False
    monotonic_without_suppression = True
    t: float
    distance: str
    # Per-run state, set by prepare() on the run's clone.
    _tree: HierarchyTree | None = None
    _domain: OrderedDomain | None = None

    def validate(self, data: EncodedData) -> None:
        tracked = self.tracked(data)
        if self.distance == "hierarchical":
            hierarchy_tree(tracked, self.describe())
        elif self.distance == "ordered":
            value_order(tracked, self.describe())

    def prepare(self, data: EncodedData) -> None:
        super().prepare(data)
        tracked = self.tracked(data)
        if self.distance == "hierarchical":
            self._tree = hierarchy_tree(tracked, self.describe())
        elif self.distance == "ordered":
            order = value_order(tracked, self.describe())
            self._domain = OrderedDomain.from_order(order, self.prepared_counts())

    def emd(self, classes: EquivalenceClasses) -> np.ndarray:
        """Earth Mover's Distance of each class to the global distribution, in [0, 1]."""
        counts = self.prepared_counts()
        dist = self.distribution(classes)
        if self.distance == "hierarchical":
            assert self._tree is not None, "prepare() builds the tree"
            return hierarchical_distance_emd(dist, classes.sizes, self._tree)
        if self.distance == "ordered":
            assert self._domain is not None, "prepare() builds the domain"
            return ordered_distance_emd(dist, classes.sizes, self._domain)
        return equal_distance_emd(dist, classes.sizes, counts)

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        return self.emd(classes) <= self.t

    def describe(self) -> str:
        return (
            f"{plain(self.t)}-closeness with {self.distance} distance "
            f"for '{self.attribute}'"
        )
