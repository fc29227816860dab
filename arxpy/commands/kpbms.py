"""``arxpy kpbms``: feature selection and pattern-based suppression (Aristodimou et al.
2016) writing the selected features and the class of the kept records, and a report.

Report keys ``selected_features`` (most important first), ``loss``, ``k``,
``records_in``, ``records_out``, ``patterns_removed``, ``patterns_trimmed``,
``homogeneous_groups`` and ``elapsed_seconds`` are a contract for scripts. When no
feature prefix keeps the loss within ``--max-loss`` the command prints one line, exits
with status 2 and writes no output table (the report, if asked, holds the trace). The
per-pattern table leaves the patterns' feature values out (they name the small cells
that were suppressed) unless ``--include-patterns`` asks for them.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_input_option, add_output_option
from arxpy.commands.options import (
    ProgressBar,
    add_order_arguments,
    delimiter_option,
    output_order,
    read_data_option,
    seed_option,
    write_json,
)
from arxpy.commands.table_source import source_paths
from arxpy.errors import ConfigurationError


def _attributes(text: str | None, option: str = "--qi") -> list[str] | None:
    """Comma-separated attribute names; ConfigurationError for a name given twice."""
    if text is None:
        return None
    names = [a.strip() for a in text.split(",") if a.strip()]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ConfigurationError(
            f"{option} names '{twice[0]}' more than once; list each attribute once.")
    return names


def discretization(text: str) -> tuple[str, int]:
    """``mdl``, ``none`` or ``eqfreq[:B]`` as (how, bins), B from 2 to MAX_BINS."""
    from arxpy.data.discretization import DEFAULT_BINS, MAX_BINS

    how, _, bins = text.partition(":")
    if how in ("mdl", "none") and not bins:
        return how, DEFAULT_BINS
    if how == "eqfreq":
        try:
            count = int(bins) if bins else DEFAULT_BINS
        except ValueError:
            count = 0
        if 2 <= count <= MAX_BINS:
            return how, count
    raise argparse.ArgumentTypeError(
        f"use mdl, none or eqfreq:B with B from 2 to {MAX_BINS} bins, got {text!r}")


def add_kpbms_arguments(parser: argparse.ArgumentParser) -> None:
    """The method settings shared by ``kpbms`` and ``kpbms-evaluate``."""
    add_input_option(parser, "--data", type=Path, paths=source_paths, required=True,
                     metavar="D.csv")
    parser.add_argument("--delimiter", metavar="C", type=delimiter_option,
                        help="field delimiter (default: detected); 'tab' for a tab")
    parser.add_argument("--class-attribute", required=True, metavar="C",
                        help="the attribute classifiers will predict")
    parser.add_argument("--qi", metavar="A,B,...",
                        help="candidate features (default: every other attribute)")
    parser.add_argument("--discretize", type=discretization, default="mdl",
                        metavar="mdl|none|eqfreq:B",
                        help="MDL cuts for continuous attributes (default), B "
                        "equal-frequency bins (2 to 1000), or none")
    parser.add_argument("--continuous", metavar="A,B,...",
                        help="attributes to discretize (default: numeric ones with a "
                        "fractional value or more than 20 distinct values)")
    parser.add_argument("--max-loss", type=float, default=0.10, metavar="T",
                        help="largest share of records that may be removed (default 0.10)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="Fisher test significance level (default 0.05)")
    parser.add_argument("--cv-folds", type=int, default=10, metavar="F",
                        help="CV-PBCA folds in feature selection (0: resubstitution)")
    parser.add_argument("--redundancy", choices=("ge", "equal"), default="ge")
    parser.add_argument("--seed", type=seed_option, default=0)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "kpbms", help="feature selection and pattern-based suppression for classification",
        description="Select the features that carry the class (PB-FSS) and remove records "
        "until every (pattern, class) group has at least k records, dropping the least "
        "important feature while more than --max-loss of the records would be lost "
        "(Aristodimou et al. 2016).")
    add_kpbms_arguments(parser)
    parser.add_argument("--k", type=int, default=5, help="smallest group (default 5)")
    add_output_option(parser, "--output", type=Path, required=True, metavar="OUT.csv")
    add_output_option(parser, "--report", type=Path, metavar="R.json")
    patterns = parser.add_mutually_exclusive_group()
    patterns.add_argument("--include-patterns", action="store_true",
                          help="list each pattern's feature values in the report (they name "
                          "the small cells that were suppressed; left out by default)")
    patterns.add_argument("--redact-patterns", action="store_true",
                          help="leave the pattern values out of the report (the default)")
    add_order_arguments(parser)
    parser.set_defaults(func=run)


def method_parameters(args: argparse.Namespace, k: int, discretize: str | None = None
                      ) -> dict[str, Any]:
    """The registered method's parameters from the options."""
    return {"class_attribute": args.class_attribute, "qis": _attributes(args.qi),
            "discretize": discretize or args.discretize[0], "bins": args.discretize[1],
            "continuous": None if discretize == "none" else _attributes(args.continuous,
                                                                        "--continuous"),
            "k": k, "max_loss": args.max_loss,
            "alpha": args.alpha, "cv_folds": args.cv_folds, "redundancy": args.redundancy,
            "seed": args.seed}


def run(args: argparse.Namespace) -> int:
    from arxpy.data.definition import DataDefinition
    from arxpy.methods import run_method
    from arxpy.methods.kpbms import LossLimitError

    frame = read_data_option(args.data, args.delimiter)
    definition = DataDefinition.for_columns(frame.columns)
    bar = ProgressBar()
    try:
        release = run_method("kpbms", frame, definition, method_parameters(args, args.k),
                             progress=bar)
    except LossLimitError as exc:
        if args.report is not None:
            write_json(args.report, {"ok": False, "error": str(exc), "k": args.k,
                                     "iterations": [it.to_dict() for it in exc.iterations]})
        raise
    finally:
        bar.close()
    report = kpbms_report(release, redact=not args.include_patterns)
    _write_outputs(args, release, report)
    for warning in release.warnings:
        print(f"arxpy: warning: {warning}", file=sys.stderr)
    print(f"{len(release.selected_features)} features "
          f"({', '.join(release.selected_features)}), loss {release.loss:.3f}, "
          f"{report['records_out']} of {report['records_in']} records kept, "
          f"{report['elapsed_seconds']:.2f} s")
    return 0


def kpbms_report(release, redact: bool = True) -> dict[str, Any]:
    """The contract keys, the traces, the per-pattern table and the provenance; the
    patterns' feature values only when ``redact`` is off (they name small cells)."""
    patterns = release.patterns
    if redact:
        patterns = patterns.drop(columns=list(release.selected_features))
    patterns = patterns.astype(object).where(patterns.notna(), None)
    return {
        "ok": True, "selected_features": list(release.selected_features),
        "loss": release.loss, "k": release.k, "records_in": release.records,
        "records_out": release.records - release.suppressed_records,
        "patterns_removed": release.patterns_removed,
        "patterns_trimmed": release.patterns_trimmed,
        "homogeneous_groups": release.homogeneous_groups,
        "k_check": {"min_group_size": release.statistics.min_size,
                    "satisfied": bool(release.statistics.min_size >= release.k
                                      or release.statistics.n_classes == 0)},
        "elapsed_seconds": release.elapsed_seconds,
        "warnings": list(release.warnings),
        "dropped_by_reason": {reason: int((release.drop_reason == reason).sum())
                              for reason in ("pattern", "class")},
        "cut_points": {a: list(c) for a, c in release.cut_points.items()},
        "selection": release.selection.to_dict(),
        "iterations": [it.to_dict() for it in release.iterations],
        "patterns": patterns.to_dict("records"), "patterns_redacted": redact,
        "release": release.to_dict(),
    }


def _write_outputs(args: argparse.Namespace, release, report: dict[str, Any]) -> None:
    """The data, then the report (a report never describes missing data)."""
    from arxpy.engine.export import export_release

    order = output_order(args, release.seed)
    export_release(release, args.output, overwrite=True, delimiter=args.delimiter or ",",
                   shuffle_seed=order["seed"])
    report["output_order"] = order
    report["output_sha256"] = hashlib.sha256(Path(args.output).read_bytes()).hexdigest()
    if args.report is not None:
        write_json(args.report, report)
