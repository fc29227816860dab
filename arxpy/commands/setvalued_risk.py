"""``arxpy setvalued-risk``: how identifying combinations of codes are, before anonymising.

Prints and reports (``--report``) the share of distinct combinations of 1..5 codes found
in exactly 1, 2, ..., 10 and more than 10 records, and the % of records holding a
combination of at most m codes shared by fewer than k records. Report keys: ``k``,
``m``, ``records``, ``histogram_percent``, ``distinct_combinations``,
``records_at_risk_percent``, ``cap``, ``capped_records``, ``length_counts``,
``top_pairs``, ``elapsed_seconds``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    from arxpy.commands.files import add_output_option
    from arxpy.commands.options import seed_option
    from arxpy.commands.setvalued_utility import add_original_arguments

    parser = subparsers.add_parser(
        "setvalued-risk", help="re-identification risk of sets of codes (before anonymising)",
        description="Shares of 1..5-code combinations by the number of records holding them "
        "(the paper's Fig. 12) and the records at risk for k^m-anonymity. For combinations "
        "of 4 or more codes, records longer than --cap codes contribute a random --cap of "
        "their codes.")
    add_original_arguments(parser, option="--data")
    parser.add_argument("--k", type=int, default=5, metavar="K")
    parser.add_argument("--m", type=int, default=2, metavar="M",
                        help="codes an attacker knows (1 to 6, default 2)")
    parser.add_argument("--max-size", type=int, default=5, choices=range(1, 6),
                        metavar="S", help="largest combination size (1-5, default 5)")
    parser.add_argument("--cap", type=int, default=12, metavar="N",
                        help="codes per record used for combinations of >= 4 codes "
                        "(default 12)")
    parser.add_argument("--seed", type=seed_option, default=0, metavar="N")
    add_output_option(parser, "--report", type=Path, metavar="R.json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.analysis.setvalued_risk import combination_risk
    from arxpy.commands.options import write_json
    from arxpy.commands.setvalued_utility import read_original
    from arxpy.commands.table_source import SET_VALUED_CSV, refuse_sqlite
    from arxpy.data.disassociated import MAX_M
    from arxpy.errors import ConfigurationError

    refuse_sqlite(args.original, "--data", SET_VALUED_CSV)
    if args.k < 1 or not 1 <= args.m <= MAX_M or args.cap < args.max_size:
        raise ConfigurationError(f"--k must be at least 1, --m from 1 to {MAX_M} and --cap "
                                 "at least --max-size.")
    started = time.perf_counter()
    sets = read_original(args).code_sets
    risk = combination_risk(sets, args.k, args.m, args.max_size, args.cap, args.seed)
    report = {"records": len(sets), **risk.to_dict(),
              "elapsed_seconds": time.perf_counter() - started}
    if args.report is not None:
        write_json(args.report, report)
    for size, bins in risk.histogram.items():
        print(f"{size} codes: {risk.distinct[size]} distinct, {bins['1']:.1f} % in one record, "
              f"{bins['>10']:.1f} % in more than 10")
    print(f"{risk.records_at_risk_percent:.1f} % of records hold a combination of at most "
          f"{args.m} codes shared by fewer than {args.k} records.")
    return 0
