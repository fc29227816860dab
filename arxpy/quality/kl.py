"""KL divergence of the output from the input distribution, as ARX computes it.

ARX: ``org.deidentifier.arx.metric.v2.MetricSDNMKLDivergence``
(``Metric.createKLDivergenceMetric()``), after Machanavajjhala et al., l-diversity
(TKDD 2007). The output estimate of an original quasi-identifier tuple is its class's
share of the records spread uniformly over the hierarchy leaves the class's
generalized values cover (the product over attributes of the number of hierarchy rows
under each label). Suppressed records form one class covering the whole domain.

ARX sums ``p(t) * log2(p(t) / q(t))`` once per *record* rather than once per distinct
tuple, so a tuple occurring c times contributes c times; we reproduce that.
"""

from __future__ import annotations

import numpy as np

from arxpy.data.codes import combine_codes
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData, QuasiIdentifier
from arxpy.quality.base import QualityModel
from arxpy.quality.precision import require_prepared
from arxpy.quality.registry import register_quality_model

#: Key of the per-class sums of tuple weights (``EquivalenceClasses.sums``).
TUPLE_WEIGHT = "kl.tuple_weight"


def leaves_per_label(qi: QuasiIdentifier) -> list[np.ndarray]:
    """Per level, the number of hierarchy rows under each label code (ARX's area).

    Like ARX's ``DomainShareMaterialized`` this counts rows of the whole hierarchy, not
    values present in the data; ``level_maps`` span every hierarchy row.
    """
    return [np.bincount(np.asarray(m), minlength=len(labels)).astype(float)
            for m, labels in zip(qi.level_maps, qi.labels, strict=True)]


@register_quality_model
class KLDivergence(QualityModel):
    """ARX's KL divergence in bits (>= 0; 0 when nothing is generalized or suppressed)."""

    name = "kl"
    label = "KL divergence"
    description = ("The Kullback-Leibler divergence between the original and the anonymized "
                   "distribution of the quasi-identifiers (lower is better).")
    _qis: list[QuasiIdentifier] | None = None  # set by prepare() on the run's clone

    def prepare(self, data: EncodedData) -> None:
        self._qis = list(data.quasi_identifiers)
        self._n_records = float(data.n_records)
        originals = np.column_stack([q.codes for q in self._qis]).astype(np.int64)
        self._tuples, tuple_of_row = np.unique(originals, axis=0, return_inverse=True)
        tuple_of_row = tuple_of_row.reshape(-1)
        counts = data.row_counts(tuple_of_row, len(self._tuples)).astype(float)
        p = counts / self._n_records
        # Summed over a class's records: the class's share of the tuple weights below
        # (a histogram row counts for each record it stands for).
        rows = 1.0 if data.weights is None else data.weights
        self._record_weight = p[tuple_of_row] * rows
        # Each distinct tuple stands for its `counts` records (ARX sums per record).
        self._weight = counts * p
        self._constant = float(np.sum(self._weight * np.log2(p)))
        # log2 of the leaves under each label, looked up per class (no log per check).
        self._log2_leaves = [[np.log2(a) for a in leaves_per_label(q)] for q in self._qis]
        self._log2_domain = float(sum(np.log2(len(q.level_maps[0])) for q in self._qis))

    def record_sums(self) -> dict[str, np.ndarray]:
        """Each record's tuple count / n: per class, the sum of its tuples' weights."""
        return {} if self._qis is None else {TUPLE_WEIGHT: self._record_weight}

    def score(self, classes: EquivalenceClasses, suppressed: np.ndarray) -> float:
        require_prepared(self, self._qis)
        assert self._qis is not None
        suppressed = np.asarray(suppressed, dtype=bool)
        sizes = classes.sizes.astype(float)
        keys = classes.keys  # read once: it may be computed on access
        log2_area = np.zeros(classes.n_classes)
        for j, level in enumerate(classes.levels):
            log2_area += self._log2_leaves[j][level][keys[:, j]]
        # log2 q per class: share of records over the leaves it covers.
        log2_q = np.log2(sizes / self._n_records) - log2_area
        if suppressed.any():
            outliers = float(sizes[suppressed].sum())
            log2_q[suppressed] = np.log2(outliers / self._n_records) - self._log2_domain
        class_weight = classes.sums.get(TUPLE_WEIGHT)
        if class_weight is not None:
            # Rolled up with the classes: no per-check matching of tuples to classes.
            return self._constant - float(np.dot(class_weight, log2_q))
        return self._constant - float(np.dot(self._weight, log2_q[self._class_of_tuples(classes)]))

    def _class_of_tuples(self, classes: EquivalenceClasses) -> np.ndarray:
        """Index of the class each distinct original tuple falls into."""
        assert self._qis is not None
        generalized = np.column_stack(
            [np.asarray(q.level_maps[lvl])[self._tuples[:, j]]
             for j, (q, lvl) in enumerate(zip(self._qis, classes.levels, strict=True))]
        )
        radices = [q.domain_size(lvl) for q, lvl in zip(self._qis, classes.levels, strict=True)]
        both = np.vstack([classes.keys.astype(np.int64), generalized.astype(np.int64)])
        ids, _ = combine_codes(list(both.T), radices)
        class_ids, tuple_ids = ids[: classes.n_classes], ids[classes.n_classes :]
        order = np.argsort(class_ids, kind="stable")
        position = np.minimum(np.searchsorted(class_ids[order], tuple_ids), classes.n_classes - 1)
        if not np.array_equal(class_ids[order][position], tuple_ids):
            raise ValueError("Equivalence classes do not cover every record of the prepared data.")
        return order[position]
