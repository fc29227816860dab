"""``arxpy replay RECIPE.json --data NEW.csv --output OUT.csv``: a recipe on a new extract.

Applies the recipe's transformation (or searches again, or runs its method again with
its seed, as the recipe says) and writes the release, its report and, with
``--certificate CERT.pdf --signing-key KEYFILE``, a signed certificate (``.pdf``, ``.html``
or JSON by the name's extension). An extract that
breaks the recipe (missing or new columns, a hierarchy not the recipe's, values a
hierarchy does not cover, a claim or the suppression limit no longer holding) is
refused with every reason, exit status 2; the report then holds ``replay.problems``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_input_option, add_output_option, assignment_paths
from arxpy.commands.identifier_options import read_key
from arxpy.commands.options import (
    ProgressBar,
    add_order_arguments,
    delimiter_option,
    encoding_option,
    read_data_option,
    read_hierarchy_options,
    write_json,
)
from arxpy.commands.recipe_options import (
    add_certificate_arguments,
    check_recipe_options,
    write_certificate,
)
from arxpy.commands.table_source import source_paths


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay", help="apply a recipe to a new extract, or refuse it with the reasons",
        description="Apply a recipe (arxpy anonymize/run --recipe-out) to a new extract: "
        "the same roles, hierarchies, treatments and models, at the recipe's "
        "transformation or searching again as it says. Refuses an extract that breaks "
        "the recipe, listing every reason (exit status 2).")
    add_input_option(parser, "recipe", type=Path, metavar="RECIPE.json",
                     help="the recipe --recipe-out wrote")
    add_input_option(parser, "--data", type=Path, paths=source_paths, required=True, metavar="CSV",
                     help="the new extract")
    parser.add_argument("--delimiter", metavar="C", type=delimiter_option,
                        help="field delimiter of the data and hierarchy files (default: "
                        "detected for the data, ';' for hierarchies)")
    parser.add_argument("--encoding", metavar="NAME", type=encoding_option,
                        help="text encoding of the data file (default: detected)")
    add_input_option(parser, "--hierarchies", type=Path, metavar="DIR",
                     help="folder holding the recipe's hierarchy files by the names the "
                     "recipe gives")
    add_input_option(parser, "--hierarchy", action="append", default=[], metavar="ATTR=FILE",
                     paths=assignment_paths,
                     help="the hierarchy of ATTR (overrides --hierarchies for ATTR)")
    add_input_option(parser, "--key-file", type=Path, metavar="KEYFILE",
                     help="the pseudonym key of the recipe's pseudonyms and date shifts")
    add_output_option(parser, "--output", type=Path, required=True, metavar="OUT.csv",
                      help="the released table")
    add_output_option(parser, "--report", type=Path, metavar="R.json",
                      help="the JSON report (also written when the replay is refused)")
    add_order_arguments(parser)
    add_certificate_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.recipes import Recipe, ReplayRefused, replay
    from arxpy.recipes.replay_files import replay_report

    check_recipe_options(args)
    recipe = Recipe.load(args.recipe)
    hierarchies = _hierarchies(args, recipe)
    key = read_key(args.key_file)
    frame = read_data_option(args.data, args.delimiter, args.encoding)
    bar = ProgressBar()
    try:
        done = replay(recipe, frame, hierarchies, key, progress=bar)
    except ReplayRefused as refused:
        problems = refused.problems
    else:
        problems = []
    finally:
        bar.close()
    if problems:
        return _refuse(args, recipe, problems)
    release = done.release
    from arxpy.commands.run import release_order, write_release

    order = release_order(args, release)

    written = write_release(release, args.output, order["seed"])
    if args.report:
        write_json(args.report, replay_report(recipe, done, written, order, frame))
    write_certificate(args, release, recipe, done.identifiers, args.data, original=frame)
    print(f"Replayed the recipe ({recipe.mode}): {release.records - release.suppressed_records:,}"
          f" of {release.records:,} records released. {release.verify().headline}")
    return 0


def _hierarchies(args: argparse.Namespace, recipe: Any) -> dict[str, Any]:
    """The recipe's hierarchies found in ``--hierarchies DIR``, then each ``--hierarchy``."""
    from arxpy.recipes.replay_files import find_hierarchies

    found = find_hierarchies(recipe, args.hierarchies, args.delimiter)
    found.update(read_hierarchy_options(args.hierarchy, args.delimiter))
    return found


def _refuse(args: argparse.Namespace, recipe: Any, problems: list[str]) -> int:
    """Every reason on stderr, and in the report if one is asked for; status 2."""
    count = f"{len(problems)} problem{'' if len(problems) == 1 else 's'}"
    print(f"arxpy: error: the new extract breaks the recipe ({count}); no release was "
          "written:", file=sys.stderr)
    for problem in problems:
        print(f"  - {problem}", file=sys.stderr)
    if args.report:
        from arxpy.recipes.replay_files import refusal_report

        write_json(args.report, refusal_report(recipe, problems))
    return 2
