"""Engine benchmark: search time, checks, roll-ups and peak memory.

Run from the repository root::

    python benchmarks/engine.py                 # Adult (3 configurations) + scaling
    python benchmarks/engine.py --no-scaling    # Adult only

Each configuration runs in its own subprocess so that its peak resident memory
(``ru_maxrss``, taken after the timed run) is its own; a second, traced run of the same
configuration gives the engine's peak allocation (tracemalloc slows numpy, so it is not
timed). Adult is read from ``../shared/data/adult``; the scaling
runs use the bundled synthetic discharge data (``arxpy.example.generate_example``)
with 5-anonymity, 2 % suppression and Loss (generated in chunks of 400,000 records
with different seeds, equal strings shared as a file reader would share them).
Results go to stdout as a table and, with ``--json FILE``, as JSON.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO.parent / "shared" / "data" / "adult"
ADULT_CASES = [("adult", 5, 0.0), ("adult", 5, 0.02), ("adult", 5, 0.10)]
SCALING_SIZES = [40_000, 400_000, 2_000_000]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _load_adult():
    import pandas as pd

    from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
    from arxpy.hierarchy.io import read_hierarchy

    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    hierarchies = {
        name: read_hierarchy(ADULT / f"adult_hierarchy_{name}.csv") for name in frame.columns
    }
    definition = DataDefinition(
        AttributeDefinition(c, AttributeType.QUASI_IDENTIFYING) for c in frame.columns)
    return frame, definition, hierarchies


def _shared_strings(frame):
    """The same table with one string object per distinct value and column.

    Generated cells are separate string objects; a table read from a file or held by
    an application shares far more. This keeps the benchmark about the engine.
    """
    import numpy as np
    import pandas as pd

    columns = {}
    for name in frame.columns:
        codes, uniques = pd.factorize(frame[name].to_numpy(dtype=object))
        columns[name] = np.asarray(uniques, dtype=object)[codes]
    return pd.DataFrame(columns)


def _load_example(records: int, chunk: int = 400_000):
    import pandas as pd

    from arxpy.example import example_definition, example_hierarchies, generate_example

    parts = [_shared_strings(generate_example(min(chunk, records - start), seed=start + 1))
             for start in range(0, records, chunk)]
    frame = _shared_strings(pd.concat(parts, ignore_index=True)) if len(parts) > 1 else parts[0]
    return frame, example_definition(), example_hierarchies(frame)


def child(dataset: str, k: int, suppression: float, records: int) -> dict:
    """One measured run (in this process)."""
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.privacy.kanonymity import KAnonymity
    from arxpy.quality.loss import Loss

    frame, definition, hierarchies = _load_adult() if dataset == "adult" else \
        _load_example(records)
    loaded_rss = _rss_mb()
    config = AnonymizationConfig([KAnonymity(k)], Loss(), suppression_limit=suppression)
    # Timed without tracemalloc, which slows numpy's allocations several-fold.
    started = time.perf_counter()
    result = anonymize(frame, definition, hierarchies, config)
    total = time.perf_counter() - started
    peak_rss = _rss_mb()
    # A second, traced run measures the engine's own allocations.
    tracemalloc.start()
    anonymize(frame, definition, hierarchies, config)
    engine_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    best = result.optimum
    return {
        "dataset": dataset, "records": result.records, "k": k, "suppression": suppression,
        "search_seconds": round(result.elapsed_seconds, 3),
        "total_seconds": round(total, 3),
        "transformations_checked": result.transformations_checked,
        "lattice_size": result.lattice_size, "rollups": result.rollups,
        "levels": list(best.levels), "score": best.score,
        "suppressed_records": best.suppressed_records,
        "rss_after_loading_mb": round(loaded_rss, 1), "peak_rss_mb": round(peak_rss, 1),
        "engine_peak_mb": round(engine_peak, 1),
    }


def _spawn(dataset: str, k: int, suppression: float, records: int = 0) -> dict:
    command = [sys.executable, __file__, "--child", dataset, str(k), str(suppression),
               str(records)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--no-scaling", action="store_true", help="skip the large runs")
    parser.add_argument("--no-adult", action="store_true", help="skip the Adult runs")
    parser.add_argument("--sizes", type=int, nargs="+", default=SCALING_SIZES)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args(argv)
    if args.child:
        dataset, k, suppression, records = args.child
        print(json.dumps(child(dataset, int(k), float(suppression), int(records))))
        return 0
    rows = []
    if args.no_adult:
        pass
    elif (ADULT / "adult.csv").exists():
        rows += [_spawn(*case) for case in ADULT_CASES]
    else:
        print(f"Adult data not found at {ADULT}; skipping the Adult runs.", file=sys.stderr)
    if not args.no_scaling:
        rows += [_spawn("example", 5, 0.02, n) for n in args.sizes]
    header = ("dataset", "records", "suppression", "search_seconds", "total_seconds",
              "transformations_checked", "lattice_size", "rollups", "peak_rss_mb", "engine_peak_mb",
              "score")
    print(" | ".join(header))
    for row in rows:
        print(" | ".join(str(row[h]) for h in header))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
