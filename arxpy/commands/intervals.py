"""``arxpy intervals`` and ``arxpy interval-stats``: interval generalisation (Xiang et al.
2014) and interval statistics of its output.

``intervals`` writes every input column with each boxed attribute A replaced by ``A_lo``
and ``A_hi``; its report has ``k``, ``records``, ``boxes``, ``min_box_size``,
``leftovers``, ``nesting`` (attribute -> bool) and ``elapsed_seconds`` (contract keys),
then ``output_file_sha256`` (the written file's SHA-256) and the parameters, whose seed
``--order random`` draws when none is given.
``interval-stats`` reports, per statistic, ``lo``, ``hi``, ``width`` and ``flag``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.commands.files import add_input_option, add_output_option
from arxpy.commands.options import (
    add_order_arguments,
    delimiter_option,
    output_order,
    seed_option,
)
from arxpy.commands.table_source import source_paths
from arxpy.engine.export import shuffled
from arxpy.errors import ConfigurationError


def register(subparsers: argparse._SubParsersAction) -> None:
    _register_intervals(subparsers)
    _register_stats(subparsers)


def _register_intervals(subparsers: argparse._SubParsersAction) -> None:
    from arxpy.methods.interval_boxes import MERGES, NEIGHBOURS, ORDERS, IntervalGeneralisation

    default = {p.name: p.default for p in IntervalGeneralisation.params}  # one declaration

    parser = subparsers.add_parser(
        "intervals", help="replace numeric attributes by k-anonymous intervals (boxes)",
        description="Interval generalisation (Xiang et al. 2014): every record's chosen "
        "numeric attributes become a box that at least k records share, shaped to keep a "
        "target statistic narrow. With --max-width, finds the largest k whose statistic "
        "widths stay within the limits (utility-constrained mode).")
    add_input_option(parser, "--data", type=Path, paths=source_paths, required=True, metavar="CSV")
    parser.add_argument("--delimiter", metavar="C", type=delimiter_option,
                        help="field delimiter (default: detected); 'tab' for a tab")
    parser.add_argument("--attributes", required=True, metavar="A,B",
                        help="numeric attributes to box")
    parser.add_argument("--k", type=int, metavar="K",
                        help="records per box (privacy-constrained mode)")
    parser.add_argument("--statistic", default=default["statistic"], metavar="STAT",
                        help="target: standardized (1/SD weights, scale-free), uniform "
                        "(raw units), mean:A, variance:A, covariance:A,B, correlation:A,B "
                        "or weights:A=1,B=2 (default %(default)s)")
    parser.add_argument("--order", choices=ORDERS, default=default["order"],
                        help="processing order (default %(default)s)")
    parser.add_argument("--merge", choices=MERGES, default=default["merge"],
                        help="leftover merge rule (default %(default)s; seed is the paper's "
                        "literal rule)")
    parser.add_argument("--eps", type=float, default=default["eps"],
                        help="gradient floor (default %(default)g)")
    parser.add_argument("--neighbours", choices=NEIGHBOURS, default=default["neighbours"],
                        help="neighbour search (default %(default)s)")
    parser.add_argument("--seed", type=seed_option, help="seed of --order random")
    parser.add_argument("--max-width", metavar="LIMITS",
                        help='utility-constrained mode: width limits, e.g. '
                        '"mean:A=5,variance:A=10" (also sd, median, iqr, skewness, cov:A,B, '
                        'corr:A,B)')
    parser.add_argument("--k-max", type=int, default=50, metavar="K",
                        help="largest k tried in utility-constrained mode (default 50)")
    parser.add_argument("--ddof", type=int, choices=(0, 1), default=0,
                        help="variance divisor n - ddof for --max-width (default 0)")
    parser.add_argument("--interval-text", action="store_true",
                        help='also keep A as "[lo, hi]" text next to A_lo and A_hi')
    add_output_option(parser, "--output", type=Path, required=True, metavar="OUT.csv")
    add_output_option(parser, "--report", type=Path, metavar="R.json")
    add_order_arguments(parser)
    parser.set_defaults(func=run_intervals)


def _register_stats(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "interval-stats", help="interval statistics of interval data (A_lo/A_hi columns)",
        description="Ranges of statistics over every dataset consistent with the intervals "
        "(guaranteed to contain the true value), each flagged exact or outer.")
    add_input_option(parser, "--data", type=Path, paths=source_paths, required=True, metavar="CSV",
                     help='interval data: A_lo and A_hi columns, or A as "[lo, hi]"')
    parser.add_argument("--delimiter", metavar="C", type=delimiter_option)
    parser.add_argument("--attributes", required=True, metavar="A[,B]")
    parser.add_argument("--stats", default="mean,variance", metavar="LIST",
                        help="mean,variance,sd,median,q:0.9,gmean,hmean,cv,iqr,skewness,"
                        "ci:0.95,exceed:140,ecdf,cov:A,B,corr:A,B (default mean,variance)")
    parser.add_argument("--ddof", type=int, choices=(0, 1), default=0,
                        help="variance/covariance divisor n - ddof (default 0)")
    parser.add_argument("--exact-limit", type=int, default=200_000, metavar="N",
                        help="largest vertex enumeration for exact bounds (default 200000)")
    parser.add_argument("--k0", type=float,
                        help="confidence-limit factor (default t quantile / sqrt(n))")
    add_output_option(parser, "--report", type=Path, required=True, metavar="S.json")
    parser.set_defaults(func=run_stats)


# --- intervals ---------------------------------------------------------------------------

def _names(text: str, option: str) -> list[str]:
    names = [a.strip() for a in text.split(",") if a.strip()]
    if not names:
        raise ConfigurationError(f"{option} needs attribute names, e.g. {option} A,B.")
    return names


def parse_limits(text: str) -> dict[str, float]:
    """``--max-width "mean:A=5,variance:A=10,cov:A,B=3"`` as ``{"mean:A": 5.0, ...}``."""
    from arxpy.analysis.interval_report import parse_width_limits

    try:
        limits = parse_width_limits(text)
    except ConfigurationError as exc:
        raise ConfigurationError(f"Cannot read --max-width: {exc}") from None
    if not limits:
        raise ConfigurationError(
            f"Cannot read --max-width '{text}'; write e.g. \"mean:A=5,variance:A=10\".")
    return limits


def run_intervals(args: argparse.Namespace) -> int:
    from arxpy.commands.options import ProgressBar, file_sha256, read_data_option, write_json
    from arxpy.data.definition import DataDefinition

    started = time.perf_counter()
    attributes = _names(args.attributes, "--attributes")
    if args.k is None and args.max_width is None:
        raise ConfigurationError("Give --k K, or --max-width LIMITS to find the largest k.")
    _draw_a_seed_for_random_order(args)
    frame = read_data_option(args.data, args.delimiter)
    definition = DataDefinition.for_columns(frame.columns)
    bar = ProgressBar()
    try:
        sweep = None
        k = args.k
        if args.max_width is not None:
            sweep = _sweep(args, frame, attributes, bar)
            if sweep.best_k is None:
                bar.close()
                report = _unreleasable_report(args, attributes, frame, sweep, started)
                if args.report is not None:
                    write_json(args.report, report)
                print("Not releasable at these width limits: no k from 2 to "
                      f"{args.k_max} keeps every width within its limit.")
                return 1
            k = sweep.best_k
        method = _method(args, attributes, k)
        boxes = method.boxes(frame, progress=bar)
    finally:
        bar.close()
    release = method.release_from_boxes(frame, definition, boxes, started)
    out = interval_table(frame, method, release, keep_text=args.interval_text)
    order = output_order(args, release.seed)
    if order["shuffled"]:
        out = shuffled(out, order["seed"])
    _write_output(out, args.output)
    report = intervals_report(method, boxes, release, frame, sweep,
                              time.perf_counter() - started)
    report["output_order"] = order
    report["output_file_sha256"] = file_sha256(args.output)
    if args.report is not None:
        write_json(args.report, report)
    print(f"k = {report['k']}: {report['boxes']} boxes over {report['records']} records, "
          f"smallest box {report['min_box_size']}, {report['leftovers']} leftovers merged.")
    return 0


def _draw_a_seed_for_random_order(args: argparse.Namespace) -> None:
    """``--order random`` without ``--seed``: draw one, so the report can repeat the run."""
    from arxpy.params import drawn_seed

    if args.order == "random" and args.seed is None:
        args.seed = drawn_seed()
        print(f"arxpy: note: --order random drew --seed {args.seed} (in the report); give "
              "it to repeat this run", file=sys.stderr)


def _method(args: argparse.Namespace, attributes: list[str], k: int):
    from arxpy.methods.interval_boxes import IntervalGeneralisation

    return IntervalGeneralisation(attributes=attributes, k=k, statistic=args.statistic,
                                  order=args.order, merge=args.merge, eps=args.eps,
                                  seed=args.seed, neighbours=args.neighbours)


def _sweep(args: argparse.Namespace, frame: pd.DataFrame, attributes: list[str], bar):
    from arxpy.analysis.interval_statistics import width_evaluator
    from arxpy.methods.interval_boxes import largest_feasible_k

    limits = parse_limits(args.max_width)
    evaluate = width_evaluator(attributes, limits, ddof=args.ddof)
    return largest_feasible_k(_method(args, attributes, 2), frame, limits, evaluate,
                              args.k_max, progress=bar)


def interval_table(frame: pd.DataFrame, method, release, keep_text: bool = False
                   ) -> pd.DataFrame:
    """Every input column; each boxed attribute A replaced by ``A_lo`` and ``A_hi``."""
    from arxpy.formatting import plain
    from arxpy.methods.interval_boxes import parse_interval

    columns: dict[str, Any] = {}
    for name in frame.columns:
        if name not in method.attributes:
            columns[name] = frame[name]
            continue
        cells = release.table[name]
        bounds = [parse_interval(c) for c in cells]
        columns[f"{name}_lo"] = [plain(lo) for lo, _ in bounds]
        columns[f"{name}_hi"] = [plain(hi) for _, hi in bounds]
        if keep_text:
            columns[name] = cells
    return pd.DataFrame(columns, index=frame.index)


def _write_output(out: pd.DataFrame, path: Path) -> None:
    from arxpy.data.export import export_table

    export_table(out, path, format="csv")


def _box_figures(method, release) -> dict[str, Any]:
    from arxpy.analysis.interval_statistics import nested
    from arxpy.methods.interval_boxes import parse_interval

    sizes = np.bincount(release.groups)
    distribution = {str(s): int(c) for s, c in zip(*np.unique(sizes, return_counts=True),
                                                     strict=True)}
    nesting, degenerate = {}, {}
    for name in method.attributes:
        bounds = np.array([parse_interval(c) for c in release.table[name]])
        nesting[name] = nested(bounds[:, 0], bounds[:, 1])
        degenerate[name] = int((bounds[:, 0] == bounds[:, 1]).sum())
    return {"boxes": int(len(sizes)), "min_box_size": int(sizes.min()),
            "box_sizes": distribution, "nesting": nesting, "degenerate_records": degenerate}


def intervals_report(method, boxes, release, frame: pd.DataFrame, sweep, elapsed: float
                     ) -> dict[str, Any]:
    """The JSON report of ``arxpy intervals`` (contract keys first)."""
    from arxpy.methods.interval_boxes import gradient_rule

    report: dict[str, Any] = {"k": method.k, "records": int(len(frame))}
    report.update(_box_figures(method, release))
    report["leftovers"] = boxes.leftovers
    report["elapsed_seconds"] = elapsed
    report["mode"] = "utility-constrained" if sweep is not None else "privacy-constrained"
    report["parameters"] = dict(method.get_params())
    report["parameters"]["attributes"] = list(method.attributes)
    report["gradient_rule"] = gradient_rule(method.target)
    report["release"] = release.to_dict()
    if sweep is not None:
        report["utility"] = sweep.to_dict()
    return report


def _unreleasable_report(args, attributes, frame, sweep, started) -> dict[str, Any]:
    return {"k": None, "records": int(len(frame)), "boxes": 0, "min_box_size": 0,
            "leftovers": 0, "nesting": {}, "elapsed_seconds": time.perf_counter() - started,
            "mode": "utility-constrained", "releasable": False,
            "attributes": attributes, "utility": sweep.to_dict()}


# --- interval-stats ----------------------------------------------------------------------

def read_bounds(frame: pd.DataFrame, attributes: list[str]) -> dict[str, tuple[np.ndarray,
                                                                               np.ndarray]]:
    """Per attribute (lo, hi) from ``A_lo``/``A_hi`` columns or ``"[lo, hi]"`` cells."""
    from arxpy.methods.interval_boxes import parse_interval

    bounds = {}
    for name in attributes:
        if f"{name}_lo" in frame.columns and f"{name}_hi" in frame.columns:
            lo = _numbers(frame[f"{name}_lo"], f"{name}_lo")
            hi = _numbers(frame[f"{name}_hi"], f"{name}_hi")
        elif name in frame.columns:
            pairs = np.array([parse_interval(c) for c in frame[name]], dtype=float)
            lo, hi = pairs[:, 0], pairs[:, 1]
        else:
            raise ConfigurationError(
                f"No intervals for '{name}': the data needs columns {name}_lo and {name}_hi "
                f'or a column {name} of "[lo, hi]" cells.')
        bounds[name] = (lo, hi)
    return bounds


def _numbers(column: pd.Series, name: str) -> np.ndarray:
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(values).all():
        row = int(np.flatnonzero(~np.isfinite(values))[0])
        raise ConfigurationError(
            f"Column '{name}' must hold numbers; row {row + 1} holds {column.iloc[row]!r}.")
    return values


def run_stats(args: argparse.Namespace) -> int:
    from arxpy.commands.options import read_data_option, write_json

    started = time.perf_counter()
    attributes = _names(args.attributes, "--attributes")
    frame = read_data_option(args.data, args.delimiter)
    bounds = read_bounds(frame, attributes)
    report = statistics_report(bounds, args.stats, args.ddof, args.exact_limit, args.k0)
    report["elapsed_seconds"] = time.perf_counter() - started
    write_json(args.report, report)
    for key, value in report["statistics"].items():
        print(f"{key}: [{value['lo'] if np.isscalar(value['lo']) else '...'}, "
              f"{value['hi'] if np.isscalar(value['hi']) else '...'}] ({value['flag']})")
    return 0


def statistics_report(bounds, stats: str, ddof: int, exact_limit: int,
                      k0: float | None) -> dict[str, Any]:
    """``{"records", "ddof", "nesting", "statistics": {"mean(A)": {lo, hi, width, flag,
    algorithm}, ...}}``."""
    from arxpy.analysis.interval_statistics import PBox, compute, nested, parse_statistics

    requests = parse_statistics(stats, list(bounds))
    out: dict[str, Any] = {}
    for request in requests:
        result = compute(request, bounds, ddof, exact_limit, k0)
        label = ",".join(request.attributes)
        if isinstance(result, PBox):
            out[f"ecdf({label})"] = result.to_dict()
            continue
        for stat in result:
            out[f"{stat.name}({label})"] = stat.to_dict()
    first = next(iter(bounds.values()))
    return {"records": int(len(first[0])), "ddof": ddof,
            "nesting": {a: nested(*b) for a, b in bounds.items()}, "statistics": out}
