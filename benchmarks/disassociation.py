"""Disassociation (Loukides et al. 2014): speed targets (spec §5 item 12, issue 15).

Run from the repository root::

    nice python3 benchmarks/disassociation.py                   # everything
    nice python3 benchmarks/disassociation.py --only full       # 58,302 records, k=5, m=2
    nice python3 benchmarks/disassociation.py --only scaling    # 2.5K..58K, log-log slope
    nice python3 benchmarks/disassociation.py --only m4         # m=4 on 58,302 records

Data: ``arxpy.data.synth_ehr`` (the spec's generator) when it is installed; otherwise
a ZIPF STAND-IN defined below (NOT the spec's generator: 631 codes in 3-digit
categories, Zipf popularity, sibling co-occurrence, record length 1 + NegBin(1.6,
mean 4.11) capped at 43). Each run prints which data it used. Targets: 58,302 records at
k=5, m=2 in under 30 s; near-linear scaling (slope well below 1.5); m=4 in under
2 minutes. Results go to stdout and, with ``--json FILE``, as JSON.
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
from arxpy.methods.disassociation import Disassociation, published_figures  # noqa: E402

RECORDS = 58_302
SIZES = (2_500, 5_000, 10_000, 25_000, RECORDS)


def zipf_stand_in(records: int, seed: int, codes: int = 631) -> pd.DataFrame:
    """The stand-in data set (see the module docstring), one ';'-joined cell per record."""
    rng = np.random.default_rng(seed)
    leaves = np.minimum(rng.geometric(0.35, size=codes), 9)
    category = np.repeat(np.arange(codes), leaves)[:codes]  # leaves per 3-digit category
    names = [f"{100 + c:03d}.{i}" for c, i in zip(category, _rank_in_group(category),
                                                  strict=True)]
    popularity = 1.0 / np.arange(1, codes + 1) ** 1.1
    popularity = popularity[rng.permutation(codes)]
    popularity /= popularity.sum()
    lengths = np.minimum(1 + rng.negative_binomial(1.6, 1.6 / (1.6 + 4.11), size=records), 43)
    siblings = {c: np.flatnonzero(category == category[c]) for c in range(codes)}
    cells = []
    for length in lengths:
        chosen = set(rng.choice(codes, size=1, p=popularity).tolist())
        while len(chosen) < length:
            if rng.random() < 0.3:
                anchor = list(chosen)[rng.integers(len(chosen))]
                chosen.add(int(rng.choice(siblings[anchor])))
            else:
                chosen.add(int(rng.choice(codes, p=popularity)))
        cells.append(";".join(names[c] for c in sorted(chosen)))
    return pd.DataFrame({"codes": cells})


def _rank_in_group(category: np.ndarray) -> np.ndarray:
    starts = np.r_[0, np.flatnonzero(np.diff(category)) + 1]
    return np.arange(len(category)) - np.repeat(starts, np.diff(np.r_[starts, len(category)]))


def dataset(records: int, seed: int) -> tuple[pd.DataFrame, str]:
    try:
        from arxpy.data import synth_ehr  # the spec's generator, built alongside
        frame = synth_ehr.generate(records=records, seed=seed)  # type: ignore[attr-defined]
        return frame, "arxpy.data.synth_ehr"
    except (ImportError, AttributeError):
        return zipf_stand_in(records, seed), "Zipf stand-in (not the spec's generator)"


def timed_run(frame: pd.DataFrame, k: int, m: int, policy: str) -> dict:
    method = Disassociation(k=k, m=m, codes_column="codes", policy=policy, seed=0)
    started, cpu = time.perf_counter(), time.process_time()
    release = method.run(frame, DataDefinition.for_columns(frame.columns))
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    figures = published_figures(release.published)
    figures.pop("cluster_size")
    return {"records": len(frame), "k": k, "m": m, "policy": policy, "seconds": seconds,
            "cpu_seconds": cpu,
            "timings": dict(release.timings), **figures}


def _rounded(timings: dict) -> dict:
    return {key: round(value, 2) for key, value in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=("full", "scaling", "m4"))
    parser.add_argument("--policy", default="hierarchy:1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
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
        row = timed_run(full, 5, 4, args.policy)
        print(f"full k=5 m=4: {row['seconds']:.1f} s wall, {row['cpu_seconds']:.1f} s CPU "
              f"(target < 120 s) {_rounded(row['timings'])}")
        results["m4"] = row
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
