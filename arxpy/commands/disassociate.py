"""``arxpy disassociate``: disassociation of diagnosis codes (Loukides et al. 2014) into a
published JSON document (schema v1, docs/disassociation.md), optional synthetic
reconstructions, and a JSON report.

The report's keys ``k``, ``m``, ``records``, ``clusters``, ``record_chunks``,
``shared_chunks``, ``codes_in_item_chunks`` and ``elapsed_seconds`` are a contract for
scripts.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from arxpy.commands.files import add_input_option, add_output_option, policy_option_paths
from arxpy.commands.options import (
    ProgressBar,
    delimiter_option,
    read_data_option,
    seed_option,
    write_json,
)
from arxpy.errors import ConfigurationError


def register(subparsers: argparse._SubParsersAction) -> None:
    from arxpy.data.disassociated import ITEM_FILLS
    from arxpy.data.utility_policy import POLICY_HELP
    from arxpy.methods.disassociation.horpart import SMALL_CLUSTER_MODES

    parser = subparsers.add_parser(
        "disassociate", help="k^m-anonymous disassociation of diagnosis codes",
        description="Split records into clusters and each cluster's codes into k^m-anonymous "
        "chunks (Loukides et al. 2014): an attacker knowing up to m codes of a patient finds "
        "at least k candidate records, and no code is generalized or suppressed.")
    add_input_option(parser, "--data", type=Path, required=True, metavar="D.csv")
    parser.add_argument("--codes-column", metavar="C", help="column holding the codes")
    layout = parser.add_mutually_exclusive_group()
    layout.add_argument("--id-column", metavar="I", help="record id column (left out)")
    layout.add_argument("--long-format", metavar="ID,CODE",
                        help="one row per (record id, code)")
    layout.add_argument("--wide-prefix", metavar="dx", help="code columns dx1..dxN")
    parser.add_argument("--delimiter", default=";", metavar="C",
                        help="separates the codes in a cell (default ';')")
    parser.add_argument("--field-delimiter", type=delimiter_option, metavar="C",
                        help="CSV field delimiter (default: detected)")
    parser.add_argument("--multiset", action="store_true",
                        help="keep repeated codes as code#1, code#2, ...")
    parser.add_argument("--k", type=int, required=True, help="k (at least 2)")
    parser.add_argument("--m", type=int, default=2, help="m (default 2, at most 6)")
    parser.add_argument("--max-cluster-size", type=int, metavar="N", help="default 2k")
    add_input_option(parser, "--policy", default="none", paths=policy_option_paths,
                     help=f"utility policy: {POLICY_HELP}")
    parser.add_argument("--small-clusters", choices=SMALL_CLUSTER_MODES, default="guard")
    parser.add_argument("--no-refine", action="store_true", help="no shared chunks")
    add_input_option(parser, "--sensitive-codes", type=Path, metavar="S.txt",
                     help="codes always put in item chunks (l-diversity variant)")
    parser.add_argument("--l", type=int, metavar="L",
                        help="smallest cluster with sensitive codes (default k)")
    parser.add_argument("--seed", type=seed_option,
                        help="seed of the shuffles; keep it secret (default: drawn, reported)")
    add_output_option(parser, "--output", type=Path, required=True, metavar="OUT.json",
                      help="the published document")
    add_output_option(parser, "--reconstruct", type=Path, metavar="OUT.csv",
                      paths=lambda value, args: reconstruction_paths(args),
                      help="write synthetic possible originals (not the real data)")
    parser.add_argument("--reconstructions", type=int, default=1, metavar="R",
                        help="how many, at most 100 (OUT-1.csv ... OUT-R.csv when R > 1)")
    parser.add_argument("--item-fill", choices=ITEM_FILLS, default="one",
                        help="records receiving an item-chunk code in a reconstruction")
    add_output_option(parser, "--report", type=Path, metavar="R.json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.commands.table_source import SET_VALUED_CSV, refuse_sqlite
    from arxpy.data.definition import DataDefinition
    from arxpy.data.disassociated import MAX_RECONSTRUCTIONS
    from arxpy.methods.disassociation import Disassociation

    refuse_sqlite(args.data, "--data", SET_VALUED_CSV)
    if not 1 <= args.reconstructions <= MAX_RECONSTRUCTIONS:
        raise ConfigurationError(
            f"--reconstructions must be at least 1 and at most {MAX_RECONSTRUCTIONS}.")
    frame = read_code_table(args)
    method = Disassociation(**method_parameters(args))
    warning = method.cost_warning()
    if warning:
        print(f"arxpy: warning: {warning}", file=sys.stderr)
    targets = reconstruction_paths(args)
    bar = ProgressBar()
    try:
        release = method.run(frame, DataDefinition.for_columns(frame.columns), progress=bar)
    finally:
        bar.close()
    report = disassociation_report(method, method.read_codes(frame), release)
    _write_outputs(args, release, report, targets)
    print(f"{report['clusters']} clusters, {report['record_chunks']} record chunks, "
          f"{report['shared_chunks']} shared chunks; {report['records']} records in "
          f"{report['elapsed_seconds']:.2f} s")
    return 0


def read_code_table(args: argparse.Namespace) -> pd.DataFrame:
    """The codes of ``--data`` as a one-column table (codes joined by ``--delimiter``).

    The cell layout keeps the codes as written. The long and wide layouts are read with
    :func:`arxpy.data.transactions.read_code_sets`, whose codes are normalised
    (undotted) as ``setvalued-utility`` reads the same file, so its ``--original``
    matches the published codes.
    """
    if args.long_format or args.wide_prefix:
        return _layout_table(args)
    if not args.codes_column:
        raise ConfigurationError("Name the column holding the codes with --codes-column.")
    frame = read_data_option(args.data, args.field_delimiter)
    for option, column in (("--codes-column", args.codes_column),
                           ("--id-column", args.id_column)):
        if column is not None and column not in frame.columns:
            raise ConfigurationError(
                f"{option}: no column '{column}' in {args.data}; its columns are "
                f"{', '.join(map(str, frame.columns))}.")
    return frame[[args.codes_column]]


def codes_column(args: argparse.Namespace) -> str:
    """The name of the codes in the method's table and the reconstructions: the codes
    column, the CODE of ``--long-format ID,CODE``, or ``codes`` (wide layout)."""
    from arxpy.commands.code_layouts import long_format_columns

    if args.codes_column:
        return args.codes_column
    if args.long_format:
        return long_format_columns(args.long_format)[1]
    return "codes"


def _layout_table(args: argparse.Namespace) -> pd.DataFrame:
    from arxpy.commands.code_layouts import read_layout
    from arxpy.data.icd9 import base_code

    sets = read_layout(args.data, args, args.field_delimiter).code_sets
    if args.delimiter in "".join(sets.vocabulary):
        raise ConfigurationError(
            f"A code of {args.data} contains the code delimiter {args.delimiter!r}; choose "
            "another --delimiter.")
    # Multiset occurrences go back to repeated codes: the method numbers them again.
    spelled = base_code if args.multiset else str
    cells = [args.delimiter.join(spelled(code) for code in sorted(record))
             for record in sets.to_sets()]
    return pd.DataFrame({codes_column(args): cells})


def method_parameters(args: argparse.Namespace) -> dict[str, Any]:
    params: dict[str, Any] = {
        "k": args.k, "m": args.m, "codes_column": codes_column(args),
        "max_cluster_size": args.max_cluster_size, "policy": args.policy,
        "small_clusters": args.small_clusters, "refine": not args.no_refine,
        "multiset": args.multiset, "delimiter": args.delimiter, "seed": args.seed,
        "l": args.l,
    }
    if args.sensitive_codes is not None:
        params["sensitive_codes"] = ",".join(read_code_list(args.sensitive_codes))
    return params


def read_code_list(path: Path) -> list[str]:
    """Codes separated by lines, commas, semicolons or spaces."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"Cannot read the sensitive codes file {path}: {exc}") from None
    codes = [c for c in re.split(r"[,;\s]+", text) if c]
    if not codes:
        raise ConfigurationError(f"{path} lists no codes; give one code per line.")
    return codes


def reconstruction_paths(args: argparse.Namespace) -> list[Path]:
    from arxpy.data.disassociated import reconstruction_paths as paths

    return [] if args.reconstruct is None else paths(args.reconstruct, args.reconstructions)


def disassociation_report(method, sets, release) -> dict[str, Any]:
    """The contract keys, input statistics, structure, timings and provenance."""
    from arxpy.methods.disassociation import CAVEAT, published_figures

    figures = published_figures(release.published)
    occurrences = int(sets.indices.size)
    in_records = figures.pop("record_chunk_occurrences")
    in_shared = figures.pop("shared_chunk_occurrences")
    lengths = sets.lengths
    return {
        "k": method.k, "m": method.m, **figures,
        "elapsed_seconds": release.elapsed_seconds,
        "timings": dict(release.timings),
        "occurrence_shares": {
            "record_chunks": in_records / occurrences,
            "shared_chunks": in_shared / occurrences,
            "item_chunks": (occurrences - in_records - in_shared) / occurrences},
        "input": {"records": len(sets), "distinct_codes": sets.n_codes,
                  "occurrences": occurrences, "mean_codes": float(lengths.mean()),
                  "max_codes": int(lengths.max())},
        "parameters": dict(release.published["params"]), "seed": release.seed,
        "caveat": CAVEAT, "release": release.to_dict(),
    }


def _write_outputs(args: argparse.Namespace, release, report: dict[str, Any],
                   targets: list[Path]) -> None:
    """The document, then the reconstructions, then the report."""
    from arxpy.data.disassociated import (
        RECONSTRUCTION_NOTE,
        write_published,
        write_reconstructions,
    )

    report["output_sha256"] = write_published(release.published_json(), args.output)
    write_reconstructions(release.published, targets, release.seed, args.item_fill,
                          codes_column(args), args.delimiter)
    if targets:
        report["reconstructions"] = {
            "files": [t.name for t in targets], "item_fill": args.item_fill,
            "note": RECONSTRUCTION_NOTE}
    if args.report is not None:
        write_json(args.report, report)
