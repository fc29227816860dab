"""High-dimensional tables (15-40 quasi-identifiers) and ARX's best-effort searches on them.

Issue 34: with 24 quasi-identifiers the optimal search rightly refuses (about 10^14
transformations), and a best-first search without ARX's greedy dives returned the
completely generalized top. The tables here are drawn from a few latent patient
profiles, so attributes are correlated as in real records and some transformation well
below the top is anonymous; each attribute's hierarchy has height 3-5 (codes grouped by
four per level, then ``*``), and a share of the cells is noise.

``python benchmarks/high_dimensional.py [--records N] [--qis 15,24,40] [--seconds S]
[--strategy lightning|genetic]`` prints, per width, the strategy's loss within the time
limit (genetic: ARX's deterministic mode and defaults) beside the best of a random
sample of transformations and of the hand-set "one level up everywhere" (the baselines
the acceptance names), with k = 5 and 2 % suppression.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

if __name__ == "__main__":  # run as a script: the repository's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.hierarchy.model import Hierarchy
from benchmarks.synthetic_tables import code_hierarchy

#: Latent profiles the records are drawn from, and the share of cells replaced by noise.
PROFILES = 40
NOISE = 0.05


def generate(seed: int, records: int = 20_000, n_qi: int = 24,
             ) -> tuple[pd.DataFrame, DataDefinition, dict[str, Hierarchy]]:
    """``records`` rows of ``n_qi`` correlated quasi-identifiers ``q0..``, and an
    insensitive ``id``-free ``outcome``; one seed gives one table."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, PROFILES + 1)
    profile = rng.choice(PROFILES, records, p=weights / weights.sum())
    columns: dict[str, np.ndarray] = {}
    hierarchies: dict[str, Hierarchy] = {}
    for i in range(n_qi):
        name = f"q{i}"
        hierarchy, domain = code_hierarchy(name, int(rng.integers(3, 6)))
        values = rng.integers(0, domain, PROFILES)[profile]
        noisy = rng.random(records) < NOISE
        values[noisy] = rng.integers(0, domain, int(noisy.sum()))
        columns[name] = np.array([row[0] for row in hierarchy.rows], dtype=object)[values]
        hierarchies[name] = hierarchy
    columns["outcome"] = np.where(profile % 2 == 0, "yes", "no").astype(object)
    definition = DataDefinition(
        [AttributeDefinition(f"q{i}", AttributeType.QUASI_IDENTIFYING) for i in range(n_qi)]
        + [AttributeDefinition("outcome", AttributeType.INSENSITIVE)])
    return pd.DataFrame(columns), definition, hierarchies


def write_for_arx(folder: Path, records: int, n_qi: int) -> None:
    """The table as ``data_QIS.csv`` (``;``-separated) and one ``h_QIS_ATTR.csv`` per
    attribute, for ``benchmarks/arx/ArxDriver.java`` (``hier=FOLDER/h_QIS_{}.csv``)."""
    frame, _, hierarchies = generate(1, records, n_qi)
    folder.mkdir(parents=True, exist_ok=True)
    frame.to_csv(folder / f"data_{n_qi}.csv", sep=";", index=False)
    for name, hierarchy in hierarchies.items():
        rows = (";".join(row) for row in hierarchy.rows)
        (folder / f"h_{n_qi}_{name}.csv").write_text("\n".join(rows) + "\n")


def baselines(result, samples: int, seed: int) -> dict[str, float | None]:
    """The loss of "one level up everywhere" and the best of ``samples`` random
    transformations (None: not anonymous / none anonymous)."""
    rng = np.random.default_rng(seed)
    bottom, top = np.asarray(result.lattice.bottom), np.asarray(result.lattice.top)
    one_up = tuple(np.minimum(bottom + 1, top).tolist())
    drawn = [tuple(int(rng.integers(b, t + 1)) for b, t in zip(bottom, top, strict=True))
             for _ in range(samples)]
    out: dict[str, float | None] = {}
    for name, candidates in (("one level up", [one_up]), ("random sample", drawn)):
        scores = [result.configured_score(levels) for levels in candidates
                  if result.release(levels).anonymous]
        out[name] = min(scores) if scores else None
    return out


def main(argv: list[str] | None = None) -> int:
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.privacy import KAnonymity
    from arxpy.quality.loss import Loss

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--qis", default="15,24,40")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--strategy", choices=("lightning", "genetic"), default="lightning")
    parser.add_argument("--arx-files", type=Path, metavar="FOLDER",
                        help="only write the tables as CSV files for ARX's driver")
    args = parser.parse_args(argv)
    for n_qi in (int(q) for q in args.qis.split(",")):
        if args.arx_files is not None:
            write_for_arx(args.arx_files, args.records, n_qi)
            continue
        frame, definition, hierarchies = generate(1, args.records, n_qi)
        config = AnonymizationConfig([KAnonymity(5)], Loss(), 0.02, args.strategy,
                                     time_limit=args.seconds)
        started = time.perf_counter()
        result = anonymize(frame, definition, hierarchies, config)
        elapsed = time.perf_counter() - started
        best = result.optimum
        top = best is not None and best.levels == result.lattice.top
        found = baselines(result, args.samples, seed=2)
        print(f"{n_qi} QIs, {args.records:,} records, {result.lattice_size:.2e} "
              f"transformations: {args.strategy} loss "
              f"{'none' if best is None else f'{best.score:.4f}'} in {elapsed:.1f} s "
              f"({result.outcome.transformations_checked:,} checked; top "
              f"{'chosen' if top else 'not chosen'})"
              f"; one level up {found['one level up']}, best of {args.samples} random "
              f"{found['random sample']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
