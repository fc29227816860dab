"""``arxpy gui [PROJECT] [--example]``: start the desktop application."""

from __future__ import annotations

import argparse
from pathlib import Path

from arxpy.commands.files import add_input_option, add_output_option


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("gui", help="start the desktop application (the default)")
    add_input_option(parser, "project", nargs="?", type=Path, help="an .arxpy project to open")
    parser.add_argument(
        "--example", action="store_true", help="open the bundled patient-discharge example"
    )
    checks = parser.add_argument_group(
        "non-interactive checks", "start the real window, then quit without waiting for a "
        "person (use QT_QPA_PLATFORM=offscreen on a machine without a screen)")
    only_one = checks.add_mutually_exclusive_group()
    only_one.add_argument(
        "--startup-time", action="store_true",
        help="print the seconds from process start until the window is usable, then quit",
    )  # fmt: skip
    add_output_option(
        only_one, "--smoke-test", type=Path, metavar="OUT", dest="smoke_output",
        help="anonymize the opened project with its settings, export the result to OUT "
        "(.csv or .xlsx) and quit; exit status 1 if any step fails",
    )  # fmt: skip
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.gui.app import run_app  # Qt is imported only when the GUI starts

    checks = {"startup_time": True} if args.startup_time else {}
    if args.smoke_output is not None:
        checks["smoke_output"] = args.smoke_output
    return run_app(project_path=args.project, example=args.example, **checks)

