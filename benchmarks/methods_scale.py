"""Every method at 10^5 and 10^6 records: wall time, CPU time and peak memory (issue 31).

Run from the repository root (niced; each run is a child process with a time limit)::

    nice python benchmarks/methods_scale.py --sizes 100000 1000000 --timeout 900 \
        --json methods_scale.json
    nice python benchmarks/methods_scale.py --only intervals-variance --sizes 10000 100000

Per run: the method's ``run`` on a generated table (generation is not timed), wall and
CPU seconds, the child's peak resident memory (``VmHWM``), or "timeout" / the error.
Data and settings per method:

- ``generalization``: the bundled discharge example (``arxpy.example``, 8 quasi-
  identifiers, 2,880 transformations), k = 5, 2 % suppression, Loss (the engine's search;
  reading and writing files is ``benchmarks/scale.py``).
- ``condensation``, ``improved-condensation``, ``mdav``: the condensation development
  registry (``cancer_registry``, 9 attributes), k = 100.
- ``intervals-mean`` (constant gradients, KD-tree) and ``intervals-variance``
  (point-dependent gradients): three standard-normal attributes, k = 5.
- ``disassociation``: ``generate_ehr`` (631 ICD-9 codes), k = 5, m = 2.
- ``kpbms``: 20 categorical features of 4 levels and a class, k = 5, loss ≤ 10 %.
- ``top-bottom-coding``: one normal attribute, top and bottom codes at ±2 SD.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's arxpy

METHODS = ("generalization", "condensation", "improved-condensation", "mdav",
           "intervals-mean", "intervals-variance", "disassociation", "kpbms",
           "top-bottom-coding")


def _normal_table(n: int, columns: int):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.normal(size=(n, columns)), columns=[f"x{i}" for i in range(columns)])


def _categorical(n: int):
    sys.path.insert(0, str(REPO / "benchmarks"))
    from kpbms import categorical

    return categorical(n, 20)


def _job(method: str, n: int):
    """(run, table, definition, hierarchies, params) of one measured run."""
    from arxpy.data.definition import DataDefinition

    if method == "generalization":
        from arxpy.engine import AnonymizationConfig, anonymize
        from arxpy.example import example_definition, example_hierarchies, generate_example
        from arxpy.privacy.kanonymity import KAnonymity
        from arxpy.quality.loss import Loss

        frame = generate_example(n, seed=1)
        hierarchies = example_hierarchies(frame)
        config = AnonymizationConfig([KAnonymity(5)], Loss(), suppression_limit=0.02)
        return lambda: anonymize(frame, example_definition(), hierarchies, config)
    if method in ("condensation", "improved-condensation", "mdav"):
        from arxpy.methods.condensation.devdata import cancer_registry

        frame = cancer_registry(n)
        params = {"k": 100, "seed": 1}
        if method == "improved-condensation":
            params.update(time="SurvInterval", status="VitalStat", event_value="0")
        name = method
    elif method.startswith("intervals"):
        frame = _normal_table(n, 3)
        statistic = "mean:x0" if method == "intervals-mean" else "variance:x0"
        params = {"attributes": list(frame.columns), "k": 5, "statistic": statistic}
        name = "intervals"
    elif method == "disassociation":
        from arxpy.data.synth_ehr import generate_ehr

        frame = generate_ehr(records=n, seed=0)[["codes"]]
        params = {"k": 5, "m": 2, "codes_column": "codes"}
        name = method
    elif method == "kpbms":
        frame = _categorical(n)
        params = {"class_attribute": "class", "k": 5, "max_loss": 0.1}
        name = method
    else:
        frame = _normal_table(n, 1)
        params = {"attribute": "x0", "top": 2.0, "bottom": -2.0}
        name = method
    from arxpy.methods import run_method

    definition = DataDefinition.for_columns(frame.columns)
    return lambda: run_method(name, frame, definition, params)


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(method: str, n: int) -> dict:
    run = _job(method, n)
    started, cpu = time.perf_counter(), time.process_time()
    run()
    return {"method": method, "records": n, "seconds": round(time.perf_counter() - started, 2),
            "cpu_seconds": round(time.process_time() - cpu, 2), "peak_mb": round(_peak_mb())}


def spawn(method: str, n: int, timeout: float) -> dict:
    command = [sys.executable, __file__, "--child", method, str(n)]
    load = os.getloadavg()[0]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"method": method, "records": n, "error": f"timeout after {timeout:.0f} s",
                "load": load}
    if done.returncode:
        tail = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return {"method": method, "records": n, "error": tail, "load": load}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "load": round(load, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs=2, metavar=("METHOD", "RECORDS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return 0
    rows = []
    for n in args.sizes:
        for method in args.only:
            rows.append(spawn(method, n, args.timeout))
            print(json.dumps(rows[-1]), flush=True)
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
