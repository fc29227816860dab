"""A release of linked tables: the linked example's patients and admissions, the patient
identifier pseudonymized, dates shifted, 5-anonymity judged on the patient-level view.

Run from the repository root::

    python benchmarks/linked_tables.py [--patients 100000] [--codes]
    python benchmarks/linked_tables.py --engine memory|duckdb --dir DIR [--patients N]

Times :func:`arxpy.workflows.linked_release.anonymize_linked` (treatments of both
tables, the view with two aggregates, the lattice search, the projection onto both
tables; best of three, the tables generated once). ``--codes`` adds a third aggregate,
the set of each patient's diagnoses.

With ``--engine``, one ``arxpy anonymize --link`` run over the files in DIR, read and
written as the command line does (the event table in memory, or left in its file for
DuckDB); the first run writes the linked example of ``--patients`` patients and a key
to DIR and exits, so that ``/usr/bin/time`` of the next runs measures the release
alone. The figures are in docs/linked-tables.md.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's arxpy

import arxpy.privacy  # noqa: E402, F401  (registers k-anonymity)
import arxpy.quality  # noqa: E402, F401  (registers the loss)
from arxpy.data.definition import AttributeType, DataDefinition  # noqa: E402
from arxpy.engine import AnonymizationConfig  # noqa: E402
from arxpy.example import example_hierarchies, generate_example  # noqa: E402
from arxpy.identifiers import (  # noqa: E402
    PSEUDONYM,
    DateShift,
    IdentifierPlan,
    PseudonymKey,
    Treatment,
)
from arxpy.linked_example import LINK_COLUMN, QUASI_IDENTIFIERS, _linked  # noqa: E402
from arxpy.workflows.linked_release import anonymize_linked  # noqa: E402
from arxpy.workflows.linked_tables import EventAggregate, LinkedTables  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patients", type=int, default=100_000)
    parser.add_argument("--codes", action="store_true",
                        help="judge the set of each patient's diagnoses too")
    parser.add_argument("--engine", choices=("memory", "duckdb"),
                        help="one command-line release of the files in --dir")
    parser.add_argument("--dir", type=Path, help="the linked example's folder (--engine)")
    args = parser.parse_args()
    if args.engine is not None:
        return command_line_release(args)
    records = generate_example(args.patients)
    patients, admissions = _linked(records, 2014)
    hierarchies = {q: h for q, h in example_hierarchies(records).items()
                   if q in QUASI_IDENTIFIERS}
    definition = DataDefinition.for_columns(patients.columns)
    for name in QUASI_IDENTIFIERS:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    config = AnonymizationConfig.from_dict({
        "privacy_models": [{"kind": "k-anonymity", "k": 5}], "suppression_limit": 0.05})
    plan = IdentifierPlan((Treatment(LINK_COLUMN, PSEUDONYM),),
                          DateShift(("Admission date", "Discharge date"), LINK_COLUMN, 30))
    aggregates = (EventAggregate.parse("admissions:count"),
                  EventAggregate.parse("admissions:first-year:Admission date"))
    if args.codes:
        aggregates += (EventAggregate.parse("admissions:set:Diagnosis"),)
    tables = LinkedTables(patients, {"admissions": admissions}, LINK_COLUMN)
    key = PseudonymKey(secrets.token_bytes(32))
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        release = anonymize_linked(tables, definition, hierarchies, config, aggregates,
                                   plan, key)
        best = min(best, time.perf_counter() - started)
    print(f"{len(patients):,} patients, {len(admissions):,} admissions: {best:.2f} s "
          f"(best of 3); transformation {dict(release.view.transformation)}, "
          f"{release.view.suppressed_records:,} patients suppressed")


def command_line_release(args: argparse.Namespace) -> None:
    """``arxpy anonymize --link`` on the files of ``args.dir`` (written first if missing)."""
    from arxpy.cli import main

    folder = args.dir
    if not (folder / "patients.csv").exists():
        main(["example", "--linked", "-o", str(folder), "--records", str(args.patients)])
        main(["keygen", "--pseudonym", str(folder / "k.key")])
        print(f"Wrote the linked example to {folder}; run again to time a release.")
        return
    aggregates = ["admissions:count", "admissions:first-year:Admission date"]
    if args.codes:
        aggregates.append("admissions:set:Diagnosis")
    hierarchies = [a for q in QUASI_IDENTIFIERS
                   for a in ("--hierarchy", f"{q}={folder / 'hierarchies' / q}.csv")]
    out = folder / f"out-{args.engine}"
    started, cpu = time.perf_counter(), time.process_time()
    code = main(["anonymize", "--data", str(folder / "patients.csv"), *hierarchies,
                 "--k", "5", "--suppression", "0.05", "--identifying", "County",
                 "--link", f"admissions={folder / 'admissions.csv'}",
                 "--link-column", LINK_COLUMN,
                 *[a for g in aggregates for a in ("--link-aggregate", g)],
                 "--pseudonymize", LINK_COLUMN, "--key-file", str(folder / "k.key"),
                 "--date-shift", "Admission date,Discharge date", "--shift-days", "30",
                 "--patient", LINK_COLUMN, "--shuffle-seed", "1", "--output-dir", str(out),
                 "--engine", args.engine])
    print(f"{args.engine}: exit {code}, release {time.perf_counter() - started:.2f} s wall, "
          f"{time.process_time() - cpu:.2f} s CPU (this process)")


if __name__ == "__main__":
    main()
