"""``arxpy glossary``: the terms of de-identification in plain words (the GUI's glossary)."""

from __future__ import annotations

import argparse
import textwrap


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "glossary", help="explain the terms arxpy uses",
        description="The glossary of the Help menu: every term, or those containing TERM.")
    parser.add_argument("term", nargs="?", help="show only entries whose name contains this")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.help import glossary

    for name, text in glossary(args.term):
        print(name)
        print(textwrap.fill(text, 88, initial_indent="  ", subsequent_indent="  ",
                            break_on_hyphens=False))
    return 0
