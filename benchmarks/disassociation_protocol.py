"""The paper's utility protocol for disassociation on the synthetic EHR generator
(Loukides et al. 2014 Sec. 6; spec 002 §7, claims C1-C8 and C10).

Run from the repository root (about 10 minutes per seed on an idle 2-core machine)::

    nice python3 benchmarks/disassociation.py --only protocol --seeds 0 [1 2] \\
        [--reconstructions 5] [--json /tmp/dis_protocol.json]

Per generator seed (58,302 records, 631 codes): policy ``hierarchy:1`` (level 1), m = 2.

* The B-gen proxy baseline (global full-subtree generalisation) at k = 5, m = 2; the
  workloads W1 (frequent itemsets of 1-4 codes at 0.625 / 1.25 / 2.5 / 5 %) and W2 (1,000
  nested chains, 250 per size) use only codes B-gen did not suppress [P L217]; the same
  queries serve every run of the seed, so runs compare on equal terms.
* Disassociation at k in {2, 5, 10, 25} with REFINE, and at k = 5 without it; each
  publication judged by the independent checker (C1); ARE over R reconstructions (item
  fill ``one``); MRE share of level-1 constraints within [-5, 5) %; Welch's t-test
  against B-gen at k = 5.
* B-sup (global suppression) and B-gen at m = 3: share of codes lost (C2).
* The first 2,500 records at k = 5 (policy sup:1.25, W2; C7).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from arxpy.analysis.setvalued_utility import (
    PAPER_SUPPORTS,
    constraint_error,
    welch_test,
    workload_error,
    workload_w1,
    workload_w2,
)
from arxpy.data.disassociated import reconstruct
from arxpy.data.itemsets import count_queries
from arxpy.data.synth_ehr import generate_code_sets
from arxpy.data.transactions import CodeSets
from arxpy.data.utility_policy import policy_constraints
from arxpy.methods.disassociation import Disassociation, published_figures
from arxpy.methods.setvalued_baselines import global_generalization, global_suppression
from arxpy.privacy.km_anonymity import check_km_anonymity

KS = (2, 5, 10, 25)
POLICY = "hierarchy:1"
W2_QUERIES = 1000


def run_protocol(seeds: list[int], reconstructions: int, records: int = 58_302
                 ) -> dict[str, Any]:
    """Every seed's results (``records`` below 58,302 only for a quick try)."""
    runs = [_one_seed(seed, reconstructions, records) for seed in seeds]
    return {"seeds": seeds, "reconstructions": reconstructions, "policy": POLICY,
            "runs": runs}


def _one_seed(seed: int, reconstructions: int, records: int) -> dict[str, Any]:
    sets = generate_code_sets(records=records, seed=seed)
    print(f"seed {seed}: {len(sets)} records, {sets.n_codes} codes", flush=True)
    gen = global_generalization(sets, 5, 2)
    allowed = {c for c, g in gen.mapping.items() if g is not None}
    workloads = _workloads(sets, allowed, seed)
    truth = {name: count_queries(sets, queries) for name, queries in workloads.items()}
    constraints = policy_constraints(POLICY, sets)
    out: dict[str, Any] = {"seed": seed, "records": len(sets), "codes": sets.n_codes,
                           "queries": {n: len(q) for n, q in workloads.items()},
                           "constraints": len(constraints)}
    baseline = {name: workload_error("B-gen", q, truth[name], [gen.estimate(q)])
                for name, q in workloads.items()}
    out["b_gen"] = {**gen.to_dict(), **_are(baseline)}
    runs = {}
    for k, refine in [(k, True) for k in KS] + [(5, False)]:
        label = f"k={k}" + ("" if refine else ", no REFINE")
        runs[label], errors = _disassociation(sets, k, refine, seed, reconstructions,
                                              workloads, truth, constraints)
        if k == 5 and refine:
            runs[label]["welch_p"] = {n: welch_test(errors[n].per_query,
                                                    baseline[n].per_query)["p"]
                                      for n in workloads}
        print(f"  {label}: {_line(runs[label])}", flush=True)
    out["disassociation"] = runs
    out["codes_lost_m3"] = {
        "b_sup_m2_percent": global_suppression(sets, 5, 2).to_dict()["suppressed_percent"],
        "b_sup_m3_percent": global_suppression(sets, 5, 3).to_dict()["suppressed_percent"],
        "b_gen_m3_percent": global_generalization(sets, 5, 3).to_dict()["suppressed_percent"],
        "disassociation_percent": 0.0 if runs["k=5"]["codes_lost"] == 0 else
        100.0 * runs["k=5"]["codes_lost"] / sets.n_codes}
    out["small_data"] = _small_data(sets, seed, reconstructions)
    print(f"  codes lost: {out['codes_lost_m3']}; 2.5K: {out['small_data']}", flush=True)
    return out


def _workloads(sets: CodeSets, allowed: set[str], seed: int) -> dict[str, list]:
    found = {f"w1:{s:g}": workload_w1(sets, s, allowed=allowed) for s in PAPER_SUPPORTS}
    found["w2"] = workload_w2(sets, W2_QUERIES, np.random.default_rng([seed, 2]),
                              allowed=allowed)
    return found


def _disassociation(sets, k, refine, seed, reconstructions, workloads, truth, constraints):
    method = Disassociation(k=k, m=2, codes_column="codes", policy=POLICY, refine=refine)
    started, cpu = time.perf_counter(), time.process_time()
    published = method.disassociate(sets, seed=seed).published
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    check = check_km_anonymity(published, k, 2)
    rng = np.random.default_rng([seed, k, refine])
    released = [reconstruct(published, rng, "one") for _ in range(reconstructions)]
    errors = {name: workload_error("Dis", q, truth[name],
                                   [count_queries(r, q) for r in released])
              for name, q in workloads.items()}
    figures = published_figures(published)
    occurrences = int(sets.indices.size)
    published_codes = {c for r in released[:1] for c in r.vocabulary}
    row = {"seconds": seconds, "cpu_seconds": cpu, "clusters": figures["clusters"],
           "min_cluster": figures["cluster_size"]["min"],
           "record_chunk_share": figures["record_chunk_occurrences"] / occurrences,
           "shared_chunks": figures["shared_chunks"],
           "checker_ok": check.ok, "checker_violations": check.violations_found,
           "codes_lost": len(set(sets.vocabulary) - published_codes),
           "mre_within_5": constraint_error(sets, released, constraints).within(),
           **_are(errors)}
    return row, errors


def _are(errors: dict) -> dict[str, Any]:
    out = {f"are_{name}": err.are for name, err in errors.items()}
    out["are_w2_by_size"] = {str(s): v for s, v in errors["w2"].by_size().items()}
    return out


def _small_data(sets: CodeSets, seed: int, reconstructions: int) -> dict[str, float]:
    """C7: ARE of W2 on the first 2,500 records against the full data (sup:1.25)."""
    out = {}
    for n in (2_500, len(sets)):
        part = sets.subset(np.arange(n))
        method = Disassociation(k=5, m=2, codes_column="codes", policy="sup:1.25")
        published = method.disassociate(part, seed=seed).published
        rng = np.random.default_rng([seed, n])
        released = [reconstruct(published, rng, "one") for _ in range(reconstructions)]
        used = CodeSets.from_sets(part.to_sets())  # only the codes of the prefix
        queries = workload_w2(used, W2_QUERIES, np.random.default_rng([seed, 3]))
        error = workload_error("Dis", queries, count_queries(used, queries),
                               [count_queries(r, queries) for r in released])
        out[f"are_w2_{n}"] = error.are
    return out


def _line(row: dict[str, Any]) -> str:
    w1 = " / ".join(f"{row[f'are_w1:{s:g}']:.3f}" for s in PAPER_SUPPORTS)
    sizes = " / ".join(f"{v:.3f}" for v in row["are_w2_by_size"].values())
    return (f"W1 {w1}; W2 {row['are_w2']:.3f} ({sizes}); MRE in [-5,5) "
            f"{row['mre_within_5']:.1f} %; {row['clusters']} clusters (min "
            f"{row['min_cluster']}); checker {'ok' if row['checker_ok'] else 'FAILED'}; "
            f"{row['seconds']:.1f} s wall, {row['cpu_seconds']:.1f} s CPU")
