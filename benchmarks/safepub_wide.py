"""SafePub on a wide table (ARX #339: every row suppressed above 200 attributes).

Run from the repository root::

    python benchmarks/safepub_wide.py [--columns 250] [--rows 5000] [--steps 100]

Attributes of four values (70/20/7/3 %), each with the hierarchy value -> pair -> ``*``;
ε = 2, δ = 1e-6, seed 1, Loss. Prints the time, how far below the top the walk ended,
how many attributes stayed at ``*`` and how many records were released. Figures in
docs/engine.md (SafePub, "Wide tables").
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy import EDDifferentialPrivacy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=250)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"a{i}": rng.choice(["a", "b", "c", "d"], args.rows,
                                               p=[0.7, 0.2, 0.07, 0.03])
                          for i in range(args.columns)})
    hierarchy = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"],
                           ["d", "cd", "*"]])
    definition = DataDefinition.for_columns(frame.columns)
    for name in frame.columns:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    started = time.perf_counter()
    config = AnonymizationConfig([EDDifferentialPrivacy(2.0, 1e-6, seed=1, steps=args.steps)])
    result = anonymize(frame, definition, dict.fromkeys(frame.columns, hierarchy), config)
    release = result.release()
    levels = result.optimum.levels
    print(f"{args.columns} attributes x {args.rows} records, {args.steps} steps: "
          f"{time.perf_counter() - started:.1f} s, {result.transformations_checked} checks; "
          f"{2 * args.columns - sum(levels)} levels below the top, "
          f"{sum(v == 2 for v in levels)} attributes at '*'; released "
          f"{int((~release.suppressed).sum())} of {args.rows} ({result.records} sampled); "
          f"claims hold: {release.verify().anonymous}")


if __name__ == "__main__":
    main()
