"""``arxpy km-check``: the independent k^m-anonymity checker over a published file.

Exit status 0 when the publication is k^m-anonymous, 1 with the violations listed, 2
when the file is not a valid published disassociation (schema v1). The optional JSON
report has ``k``, ``m``, ``k_m_anonymous``, ``clusters``, ``record_chunks``,
``shared_chunks``, ``itemset_violations``, ``undersized_clusters``, ``violations`` and
``elapsed_seconds``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from arxpy.commands.files import add_input_option, add_output_option

#: Violations printed on the terminal (the report lists them all).
SHOWN = 20


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "km-check", help="check a published disassociation for k^m-anonymity",
        description="Independent k^m-anonymity check (reads only the published JSON): every "
        "cluster has at least k records, and in every record chunk and shared chunk each "
        "itemset of 1..m codes that occurs occurs in at least k subrecords. Exit 0 when "
        "k^m-anonymous, 1 with the violations listed, 2 for an invalid file.")
    add_input_option(parser, "--published", type=Path, required=True, metavar="OUT.json")
    parser.add_argument("--k", type=int, required=True, metavar="K")
    parser.add_argument("--m", type=int, required=True, metavar="M",
                        help="largest itemset an attacker knows (1 to 6)")
    add_output_option(parser, "--report", type=Path, metavar="R.json",
                      help="write the verdict and every violation as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.commands.options import ProgressBar, write_json
    from arxpy.data.disassociated import load_published
    from arxpy.privacy.km_anonymity import check_km_anonymity

    document = load_published(args.published)
    bar = ProgressBar()
    try:
        result = check_km_anonymity(document, args.k, args.m, progress=bar)
    finally:
        bar.close()
    if args.report is not None:
        write_json(args.report, result.to_dict())
    print(result.describe())
    for violation in result.cluster_violations[:SHOWN]:
        print(f"  {violation.location}: {violation.size} records")
    for violation in result.itemset_violations[:SHOWN]:
        print(f"  {violation.location}: {{{', '.join(violation.itemset)}}} in "
              f"{violation.count} subrecords")
    hidden = result.violations_found - min(SHOWN, len(result.itemset_violations))
    if hidden > 0:
        print(f"  ... and {hidden} more itemsets" +
              (" (see the report)" if args.report is not None else " (use --report)"))
    return 0 if result.ok else 1
