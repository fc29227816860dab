"""Spark local mode against the in-memory engine on replicated example records (issue 17).

Run from the repository root (once, niced: it starts a JVM and reads 10^6 records)::

    nice -n 10 python3 benchmarks/spark_local.py --records 1000000 --master 'local[2]'

Records are rows of ``arxpy.example.generate_example(N)`` sampled N times with
replacement and written as Parquet, with the example's hierarchies built from those
rows and its settings (k = 5, 2 % suppression, Loss). (Sampling 10^6 records from the
40,000-row default example would give every combination about 25 copies, and the
optimum would be the original table.) Each engine runs in its own process (peak
memory = the largest resident set of that process and its children, the JVM included,
sampled every 0.1 s); the script then checks that optimum, score, suppressed records
and the written table (parsed, row by row) are identical, and prints one JSON report.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's arxpy

import numpy as np  # noqa: E402

from arxpy.engine import AnonymizationConfig  # noqa: E402
from arxpy.example import example_project  # noqa: E402


def replicated_project(records: int, seed: int):
    """The example project over ``records`` rows sampled with replacement."""
    project = example_project(records)
    rows = np.random.default_rng(seed).integers(0, records, size=records)
    project.data = project.data.iloc[rows].reset_index(drop=True)
    return project


def tree_rss_bytes(pid: int) -> int:
    """Resident set of ``pid`` and all its descendants (Linux /proc)."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(status.split("VmRSS:")[1].split()[0]) * 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                stack.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, IndexError):
            continue
    return total


class PeakMemory:
    """Samples the resident set of this process tree every 0.1 s in a thread."""

    def __init__(self, pid: int) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(pid,), daemon=True)
        self._thread.start()

    def _sample(self, pid: int) -> None:
        while not self._stop.wait(0.1):
            self.peak = max(self.peak, tree_rss_bytes(pid))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def run_engine(name: str, data: Path, output: Path, master: str) -> dict:
    """One engine end to end; called in a child process."""
    import os
    import pickle

    from arxpy.engine.backends import MemoryEngine, RecordSource
    from arxpy.engine.scaled import anonymize_source

    memory = PeakMemory(os.getpid())
    with open(data.with_suffix(".project.pickle"), "rb") as handle:
        definition, hierarchies, settings = pickle.load(handle)
    config = AnonymizationConfig.from_dict(settings)
    if name == "spark":
        from arxpy.engine.backends.spark_engine import SparkEngine

        engine = SparkEngine(master)
        started = time.perf_counter()
        engine.session  # noqa: B018 - the JVM start is timed on its own
        startup = time.perf_counter() - started
    else:
        engine, startup = MemoryEngine(), 0.0
    source = RecordSource.of_file(data)
    started = time.perf_counter()
    run = anonymize_source(source, definition, hierarchies, config, engine)
    total = time.perf_counter() - started
    written = run.write(output, delimiter=";")
    if name == "spark":
        engine.close()
    optimum = run.result.optimum
    return {
        "engine": name, "startup_s": round(startup, 2),
        "histogram_s": round(run.histogram.seconds, 2),
        "histogram_rows": len(run.histogram.frame),
        "search_s": round(run.result.elapsed_seconds, 2),
        # reading the schema, histogram and search: the first pass and the search
        "first_pass_and_search_s": round(total, 2),
        "write_s": round(written.seconds, 2),
        "peak_memory_mb": round(memory.stop() / 2**20),
        "optimum": list(optimum.levels), "score": optimum.score,
        "suppressed": optimum.suppressed_records, "records_written": written.records,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/arxpy-spark-bench"))
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "OUTPUT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    data = args.folder / f"example-{args.records}.parquet"
    if args.child:
        name, output = args.child
        print(json.dumps(run_engine(name, data, Path(output), args.master)))
        return
    args.folder.mkdir(parents=True, exist_ok=True)
    if not data.exists():
        import pickle

        project = replicated_project(args.records, args.seed)
        project.data.to_parquet(data, index=False)
        with open(data.with_suffix(".project.pickle"), "wb") as handle:
            pickle.dump((project.definition, project.hierarchies, project.settings), handle)
    reports, outputs = {}, {}
    for name in ("memory", "spark"):
        outputs[name] = args.folder / f"out-{name}.csv"
        child = subprocess.run(
            [sys.executable, __file__, "--records", str(args.records), "--master",
             args.master, "--folder", str(args.folder), "--child", name, str(outputs[name])],
            check=True, capture_output=True, text=True)
        reports[name] = json.loads(child.stdout.strip().splitlines()[-1])
    from arxpy.data.csv_io import read_csv, sniff_csv

    tables = [read_csv(p, sniff_csv(p, delimiter=";")) for p in outputs.values()]
    keys = ("optimum", "score", "suppressed", "records_written")
    report = {
        "records": args.records, "master": args.master, "engines": reports,
        "identical_answers": all(reports["memory"][k] == reports["spark"][k] for k in keys),
        "identical_output": tables[0].equals(tables[1]),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
