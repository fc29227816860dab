"""``arxpy diff FIRST SECOND``: two releases of one recipe side by side (issue 35).

Each is a ``--report`` of anonymize, run or replay, or a certificate (JSON, HTML or
PDF). Records, suppression, classes, risk over the declared quasi-identifiers, each
claim, the transformation and the utility figures are printed with the change; with
``--json OUT`` the same rows are written as JSON. Releases of different recipes (or a
side that names none) are refused, exit status 2, unless ``--other-recipe`` allows it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arxpy.commands.files import add_input_option, add_output_option


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "diff", help="compare two releases of one recipe (reports or certificates)",
        description="Put two releases of the same recipe side by side (last quarter's "
        "and this quarter's): records, suppression, classes, risk, claims and utility, "
        "with the change. Each file is a --report of anonymize, run or replay, or a "
        "certificate (.json, .html or .pdf).")
    add_input_option(parser, "first", type=Path, metavar="FIRST",
                     help="the earlier release's report or certificate")
    add_input_option(parser, "second", type=Path, metavar="SECOND",
                     help="the later release's report or certificate")
    parser.add_argument("--other-recipe", action="store_true",
                        help="compare even when the two do not name the same recipe "
                        "(a warning says so)")
    add_output_option(parser, "--json", type=Path, metavar="OUT.json",
                      help="also write the rows as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.commands.options import write_json
    from arxpy.errors import ConfigurationError
    from arxpy.recipes.diff import diff_text, read_figures, release_diff

    diff = release_diff(read_figures(args.first), read_figures(args.second))
    problem = diff.recipe_problem()
    if problem is not None and not args.other_recipe:
        raise ConfigurationError(f"Not two releases of one recipe: {problem}. Add "
                                 "--other-recipe to compare them anyway.")
    if problem is not None:
        print(f"arxpy: warning: {problem}.", file=sys.stderr)
    else:
        print(f"Both releases of recipe {diff.first.recipe_sha256[:16]}….")
    print(diff_text(diff))
    if args.json is not None:
        write_json(args.json, diff.to_dict())
    return 0
