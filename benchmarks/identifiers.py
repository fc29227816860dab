"""Identifier treatments on a million records: keyed pseudonyms, masks, date shifts.

Run from the repository root::

    python benchmarks/identifiers.py [--records 1000000] [--patients 100000]

Builds a table of ``--records`` rows with as many distinct record identifiers, a phone
number per record, ``--patients`` patient identifiers and two dates per record, then
times each treatment alone (best of three) and a whole plan. The figures are in
docs/identifiers.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's arxpy

from arxpy.data.definition import DataDefinition  # noqa: E402
from arxpy.identifiers import (  # noqa: E402
    MASK,
    PSEUDONYM,
    DateShift,
    IdentifierPlan,
    MaskRule,
    PseudonymFormat,
    PseudonymKey,
    Treatment,
)


def table(records: int, patients: int) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    start = np.datetime64("2015-01-01") + rng.integers(0, 3000, records).astype(
        "timedelta64[D]")
    return pd.DataFrame({
        "record": [f"R{i:015d}" for i in range(records)],
        "phone": [f"0171-{n:07d}" for n in rng.integers(0, 10**7, records)],
        "patient": [f"P{p:08d}" for p in rng.integers(0, patients, records)],
        "admitted": pd.Series(start).dt.strftime("%Y-%m-%d").to_numpy(dtype=object),
        "discharged": pd.Series(start + rng.integers(0, 30, records).astype(
            "timedelta64[D]")).dt.strftime("%Y-%m-%d").to_numpy(dtype=object),
    })


def best_of_three(plan: IdentifierPlan, frame: pd.DataFrame, key: PseudonymKey) -> float:
    definition = DataDefinition.for_columns(frame.columns)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        plan.apply(frame, definition, key)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--patients", type=int, default=100_000)
    args = parser.parse_args()
    frame = table(args.records, args.patients)
    key = PseudonymKey(bytes(range(32)))
    shift = DateShift(("admitted", "discharged"), "patient", 30)
    plans = {
        "pseudonym hex:16 (distinct per record)":
            IdentifierPlan((Treatment("record", PSEUDONYM),)),
        "pseudonym digits (distinct per record)":
            IdentifierPlan((Treatment("record", PSEUDONYM, PseudonymFormat.parse("digits")),)),
        "pseudonym hex:16 (patients)": IdentifierPlan((Treatment("patient", PSEUDONYM),)),
        "mask keep-last:4": IdentifierPlan(
            (Treatment("phone", MASK, rule=MaskRule.parse("keep-last:4")),)),
        "date shift, 2 dates": IdentifierPlan((), shift),
        "all of the above but digits": IdentifierPlan(
            (Treatment("record", PSEUDONYM, namespace="records"),
             Treatment("patient", PSEUDONYM),
             Treatment("phone", MASK, rule=MaskRule.parse("keep-last:4"))), shift),
    }
    print(f"{args.records:,} records, {frame['patient'].nunique():,} patients, "
          f"{frame['phone'].nunique():,} distinct phone numbers")
    for name, plan in plans.items():
        print(f"{name:40s} {best_of_three(plan, frame, key):6.2f} s")


if __name__ == "__main__":
    main()
