"""``arxpy compare-models``: do the recipient's models survive anonymization?

Fits the declared analyses (``--analyses``, see docs/condensation.md) on the original
table and on anonymized tables: files given with ``--anonymized``, or R repetitions
(``--repeats``, seeds seed..seed+R-1) of each method in ``--methods`` at each ``--k``.
``k-anonymity`` is the paper's "commercial" baseline (generalization and suppression by
arxpy's lattice engine, spec 000 §2.5): deterministic, so it runs once per k and its
release stands for every repetition; its quasi-identifiers default to the analyses'
covariates (the outcomes stay as they are), and models read intervals as midpoints.
Report (a contract): ``results`` lists one entry per (method, k) with, per model,
``pct_sig_changed``, ``pct_dir_changed``, ``pct_outside_ci`` and ``pct_outside_ci_sig``
(each ``mean``, ``sd``, ``per_repetition``) and ``fit_failures``, and the method's
``parameters`` and ``seeds``; the report names the input by file name only and carries
its hashes, the analyses file's hash and the software ``versions``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from arxpy.commands.condense import (
    METHODS,
    add_condensation_arguments,
    method_parameters,
)
from arxpy.commands.files import add_input_option, add_output_option
from arxpy.commands.options import (
    ProgressBar,
    delimiter_option,
    read_data_option,
    seed_option,
    write_json,
)
from arxpy.errors import ConfigurationError

if TYPE_CHECKING:
    from arxpy.workflows.model_preservation import RepeatedTables

#: The k-anonymity baseline's name here (the paper's "commercial" tool, spec 000 §2.5).
BASELINE = "k-anonymity"
#: Most repetitions per method and k: ten times the paper's 100, as in the GUI.
MAX_REPEATS = 1000
#: Methods compare-models runs: CLI name -> registered method.
COMPARED = {**METHODS, BASELINE: "k-anonymity-baseline"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare-models", help="compare regression and survival models before and after "
        "anonymization",
        description="Fit the declared linear, logistic and Cox models on the original and "
        "on anonymized tables and report how often coefficients change significance, "
        "direction, or leave the original 95%% confidence interval (Gal et al. 2014).")
    add_input_option(parser, "--original", type=Path, required=True, metavar="IN.csv")
    parser.add_argument("--delimiter", metavar="C", type=delimiter_option,
                        help="field delimiter (default: detected); 'tab' for a tab")
    source = parser.add_mutually_exclusive_group(required=True)
    add_input_option(source, "--anonymized", type=Path, nargs="+", metavar="OUT.csv",
                     help="anonymized tables (each one repetition)")
    source.add_argument("--methods", metavar="M[,M...]",
                        help=f"methods to run: {','.join(COMPARED)}")
    parser.add_argument("--k", default="100", metavar="K[,K...]", help="group sizes to run")
    add_input_option(parser, "--analyses", type=Path, required=True, metavar="analyses.json")
    parser.add_argument("--repeats", type=int, default=100, metavar="R",
                        help="repetitions per method and k (1 to 1000; default 100, as in "
                        "the paper)")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=seed_option, default=0, help="seed of the first repetition")
    add_condensation_arguments(parser)
    baseline = parser.add_argument_group("k-anonymity baseline")
    baseline.add_argument("--quasi-identifiers", metavar="A[,B...]",
                          help="attributes the baseline generalizes (default: the covariates "
                          "of the analyses)")
    baseline.add_argument("--suppression-limit", type=float, default=0.05, metavar="F",
                          help="share of records the baseline may suppress (default 0.05)")
    add_output_option(parser, "--report", type=Path, required=True, metavar="R.json")
    add_output_option(parser, "--csv", type=Path, metavar="long.csv",
                      help="every metric of every repetition, one per line")
    parser.set_defaults(func=run, no_shuffle=False)


def _ints(text: str, option: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ConfigurationError(f"{option} takes whole numbers separated by commas, got "
                                 f"{text!r}.") from None
    if not values:
        raise ConfigurationError(f"{option} needs at least one value.")
    return values


def _defaults_from_analyses(args: argparse.Namespace, analyses) -> None:
    """Time and status from the Cox declaration, the response from OLS/logit (spec §6)."""
    for spec in analyses:
        if spec.type == "cox":
            args.time = args.time or spec.time
            args.status = args.status or spec.event
            args.event_value = args.event_value or spec.event_value
            break
    for spec in analyses:
        if spec.type != "cox":
            args.response = args.response or spec.response
            break
    if args.response is not None and args.response == args.status:
        args.response = None


def _baseline_parameters(args, analyses, frame, k: int) -> dict[str, Any]:
    """The k-anonymity baseline's settings: QIs from --quasi-identifiers or the analyses'
    covariates, in data order."""
    from arxpy.analysis.model_preservation import analysed_covariates

    if args.quasi_identifiers:
        chosen = [q.strip() for q in args.quasi_identifiers.split(",") if q.strip()]
    else:
        chosen = analysed_covariates(analyses, list(frame.columns))
    for name in chosen:
        if name not in frame.columns:
            raise ConfigurationError(f"--quasi-identifiers: no attribute '{name}' in the data.")
    return {"k": k, "quasi_identifiers": chosen, "suppression_limit": args.suppression_limit}


def _anonymized_runs(args, frame, definition, analyses, progress):
    """The :class:`~arxpy.workflows.model_preservation.Repetitions` of every method
    and k, R each (a deterministic method runs once; its table stands for every
    repetition)."""
    from arxpy.methods import method_from_dict
    from arxpy.workflows.model_preservation import Repetitions

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in COMPARED]
    if unknown:
        raise ConfigurationError(f"Unknown method '{unknown[0]}'; use {', '.join(COMPARED)}.")
    ks = _ints(args.k, "--k")
    if not 1 <= args.repeats <= MAX_REPEATS:
        raise ConfigurationError(f"--repeats must be from 1 to {MAX_REPEATS} (every "
                                 "repetition's table is kept for the comparison).")
    total, done = len(methods) * len(ks) * args.repeats, 0
    for method in methods:
        for k in ks:
            params = (_baseline_parameters(args, analyses, frame, k) if method == BASELINE
                      else method_parameters(args, method, k, args.seed))
            runs = Repetitions(method_from_dict({"name": COMPARED[method], **params}), frame,
                               definition, label=method, k=k)
            for r in range(args.repeats):
                runs(args.seed + r)
                done += 1
                progress(done / total, f"{method} k={k} repetition {r + 1}")
            yield runs


def run(args: argparse.Namespace) -> int:
    from arxpy.analysis.model_preservation import read_analyses
    from arxpy.commands.condense import load_table
    from arxpy.commands.table_source import refuse_sqlite
    from arxpy.workflows.model_preservation import RepeatedTables

    try:
        analyses = read_analyses(args.analyses)
    except ConfigurationError as exc:  # name the option: the file is the user's to fix
        raise ConfigurationError(f"--analyses: {exc}") from None
    refuse_sqlite(args.original, "--original", "export the SQLite table to CSV first")
    args.data = args.original
    frame, definition = load_table(args)
    _defaults_from_analyses(args, analyses)
    bar = ProgressBar()
    try:
        if args.anonymized is not None:
            runs = [RepeatedTables("anonymized", tables=[
                read_data_option(p, args.delimiter) for p in args.anonymized])]
        else:
            runs = _anonymized_runs(args, frame, definition, analyses, bar)
        results = [_evaluate(args, frame, analyses, each) for each in runs]
    finally:
        bar.close()
    report = {**_provenance(args, frame), "analyses": [a.to_dict() for a in analyses],
              "alpha": args.alpha, "repeats": args.repeats if args.anonymized is None else
              len(args.anonymized), "seed": args.seed, "results": results}
    if args.csv is not None:
        _write_long(args.csv, results)
    write_json(args.report, report)
    for entry in results:
        parts = [f"{name}: sig {m['pct_sig_changed']['mean']}, dir "
                 f"{m['pct_dir_changed']['mean']}, CI {m['pct_outside_ci']['mean']}"
                 for name, m in entry["models"].items()]
        print(f"{entry['method']} k={entry['k']}: " + "; ".join(parts))
    return 0


def _provenance(args: argparse.Namespace, frame: pd.DataFrame) -> dict[str, Any]:
    """What a reviewer needs to repeat the comparison: the input by file name (never the
    custodian's folders) and hash, the analyses file's hash, the anonymized files given,
    and the software versions."""
    from arxpy.commands.options import file_sha256
    from arxpy.release.model import software_versions, table_sha256

    out: dict[str, Any] = {
        "original": Path(args.original).name, "input_sha256": table_sha256(frame),
        "original_file_sha256": file_sha256(args.original),
        "analyses_file": Path(args.analyses).name,
        "analyses_sha256": file_sha256(args.analyses), "versions": software_versions()}
    if args.anonymized is not None:
        out["anonymized"] = [{"file": Path(p).name, "sha256": file_sha256(p)}
                             for p in args.anonymized]
    return out


def _evaluate(args, frame, analyses, runs: RepeatedTables) -> dict[str, Any]:
    from arxpy.analysis.model_preservation import compare_models
    from arxpy.analysis.release_fidelity import (
        CONDITIONAL_PRIVACY_ESTIMATOR,
        basic_statistics,
        conditional_privacy_table,
        kaplan_meier_difference,
    )

    tables = runs.tables
    for table in tables:
        if list(table.columns) != list(frame.columns) and \
                not set(table.columns) <= set(frame.columns):
            raise ConfigurationError(
                "An anonymized table has columns the original does not have; compare tables "
                "of the same input.")
    started = time.perf_counter()
    kept = [c for c in frame.columns if c in tables[0].columns]
    preservation = compare_models(frame, tables, analyses, args.alpha)
    entry: dict[str, Any] = {"method": runs.label, "k": runs.k,
                             "parameters": runs.parameters,
                             "seeds": runs.seeds if any(s is not None for s in runs.seeds)
                             else None,
                             **preservation.to_dict()}
    entry["basic_statistics"] = basic_statistics(frame[kept], tables[0][kept]) \
        .replace([np.inf, -np.inf], np.nan).astype(object).where(lambda t: t.notna(), None) \
        .to_dict(orient="records")
    privacy = [conditional_privacy_table(frame[kept], t[kept]) for t in tables]
    entry["conditional_privacy"] = {
        "estimator": CONDITIONAL_PRIVACY_ESTIMATOR,
        "pairing": "by record position before any shuffle",
        "mean": {a: float(np.mean([p[a] for p in privacy])) for a in privacy[0]}}
    if args.status and args.status in kept:
        original_status = frame[args.status].to_numpy()
        entry["status_changed_pct"] = float(np.mean(
            [100 * np.mean(t[args.status].to_numpy() != original_status) for t in tables]))
        if args.time and args.event_value is not None:
            entry["kaplan_meier_max_difference"] = float(np.mean(
                [kaplan_meier_difference(frame, t, args.time, args.status, args.event_value)
                 for t in tables]))
    entry["elapsed_seconds"] = {"anonymize": runs.seconds,
                                "fit": time.perf_counter() - started}
    return entry


def _write_long(path: Path, results: list[dict[str, Any]]) -> None:
    from arxpy.analysis.model_preservation import METRICS
    from arxpy.data.atomic import atomic_write

    rows = []
    for entry in results:
        for model, m in entry["models"].items():
            for metric in METRICS:
                for r, value in enumerate(m[metric]["per_repetition"]):
                    rows.append((entry["method"], entry["k"], model, r, metric, value))
    table = pd.DataFrame(rows, columns=["method", "k", "model", "repetition", "metric",
                                        "value"])
    with atomic_write(path, newline="") as handle:
        table.to_csv(handle, index=False, lineterminator="\n")
