"""``arxpy synth-ehr``: synthetic diagnosis-code data for development (spec 002 §7).

Writes ``patient_id,codes`` with the codes of a record dotted and joined by ``;``. The
optional JSON report has ``records``, ``codes`` (distinct codes drawn), ``domain_codes``,
``mean_length``, ``max_length``, ``seed`` and ``elapsed_seconds``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from arxpy.commands.files import add_output_option
from arxpy.commands.options import seed_option


def register(subparsers: argparse._SubParsersAction) -> None:
    from arxpy.data.synth_ehr import MAX_RECORDS, PAPER_CODES, PAPER_RECORDS

    parser = subparsers.add_parser(
        "synth-ehr", help="generate synthetic patients' ICD-9 diagnosis codes",
        description="Synthetic EHR diagnosis codes over real ICD-9-CM codes, calibrated to "
        "the published marginals of the INFORMS 2008 data (58,302 records, 631 codes, 5.11 "
        "codes per record, at most 43). Development data only: not real patients.")
    parser.add_argument("--records", type=int, default=PAPER_RECORDS, metavar="N",
                        help=f"patients (1 to {MAX_RECORDS:,}, default {PAPER_RECORDS})")
    parser.add_argument("--codes", type=int, default=PAPER_CODES, metavar="M",
                        help=f"size of the code domain (default {PAPER_CODES})")
    parser.add_argument("--seed", type=seed_option, default=0, metavar="S")
    add_output_option(parser, "--output", type=Path, required=True, metavar="D.csv")
    add_output_option(parser, "--report", type=Path, metavar="R.json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.commands.options import write_json
    from arxpy.data.atomic import atomic_write
    from arxpy.data.synth_ehr import generate_ehr

    started = time.perf_counter()
    table = generate_ehr(args.records, args.codes, args.seed)
    with atomic_write(args.output) as handle:
        table.to_csv(handle, index=False, lineterminator="\n")
    lengths = table["codes"].str.count(";") + (table["codes"] != "").astype(int)
    distinct = len({c for cell in table["codes"] for c in cell.split(";") if c})
    report = {"records": len(table), "codes": distinct, "domain_codes": args.codes,
              "mean_length": float(lengths.mean()), "max_length": int(lengths.max()),
              "seed": args.seed, "elapsed_seconds": time.perf_counter() - started}
    if args.report is not None:
        write_json(args.report, report)
    print(f"{report['records']} records, {distinct} distinct codes, "
          f"{report['mean_length']:.2f} codes per record (max {report['max_length']}) "
          f"written to {args.output}.")
    return 0
