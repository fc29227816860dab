"""Classification accuracy as a quality model (penalties per record for a class attribute).

Prasser, Eicher, Bild, Spengler, Kuhn, "A tool for optimizing de-identified health data
for use in statistical classification" (paper 004, section on the data quality model),
extending Iyengar (2002); ARX: ``org.deidentifier.arx.metric.v2.MetricSDClassification``.
Records are grouped by their (generalized) feature values, i.e. the equivalence classes
over the quasi-identifiers. A record costs ``suppressed_penalty`` if suppressed,
``minority_penalty`` if its class value is not the unique most frequent one of its
class, ``ambiguity_penalty`` for every record of a class without a unique most
frequent value, and nothing otherwise. As in ARX the sum is divided by
``max(penalties) * n``, so scores lie in [0, 1] (the paper's sum / n for the defaults).

When the class attribute is itself a quasi-identifier, ARX's rule applies: kept classes
are grouped by the other quasi-identifiers, the class value is the generalized one,
and penalties move towards the largest penalty as that attribute is generalized.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.arrays import distinct
from arxpy.data.codes import KEY_LIMIT, combine_codes
from arxpy.data.roles import CLASS_NAMES, DISCRETE
from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses, PackedKeys
from arxpy.lattice.encoding import EncodedData
from arxpy.lattice.grouping import dense_enough
from arxpy.params import Param
from arxpy.quality.base import QualityModel
from arxpy.quality.registry import register_quality_model


@dataclass(frozen=True)
class Majorities:
    """Record counts of groups by whether their most frequent class value is unique.

    ``minority``: records outside the top value of groups with a unique top;
    ``ambiguous``: records of groups without one; ``records``: every record counted.
    """

    minority: int
    ambiguous: int
    records: int


def records_outside_top(group: np.ndarray, value: np.ndarray, weight: np.ndarray,
                        groups: int, width: int) -> int:
    """Records outside their group's most frequent value.

    Entry ``i`` holds ``weight[i]`` records of group ``group[i] < groups`` with value
    ``value[i] < width``; equal (group, value) pairs are summed.
    """
    if group.size == 0:
        return 0
    if dense_enough(groups * width, group.size):
        # A (values x groups) table by one bincount, no sort; value-major, so the
        # maximum is an element-wise pass over ``width`` rows.
        table = np.bincount(value * groups + group, weights=weight,
                            minlength=groups * width).reshape(width, groups)
        return int(round(float(table.sum() - table.max(axis=0).sum())))
    codes, inverse = distinct(group * width + value, return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=weight)
    owner = codes // width  # sorted: each group's pairs are one segment
    starts = np.concatenate(([True], owner[1:] != owner[:-1])).nonzero()[0]
    return int(round(float(counts.sum() - np.maximum.reduceat(counts, starts).sum())))


def _firsts(group: np.ndarray) -> np.ndarray:
    """Mask of the entries of a sorted ``group`` array that start a new group."""
    first = np.empty(group.size, dtype=bool)
    first[:1] = True
    np.not_equal(group[1:], group[:-1], out=first[1:])
    return first


def _sorted_majorities(group: np.ndarray, counts: np.ndarray) -> Majorities:
    """:class:`Majorities` of entries sorted by group and, within a group, by count
    descending (each entry one distinct value of its group, count > 0): a group's top
    is its first entry, and it is unique unless the next entry of the group equals it."""
    if group.size == 0:
        return Majorities(0, 0, 0)
    first = _firsts(group)
    starts = first.nonzero()[0]
    top = counts[starts]
    after = np.minimum(starts + 1, group.size - 1)
    tied = ~first[after] & (after > starts) & (counts[after] == top)
    records = int(counts.sum())
    tops = int(top.sum())
    # Records of groups without a unique top: every entry whose group's top is tied.
    ambiguous = int(counts[tied[np.cumsum(first) - 1]].sum()) if tied.any() else 0
    ambiguous_tops = int(top[tied].sum())
    return Majorities(records - ambiguous - (tops - ambiguous_tops), ambiguous, records)


def _without_digit(packed: PackedKeys, j: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Packed keys split into the number over every digit but ``j`` (the same number
    :meth:`Classification._group_from_keys` computes from the key matrix) and digit
    ``j``, plus the number of possible groups: a few array operations, no decoding."""
    radices = packed.radices
    place = math.prod(radices[j + 1:])
    high = packed.values // place
    low = packed.values - high * place
    above = high // radices[j]
    value = high - above * radices[j]
    return above * place + low, value, math.prod(radices) // radices[j]


@dataclass(frozen=True)
class _FeatureGroups:
    """One transformation's classes grouped by the quasi-identifiers other than a
    quasi-identifying class attribute: what its score and bound both read.

    Class keys are distinct, so within a group each class holds one class value and the
    class sizes are the group's value counts.
    """

    classes: EquivalenceClasses
    order: np.ndarray  # class indices sorted by group, then size descending
    group: np.ndarray  # group key per position (non-decreasing)
    value: np.ndarray  # class value code at the classes' level, per position
    sizes: np.ndarray  # class size, per position
    outside_top: int  # records outside their group's most frequent value


@register_quality_model
class Classification(QualityModel):
    """Penalties for records not predictable from their class; score in [0, 1]."""

    name = "classification"
    label = "Classification accuracy"
    description = ("How well the quasi-identifiers, as generalized, still predict a chosen class "
                   "attribute (ARX's classification metric).")

    params = (
        Param("class_attribute", "attribute", help="the attribute to predict",
              label="Class attribute", data_types=DISCRETE, named_like=CLASS_NAMES),
        Param("suppressed_penalty", "float", 0.5, low=0,
              help="Cost of a suppressed record"),
        Param("minority_penalty", "float", 1.0, low=0,
              help="Cost of a record whose class value is not its group's majority"),
        Param("ambiguity_penalty", "float", 1.0, low=0,
              help="Cost of a record in a group without a unique majority"),
    )
    class_attribute: str
    suppressed_penalty: float
    minority_penalty: float
    ambiguity_penalty: float
    # Per-run state, set by prepare() on the run's clone.
    _n_records: int | None = None
    _qi_index: int | None = None
    _scale: np.ndarray = np.zeros(0)
    _radices: Sequence[list[int]] = ()
    _class_top: int = 0
    # What the last classes' score and bound share (the search scores and bounds the
    # same classes one after the other).
    _last: _FeatureGroups | None = None
    _last_per_class: tuple[EquivalenceClasses, np.ndarray, np.ndarray, np.ndarray] | None = None
    _up: Sequence[Sequence[np.ndarray]] = ()

    def check_together(self) -> None:
        penalties = (self.suppressed_penalty, self.minority_penalty, self.ambiguity_penalty)
        if max(penalties) <= 0:
            raise ConfigurationError(
                "classification: the penalties must not all be 0; the defaults are 0.5 "
                "(suppressed), 1 (minority) and 1 (no majority)."
            )

    @property
    def tracked_attributes(self) -> tuple[str, ...]:
        """Attributes whose per-class distribution the engine must track."""
        return (self.class_attribute,)

    @property
    def _max_penalty(self) -> float:
        return max(self.suppressed_penalty, self.minority_penalty, self.ambiguity_penalty)

    def validate(self, data: EncodedData) -> None:
        """Raise :class:`ConfigurationError` unless the class attribute is in ``data``."""
        if self.class_attribute not in data.qi_names and self.class_attribute not in data.tracked:
            known = ", ".join(list(data.tracked) + data.qi_names) or "none"
            raise ConfigurationError(
                f"The classification model's class attribute '{self.class_attribute}' is not "
                f"available (attributes available: {known}); choose one of those or mark it "
                "as sensitive or insensitive so it is kept."
            )

    def prepare(self, data: EncodedData) -> None:
        self.validate(data)
        self._n_records = data.n_records
        self._qi_index = None
        self._last = None
        self._last_per_class = None
        if self.class_attribute in data.qi_names:
            j = data.qi_names.index(self.class_attribute)
            self._qi_index = j
            qi = data.quasi_identifiers[j]
            distinct0 = qi.domain_size(0)
            # ARX: 0 when not generalized, 1 when generalized to a single value.
            self._scale = np.array(
                [0.0 if distinct0 <= 1 else 1 - (qi.domain_size(lvl) - 1) / (distinct0 - 1)
                 for lvl in range(qi.height)]
            )
            self._radices = [[q.domain_size(lvl) for lvl in range(q.height)]
                             for q in data.quasi_identifiers]
            self._class_top = qi.max_level
            # Code at one level -> code at a higher one, for the class attribute.
            self._up = [[np.zeros(qi.domain_size(low), dtype=np.int64) for _ in qi.level_maps]
                        for low in range(qi.height)]
            for low in range(qi.height):
                for high in range(low, qi.height):
                    self._up[low][high][qi.level_maps[low]] = qi.level_maps[high]

    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        if self._n_records is None:
            raise RuntimeError("Classification.prepare(data) must be called before scoring.")
        suppressed = np.asarray(suppressed, dtype=bool)
        penalty = self.suppressed_penalty * float(classes.sizes[suppressed].sum())
        if self._qi_index is None:
            penalty += self._penalty(self._feature_majorities(classes, suppressed), 0.0)
        elif self._scale[classes.levels[self._qi_index]] == 1.0:
            # A single class value: every kept record costs the largest penalty, no
            # grouping needed.
            kept = int(classes.sizes.sum()) - int(classes.sizes[suppressed].sum())
            penalty += float(kept) * self._max_penalty
        else:
            scale = float(self._scale[classes.levels[self._qi_index]])
            penalty += self._penalty(self._qi_majorities(classes, suppressed), scale)
        return penalty / (self._max_penalty * self._n_records)

    def lower_bound(self, classes: EquivalenceClasses) -> float | None:
        """A bound on the score here and at every generalization, for every anonymous
        suppression (at most :attr:`suppression_budget` records).

        A class's records outside its most frequent value (``size - top``) cost at least
        the cheaper of the minority and ambiguity penalties when kept; merging classes
        never lowers their number (the merged top is at most the sum of the tops), so
        the bound holds for every generalization. At most the budget of them can be
        suppressed instead, each then costing the suppression penalty. A quasi-identifying
        class attribute is bounded at each of its levels from here to its top (its
        penalties move with its level) and the least of these bounds is taken.
        """
        if self._n_records is None:
            return None
        if self._qi_index is not None:
            return self._qi_bound(classes)
        if classes.distributions.get(self.class_attribute) is None:
            return None
        _, _, outside_top = self._per_class(classes)
        return self._outside_top_bound(int(outside_top.sum()), scale=0.0)

    def _outside_top_bound(self, outside_top: int, scale: float) -> float:
        """Least normalized penalty of ``outside_top`` records outside their group's
        most frequent value, with the class attribute at a level of ``scale``."""
        worst = self._max_penalty
        if scale == 1.0:  # every kept record costs the largest penalty
            kept = worst
        else:
            kept = min(self.minority_penalty, self.ambiguity_penalty) * (1 - scale) + \
                worst * scale
        budget = outside_top if self.suppression_budget is None else \
            min(self.suppression_budget, outside_top)
        cost = kept * outside_top - max(kept - self.suppressed_penalty, 0.0) * budget
        return cost / (worst * self._n_records)

    def _qi_bound(self, classes: EquivalenceClasses) -> float:
        j = self._qi_index
        assert j is not None
        n = int(classes.sizes.sum())
        low = classes.levels[j]
        bounds = []
        for level in range(low, self._class_top + 1):
            if self._scale[level] == 1.0:
                bounds.append(self._outside_top_bound(n, 1.0))
                continue
            grouped = self._feature_groups(classes)
            if level == low:
                outside_top = grouped.outside_top
            else:  # a class value mapped up: several classes of a group may share it
                first = _firsts(grouped.group)
                outside_top = records_outside_top(
                    np.cumsum(first) - 1, self._up[low][level][grouped.value], grouped.sizes,
                    int(first.sum()), self._radices[j][level])
            bounds.append(self._outside_top_bound(outside_top, self._scale[level]))
        return min(bounds)

    def _per_class(self, classes: EquivalenceClasses) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per class (the groups when the class attribute is tracked): records outside a
        unique top value, records without a unique top, records outside the top."""
        last = self._last_per_class
        if last is not None and last[0] is classes:
            return last[1:]
        distribution = classes.distributions.get(self.class_attribute)
        if distribution is None:
            raise ConfigurationError(
                f"The equivalence classes carry no distribution of '{self.class_attribute}'; "
                "the class attribute must be tracked (see Classification.tracked_attributes)."
            )
        index, count = distribution.class_index, distribution.count
        sizes = classes.sizes.astype(np.int64, copy=False)
        top = np.zeros(classes.n_classes, dtype=np.int64)
        if index.size:
            # Triples are sorted by class: each class's top is a segment maximum.
            starts = np.concatenate(([True], index[1:] != index[:-1])).nonzero()[0]
            top[index[starts]] = np.maximum.reduceat(count, starts)
        ties = np.bincount(index, weights=count == top[index], minlength=classes.n_classes)
        unique = ties == 1
        outside_top = sizes - top
        minority = np.where(unique, outside_top, 0)
        ambiguous = np.where(unique, 0, sizes)
        self._last_per_class = (classes, minority, ambiguous, outside_top)
        return minority, ambiguous, outside_top

    def _feature_majorities(self, classes: EquivalenceClasses,
                            suppressed: np.ndarray) -> Majorities:
        minority, ambiguous, _ = self._per_class(classes)
        kept = ~suppressed
        return Majorities(int(minority[kept].sum()), int(ambiguous[kept].sum()),
                          int(classes.sizes[kept].sum()))

    def _qi_majorities(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> Majorities:
        """ARX's rule for a quasi-identifying class attribute (MetaHashGroupify): kept
        classes grouped by the other quasi-identifiers, their generalized class values
        counted per group."""
        grouped = self._feature_groups(classes)
        if not suppressed.any():
            return _sorted_majorities(grouped.group, grouped.sizes)
        # Dropping entries keeps the order (group, then size descending).
        kept = ~suppressed[grouped.order]
        return _sorted_majorities(grouped.group[kept], grouped.sizes[kept])

    def _feature_groups(self, classes: EquivalenceClasses) -> _FeatureGroups:
        """The classes sorted by group over the other quasi-identifiers, then size.

        Remembered for the last classes: the search scores and bounds the same classes
        one after the other.
        """
        if self._last is not None and self._last.classes is classes:
            return self._last
        j = self._qi_index
        assert j is not None
        sizes = classes.sizes.astype(np.int64, copy=False)
        if classes.packed is not None and not classes.keys_decoded:
            group, value, span = _without_digit(classes.packed, j)
        else:
            group, value, span = self._group_from_keys(classes, j)
        largest = int(sizes.max()) if sizes.size else 0
        if span * (largest + 1) < KEY_LIMIT:
            # One int64 key (group, then size descending): one argsort, not a lexsort.
            order = np.argsort(group * (largest + 1) + (largest - sizes))
        else:
            order = np.lexsort((-sizes, group))
        group, sizes, value = group[order], sizes[order], value[order]
        tops = sizes[_firsts(group).nonzero()[0]]  # each group's first is its top
        self._last = _FeatureGroups(classes, order, group, value, sizes,
                                    int(sizes.sum()) - int(tops.sum()))
        return self._last

    def _group_from_keys(self, classes: EquivalenceClasses,
                         j: int) -> tuple[np.ndarray, np.ndarray, int]:
        """Per class: one mixed-radix number over the quasi-identifiers other than ``j``
        (the group), the class value, and the number of possible groups."""
        keys = classes.keys  # read once: it may be computed on access
        radices = [r[level] for r, level in zip(self._radices, classes.levels, strict=True)]
        places, span = [0] * len(radices), 1
        for i in reversed(range(len(radices))):
            if i != j:
                places[i], span = span, span * radices[i]
        if span < KEY_LIMIT:
            group = keys.astype(np.int64, copy=False) @ np.asarray(places, dtype=np.int64)
        else:  # too many combinations for one int64: renumbered
            others = [i for i in range(len(radices)) if i != j]
            key, _ = combine_codes([keys[:, i] for i in others], [radices[i] for i in others])
            group, uniques = pd.factorize(key, sort=False)
            group, span = group.astype(np.int64), len(uniques)
        return group, keys[:, j].astype(np.int64, copy=False), span

    def _penalty(self, counts: Majorities, scale: float) -> float:
        """ARX's getPenaltyDistribution summed over the kept groups (not normalized)."""
        if scale == 1.0:
            return float(counts.records) * self._max_penalty
        minority = self.minority_penalty * (1 - scale) + self._max_penalty * scale
        ambiguity = self.ambiguity_penalty * (1 - scale) + self._max_penalty * scale
        return minority * counts.minority + ambiguity * counts.ambiguous
