"""``arxpy setvalued-utility``: query error of a published disassociation (and a baseline).

Reads the original set-valued data and the published JSON, draws R reconstructions,
and reports ARE on the workloads (W1 frequent itemsets at supports in %, W2 nested
random chains), MRE per utility constraint of ``--policy`` with the paper's bins, and,
with ``--baseline gen|sup``, the same workloads answered by a proxy baseline with
Welch's t-test. Report keys: ``k``, ``m``, ``records``, ``reconstructions``,
``item_fill``, ``seed``, ``policy``, ``published``, ``workloads`` (per workload
``disassociation`` and, with a baseline, ``baseline`` and ``welch``; with ``gen`` also
``baseline_nonempty``), ``mre``, ``baseline``, ``elapsed_seconds``.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from arxpy.commands.files import add_input_option, add_output_option, policy_option_paths
from arxpy.commands.options import seed_option
from arxpy.errors import ConfigurationError

DEFAULT_WORKLOADS = ("w1:0.625,1.25,2.5,5", "w2:1000")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "setvalued-utility", help="ARE/MRE of a published disassociation against the original",
        description="Utility of disassociated data (Loukides et al. 2014, Definitions 2-3): "
        "average relative error of COUNT queries over R random reconstructions, MRE per "
        "utility constraint, optionally against a proxy baseline (gen: global "
        "generalisation, sup: global suppression).")
    add_original_arguments(parser)
    add_input_option(parser, "--published", type=Path, required=True, metavar="OUT.json")
    parser.add_argument("--workload", action="append", default=[], metavar="SPEC",
                        help="w1:S1,S2,.. (frequent itemsets at supports in %%) or w2:N "
                        "(N random co-occurring itemsets of 1-4 codes); default "
                        + " and ".join(DEFAULT_WORKLOADS))
    parser.add_argument("--reconstructions", type=int, default=5, metavar="R",
                        help="random reconstructions averaged (1 to 100, default 5)")
    parser.add_argument("--item-fill", choices=("one", "uniform"), default="one",
                        help="records given each item-chunk code in a reconstruction: one, "
                        "or uniform in 1..min(k-1, |P|) (default one)")
    parser.add_argument("--seed", type=seed_option, default=0, metavar="N")
    add_input_option(parser, "--policy", default="none", metavar="POLICY",
                     paths=policy_option_paths,
                        help="utility constraints for MRE: none, hierarchy:1|2|3, sim:N, "
                        "sup:S or file:U.json (default none)")
    parser.add_argument("--baseline", choices=("gen", "sup"),
                        help="also answer the workloads with a proxy baseline at the "
                        "publication's k and m")
    add_output_option(parser, "--report", type=Path, required=True, metavar="U.json")
    parser.set_defaults(func=run)


def add_original_arguments(parser: argparse.ArgumentParser, option: str = "--original") -> None:
    """The set-valued data options: file, layout, codes column, delimiter, multiset."""
    add_input_option(parser, option, dest="original", type=Path, required=True,
                     metavar="D.csv")
    parser.add_argument("--codes-column", metavar="C", help="the column of codes")
    layout = parser.add_mutually_exclusive_group()
    layout.add_argument("--id-column", metavar="I", help="the record id column (one row per "
                        "record, codes in one cell)")
    layout.add_argument("--long-format", metavar="ID,CODE",
                        help="one row per record and code: the id and code columns")
    layout.add_argument("--wide-prefix", metavar="dx",
                        help="codes in columns dx1..dxN (one row per record)")
    parser.add_argument("--delimiter", default=";", metavar="C",
                        help="delimiter of the codes in one cell (default ';'; never '.')")
    parser.add_argument("--multiset", action="store_true",
                        help="keep repeated codes of a record as CODE#1, CODE#2, ...")


def read_original(args: argparse.Namespace):
    """The ``--original`` data as a CodeSetImport, in the layout the options name; the
    import's warnings (duplicates dropped, unknown codes) go to stderr."""
    from arxpy.commands.code_layouts import read_layout

    return read_layout(args.original, args)


def parse_workloads(specs: list[str]) -> list[tuple[str, Any]]:
    """``w1:0.625,1.25`` -> ("w1", [0.625, 1.25]); ``w2:1000`` -> ("w2", 1000)."""
    parsed: list[tuple[str, Any]] = []
    for spec in specs or DEFAULT_WORKLOADS:
        kind, _, value = spec.partition(":")
        try:
            if kind == "w1":
                supports = [float(s) for s in value.split(",") if s.strip()]
                if not supports or not all(0 < s <= 100 for s in supports):
                    raise ValueError
                parsed.append(("w1", supports))
            elif kind == "w2":
                count = int(value)
                if count < 1:
                    raise ValueError
                parsed.append(("w2", count))
            else:
                raise ValueError
        except ValueError:
            raise ConfigurationError(
                f"Cannot read --workload '{spec}'; write w1:0.625,1.25,2.5,5 (supports in % "
                "of records, in (0, 100]) or w2:1000 (a number of queries).") from None
    return parsed


def run(args: argparse.Namespace) -> int:
    from arxpy.commands.options import write_json
    from arxpy.data.disassociated import (
        MAX_RECONSTRUCTIONS,
        load_published,
        published_statistics,
        reconstruct,
    )
    from arxpy.data.icd9 import normalize_sets

    started = time.perf_counter()
    workloads = parse_workloads(args.workload)
    if not 1 <= args.reconstructions <= MAX_RECONSTRUCTIONS:
        raise ConfigurationError(
            f"--reconstructions must be at least 1 and at most {MAX_RECONSTRUCTIONS}.")
    original = read_original(args).code_sets
    document = load_published(args.published)
    stats = published_statistics(document)
    if stats["records"] != len(original):
        raise ConfigurationError(
            f"The publication covers {stats['records']} records but --original has "
            f"{len(original)}; give the data the publication was made from.")
    rng = np.random.default_rng(args.seed)
    released = [normalize_sets(reconstruct(document, rng, args.item_fill))
                for _ in range(args.reconstructions)]
    baseline = _run_baseline(args.baseline, original, document["k"], document["m"])
    report: dict[str, Any] = {
        "k": document["k"], "m": document["m"], "records": len(original),
        "reconstructions": args.reconstructions, "item_fill": args.item_fill,
        "seed": args.seed, "policy": args.policy, "published": stats,
        "workloads": _workload_reports(workloads, original, released, baseline, args),
        "mre": _mre_report(args.policy, original, released),
        "baseline": baseline.to_dict() if baseline is not None else None,
    }
    report["elapsed_seconds"] = time.perf_counter() - started
    write_json(args.report, report)
    _print_summary(report)
    return 0


def _run_baseline(name: str | None, original, k: int, m: int):
    from arxpy.methods.setvalued_baselines import global_generalization, global_suppression

    if name is None:
        return None
    if name == "gen":
        return global_generalization(original, k, m)
    return global_suppression(original, k, m)


def _workload_reports(workloads, original, released, baseline, args) -> dict[str, Any]:
    from functools import partial

    from arxpy.analysis.setvalued_utility import compare_workload, workload_queries
    from arxpy.methods.setvalued_baselines import GeneralizationBaseline

    # Queries touch only codes the generalisation baseline kept [P L217]; suppression
    # answers every query (0 where a code is gone), which is its cost.
    allowed = None
    estimators = {}
    if baseline is not None:
        estimators["baseline"] = baseline.estimate
    if isinstance(baseline, GeneralizationBaseline):
        allowed = {c for c, g in baseline.mapping.items() if g is not None}
        # P2's reading of a generalised item as a random non-empty subset [P L31].
        estimators["baseline_nonempty"] = partial(baseline.estimate, reading="nonempty")
    return {name: compare_workload(queries, original, released, estimators).to_dict()
            for name, queries in workload_queries(workloads, original, args.seed,
                                                  allowed).items()}


def _mre_report(policy: str, original, released) -> dict[str, Any] | None:
    from arxpy.analysis.setvalued_utility import constraint_error
    from arxpy.data.utility_policy import policy_constraints

    constraints = policy_constraints(policy, original)
    if not constraints:
        return None
    return constraint_error(original, released, constraints).to_dict()


def _print_summary(report: dict[str, Any]) -> None:
    for name, result in report["workloads"].items():
        dis = result["disassociation"]
        line = f"{name}: {dis['queries']} queries, ARE {_fmt(dis['are'])} ± {_fmt(dis['are_sd'])}"
        if "baseline" in result:
            line += f"; baseline {_fmt(result['baseline']['are'])}"
            p = result["welch"]["p"]
            line += f" (Welch p = {p:.2g})" if p is not None else ""
        print(line)
    if report["mre"] is not None:
        print(f"MRE ({report['policy']}): {_fmt(report['mre']['within_5_percent'])} % of "
              f"{report['mre']['constraints']} constraints within [-5, 5) %")


def _fmt(value: float | None) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.3f}"
