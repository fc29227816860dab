"""Utility of anonymised set-valued data: ARE on query workloads and MRE per constraint.

Loukides et al. 2014 (J Biomed Inform 50:46-61), Definitions 2 and 3, and spec 002 §4:

* **ARE** of a workload of COUNT queries (records containing all codes of an itemset):
  the mean over queries of |C_A - C_O| / C_O. For disassociated data C_A is counted on
  R random reconstructions; each query's error is averaged over them, and the ARE of
  each reconstruction gives the spread (mean ± sd over R).
* **W1**: the frequent itemsets of 1..4 codes at minimum supports (% of records).
* **W2**: 250 nested chains per size (decision G7): q1 a code drawn uniformly, q(c+1) =
  q(c) plus a code drawn uniformly from those co-occurring with all of q(c) in some
  record, so C_O >= 1; a chain that cannot grow is drawn again.
* **MRE** of a utility constraint u: (M_O(u) - M_A(u)) / M_O(u) in %, where M counts the
  records with at least one code of u; positive is under-counting. Reported as the % of
  constraints in the paper's bins.
* Welch's t-test over per-query errors compares a method with a baseline [P L217].

Estimates come in as arrays (one per reconstruction or one for a baseline), so any
anonymiser whose answers can be counted can be compared; nothing here knows one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arxpy.arrays import distinct
from arxpy.data.itemsets import RecordIndex, count_itemsets, count_queries, min_support_count
from arxpy.data.transactions import CodeSets

Query = tuple[str, ...]

#: The paper's MRE intervals (in %), with the minus signs the extraction drops restored.
MRE_BINS = ("[min,-10)", "[-10,-5)", "[-5,-2.5)", "[-2.5,0)", "0", "(0,2.5)", "[2.5,5)",
            "[5,10)", "[10,max)")
#: Supports (%) of the paper's W1 (Fig. 17).
PAPER_SUPPORTS = (0.625, 1.25, 2.5, 5.0)
#: W2 query sizes.
W2_SIZES = (1, 2, 3, 4)


# --- workloads ------------------------------------------------------------------------------

def workload_w1(original: CodeSets, support_percent: float, max_size: int = 4,
                allowed: set[str] | None = None) -> list[Query]:
    """Itemsets of 1..max_size codes in at least ``support_percent`` % of records (only
    itemsets of ``allowed`` codes if given), by size then codes."""
    min_count = min_support_count(support_percent, len(original))
    queries = []
    for level in count_itemsets(original, max_size, min_count):
        for row in level.itemsets[level.counts >= min_count]:
            codes = tuple(original.vocabulary[c] for c in row)
            if allowed is None or allowed.issuperset(codes):
                queries.append(codes)
    return queries


def workload_w2(original: CodeSets, queries: int, rng: np.random.Generator,
                allowed: set[str] | None = None, sizes: Sequence[int] = W2_SIZES,
                max_attempts: int = 100) -> list[Query]:
    """``queries`` itemsets, an equal share per size, from nested co-occurrence chains."""
    index = RecordIndex(original)
    domain = [c for c in original.vocabulary if allowed is None or c in allowed]
    if not domain:
        return []
    top = max(sizes)
    chains = math.ceil(queries / len(sizes))
    found: list[list[Query]] = []
    for _ in range(chains):
        chain = None
        for _ in range(max_attempts):
            chain = _chain(original, index, domain, top, rng, allowed)
            if chain is not None:
                break
        if chain is None:
            break  # the data has no chain of this length among these codes
        found.append(chain)
    return [chain[size - 1] for size in sizes for chain in found]


def _chain(original: CodeSets, index: RecordIndex, domain: list[str], top: int,
           rng: np.random.Generator, allowed: set[str] | None) -> list[Query] | None:
    first = domain[int(rng.integers(len(domain)))]
    chain = [(first,)]
    holders = index.records_with(first)
    while len(chain) < top:
        candidates = _co_occurring(original, holders, set(chain[-1]), allowed)
        if not candidates:
            return None
        code = candidates[int(rng.integers(len(candidates)))]
        chain.append(tuple(sorted((*chain[-1], code))))
        holders = np.intersect1d(holders, index.records_with(code), assume_unique=True)
    return chain


def _co_occurring(original: CodeSets, records: np.ndarray, taken: set[str],
                  allowed: set[str] | None) -> list[str]:
    holder = np.zeros(len(original), dtype=bool)
    holder[records] = True
    positions = distinct(original.indices[holder[original.owners]])
    codes = [original.vocabulary[c] for c in positions]
    return [c for c in codes if c not in taken and (allowed is None or c in allowed)]


# --- errors ---------------------------------------------------------------------------------

@dataclass
class WorkloadError:
    """Relative errors of one workload: per query (mean over runs) and ARE per run."""

    name: str
    queries: list[Query]
    true_counts: np.ndarray
    per_query: np.ndarray  # mean relative error of each query over the runs
    per_run: np.ndarray  # ARE of each run (reconstruction)

    @property
    def are(self) -> float:
        return float(self.per_query.mean()) if len(self.per_query) else math.nan

    @property
    def are_sd(self) -> float:
        return float(self.per_run.std(ddof=1)) if len(self.per_run) > 1 else 0.0

    def by_size(self) -> dict[int, float]:
        sizes = np.array([len(q) for q in self.queries])
        return {int(s): float(self.per_query[sizes == s].mean()) for s in np.unique(sizes)}

    def to_dict(self) -> dict[str, Any]:
        return {"queries": len(self.queries), "are": _finite(self.are),
                "are_sd": _finite(self.are_sd),
                "are_per_reconstruction": [_finite(v) for v in self.per_run],
                "by_size": {str(s): _finite(v) for s, v in self.by_size().items()}}


def workload_error(name: str, queries: list[Query], true_counts: np.ndarray,
                   estimates: Sequence[np.ndarray]) -> WorkloadError:
    """Relative errors |C_A - C_O| / C_O of ``estimates`` (one array per run)."""
    true = np.asarray(true_counts, dtype=float)
    if len(queries) and (true <= 0).any():
        raise ValueError("every query of a workload must occur in the original data")
    errors = np.array([np.abs(np.asarray(e, dtype=float) - true) / true for e in estimates])
    if errors.size == 0:
        errors = np.zeros((max(len(estimates), 1), len(queries)))
    return WorkloadError(name, list(queries), np.asarray(true_counts), errors.mean(axis=0),
                         errors.mean(axis=1) if len(queries) else np.zeros(len(errors)))


def welch_test(errors: np.ndarray, baseline_errors: np.ndarray) -> dict[str, float | None]:
    """Welch's t-test of two methods' per-query relative errors (scipy ``ttest_ind``)."""
    from scipy.stats import ttest_ind

    if len(errors) < 2 or len(baseline_errors) < 2:
        return {"t": None, "p": None}
    result = ttest_ind(errors, baseline_errors, equal_var=False)
    return {"t": _finite(float(result.statistic)), "p": _finite(float(result.pvalue))}


# --- a method against baselines -----------------------------------------------------------

#: A baseline's answers to a list of queries (estimated COUNTs).
Estimator = Callable[[list[Query]], np.ndarray]
#: Workloads as ``arxpy setvalued-utility --workload`` names them: ("w1", [supports %])
#: or ("w2", number of queries).
Workloads = Sequence[tuple[str, Any]]


@dataclass
class WorkloadComparison:
    """One workload answered by the reconstructions and by each baseline (by name)."""

    errors: dict[str, WorkloadError]  # "disassociation", then the baselines
    welch: dict[str, float | None] | None  # disassociation against "baseline"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: e.to_dict() for name, e in self.errors.items()}
        if self.welch is not None:
            out["welch"] = self.welch
        return out


def workload_queries(workloads: Workloads, original: CodeSets, seed: int,
                     allowed: set[str] | None = None) -> dict[str, list[Query]]:
    """The queries of each workload by its name (``w1:0.625``, ``w2:1000``); W2 is
    drawn with ``seed + 1``."""
    queries: dict[str, list[Query]] = {}
    for kind, value in workloads:
        if kind == "w1":
            for support in value:
                queries[f"w1:{support:g}"] = workload_w1(original, support, allowed=allowed)
        else:
            queries[f"w2:{value}"] = workload_w2(original, value,
                                                 np.random.default_rng(seed + 1),
                                                 allowed=allowed)
    return queries


def compare_workload(queries: list[Query], original: CodeSets, released: Sequence[CodeSets],
                     baselines: Mapping[str, Estimator] | None = None) -> WorkloadComparison:
    """Relative errors of the reconstructions (``released``) and of every baseline's
    estimates, with Welch's test of the reconstructions against the one named
    ``baseline``."""
    true = count_queries(original, queries)
    errors = {"disassociation": workload_error("disassociation", queries, true,
                                               [count_queries(r, queries) for r in released])}
    for name, estimate in (baselines or {}).items():
        errors[name] = workload_error(name, queries, true, [estimate(queries)])
    welch = welch_test(errors["disassociation"].per_query, errors["baseline"].per_query) \
        if "baseline" in errors else None
    return WorkloadComparison(errors, welch)


# --- MRE ------------------------------------------------------------------------------------

@dataclass
class ConstraintError:
    """MRE (%) of each utility constraint, averaged over the runs."""

    constraints: list[tuple[str, ...]]
    original_matches: np.ndarray
    mre: np.ndarray  # % per constraint (constraints with M_O = 0 are skipped)
    histogram: dict[str, float] = field(default_factory=dict)

    def within(self, low: float = -5.0, high: float = 5.0) -> float:
        """% of constraints with low <= MRE < high."""
        if len(self.mre) == 0:
            return math.nan
        return float(((self.mre >= low) & (self.mre < high)).mean() * 100.0)

    def to_dict(self) -> dict[str, Any]:
        return {"constraints": len(self.constraints),
                "histogram_percent": {b: _finite(v) for b, v in self.histogram.items()},
                "within_5_percent": _finite(self.within()),
                "per_constraint": [{"codes": list(u), "original": int(o), "mre": _finite(v)}
                                   for u, o, v in zip(self.constraints, self.original_matches,
                                                      self.mre, strict=True)]}


def constraint_error(original: CodeSets, released: Sequence[CodeSets],
                     constraints: Sequence[Sequence[str]]) -> ConstraintError:
    """MRE of every constraint that matches some original record."""
    original_index = RecordIndex(original)
    kept = [tuple(u) for u in constraints if original_index.count_any(u) > 0]
    m_o = np.array([original_index.count_any(u) for u in kept], dtype=float)
    runs = []
    for data in released:
        index = RecordIndex(data)
        m_a = np.array([index.count_any(u) for u in kept], dtype=float)
        runs.append((m_o - m_a) / m_o * 100.0 if len(kept) else np.zeros(0))
    mre = np.mean(runs, axis=0) if runs else np.zeros(len(kept))
    return ConstraintError(kept, m_o.astype(np.int64), mre, mre_histogram(mre))


def mre_histogram(values: np.ndarray) -> dict[str, float]:
    """% of values in each of the paper's MRE bins (:data:`MRE_BINS`)."""
    v = np.asarray(values, dtype=float)
    if len(v) == 0:
        return {b: 0.0 for b in MRE_BINS}
    masks = [v < -10, (v >= -10) & (v < -5), (v >= -5) & (v < -2.5), (v >= -2.5) & (v < 0),
             v == 0, (v > 0) & (v < 2.5), (v >= 2.5) & (v < 5), (v >= 5) & (v < 10), v >= 10]
    return {b: float(m.mean() * 100.0) for b, m in zip(MRE_BINS, masks, strict=True)}


def _finite(value: float) -> float | None:
    """Strict JSON has no NaN: undefined values are reported as null."""
    value = float(value)
    return value if math.isfinite(value) else None
