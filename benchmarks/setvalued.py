"""Set-valued data benchmark: generator calibration, k^m checker speed, baselines.

Run from the repository root::

    python benchmarks/setvalued.py calibration --seeds 0 1 2   # generator vs the paper
    python benchmarks/setvalued.py checker --m 2 3 4           # km-check speed on 58K
    python benchmarks/setvalued.py baselines --m 2 3           # B-gen / B-sup

Data: the synthetic EHR generator at the paper's size (58,302 records, 631 codes). The
checker runs on two hand-built publications (no disassociation algorithm involved):
``one-chunk`` puts every whole record in a single record chunk (the checker's worst
case: long records, one chunk; not anonymous, so violations are found and listed), and
``clusters`` cuts the records in order into clusters of 10 with one single-code record
chunk per code of support >= k (many small chunks; k^m-anonymous by construction).
Nothing is tuned to the result.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's arxpy

import numpy as np  # noqa: E402

from arxpy.analysis.setvalued_risk import combination_risk  # noqa: E402
from arxpy.data.synth_ehr import generate_code_sets  # noqa: E402
from arxpy.methods.setvalued_baselines import (  # noqa: E402
    global_generalization,
    global_suppression,
)
from arxpy.privacy.km_anonymity import check_km_anonymity  # noqa: E402


def calibration(seeds: list[int]) -> list[dict]:
    rows = []
    for seed in seeds:
        started = time.perf_counter()
        sets = generate_code_sets(seed=seed)
        generated = time.perf_counter() - started
        risk = combination_risk(sets, k=5, m=2, max_size=5)
        rows.append({"seed": seed, "seconds": round(generated, 2), "records": len(sets),
                     "codes": sets.n_codes, "mean_length": round(float(sets.lengths.mean()), 3),
                     "max_length": int(sets.lengths.max()),
                     "unique_2_code_sets_percent": round(risk.unique_share(2), 1),
                     "unique_5_code_sets_percent": round(risk.unique_share(5), 1),
                     "records_at_risk_k5_m2_percent": round(risk.records_at_risk_percent, 1),
                     "capped_records": risk.capped_records})
        print(json.dumps(rows[-1]))
    return rows


def one_chunk_publication(records: list[frozenset[str]], k: int, m: int) -> dict:
    domain = sorted(set().union(*records))
    return {"method": "disassociation", "k": k, "m": m, "params": {}, "joint_clusters": [
        {"clusters": [{"size": len(records), "item_chunk": [], "record_chunks": [
            {"domain": domain, "subrecords": [sorted(r) for r in records]}]}]}]}


def clustered_publication(records: list[frozenset[str]], k: int, m: int,
                          size: int = 10) -> dict:
    joints = []
    for start in range(0, len(records) - len(records) % size, size):
        part = records[start:start + size]
        if start + 2 * size > len(records):
            part = records[start:]
        support: dict[str, int] = {}
        for r in part:
            for c in r:
                support[c] = support.get(c, 0) + 1
        common = sorted(c for c, n in support.items() if n >= k)
        joints.append({"clusters": [{
            "size": len(part),
            "record_chunks": [{"domain": [c], "subrecords": [[c] if c in r else []
                                                             for r in part]} for c in common],
            "item_chunk": sorted(c for c, n in support.items() if n < k)}],
            "shared_chunks": []})
    return {"method": "disassociation", "k": k, "m": m, "params": {}, "joint_clusters": joints}


def checker(ms: list[int], k: int) -> list[dict]:
    records = generate_code_sets(seed=0).to_sets()
    rows = []
    for name, build in (("one-chunk", one_chunk_publication),
                        ("clusters", clustered_publication)):
        for m in ms:
            document = build(records, k, m)
            started = time.perf_counter()
            result = check_km_anonymity(document, k, m)
            rows.append({"publication": name, "k": k, "m": m,
                         "seconds": round(time.perf_counter() - started, 2),
                         "chunks": result.record_chunks + result.shared_chunks,
                         "violations": result.violations_found})
            print(json.dumps(rows[-1]))
    return rows


def baselines(ms: list[int], k: int) -> list[dict]:
    sets = generate_code_sets(seed=0)
    rows = []
    for m in ms:
        for run in (global_generalization, global_suppression):
            result = run(sets, k, m)
            summary = {key: (round(v, 2) if isinstance(v, float) else v)
                       for key, v in result.to_dict().items()}
            rows.append(summary)
            print(json.dumps(summary))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    cal = sub.add_parser("calibration")
    cal.add_argument("--seeds", type=int, nargs="+", default=[0])
    chk = sub.add_parser("checker")
    chk.add_argument("--m", type=int, nargs="+", default=[2, 3, 4])
    chk.add_argument("--k", type=int, default=5)
    base = sub.add_parser("baselines")
    base.add_argument("--m", type=int, nargs="+", default=[2, 3])
    base.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    np.seterr(all="ignore")
    if args.what == "calibration":
        calibration(args.seeds)
    elif args.what == "checker":
        checker(args.m, args.k)
    else:
        baselines(args.m, args.k)


if __name__ == "__main__":
    main()
