"""A saved result on Adult: record size, and reopening it against searching again.

Run from the repository root (needs the Adult data beside the repository)::

    python benchmarks/stored_result.py

Prints, per search strategy: lattice size, transformations checked, search time, time
to store the outcome, the JSON record's size and the time to reopen it (encoding plus
the re-check of the optimum). The figures are in docs/architecture.md.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's arxpy
sys.path.insert(0, str(REPO / "tests"))

from conftest import load_adult  # noqa: E402

from arxpy.engine import AnonymizationConfig, anonymize  # noqa: E402
from arxpy.engine.stored import reopen_result, store_outcome  # noqa: E402


def main() -> None:
    frame, definition, hierarchies = load_adult()
    for strategy in ("optimal", "exhaustive"):
        config = AnonymizationConfig.from_dict({
            "privacy_models": [{"kind": "k-anonymity", "k": 5}],
            "quality_model": {"name": "loss"}, "suppression_limit": 0.02,
            "strategy": strategy})
        started = time.perf_counter()
        result = anonymize(frame, definition, hierarchies, config)
        search = time.perf_counter() - started
        started = time.perf_counter()
        record = json.dumps(store_outcome(result))
        store = time.perf_counter() - started
        started = time.perf_counter()
        again = reopen_result(frame, definition, hierarchies, config, json.loads(record))
        reopen = time.perf_counter() - started
        assert again.optimum == result.optimum
        print(f"{strategy}: lattice {result.lattice_size}, checked "
              f"{result.transformations_checked}, search {search:.2f} s, store {store:.3f} s, "
              f"record {len(record) / 1024:.1f} KiB, reopen {reopen:.2f} s")


if __name__ == "__main__":
    main()
