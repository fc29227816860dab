"""Engine benchmark: search time, checks, roll-ups and peak memory.

Run from the repository root::

    python benchmarks/engine.py                 # Adult (3 configurations) + scaling
    python benchmarks/engine.py --no-scaling    # Adult only
    python benchmarks/engine.py --models        # issue 20's models on Adult and synthetic
    python benchmarks/engine.py --models --only adult-dm syn-tcl-equal --seeds 1 2
    python benchmarks/engine.py --models --only syn-tcl-ordered --qis 5 6 7 8 \
        --records 60000 --timeout 300 --no-trace   # the synthetic grid

``--models`` runs every configuration of issue 20's tables: on Adult (5-anonymity, 2 %
unless named) Loss, distinct-3-diversity, non-uniform entropy, KL, discernibility, the
classification model and t-closeness with all three distances; on synthetic tables
(``benchmarks/synthetic_tables.py``: 5-8 quasi-identifiers, heights 3-5, skewed values,
a numeric sensitive attribute) t-closeness with all three distances, recursive-(c,l),
AECS, classification, discernibility and an infeasible configuration, per seed.

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
import os
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


def _adult_with_sensitive(attribute: str):
    from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition

    frame, _, hierarchies = _load_adult()
    definition = DataDefinition(
        AttributeDefinition(c, AttributeType.SENSITIVE if c == attribute
                            else AttributeType.QUASI_IDENTIFYING) for c in frame.columns)
    return frame, definition, hierarchies


def _model_configurations() -> dict[str, tuple]:
    """name -> (data kind, privacy models, quality model, suppression, level cap or None).

    A level cap of -1 keeps every quasi-identifier one level below its top.

    Built lazily (imports arxpy); ``data kind`` is "adult", "adult-occupation" (occupation
    sensitive, the other eight quasi-identifiers) or "synthetic".
    """
    from arxpy.privacy.kanonymity import KAnonymity
    from arxpy.privacy.ldiversity import DistinctLDiversity, RecursiveCLDiversity
    from arxpy.privacy.tcloseness import TCloseness
    from arxpy.quality.aecs import AverageClassSize
    from arxpy.quality.classification import Classification
    from arxpy.quality.discernibility import Discernibility
    from arxpy.quality.entropy import NonUniformEntropy
    from arxpy.quality.kl import KLDivergence
    from arxpy.quality.loss import Loss

    k5 = KAnonymity(5)
    occupation = "adult-occupation"
    return {
        "adult-loss-0": ("adult", [k5], Loss(), 0.0, None),
        "adult-loss-2": ("adult", [k5], Loss(), 0.02, None),
        "adult-loss-10": ("adult", [k5], Loss(), 0.10, None),
        "adult-distinct-3": (occupation, [k5, DistinctLDiversity("occupation", 3)], Loss(),
                             0.02, None),
        "adult-entropy": ("adult", [k5], NonUniformEntropy(), 0.02, None),
        "adult-kl": ("adult", [k5], KLDivergence(), 0.02, None),
        "adult-dm": ("adult", [k5], Discernibility(), 0.02, None),
        "adult-classification": ("adult", [k5], Classification("salary-class"), 0.02, None),
        "adult-tcl-equal": (occupation, [k5, TCloseness("occupation", 0.2, "equal")], Loss(),
                            0.02, None),
        "adult-tcl-ordered": (occupation, [k5, TCloseness("occupation", 0.2, "ordered")],
                              Loss(), 0.02, None),
        "adult-tcl-hierarchical": (occupation,
                                   [k5, TCloseness("occupation", 0.2, "hierarchical")],
                                   Loss(), 0.02, None),
        "syn-tcl-equal": ("synthetic", [KAnonymity(20), TCloseness("cost", 0.3, "equal")],
                          AverageClassSize(), 0.01, None),
        "syn-tcl-ordered": ("synthetic", [KAnonymity(10), TCloseness("cost", 0.3, "ordered")],
                            Classification("outcome"), 0.10, None),
        "syn-tcl-hierarchical": ("synthetic",
                                 [KAnonymity(5), TCloseness("cost", 0.3, "hierarchical")],
                                 Loss(), 0.02, None),
        "syn-recursive-cl": ("synthetic", [KAnonymity(5), RecursiveCLDiversity("cost", 4.0, 3)],
                             Loss(), 0.05, None),
        "syn-aecs": ("synthetic", [KAnonymity(10)], AverageClassSize(), 0.02, None),
        "syn-classification": ("synthetic", [KAnonymity(10)], Classification("outcome"), 0.05,
                               None),
        "syn-dm": ("synthetic", [KAnonymity(5)], Discernibility(), 0.02, None),
        # Capped one level below the top, no transformation is 10-anonymous within 1 %.
        "syn-infeasible": ("synthetic", [KAnonymity(10), TCloseness("cost", 0.3, "equal")],
                           Loss(), 0.01, -1),
    }


def model_child(name: str, seed: int, records: int, n_qi: int, warm: int = 0) -> dict:
    """One measured run of a named configuration (in this process), then ``warm`` more
    in the same process: issue 20's protocol compares ARX's best in-process run in a
    warm JVM with arxpy's best ``elapsed_seconds``, so the warm runs' best is reported
    too (``warm_search_seconds``)."""
    import dataclasses

    from arxpy.engine import AnonymizationConfig, anonymize

    kind, privacy, quality, suppression, max_level = _model_configurations()[name]
    if kind == "synthetic":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from synthetic_tables import generate

        table = generate(seed, records, n_qi)
        frame, definition, hierarchies = table.frame, table.definition, table.hierarchies
        if max_level is not None:
            from arxpy.data.definition import DataDefinition

            definition = DataDefinition(
                dataclasses.replace(a, max_level=len(hierarchies[a.name].rows[0]) - 2)
                if a.name.startswith("q") else a for a in definition)
    elif kind == "adult":
        frame, definition, hierarchies = _load_adult()
    else:
        frame, definition, hierarchies = _adult_with_sensitive("occupation")
    config = AnonymizationConfig(privacy, quality, suppression_limit=suppression)
    started = time.perf_counter()
    cpu = time.process_time()
    result = anonymize(frame, definition, hierarchies, config)
    cpu = time.process_time() - cpu
    total = time.perf_counter() - started
    peak_rss = _rss_mb()
    warm_seconds = [anonymize(frame, definition, hierarchies, config).elapsed_seconds
                    for _ in range(warm)]
    engine_peak = None
    if os.environ.get("ARXPY_BENCH_TRACE", "1") == "1":
        tracemalloc.start()
        anonymize(frame, definition, hierarchies, config)
        engine_peak = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.stop()
    best = result.optimum
    return {
        "config": name, "dataset": kind, "seed": seed if kind == "synthetic" else None,
        "records": result.records, "suppression": suppression,
        "qis": n_qi if kind == "synthetic" else None,
        "search_seconds": round(result.elapsed_seconds, 3),
        "warm_search_seconds": round(min(warm_seconds), 3) if warm_seconds else None,
        "total_seconds": round(total, 3), "cpu_seconds": round(cpu, 3),
        "transformations_checked": result.transformations_checked,
        "lattice_size": result.lattice_size, "rollups": result.rollups,
        "levels": None if best is None else list(best.levels),
        "score": None if best is None else best.score,
        "suppressed_records": None if best is None else best.suppressed_records,
        "peak_rss_mb": round(peak_rss, 1), "engine_peak_mb": engine_peak,
    }


def _spawn_model(name: str, seed: int, records: int, n_qi: int, trace: bool, warm: int = 0,
                 timeout: float | None = None) -> dict:
    command = [sys.executable, __file__, "--model-child", name, str(seed), str(records),
               str(n_qi), "--warm", str(warm)]
    env = dict(os.environ, ARXPY_BENCH_TRACE="1" if trace else "0")
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO,
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"config": name, "seed": seed, "records": records, "qis": n_qi,
                "search_seconds": f"timed out after {timeout:g} s"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _run_models(args: argparse.Namespace) -> list[dict]:
    names = args.only or list(_model_configurations())
    unknown = sorted(set(names) - set(_model_configurations()))
    if unknown:
        raise SystemExit(f"Unknown configuration(s): {', '.join(unknown)}; choose from "
                         f"{', '.join(_model_configurations())}.")
    have_adult = (ADULT / "adult.csv").exists()
    rows = []
    for name in names:
        if name.startswith("adult") and not have_adult:
            print(f"Adult data not found at {ADULT}; skipping {name}.", file=sys.stderr)
            continue
        synthetic = name.startswith("syn")
        for n_qi in args.qis if synthetic else [0]:
            for seed in args.seeds if synthetic else [0]:
                runs = [_spawn_model(name, seed, args.records, n_qi, trace=(i == 0)
                                     and not args.no_trace, warm=args.warm,
                                     timeout=args.timeout) for i in range(args.repeat)]
                best = min(runs, key=_seconds)
                best["engine_peak_mb"] = runs[0].get("engine_peak_mb")
                best["repeats"] = args.repeat
                rows.append(best)
                print(" | ".join(str(best.get(h)) for h in MODEL_HEADER), file=sys.stderr)
    return rows


def _seconds(row: dict) -> float:
    """A run's search time for choosing the fastest (a timed-out run is the slowest)."""
    seconds = row["search_seconds"]
    return seconds if isinstance(seconds, float | int) else float("inf")


MODEL_HEADER = ("config", "seed", "qis", "records", "search_seconds", "warm_search_seconds",
                "cpu_seconds",
                "transformations_checked", "lattice_size", "peak_rss_mb", "engine_peak_mb",
                "levels", "score")


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
    parser.add_argument("--model-child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--models", action="store_true",
                        help="run issue 20's model configurations instead")
    parser.add_argument("--only", nargs="+", help="with --models: these configurations")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3],
                        help="with --models: seeds of the synthetic tables")
    parser.add_argument("--records", type=int, default=20_000,
                        help="with --models: records of each synthetic table")
    parser.add_argument("--qis", type=int, nargs="+", default=[6], choices=range(5, 9),
                        help="with --models: quasi-identifiers of the synthetic tables "
                             "(several: one table per count and seed)")
    parser.add_argument("--warm", type=int, default=3,
                        help="with --models: in-process runs after the first, their best "
                             "reported as warm_search_seconds (issue 20's protocol)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="with --models: seconds before a configuration's run is "
                             "given up and reported as timed out")
    parser.add_argument("--repeat", type=int, default=1,
                        help="with --models: runs per configuration, the fastest reported")
    parser.add_argument("--no-trace", action="store_true",
                        help="with --models: skip the traced run (engine peak memory)")
    args = parser.parse_args(argv)
    if args.child:
        dataset, k, suppression, records = args.child
        print(json.dumps(child(dataset, int(k), float(suppression), int(records))))
        return 0
    if args.model_child:
        name, seed, records, n_qi = args.model_child
        print(json.dumps(model_child(name, int(seed), int(records), int(n_qi), args.warm)))
        return 0
    if args.models:
        rows = _run_models(args)
        print(" | ".join(MODEL_HEADER))
        for row in rows:
            print(" | ".join(str(row.get(h)) for h in MODEL_HEADER))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
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
