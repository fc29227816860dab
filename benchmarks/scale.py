"""Scale benchmark (issue 17): 10^6 to 10^8 records through the record engines.

Run from the repository root (once, niced: it writes tens of GB)::

    nice -n 10 python benchmarks/scale.py --data /tmp/arxpy-scale --sizes 1e6 1e7 1e8 \
        --json scale.json

Data: a base of ``--base`` records (default 10^6) from
:func:`arxpy.example.generate_example`, then for each size that many rows drawn from the
base with replacement (a hash of the row number picks the base row), written as Parquet
by DuckDB in one streaming ``COPY`` (never all rows in memory). The example's
distributions are kept; the number of distinct quasi-identifier combinations is at most
the base's (generating 10^8 fresh records would take about an hour here), and sizes
above 10^7 repeat one draw of 10^7 rows (the join that draws is slow). Hierarchies are
the example's, built from the base and written next to the data.

Each run (size x engine) is a child process: ``anonymize_source`` (histogram, search),
then writing the output CSV through the engine; k = 5, 2 % suppression, Loss (the
example's settings). Reported per run: seconds of the histogram pass, of the search and
of the write, the end-to-end wall time, peak resident memory (``VmHWM`` of the child)
and the optimum, score and suppressed count (which must agree between engines). The
in-memory engine runs up to 10^7 records. Generated data and outputs are deleted at the
end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASE_SEED = 2026
#: The in-memory engine reads every cell into a Python string: not beyond this.
MEMORY_ENGINE_MAX = 10**7
#: Rows drawn from the base at most; larger sizes repeat the draw.
BLOCK = 10**7


def generate_base(folder: Path, base_records: int) -> None:
    """The base table (Parquet) and the example's hierarchies built from it."""
    from arxpy.example import example_hierarchies, generate_example
    from arxpy.hierarchy.io import write_hierarchy

    folder.mkdir(parents=True, exist_ok=True)
    if (folder / "base.parquet").exists():  # a kept folder (--keep)
        return
    base = generate_example(records=base_records, seed=BASE_SEED)
    for name, hierarchy in example_hierarchies(base).items():
        write_hierarchy(hierarchy, folder / f"{name}.csv")
    base.to_parquet(folder / "base.parquet", index=False)


def generate_records(folder: Path, size: int) -> Path:
    """``size`` rows drawn from the base with replacement, streamed to Parquet by DuckDB.

    At most :data:`BLOCK` rows are drawn (the draw is a join, slow on this machine);
    a larger size repeats that block (10^8 = ten copies of a 10^7 draw)."""
    import duckdb

    target = folder / f"records-{size}.parquet"
    started = time.perf_counter()
    connection = duckdb.connect(config={"memory_limit": "2GB",
                                        "temp_directory": str(folder / "spill")})
    base = folder / "base.parquet"
    block = min(size, BLOCK)
    drawn = folder / f"block-{block}.parquet"
    if not drawn.exists():
        connection.execute(f"CREATE TABLE base AS SELECT row_number() OVER () - 1 AS "
                           f"arxpy_row, * FROM read_parquet('{base}')")
        base_records = connection.execute("SELECT count(*) FROM base").fetchone()[0]
        columns = ", ".join(f'b."{c}"' for c in connection.execute(
            f"SELECT * FROM read_parquet('{base}') LIMIT 0").df().columns)
        connection.execute(
            f"COPY (SELECT {columns} FROM range({block}) r(i) JOIN base b "
            f"ON b.arxpy_row = hash(r.i, {BASE_SEED}) % {base_records}) "
            f"TO '{drawn}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)")
    if size % block:
        raise SystemExit(f"--sizes above {BLOCK:,} must be multiples of it")
    copies = ", ".join([f"'{drawn}'"] * (size // block))
    connection.execute(f"COPY (SELECT * FROM read_parquet([{copies}])) TO '{target}' "
                       "(FORMAT parquet, ROW_GROUP_SIZE 1000000)")
    connection.close()
    shutil.rmtree(folder / "spill", ignore_errors=True)
    print(f"generated {size:,} records in {time.perf_counter() - started:.1f} s "
          f"({target.stat().st_size / 1e9:.2f} GB)", file=sys.stderr, flush=True)
    return target


def run_one(folder: Path, size: int, engine_name: str, dp: str | None = None) -> dict:
    """One run in this process (called in a child): the figures as a dict. ``dp``
    (EPSILON:DELTA:STEPS) replaces the example's privacy models by SafePub, seed 1."""
    import arxpy.privacy  # noqa: F401
    import arxpy.quality  # noqa: F401
    from arxpy.engine import AnonymizationConfig
    from arxpy.engine.backends import ENGINES, RecordSource
    from arxpy.engine.scaled import anonymize_source
    from arxpy.example import SETTINGS, example_definition
    from arxpy.hierarchy.io import read_hierarchy

    module, cls, _, _ = ENGINES[engine_name]
    engine = getattr(__import__(module, fromlist=[cls]), cls)()
    definition = example_definition()
    hierarchies = {name: read_hierarchy(folder / f"{name}.csv")
                   for name in definition.quasi_identifiers}
    config = AnonymizationConfig.from_dict(SETTINGS)
    if dp is not None:
        epsilon, delta, steps = dp.split(":")
        config = AnonymizationConfig.from_dict({**SETTINGS, "privacy_models": [
            {"kind": "differential-privacy", "epsilon": float(epsilon), "delta": float(delta),
             "steps": int(steps), "seed": 1}]})
    source = RecordSource.of_file(folder / f"records-{size}.parquet")
    output = folder / f"output-{engine_name}-{size}.csv"
    started = time.perf_counter()
    run = anonymize_source(source, definition, hierarchies, config, engine)
    summary = run.write(output)
    wall = time.perf_counter() - started
    output_bytes = output.stat().st_size
    output.unlink()
    best = run.result.optimum
    return {
        "records": size, "engine": engine_name, "histogram_rows": len(run.histogram.counts),
        "seconds": {"histogram": run.histogram.seconds,
                    "search": run.result.elapsed_seconds, "write": summary.seconds,
                    "total": wall},
        "peak_rss_mb": peak_rss_mb(),
        "optimum": list(best.levels) if best else None,
        "score": best.score if best else None,
        "suppressed": summary.suppressed, "written_rows": summary.records,
        "output_gb": output_bytes / 1e9,
    }


def peak_rss_mb() -> float:
    """This process's peak resident memory. Linux keeps ``ru_maxrss`` across ``execve``,
    so a child started by a large parent would report the parent's peak; ``VmHWM``
    belongs to the process's own address space."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/arxpy-scale"),
                        help="folder for the generated data (deleted afterwards)")
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7, 1e8])
    parser.add_argument("--engines", nargs="+", default=["duckdb", "memory"])
    parser.add_argument("--base", type=int, default=10**6, help="records of the base table")
    parser.add_argument("--json", type=Path, help="write the results as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    parser.add_argument("--dp", metavar="EPSILON:DELTA:STEPS",
                        help="SafePub instead of the example's k = 5 (issue 33)")
    parser.add_argument("--child", nargs=2, metavar=("SIZE", "ENGINE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_one(args.data, int(args.child[0]), args.child[1], args.dp)))
        return 0
    sizes = [int(s) for s in args.sizes]
    results = []
    try:
        generate_base(args.data, args.base)
        for size in sizes:  # each size just before its runs: results come early, less disk
            records = generate_records(args.data, size)
            for engine in args.engines:
                if engine == "memory" and size > MEMORY_ENGINE_MAX:
                    continue
                child = subprocess.run(
                    [sys.executable, __file__, "--data", str(args.data), "--child",
                     str(size), engine, *(["--dp", args.dp] if args.dp else [])],
                    capture_output=True, text=True,
                    env={**os.environ, "PYTHONPATH": str(REPO)})
                if child.returncode != 0:
                    print(child.stderr, file=sys.stderr)
                    results.append({"records": size, "engine": engine,
                                    "error": child.stderr.strip().splitlines()[-1:]})
                    continue
                result = json.loads(child.stdout.strip().splitlines()[-1])
                results.append(result)
                s = result["seconds"]
                print(f"{size:>11,} {engine:<7} histogram {s['histogram']:7.1f} s  search "
                      f"{s['search']:6.1f} s  write {s['write']:7.1f} s  total "
                      f"{s['total']:7.1f} s  peak {result['peak_rss_mb']:7.0f} MB  "
                      f"rows {result['histogram_rows']:,}  optimum {result['optimum']} "
                      f"suppressed {result['suppressed']:,}", flush=True)
                if args.json:
                    args.json.write_text(json.dumps(results, indent=2) + "\n")
            if not args.keep:
                records.unlink()
    finally:
        if not args.keep:
            shutil.rmtree(args.data, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
