"""``arxpy example --output DIR``: write the synthetic patient-discharge example."""

from __future__ import annotations

import argparse
from pathlib import Path

from arxpy.commands.files import add_output_option
from arxpy.commands.options import seed_option
from arxpy.example import DEFAULT_RECORDS, DEFAULT_SEED, HIERARCHY_FOLDER, MAX_RECORDS
from arxpy.linked_example import DEFAULT_PATIENTS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "example",
        help="write the bundled synthetic patient-discharge example (data, hierarchies, project)",
        description="Generate the synthetic patient-discharge dataset and write "
        "discharge.csv, one ARX-format hierarchy per quasi-identifier in "
        f"{HIERARCHY_FOLDER}/ and the ready project discharge.arxpy to DIR.",
    )
    add_output_option(
        parser, "--output", "-o", required=True, type=Path, metavar="DIR",
        help="directory to write to (created if missing)",
    )  # fmt: skip
    parser.add_argument(
        "--records", type=int, metavar="N",
        help=f"number of records (1 to {MAX_RECORDS:,}, default {DEFAULT_RECORDS:,})",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=seed_option, default=DEFAULT_SEED,
        help=f"random seed; the same seed gives the same data (default {DEFAULT_SEED})",
    )  # fmt: skip
    parser.add_argument(
        "--force", action="store_true", help="overwrite example files already in DIR"
    )
    parser.add_argument(
        "--linked", action="store_true",
        help="write the linked example instead: patients.csv (one row per patient, with "
        "a Patient ID), admissions.csv linked by it, and the patients' hierarchies; "
        f"--records then counts patients (default {DEFAULT_PATIENTS:,})",
    )  # fmt: skip
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.example import write_example
    from arxpy.linked_example import write_linked_example

    if args.linked:
        records = DEFAULT_PATIENTS if args.records is None else args.records
        written = write_linked_example(args.output, force=args.force, patients=records,
                                       seed=args.seed)
        what = f"linked example ({records:,} patients"
    else:
        records = DEFAULT_RECORDS if args.records is None else args.records
        written = write_example(args.output, force=args.force, records=records, seed=args.seed)
        what = f"example ({records:,} records"
    print(f"Wrote the {what}, seed {args.seed}) to {args.output}:")
    for name in written:
        print(f"  {name}")
    return 0
