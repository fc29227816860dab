"""``arxpy gui [PROJECT] [--example]``: start the desktop application."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("gui", help="start the desktop application (the default)")
    parser.add_argument("project", nargs="?", type=Path, help="an .arxpy project to open")
    parser.add_argument(
        "--example", action="store_true", help="open the bundled patient-discharge example"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.gui.app import run_app  # Qt is imported only when the GUI starts

    return run_app(project_path=args.project, example=args.example)
