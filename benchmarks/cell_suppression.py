"""Cell suppression at 10^5 and 10^6 records (issue 34): time, suppressed cells and the
independent check, on Adult resampled with replacement.

``python benchmarks/cell_suppression.py ADULT_DIR [RECORDS ...] [--qis A,B,...] [--k K]
[--independent]`` draws RECORDS rows of Adult (seed 0; with ``--independent`` each
quasi-identifier is drawn from its own column, which breaks the correlations and makes
many more rare combinations), runs ``cell-suppression`` and prints one line per
size: records, distinct patterns, sweeps' result (cells suppressed per attribute), the
seconds of the run and of the claim's check. docs/cell-suppression.md has the figures.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.methods import run_method


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("adult", type=Path)
    parser.add_argument("records", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--qis", default="sex,age,race,marital-status,education")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--independent", action="store_true")
    args = parser.parse_args()
    adult = pd.read_csv(args.adult / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    qis = args.qis.split(",")
    for records in args.records:
        frame = adult.sample(records, replace=True, random_state=0).reset_index(drop=True)
        if args.independent:
            for seed, name in enumerate(qis, start=1):
                frame[name] = adult[name].sample(records, replace=True,
                                                 random_state=seed).to_numpy()
        definition = DataDefinition.for_columns(frame.columns)
        for name in qis:
            definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
        started = time.perf_counter()
        release = run_method("cell-suppression", frame, definition, {"k": args.k})
        ran = time.perf_counter() - started
        started = time.perf_counter()
        verdict = release.verify()
        checked = time.perf_counter() - started
        cells = (release.table[qis] == "*").sum()
        print(f"{records:>9,} records, {frame[qis].drop_duplicates().shape[0]:,} patterns, "
              f"k={args.k}: {int(cells.sum()):,} cells suppressed "
              f"({', '.join(f'{q} {int(c):,}' for q, c in cells.items() if c)}); "
              f"run {ran:.1f} s, check {checked:.1f} s; {verdict.headline}", flush=True)


if __name__ == "__main__":
    main()
