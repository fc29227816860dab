"""``arxpy condense``: condensation and microaggregation for regression and survival
analyses (Gal et al. 2014), writing the synthetic table, the groups and a JSON report.

The report's keys ``method``, ``k``, ``records``, ``groups``, ``min_group_size``,
``moved_records``, ``clipped``, ``elapsed_seconds``, ``input_sha256`` and
``output_sha256`` (SHA-256 of the written output file) are a contract for scripts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.commands.files import add_input_option, add_output_option
from arxpy.commands.options import (
    ProgressBar,
    delimiter_option,
    read_data_option,
    seed_option,
    write_json,
)
from arxpy.commands.table_source import source_paths
from arxpy.errors import ConfigurationError

#: CLI name -> registered method name.
METHODS = {"improved": "improved-condensation", "condensation": "condensation",
           "tfrp": "tfrp", "mdav": "mdav"}
_IMPROVED_ONLY = ("status", "event_value", "time", "response", "weight", "weight_split",
                  "kmeans_iter", "kmeans_restarts", "small_subset")


def add_condensation_arguments(parser: argparse.ArgumentParser) -> None:
    """The method settings shared by ``condense`` and ``compare-models``."""
    parser.add_argument("--status", metavar="COL", help="binary survival status (improved)")
    parser.add_argument("--event-value", metavar="V",
                        help="the status value meaning death (reporting only)")
    parser.add_argument("--time", metavar="COL", help="survival time attribute (improved)")
    parser.add_argument("--response", metavar="COL",
                        help="attribute weighted by --weight (default: --time)")
    parser.add_argument("--weight", type=float, metavar="W",
                        help="weight of the response in k-means (default 0.5)")
    parser.add_argument("--weight-split", choices=("attribute", "column"))
    parser.add_argument("--generator", choices=("exact", "moments", "uniform"))
    parser.add_argument("--no-standardize", action="store_true",
                        help="measure distances on raw values instead of z-scores")
    parser.add_argument("--kmeans-iter", type=int, metavar="N")
    parser.add_argument("--kmeans-restarts", type=int, metavar="N")
    parser.add_argument("--small-subset", choices=("error", "suppress", "merge"))
    add_input_option(parser, "--types", type=Path, metavar="types.json",
                     help='attribute kinds, e.g. {"Stage": "categorical"}')
    parser.add_argument("--identifying", action="append", default=[], metavar="ATTR",
                        help="removed from the output")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "condense", help="condensation / microaggregation for regression and survival analyses",
        description="Replace groups of at least k records by synthetic records that keep "
        "each group's mean and covariance (Gal et al. 2014), or by group means (TFRP, MDAV).")
    add_input_option(parser, "--data", type=Path, paths=source_paths, required=True,
                     metavar="IN.csv")
    parser.add_argument("--delimiter", metavar="C", type=delimiter_option,
                        help="field delimiter (default: detected); 'tab' for a tab")
    parser.add_argument("--method", choices=tuple(METHODS), default="improved")
    parser.add_argument("--k", type=int, default=100, help="smallest group size (default 100)")
    add_condensation_arguments(parser)
    parser.add_argument("--seed", type=seed_option,
                        help="random seed (default: drawn and reported)")
    parser.add_argument("--no-shuffle", action="store_true",
                        help="keep each synthetic row at its record's position")
    add_output_option(parser, "--output", type=Path, required=True, metavar="OUT.csv")
    add_output_option(parser, "--groups", type=Path, metavar="GROUPS.csv",
                      help="write row,group for every input record in input order")
    add_output_option(parser, "--report", type=Path, metavar="R.json")
    parser.set_defaults(func=run)


def method_parameters(args: argparse.Namespace, method: str, k: int,
                      seed: int | None) -> dict[str, Any]:
    """The registered method's parameters from the options (improved-only ones dropped
    for the other methods)."""
    params: dict[str, Any] = {"k": k, "seed": seed,
                              "shuffle_output": not getattr(args, "no_shuffle", False),
                              "standardize": not args.no_standardize}
    if args.types is not None:
        params["types"] = _read_types(args.types)
    given = {"status": args.status, "event_value": args.event_value, "time": args.time,
             "response": args.response, "weight": args.weight,
             "weight_split": args.weight_split, "kmeans_iter": args.kmeans_iter,
             "kmeans_restarts": args.kmeans_restarts, "small_subset": args.small_subset,
             "generator": args.generator}
    given = {key: value for key, value in given.items() if value is not None}
    if method == "improved":
        if "time" not in given:
            raise ConfigurationError("Improved condensation needs --time (survival time).")
    elif method == "condensation":
        given = {key: v for key, v in given.items() if key not in _IMPROVED_ONLY}
    else:
        given = {}
    return {**params, **given}


def _read_types(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"Cannot read the attribute kinds file {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path}: expected an object such as {{\"Stage\": "
                                 "\"categorical\"}.")
    return {str(k): str(v) for k, v in data.items()}


def load_table(args: argparse.Namespace):
    """(frame, definition) with the --identifying attributes marked."""
    from arxpy.data.definition import AttributeType, DataDefinition

    frame = read_data_option(args.data, args.delimiter)
    definition = DataDefinition.for_columns(frame.columns)
    for name in args.identifying:
        definition[name]  # DefinitionError naming the known attributes
        definition = definition.with_attribute(name, type=AttributeType.IDENTIFYING)
    return frame, definition


def run(args: argparse.Namespace) -> int:
    from arxpy.methods import method_from_dict

    frame, definition = load_table(args)
    # The declaration checks every setting (k >= 3 among them) before any readout.
    method = method_from_dict({"name": METHODS[args.method],
                               **method_parameters(args, args.method, args.k, args.seed)})
    if args.method == "improved":
        _warn_about_small_subsets(args, frame)
    bar = ProgressBar()
    try:
        release = method.run(frame, definition, progress=bar)
    finally:
        bar.close()
    report = condense_report(args.method, frame, release)
    _write_outputs(args, release, report)
    print(f"{report['groups']} groups of at least {report['min_group_size']} records "
          f"({report['records']} records, {report['moved_records']} moved, "
          f"{sum(report['clipped'].values())} values clipped) in "
          f"{report['elapsed_seconds']:.2f} s")
    return 0


def _warn_about_small_subsets(args: argparse.Namespace, frame) -> None:
    """Improved condensation groups each status value apart: say where few groups form."""
    from arxpy.methods.condensation import subset_readout

    if args.status is not None and args.status not in frame.columns:
        raise ConfigurationError(f"No attribute '{args.status}' for --status.")
    for subset in subset_readout(frame, args.status, args.k):
        if subset["warning"]:
            where = f"{args.status} = {subset['value']}" if args.status else "all records"
            print(f"arxpy: warning: {where}: {subset['records']} records, "
                  f"{subset['warning']}", file=sys.stderr)


def condense_report(method: str, frame, release) -> dict[str, Any]:
    """The contract keys plus group sizes, invariants and the release's provenance."""
    from arxpy.analysis.release_fidelity import kaplan_meier_difference

    sizes = release.class_sizes
    params = release.parameters
    report: dict[str, Any] = {
        "method": method, "k": int(params["k"]), "records": release.records,
        "groups": int(len(sizes)), "min_group_size": int(sizes.min()) if len(sizes) else 0,
        "max_group_size": int(sizes.max()) if len(sizes) else 0,
        "mean_group_size": float(sizes.mean()) if len(sizes) else 0.0,
        "suppressed_records": release.suppressed_records,
        "moved_records": release.moved_records, "clipped": dict(release.clipped),
        "elapsed_seconds": release.elapsed_seconds, "input_sha256": release.input_sha256,
        "seed": release.seed, "release": release.to_dict(),
    }
    report.update(fidelity_figures(frame, release))
    time, status = params.get("time"), params.get("status")
    if method == "improved" and release.suppressed_records == 0:
        from arxpy.methods.condensation import CAVEAT

        report["caveat"] = CAVEAT
        invariants = {}
        if status:
            kept = release.order  # output row i holds the record at input position order[i]
            invariants["status_preserved"] = bool(
                (release.table[status].to_numpy() == frame[status].to_numpy()[kept]).all())
            event = params.get("event_value") or sorted(set(frame[status].astype(str)))[0]
            invariants["kaplan_meier_max_difference"] = kaplan_meier_difference(
                frame, release.table, time, status, event)
        invariants["time_multiset_preserved"] = bool(np.array_equal(
            np.sort(frame[time].astype(float)), np.sort(release.table[time].astype(float))))
        report["invariants"] = invariants
    return report


def fidelity_figures(frame, release) -> dict[str, Any]:
    """Basic-statistic deltas and conditional privacy (rows paired before the shuffle)."""
    from arxpy.analysis.release_fidelity import (
        CONDITIONAL_PRIVACY_ESTIMATOR,
        basic_statistics,
        conditional_privacy_table,
    )

    kept = list(release.table.columns)
    released = ~release.suppressed
    output = release.table.loc[released]
    original = frame[kept].iloc[release.order[released]]
    statistics = basic_statistics(original, output)
    statistics = statistics.replace([np.inf, -np.inf], np.nan).astype(object)
    return {
        "basic_statistics": statistics.where(statistics.notna(), None).to_dict("records"),
        "conditional_privacy": {
            "estimator": CONDITIONAL_PRIVACY_ESTIMATOR,
            "pairing": "each record with the row generated in its slot",
            "values": conditional_privacy_table(original.reset_index(drop=True),
                                                output.reset_index(drop=True))},
    }


def _write_outputs(args: argparse.Namespace, release, report: dict[str, Any]) -> None:
    """The data, then the groups, then the report (a report never describes missing data)."""
    from arxpy.data.atomic import atomic_write
    from arxpy.engine.export import export_release

    export_release(release, args.output, overwrite=True, delimiter=args.delimiter or ",")
    report["output_sha256"] = hashlib.sha256(Path(args.output).read_bytes()).hexdigest()
    if args.groups is not None:
        groups = pd.DataFrame({"row": np.arange(len(release.input_groups)),
                               "group": release.input_groups})
        with atomic_write(args.groups, newline="") as handle:
            groups.to_csv(handle, index=False, lineterminator="\n")
    if args.report is not None:
        write_json(args.report, report)
