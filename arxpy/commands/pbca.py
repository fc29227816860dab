"""``arxpy pbca``: the pattern-based classification accuracy (Aristodimou et al. 2016,
Eq. 1) of some features for a class attribute, printed (and optionally as JSON)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from arxpy.commands.files import add_input_option
from arxpy.commands.options import delimiter_option, read_data_option, seed_option
from arxpy.commands.table_source import source_paths


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "pbca", help="pattern-based classification accuracy of features for a class",
        description="Share of records that the majority class of their pattern (the "
        "combination of the features' values) classifies correctly.")
    add_input_option(parser, "--data", type=Path, paths=source_paths, required=True,
                     metavar="D.csv")
    parser.add_argument("--delimiter", metavar="C", type=delimiter_option,
                        help="field delimiter (default: detected); 'tab' for a tab")
    parser.add_argument("--class-attribute", required=True, metavar="C")
    parser.add_argument("--features", metavar="A,B", help="default: every other attribute")
    parser.add_argument("--cv-folds", type=int, default=0, metavar="F",
                        help="stratified CV folds (default 0: resubstitution, Eq. 1)")
    parser.add_argument("--seed", type=seed_option, default=0)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.analysis.pbca import pbca

    frame = read_data_option(args.data, args.delimiter)
    features = None if args.features is None else \
        [f.strip() for f in args.features.split(",") if f.strip()]
    result = pbca(frame, args.class_attribute, features, cv_folds=args.cv_folds,
                  seed=args.seed)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(f"{result.pbca:.6f}")
    return 0
