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

from collections.abc import Sequence

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param
from arxpy.quality.base import QualityModel
from arxpy.quality.kl import row_ids
from arxpy.quality.registry import register_quality_model


def top_two(group: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group present in ``group``: total count, largest and second-largest count.

    The second-largest is -1 for a group with a single value (as in ARX's statistics).
    ``group`` and ``count`` are non-negative.
    """
    if group.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    group = group.astype(np.int64, copy=False)
    count = count.astype(np.int64, copy=False)
    top = int(count.max())
    if (int(group.max()) + 1) * (top + 1) < 2**62:
        # One int64 key (group, then count descending): one argsort instead of a lexsort.
        order = np.argsort(group * (top + 1) + (top - count))
    else:
        order = np.lexsort((-count, group))
    g, c = group[order], count[order]
    first = np.empty(g.size, dtype=bool)
    first[0] = True
    np.not_equal(g[1:], g[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], g.size)
    second = np.minimum(starts + 1, g.size - 1)
    top2 = np.where(starts + 1 < ends, c[second], -1)
    return np.add.reduceat(c, starts), c[starts], top2


@register_quality_model
class Classification(QualityModel):
    """Penalties for records not predictable from their class; score in [0, 1]."""

    name = "classification"
    label = "Classification accuracy"

    params = (
        Param("class_attribute", "attribute", help="the attribute to predict",
              label="Class attribute"),
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
    _features_of: EquivalenceClasses | None = None
    _features_cache: np.ndarray = np.zeros(0, dtype=np.int64)
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
        self._features_of = None
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
            penalty += self._feature_penalty(classes, suppressed)
        else:
            penalty += self._qi_penalty(classes, suppressed)
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
        distribution = classes.distributions.get(self.class_attribute)
        if distribution is None:
            return None
        index, count = distribution.class_index, distribution.count
        if index.size == 0:
            return 0.0
        # Triples are sorted by class: the most frequent count of each is a segment maximum.
        starts = np.flatnonzero(np.concatenate(([True], index[1:] != index[:-1])))
        outside_top = int(count.sum()) - int(np.maximum.reduceat(count, starts).sum())
        return self._outside_top_bound(outside_top, scale=0.0)

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
        keys = classes.keys.astype(np.int64, copy=False)
        features = self._features(classes)
        low = classes.levels[j]
        bounds = []
        for level in range(low, self._class_top + 1):
            if self._scale[level] == 1.0:
                bounds.append(self._outside_top_bound(n, 1.0))
                continue
            value = self._up[low][level][keys[:, j]]
            # Records per (feature group, class value) summed, then each group's top.
            pair = features * self._radices[j][level] + value
            pairs, inverse = np.unique(pair, return_inverse=True)
            counts = np.bincount(inverse.reshape(-1), weights=classes.sizes)
            groups = pairs // self._radices[j][level]
            first = np.flatnonzero(np.concatenate(([True], groups[1:] != groups[:-1])))
            outside_top = n - int(np.rint(np.maximum.reduceat(counts, first).sum()))
            bounds.append(self._outside_top_bound(outside_top, self._scale[level]))
        return min(bounds)

    def _feature_penalty(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        distribution = classes.distributions.get(self.class_attribute)
        if distribution is None:
            raise ConfigurationError(
                f"The equivalence classes carry no distribution of '{self.class_attribute}'; "
                "the class attribute must be tracked (see Classification.tracked_attributes)."
            )
        kept = ~suppressed[distribution.class_index]
        total, top1, top2 = top_two(distribution.class_index[kept], distribution.count[kept])
        return self._distribution_penalty(total, top1, top2, scale=0.0)

    def _qi_penalty(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        """ARX's rule for a quasi-identifying class attribute (MetaHashGroupify)."""
        j = self._qi_index
        assert j is not None
        kept = ~suppressed
        features = self._features(classes)[kept]
        # Class keys are distinct, so within a feature group each class holds one
        # generalized class value: the class sizes are the group's value counts.
        total, top1, top2 = top_two(features, classes.sizes[kept].astype(np.int64))
        return self._distribution_penalty(total, top1, top2, self._scale[classes.levels[j]])

    def _features(self, classes: EquivalenceClasses) -> np.ndarray:
        """Each class's group over the other quasi-identifiers (one id per group).

        Remembered for the last classes: the search scores and bounds the same classes
        one after the other.
        """
        if self._features_of is classes:
            return self._features_cache
        j = self._qi_index
        keys = classes.keys.astype(np.int64, copy=False)
        others = [i for i in range(keys.shape[1]) if i != j]
        radices = [self._radices[i][classes.levels[i]] for i in others]
        features = row_ids(keys[:, others], radices) if others else \
            np.zeros(len(keys), np.int64)
        self._features_of, self._features_cache = classes, features
        return features

    def _distribution_penalty(
        self, total: np.ndarray, top1: np.ndarray, top2: np.ndarray, scale: float
    ) -> float:
        """ARX's getPenaltyDistribution summed over groups (not yet normalized)."""
        if scale == 1.0:
            return float(total.sum()) * self._max_penalty
        minority = self.minority_penalty * (1 - scale) + self._max_penalty * scale
        ambiguity = self.ambiguity_penalty * (1 - scale) + self._max_penalty * scale
        has_majority = top1 != top2
        return float(
            np.sum(np.where(has_majority, (total - top1) * minority, total * ambiguity))
        )
