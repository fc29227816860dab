"""Disassociation (Loukides et al. 2014): speed targets (spec §5 item 12, issue 15).

Run from the repository root::

    nice python3 benchmarks/disassociation.py                   # everything
    nice python3 benchmarks/disassociation.py --only full       # 58,302 records, k=5, m=2
    nice python3 benchmarks/disassociation.py --only scaling    # 2.5K..58K, log-log slope
    nice python3 benchmarks/disassociation.py --only m4         # m=4 on 58,302 records,
                                                                # then the k^m checker
    nice python3 benchmarks/disassociation.py --only protocol   # the paper's protocol

Data: the spec's generator ``arxpy.data.synth_ehr.generate_ehr`` (58,302 records over
631 real ICD-9-CM codes; the paper's INFORMS data cannot be had). Targets: 58,302
records at k=5, m=2 in under 30 s; near-linear scaling (slope well below 1.5); m=4 in
under 2 minutes, and so the independent k^m checker on that output. ``protocol`` runs
the utility study of spec §7 (claims C1-C8, C10; see
``benchmarks/disassociation_protocol.py``). Results go to stdout and, with
``--json FILE``, as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arxpy.data.definition import DataDefinition  # noqa: E402
from arxpy.data.synth_ehr import generate_ehr  # noqa: E402
from arxpy.methods.disassociation import Disassociation, published_figures  # noqa: E402
from arxpy.privacy.km_anonymity import check_km_anonymity  # noqa: E402

RECORDS = 58_302
SIZES = (2_500, 5_000, 10_000, 25_000, RECORDS)


def dataset(records: int, seed: int) -> tuple[pd.DataFrame, str]:
    """The spec's generator (``arxpy synth-ehr``): dotted codes joined by ';'."""
    frame = generate_ehr(records=records, seed=seed)
    return frame[["codes"]], f"arxpy.data.synth_ehr.generate_ehr(seed={seed})"


def timed_run(frame: pd.DataFrame, k: int, m: int, policy: str, check: bool = False) -> dict:
    """The method's run; with ``check``, also the independent k^m checker on its output."""
    method = Disassociation(k=k, m=m, codes_column="codes", policy=policy, seed=0)
    started, cpu = time.perf_counter(), time.process_time()
    release = method.run(frame, DataDefinition.for_columns(frame.columns))
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    figures = published_figures(release.published)
    figures.pop("cluster_size")
    row = {"records": len(frame), "k": k, "m": m, "policy": policy, "seconds": seconds,
           "cpu_seconds": cpu, "timings": dict(release.timings), **figures}
    if check:
        started, cpu = time.perf_counter(), time.process_time()
        verdict = check_km_anonymity(release.published)
        row["check"] = {"seconds": time.perf_counter() - started,
                        "cpu_seconds": time.process_time() - cpu, "ok": verdict.ok,
                        "violations": verdict.violations_found + len(verdict.cluster_violations)}
    return row


def _rounded(timings: dict) -> dict:
    return {key: round(value, 2) for key, value in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=("full", "scaling", "m4", "protocol"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0],
                        help="generator seeds of the protocol (the spec asks for 0 1 2)")
    parser.add_argument("--reconstructions", type=int, default=5,
                        help="R of the protocol (spec: 5)")
    parser.add_argument("--policy", default="hierarchy:1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.only == "protocol":
        from disassociation_protocol import run_protocol

        results = run_protocol(args.seeds, args.reconstructions)
        if args.json:
            args.json.write_text(json.dumps(results, indent=2) + "\n")
        return
    full, source = dataset(RECORDS, args.seed)
    print(f"data: {source}, {len(full)} records, seed {args.seed}, policy {args.policy}")
    results: dict = {"data": source, "policy": args.policy}
    if args.only in (None, "full"):
        row = timed_run(full, 5, 2, args.policy)
        print(f"full k=5 m=2: {row['seconds']:.1f} s wall, {row['cpu_seconds']:.1f} s CPU "
              f"(target < 30 s) {_rounded(row['timings'])}")
        results["full"] = row
    if args.only in (None, "scaling"):
        rows = [timed_run(full.iloc[:n], 5, 2, args.policy) for n in SIZES]
        slope = np.polyfit(np.log([r["records"] for r in rows]),
                           np.log([r["cpu_seconds"] for r in rows]), 1)[0]
        for r in rows:
            print(f"  {r['records']:>6} records: {r['seconds']:6.2f} s wall, "
                  f"{r['cpu_seconds']:6.2f} s CPU, {r['clusters']} clusters, "
                  f"{r['shared_chunks']} shared chunks")
        print(f"log-log slope of CPU time 2.5K..58K: {slope:.2f} (sub-quadratic below 1.5)")
        results["scaling"] = {"runs": rows, "slope": slope}
    if args.only in (None, "m4"):
        row = timed_run(full, 5, 4, args.policy, check=True)
        print(f"full k=5 m=4: {row['seconds']:.1f} s wall, {row['cpu_seconds']:.1f} s CPU "
              f"(target < 120 s) {_rounded(row['timings'])}")
        check = row["check"]
        print(f"independent k^m check (m=4) of that output: {check['seconds']:.1f} s wall, "
              f"{check['cpu_seconds']:.1f} s CPU (target < 120 s), "
              f"{check['violations']} violations")
        results["m4"] = row
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
