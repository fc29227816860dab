"""CPU seconds the quality model spends scoring and bounding one search's checks.

Runs one configuration of ``engine.py --models`` in this process, keeps the classes and
suppressed classes of every transformation the search checked, then times the run's
prepared quality model on all of them (``score`` and ``lower_bound`` of each, as the
search calls them), best of ``--repeat``. Isolates the model from roll-up and the
search, whose share of a whole run hides it.

    PYTHONPATH=. python3 benchmarks/quality_scoring.py adult-classification --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def measure(name: str, seed: int, repeat: int) -> dict:
    import engine

    from arxpy.search import base

    checked, prepared = [], []
    evaluate = base.SearchContext.evaluate

    def recording(ctx, levels, classes):
        check = evaluate(ctx, levels, classes)
        checked.append((classes, ~ctx.kept(classes)))
        if not prepared:
            prepared.append(ctx.quality)
        return check

    os.environ["ARXPY_BENCH_TRACE"] = "0"
    base.SearchContext.evaluate = recording
    try:
        run = engine.model_child(name, seed, 20000, 6)
    finally:
        base.SearchContext.evaluate = evaluate
    quality = prepared[0]
    times = []
    for _ in range(repeat):
        started = time.process_time()
        for classes, suppressed in checked:
            quality.lower_bound(classes)
            quality.score(classes, suppressed)
        times.append(time.process_time() - started)
    return {"config": name, "seed": run["seed"], "checks": len(checked),
            "scoring_cpu_seconds": round(min(times), 3), "score": run["score"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="a configuration of engine.py --models")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.name, args.seed, args.repeat)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
