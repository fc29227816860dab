"""The background work of the disassociation views (no Qt): the publication's figures
with the independent k^m verdict, query error against a proxy baseline, MRE per utility
constraint, code counts, and the combination risk of the input.

Each job is a plain function taking ``progress`` and ``cancel`` (run by
:class:`arxpy.gui.workers.JobWorker`); the views only draw what it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np
import pandas as pd

from arxpy.analysis.setvalued_risk import (
    CombinationCounts,
    CombinationRisk,
    combination_counts,
    combination_risk,
    records_at_risk_percent,
)
from arxpy.analysis.setvalued_utility import (
    PAPER_SUPPORTS,
    ConstraintError,
    WorkloadComparison,
    compare_workload,
    constraint_error,
    workload_queries,
)
from arxpy.data.disassociated import reconstruct
from arxpy.data.icd9 import normalize_code, normalize_sets
from arxpy.data.transactions import CodeSets
from arxpy.data.utility_policy import policy_constraints
from arxpy.methods.disassociation import Disassociation, published_figures
from arxpy.methods.disassociation.method import COSTLY_M
from arxpy.methods.setvalued_baselines import (
    GeneralizationBaseline,
    global_generalization,
    global_suppression,
)
from arxpy.privacy.km_anonymity import KmCheck, check_km_anonymity
from arxpy.workflows.runs import MethodRun

#: Baselines a user may compare with (spec 002 §7: proxies of the paper's CBA).
BASELINES = {"gen": "B-gen (proxy: global generalisation)",
             "sup": "B-sup (proxy: global suppression)", "none": "no baseline"}
#: Where a code's occurrences are published.
PLACES = ("record chunk", "shared chunk", "item chunk")

Report = Callable[[float, str], None]

# The input's code sets, read once per release (50,000 cells take a moment).
_ORIGINAL: WeakKeyDictionary = WeakKeyDictionary()


def original_sets(run: MethodRun) -> CodeSets:
    """The run's input codes exactly as the method read them."""
    if run.release not in _ORIGINAL:
        _ORIGINAL[run.release] = run.method.read_codes(run.data)
    return _ORIGINAL[run.release]


def _quiet(progress: Report | None) -> Report:
    return progress or (lambda fraction, message: None)


# --- summary and the independent check ---------------------------------------------------------

@dataclass
class PublicationSummary:
    """The document's figures, where the input's occurrences went, and the checker's
    verdict (:func:`arxpy.privacy.km_anonymity.check_km_anonymity`)."""

    figures: dict[str, Any]
    item_only_codes: list[str]  # codes published only in item chunks (counts lost)
    occurrence_shares: dict[str, float]  # place -> share of the input's occurrences
    cluster_sizes: np.ndarray
    check: KmCheck


def summary_job(run: MethodRun, progress: Report | None = None,
                cancel: Any = None) -> PublicationSummary:
    report = _quiet(progress)
    published = run.release.published
    report(0.0, "Counting the publication")
    figures = published_figures(published)
    total = max(int(original_sets(run).indices.size), 1)
    in_records = figures.pop("record_chunk_occurrences")
    in_shared = figures.pop("shared_chunk_occurrences")
    shares = {"record chunk": in_records / total, "shared chunk": in_shared / total,
              "item chunk": (total - in_records - in_shared) / total}
    sizes = np.array([c["size"] for j in published["joint_clusters"] for c in j["clusters"]],
                     dtype=np.int64)
    places = code_places(published)
    item_only = sorted(c for c, kinds in places.items() if kinds == {"item chunk"})
    check = check_km_anonymity(
        published, progress=lambda f, m: report(0.1 + 0.9 * f, f"k^m check: {m}"),
        cancel=cancel)
    return PublicationSummary(figures, item_only, shares, sizes, check)


# --- utility ---------------------------------------------------------------------------------

@dataclass
class UtilityComparison:
    """What the Utility tab shows: ARE per workload (disassociation and the baseline),
    MRE per constraint, the code counts and the settings that produced them."""

    workloads: dict[str, WorkloadComparison]
    mre: ConstraintError | None
    constraint_descriptions: list[str]
    baseline: dict[str, Any] | None
    code_counts: pd.DataFrame
    reconstructions: int
    item_fill: str
    policy: str


def utility_job(run: MethodRun, *, policy: str, reconstructions: int = 5,
                item_fill: str = "one", baseline: str = "gen",
                supports: tuple[float, ...] = PAPER_SUPPORTS, w2_queries: int = 1000,
                seed: int = 0, progress: Report | None = None,
                cancel: Any = None) -> UtilityComparison:
    """ARE on W1 (``supports``) and W2 (``w2_queries``) over ``reconstructions`` random
    reconstructions against ``baseline`` (gen, sup or none), MRE for ``policy``."""
    report = _quiet(progress)
    check = cancel.raise_if_cancelled if cancel is not None else None
    # Undotted codes throughout, as arxpy setvalued-utility reads them: the baselines
    # and the policies look codes up in the ICD-9-CM hierarchy.
    original = normalize_sets(original_sets(run))
    published = run.release.published
    rng = np.random.default_rng(seed)
    released = []
    for i in range(reconstructions):
        report(0.3 * i / reconstructions, f"Reconstruction {i + 1} of {reconstructions}")
        if check is not None:
            check()
        released.append(normalize_sets(reconstruct(published, rng, item_fill)))
    report(0.3, f"Running the baseline {BASELINES[baseline]}")
    k, m = published["k"], published["m"]
    estimators: dict[str, Callable] = {}
    allowed = None
    summary = None
    if baseline != "none":
        base = global_generalization(original, k, m, check=check) if baseline == "gen" \
            else global_suppression(original, k, m, check=check)
        estimators["baseline"] = base.estimate
        summary = base.to_dict()
        if isinstance(base, GeneralizationBaseline):
            # Queries touch only the codes the generalisation kept [P L217].
            allowed = {c for c, g in base.mapping.items() if g is not None}
            estimators["baseline_nonempty"] = partial(base.estimate, reading="nonempty")
    report(0.6, "Answering the workloads")
    workloads: dict[str, WorkloadComparison] = {}
    queries = workload_queries([("w1", list(supports)), ("w2", w2_queries)], original, seed,
                               allowed)
    for name, items in queries.items():
        if check is not None:
            check()
        workloads[name] = compare_workload(items, original, released, estimators)
    report(0.85, "MRE per utility constraint")
    constraints = policy_constraints(policy, original)
    mre = constraint_error(original, released, constraints) if constraints else None
    descriptions = [constraint_description(u) for u in mre.constraints] if mre else []
    report(0.95, "Code counts")
    counts = code_counts(original, released, published)
    return UtilityComparison(workloads, mre, descriptions, summary, counts, reconstructions,
                             item_fill, policy)


def constraint_description(codes: tuple[str, ...]) -> str:
    """The ICD-9-CM group all codes of a constraint share (e.g. a 3-digit category), or
    the first code's description."""
    from arxpy.data import icd9

    keys = [icd9.base_code(icd9.normalize_code(c)) for c in codes]
    for level in icd9.LEVELS:
        groups = {icd9.ancestor(key, level) for key in keys}
        if len(groups) == 1:
            group = groups.pop()
            if icd9.is_known(group):
                return f"{icd9.dotted(group)} {icd9.describe(group)}"
    first = icd9.describe(keys[0]) if keys else ""
    return f"{first} …" if len(keys) > 1 else first


def code_counts(original: CodeSets, released: list[CodeSets],
                published: Mapping[str, Any]) -> pd.DataFrame:
    """Per code: records holding it originally, on average over the reconstructions,
    and the kinds of chunk the publication puts it in (``record + item``; most frequent
    codes first)."""
    mean = np.zeros(original.n_codes)
    position = {c: i for i, c in enumerate(original.vocabulary)}
    for data in released:
        index = np.array([position.get(c, -1) for c in data.vocabulary], dtype=np.int64)
        supports = data.supports
        kept = index >= 0
        np.add.at(mean, index[kept], supports[kept])
    mean /= max(len(released), 1)
    places = code_places(published)
    original_counts = original.supports.astype(float)
    frame = pd.DataFrame({
        "code": list(original.vocabulary), "original": original.supports,
        "reconstructed": np.round(mean, 1),
        "difference %": np.round((mean - original_counts) / np.where(
            original_counts > 0, original_counts, np.nan) * 100.0, 2),
        "chunks": [" + ".join(p.split()[0] for p in PLACES if p in places.get(c, ()))
                   for c in original.vocabulary]})
    return frame.sort_values(["original", "code"], ascending=[False, True],
                             ignore_index=True)


def code_places(published: Mapping[str, Any]) -> dict[str, set[str]]:
    """For every published code (normalised), the kinds of chunk it appears in."""
    places: dict[str, set[str]] = {}

    def add(codes: list[str], place: str) -> None:
        for code in codes:
            places.setdefault(normalize_code(code), set()).add(place)

    for joint in published["joint_clusters"]:
        for cluster in joint["clusters"]:
            for chunk in cluster.get("record_chunks", []):
                add(chunk["domain"], "record chunk")
            add(cluster.get("item_chunk", []), "item chunk")
        for chunk in joint.get("shared_chunks", []):
            add(chunk["domain"], "shared chunk")
    return places


# --- risk ------------------------------------------------------------------------------------

def risk_job(run: MethodRun, *, k: int, m: int, progress: Report | None = None,
             cancel: Any = None) -> CombinationRisk:
    """The input's combination risk for k^m-anonymity (Fig. 12 of the paper)."""
    _quiet(progress)(0.0, "Counting code combinations of 1-5 codes")
    check = cancel.raise_if_cancelled if cancel is not None else None
    return combination_risk(original_sets(run), k=k, m=m, check=check)


@dataclass
class RiskPreview:
    """The combination risk of the data a method is about to disassociate, with the code
    sets it was counted on (kept so that another k or m need not read them again)."""

    sets: CodeSets
    risk: CombinationRisk


def risk_preview_job(method: Disassociation, data: pd.DataFrame, *,
                     sets: CodeSets | None = None, counts: CombinationCounts | None = None,
                     progress: Report | None = None, cancel: Any = None) -> RiskPreview:
    """Before a run (spec 002 §6): ``data``'s codes as ``method`` reads them, counted
    as on the runs page, and the records at risk for the method's k and m. ``sets`` and
    ``counts`` already known for these data and reading settings are reused."""
    report = _quiet(progress)
    check = cancel.raise_if_cancelled if cancel is not None else None
    if sets is None:
        report(0.0, "Reading the codes")
        sets = method.read_codes(data)
    if counts is None:
        report(0.1, "Counting combinations of 1-5 codes")
        counts = combination_counts(sets, check=check)
    slow = " (m >= 4 on large data: a minute or more)" if method.m >= COSTLY_M else ""
    report(0.6, f"Records at risk for k = {method.k}, m = {method.m}{slow}")
    percent = records_at_risk_percent(sets, method.k, method.m, check=check)
    return RiskPreview(sets, CombinationRisk.of(counts, method.k, method.m, percent))
