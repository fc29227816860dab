"""``arxpy anonymize``: search the lattice from the command line, write data and a report.

Attributes given with ``--hierarchy`` are quasi-identifiers, except the attribute of a
hierarchical t-closeness (``--tcloseness ATTR:hierarchical:T``), whose hierarchy serves
the distance. Naming a quasi-identifier as sensitive (``--sensitive``, ``--ldiversity``,
``--tcloseness``) or identifying is refused: it would be released ungeneralized. Every
other attribute is insensitive unless named with ``--identifying`` or ``--sensitive``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_output_option
from arxpy.commands.identifier_options import IdentifierOptions, add_identifier_arguments
from arxpy.commands.linked_options import LinkedOptions, add_linked_arguments, file_names
from arxpy.commands.options import (
    ProgressBar,
    add_attribute_arguments,
    add_data_arguments,
    add_local_recoding_arguments,
    add_microaggregation_arguments,
    add_order_arguments,
    add_privacy_arguments,
    add_search_arguments,
    file_sha256,
    load_configuration,
    load_inputs,
    output_order,
    seed_option,
    write_json,
)
from arxpy.commands.preset_options import (
    add_preset_arguments,
    apply_preset_option,
    preset_report,
    print_preset,
)
from arxpy.commands.recipe_options import (
    add_recipe_arguments,
    add_recipe_figures,
    check_recipe_options,
    write_certificate,
    write_recipe,
)
from arxpy.commands.table_source import refuse_sqlite
from arxpy.engine.backends.base import ENGINES, is_parquet_path
from arxpy.errors import ConfigurationError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "anonymize", help="find the best anonymous transformation of a table",
        description="Search the generalization lattice for the transformation with the best "
        "quality that meets the privacy models; write the data and a JSON report.")
    add_data_arguments(parser)
    add_attribute_arguments(parser)
    add_privacy_arguments(parser)
    add_search_arguments(parser)
    add_local_recoding_arguments(parser)
    add_microaggregation_arguments(parser)
    parser.add_argument("--seed", type=seed_option, metavar="N",
                        help="seed of differential privacy's sampling and search (default: "
                        "drawn and reported)")
    parser.add_argument("--class-attribute", metavar="ATTR",
                        help="target attribute of the classification metric (same as "
                        "--metric classification:ATTR)")
    add_output_option(parser, "--output", type=Path, metavar="OUT.csv",
                      help="write the anonymized data")
    add_output_option(parser, "--report", type=Path, metavar="REPORT.json",
                      help="write a JSON report")
    parser.add_argument("--neutralize-formulas", action="store_true",
                        help="prefix with ' the output cells a spreadsheet would run as "
                        "formulas (values starting with =, +, -, @, tab or CR)")
    engines = parser.add_argument_group(
        "record engines", "--engine duckdb or spark reads --data (CSV or Parquet) without "
        "loading it: the search runs on the histogram of distinct rows, the engine writes "
        "--output (CSV, or Parquet for a .parquet name)")
    engines.add_argument("--engine", choices=tuple(ENGINES), default=None,
                         help="where the records are processed (default memory: in this "
                         "process; a CSV file of 64 MiB or more is searched on its "
                         "histogram of distinct rows unless --engine memory is given)")
    engines.add_argument("--memory-limit", metavar="SIZE",
                         help="DuckDB's memory limit, beyond which it spills to a temporary "
                         "folder (--engine duckdb only; default 2GB)")
    engines.add_argument("--spark-master", metavar="URL",
                         help="Spark master URL (default local[*], this machine)")
    add_order_arguments(parser)
    add_identifier_arguments(parser)
    add_linked_arguments(parser)
    add_preset_arguments(parser)
    add_recipe_arguments(parser)
    parser.set_defaults(func=run)


def _write_outputs(args: argparse.Namespace, result: Any, report: dict[str, Any]) -> None:
    """The data first, then the report, so an interrupt never leaves a report without data."""
    from arxpy.data.formulas import FormulaWarning
    from arxpy.engine.export import export_release

    if result.optimum is not None and (args.output or args.report):
        release = result.release()
        order = output_order(args)
        if args.output:
            # The export code the GUI uses; a script's output file is replaced on each run.
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", FormulaWarning)
                export_release(release, args.output, overwrite=True,
                               delimiter=_output_delimiter(args),
                               neutralize_formulas=args.neutralize_formulas,
                               shuffle_seed=order["seed"])
            report["output_order"] = order
            for warning in caught:
                if issubclass(warning.category, FormulaWarning):
                    print(f"arxpy: warning: {warning.message}", file=sys.stderr)
                else:  # not ours to reword
                    warnings.showwarning(warning.message, warning.category,
                                         warning.filename, warning.lineno)
        report["release"] = release.to_dict()
    if args.report:
        write_json(args.report, report)


def run(args: argparse.Namespace) -> int:
    import arxpy.privacy  # noqa: F401  (registers every privacy model)
    import arxpy.quality  # noqa: F401  (registers every quality model)
    from arxpy.engine import AnonymizationConfig, anonymize

    check_recipe_options(args)
    identifiers = IdentifierOptions.from_args(args)
    linked = LinkedOptions.from_args(args)
    if args.engine not in (None, "memory"):
        refuse_sqlite(args.data, "--data", f"--engine {args.engine} reads CSV or Parquet "
                      "files; leave out --engine to read a SQLite table into memory")
    histogram_route = _histogram_route(args, identifiers, linked)
    args.engine = args.engine or "memory"
    _check_engine_options(args)
    parquet = args.data is not None and is_parquet_path(args.data)
    identifiers.refuse_record_engine(args.engine, parquet)
    if linked is not None:
        if parquet:
            raise ConfigurationError(
                "Linked tables take the patient table as CSV (or, without --engine, "
                "FILE.sqlite:TABLE); convert the Parquet file.")
        if args.engine not in ("memory", "duckdb"):
            raise ConfigurationError(
                "Linked tables are read into memory or by --engine duckdb; leave out "
                f"--engine {args.engine}.")
        if args.engine == "duckdb":
            linked.refuse_for_engine(args)
        return _run_linked(args, identifiers, linked)
    if args.engine != "memory" or parquet or histogram_route:
        return run_on_engine(args, identifiers)  # (the in-memory engine reads Parquet too)
    frame, given, hierarchies, settings = load_inputs(
        args, check=identifiers.checking(_searchable if args.preset is None else _settled))
    _refuse_another_method(args, settings)
    preset, given, hierarchies, settings = apply_preset_option(
        args, frame, given, hierarchies, settings, identifiers)
    if preset is not None:
        _searchable(given, hierarchies, settings)
    frame, definition = identifiers.apply(frame, given, hierarchies)  # before the search
    config = AnonymizationConfig.from_dict(settings)
    if config.local_recoding and args.recipe_out is not None and args.recipe_replay == "fixed":
        raise ConfigurationError(
            "A locally recoded release has no one transformation to fix; add "
            "--recipe-replay search (the replay then repeats the passes).")
    bar = ProgressBar()
    try:
        result = anonymize(frame, definition, hierarchies, config, progress=bar)
    finally:
        bar.close()
    report = result.to_dict()
    if result.optimum is not None:
        identifiers.write_reidentification_table()
    identifiers.add_to(report)
    if preset is not None and result.optimum is not None:
        report["preset"] = preset_report(preset, result.release())
    recipe = write_recipe(args, given, hierarchies, result.release, identifiers.record,
                          preset=preset)
    if recipe is not None:
        add_recipe_figures(report, recipe, frame, result.release())
    _write_outputs(args, result, report)
    _print_summary(result, report, config)
    if "preset" in report:
        print_preset(preset, report["preset"])
    if recipe is not None:
        write_certificate(args, result.release(), recipe, identifiers.record, args.data,
                          original=frame)
    if identifiers.summary():
        print(identifiers.summary())
    return 0


def _run_linked(args: argparse.Namespace, identifiers: IdentifierOptions,
                linked: LinkedOptions) -> int:
    """The lattice search on the patient-level view of linked tables; every table
    written to ``--output-dir``; the report adds ``linked``."""
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.workflows.linked_release import release_linked

    patient_args, event_identifying = linked.split_identifying(args)
    frame, given, hierarchies, settings = load_inputs(patient_args, check=_searchable)
    config = AnonymizationConfig.from_dict(settings)
    searched = []

    def search(view, definition, view_hierarchies):
        bar = ProgressBar()
        try:
            searched.append(anonymize(view, definition, view_hierarchies, config, progress=bar))
        finally:
            bar.close()
        _refuse_no_optimum(searched[0])
        return searched[0].release()

    if args.engine == "duckdb":  # the event tables stay in their files
        from arxpy.workflows.linked_engine import release_linked_on_engine

        release = release_linked_on_engine(
            linked.event_files(args, frame, make_engine(args)), given, hierarchies, search,
            linked.aggregates, identifiers.plan, identifiers.key, event_identifying)
    else:
        tables = linked.tables(args, frame)
        release = release_linked(tables, given, hierarchies, search, linked.aggregates,
                                 identifiers.plan, identifiers.key, event_identifying)
        identifiers.reverse_linked(tables, release)
    identifiers.write_reidentification_table()  # before the tables, as for one table
    order = output_order(args)
    linked.write(args, release, order["seed"])
    report = release.report(file_names(args), order, search=searched[0].to_dict())
    if args.engine == "duckdb":
        report["engine"] = {"name": args.engine, "seconds": {"write": release.seconds}}
    identifiers.record = release.identifiers
    identifiers.add_to(report)  # with the re-identification table, if written
    if args.report:
        write_json(args.report, report)
    _print_summary(searched[0], report, config)
    print(linked.summary(release))
    print(identifiers.summary())
    return 0


#: Without --engine, a CSV file at least this large is searched on its histogram of
#: distinct rows by the in-memory engine, which holds it as codes (docs/scale-out.md).
HISTOGRAM_ROUTE_BYTES = 64 * 2**20


def _histogram_route(args: argparse.Namespace, identifiers: IdentifierOptions,
                     linked: Any) -> bool:
    """Does this run go through the memory engine's histogram route on its own?

    Only when ``--engine`` is left out, for a large CSV file, and when nothing of the
    run needs the records as a table (identifier treatments, linked tables, presets,
    recipes and certificates, local recoding, microaggregation, neutralised formulas)."""
    if args.engine is not None or args.data is None or is_parquet_path(args.data):
        return False
    needs_table = (identifiers.plan is not None, linked is not None, args.preset is not None,
                   args.recipe_out is not None, args.certificate is not None,
                   args.neutralize_formulas, args.local_recoding is not None,
                   bool(args.microaggregate))
    if any(needs_table):
        return False
    try:
        return Path(args.data).stat().st_size >= HISTOGRAM_ROUTE_BYTES
    except OSError:
        return False  # the reader says what is wrong with the path


def _refuse_no_optimum(result: Any) -> None:
    if result.optimum is None:
        raise ConfigurationError(
            "No transformation satisfies the privacy models within the suppression limit; "
            "allow more suppression or relax the privacy models.")


def _print_summary(result: Any, report: dict[str, Any], config: Any) -> None:
    _refuse_no_optimum(result)
    best = result.optimum
    levels = ", ".join(f"{k}={v}" for k, v in report["transformation"].items())
    print(f"Transformation: {levels}")
    print(f"Score ({config.quality_model.label}): {best.score:.10g} "
          f"(relative {best.relative_score:.4f}); suppressed records: "
          f"{best.suppressed_records} of {result.records}")
    if best.completely_generalized_records:
        print(f"Completely generalized records (every quasi-identifier one value; ARX "
              f"counts them as suppressed): {best.completely_generalized_records}")
    dp = report.get("differential_privacy")
    if dp is not None:
        print(f"Differential privacy: epsilon {dp['epsilon_anonymization']:g} (sampling, "
              f"suppression) + {dp['epsilon_search']:g} (search), delta {dp['delta']:g}; "
              f"k = {dp['k']}, beta = {dp['beta']:.4f}; {dp['sampled_records']} of "
              f"{dp['records']} records sampled (the others suppressed); seed {dp['seed']}")
    if len(report["tied_optima"]) > 1:
        print(f"{len(report['tied_optima'])} checked transformations share this score "
              "(tied_optima in the report); this one is ARX's choice among them")
    print(f"Checked {result.transformations_checked} of {result.lattice_size} transformations "
          f"in {result.elapsed_seconds:.3f} s ({'optimal' if result.optimal else 'heuristic'})")
    if result.passes is not None:
        _print_passes(result.passes)


def _print_passes(passes: Any) -> None:
    """One line per local recoding pass, and the records no pass released."""
    for step in passes.passes:
        levels = ",".join(map(str, step.levels))
        print(f"Pass {step.index}: {levels} released {step.released} of {step.records} "
              f"records (score {step.score:.10g})")
    still = int((passes.of_record < 0).sum())
    print(f"Local recoding: {len(passes.passes) - 1} pass(es) after the first; "
          f"{still} records suppressed")


def make_engine(args: argparse.Namespace) -> Any:
    """The record engine ``--engine`` names, with its options."""
    from arxpy.engine.backends.base import create_engine

    options: dict[str, Any] = {}
    if args.engine == "duckdb" and args.memory_limit is not None:
        options["memory_limit"] = args.memory_limit
    if args.engine == "spark" and args.spark_master:
        options["master"] = args.spark_master
    return create_engine(args.engine, **options)


def _searchable(definition: Any, hierarchies: Any, settings: dict[str, Any]) -> None:
    """Refuse, before the records are read, what the search refuses whatever they hold:
    settings that can never work (no privacy model) and no quasi-identifier."""
    from arxpy.engine import AnonymizationConfig

    AnonymizationConfig.from_dict(settings)
    if not definition.quasi_identifiers:
        raise ConfigurationError(
            "No attribute is a quasi-identifier; give at least one a hierarchy "
            "(--hierarchy ATTR=FILE).")


def _settled(definition: Any, hierarchies: Any, settings: dict[str, Any]) -> None:
    """With a preset, which makes quasi-identifiers and may add the privacy model, only
    what the preset cannot change is judged before the records are read."""


def _refuse_another_method(args: argparse.Namespace, settings: dict[str, Any]) -> None:
    """A project whose chosen method is not the lattice search is not searched quietly
    in its place (issue 28, defect 13): ``arxpy run`` runs the other methods."""
    method = settings.get("method")  # absent: the lattice search (workflows/method_choice.py)
    if args.project is not None and method and method != "generalization":
        raise ConfigurationError(
            f"The project's chosen method is '{method}', not the lattice search that "
            f"anonymize runs; use 'arxpy run {method} --project {args.project}' (with "
            "its parameters as options), or choose the lattice search in the project.")


def _check_engine_options(args: argparse.Namespace) -> None:
    """An engine's option given without that engine would be ignored: refuse it."""
    for option, value, engine in (("--memory-limit", args.memory_limit, "duckdb"),
                                  ("--spark-master", args.spark_master, "spark")):
        if value is not None and args.engine != engine:
            raise ConfigurationError(
                f"{option} is an option of --engine {engine}; add --engine {engine} or "
                f"leave {option} out (the {args.engine} engine would ignore it).")


def run_on_engine(args: argparse.Namespace, identifiers: IdentifierOptions | None = None
                  ) -> int:
    """``anonymize`` with a record engine: histogram, search, output written by the engine.

    The report has today's keys (from the histogram's result), ``engine`` (name,
    histogram rows, seconds per step) and a ``release`` with the keys a histogram gives
    (:meth:`~arxpy.engine.scaled.ScaledRun.release_dict`) plus the written file's
    ``output_file_sha256`` and ``output_records``.
    """
    import arxpy.privacy  # noqa: F401  (registers every privacy model)
    import arxpy.quality  # noqa: F401  (registers every quality model)

    if args.neutralize_formulas:
        raise ConfigurationError(
            f"--neutralize-formulas works with --engine memory only; the {args.engine} "
            "engine writes cells as they are.")
    if args.preset is not None:
        raise ConfigurationError(
            f"--preset works with --engine memory only (a CSV file or a project): its "
            f"rules read the values; leave out --engine {args.engine}.")
    if args.recipe_out is not None or args.certificate is not None:
        raise ConfigurationError(
            f"--recipe-out and --certificate work with --engine memory only (a CSV file "
            f"or a project); leave them out with --engine {args.engine}.")
    engine = make_engine(args)
    try:
        return _run_with(engine, args, identifiers or IdentifierOptions())
    finally:
        close = getattr(engine, "close", None)  # Spark allows one session per process
        if close is not None:
            close()


def _run_with(engine: Any, args: argparse.Namespace, identifiers: IdentifierOptions
              ) -> int:
    import dataclasses
    import time

    from arxpy.engine import AnonymizationConfig
    from arxpy.engine.backends.base import RecordSource
    from arxpy.engine.scaled import anonymize_source

    treatment = None
    if args.data is not None:
        source = RecordSource.of_file(args.data, delimiter=args.delimiter,
                                      encoding=args.encoding)
        definition, hierarchies, settings = load_configuration(args, engine.columns(source))
        if engine.name == "memory":  # a Parquet file, read whole: treated as in memory
            frame, definition = identifiers.apply(engine.table(source), definition,
                                                  hierarchies)
            source = RecordSource.of_frame(frame)
        else:
            treatment = identifiers.engine_treatment(definition)
        if treatment is not None:  # treated as DuckDB reads the records
            source = dataclasses.replace(source, treatment=treatment)
            definition = treatment.definition
        _searchable(definition, hierarchies, settings)
    else:  # a project's data are in memory already: treated there
        frame, given, hierarchies, settings = load_inputs(
            args, check=identifiers.checking(lambda *_: None))
        _refuse_another_method(args, settings)
        frame, definition = identifiers.apply(frame, given, hierarchies)
        source = RecordSource.of_frame(frame)
    config = AnonymizationConfig.from_dict(settings)
    bar = ProgressBar()
    started = time.perf_counter()
    check = None if treatment is None else (
        lambda rows: treatment.refuse_uncovered(rows, hierarchies))
    try:
        with _treatment_failures(treatment):
            run = anonymize_source(source, definition, hierarchies, config, engine,
                                   progress=bar, check_histogram=check)
    finally:
        bar.close()
    search_seconds = time.perf_counter() - started - run.histogram.seconds
    result = run.result
    report = result.to_dict()
    report["engine"] = {"name": engine.name, "histogram_rows": len(run.histogram.counts),
                        "seconds": {"histogram": run.histogram.seconds,
                                    "search": search_seconds, "write": None}}
    if result.optimum is not None and (args.output or args.report):
        report["release"] = run.release_dict()
        if args.output:
            order = output_order(args)
            bar = ProgressBar()
            try:
                with _treatment_failures(treatment):
                    summary = run.write(args.output, delimiter=_output_delimiter(args),
                                        shuffle_seed=order["seed"], progress=bar)
            finally:
                bar.close()
            if treatment is not None:
                treatment.check(summary.path)  # pseudonyms that met: refused, file removed
            report["engine"]["seconds"]["write"] = summary.seconds
            report["release"]["output_records"] = summary.records
            report["release"]["output_file_sha256"] = summary.sha256 or \
                file_sha256(summary.path)
            report["output_order"] = order
    identifiers.add_to(report)
    if args.report:
        write_json(args.report, report)
    _print_summary(result, report, config)
    seconds = report["engine"]["seconds"]
    timings = ", ".join(f"{step} {value:.1f} s" for step, value in seconds.items()
                        if value is not None)
    print(f"Engine {engine.name}: {report['engine']['histogram_rows']} distinct rows of "
          f"{result.records} records; {timings}")
    if identifiers.summary():
        print(identifiers.summary())
    return 0


def _treatment_failures(treatment: Any) -> Any:
    """What an identifier treatment refused inside DuckDB, raised as itself."""
    from contextlib import nullcontext

    return nullcontext() if treatment is None else treatment.failures()


def _output_delimiter(args: argparse.Namespace) -> str:
    return "\t" if args.output.suffix.lower() == ".tsv" else args.delimiter or ";"

