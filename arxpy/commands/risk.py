"""``arxpy risk``: re-identification risk analysis of the input or of a transformation.

Without ``--transformation`` the input is analysed. ``--transformation optimum`` runs the
configured anonymization (the project's settings, or ``--k``/``--suppression``) and
analyses its output, suppressed records left out as ARX does; ``ATTR=LEVEL,...``
generalizes each named quasi-identifier to that hierarchy level (others stay at level 0)
and suppresses what the configured privacy models suppress at that transformation
(nothing without a model): the release ``anonymize --output`` would write for it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_input_option, add_output_option, assignment_paths
from arxpy.commands.options import delimiter_option, encoding_option
from arxpy.commands.table_source import source_paths
from arxpy.errors import ConfigurationError, HierarchyError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "risk", help="analyse re-identification risks of a table",
        description="Prosecutor, journalist and marketer risks, sample and population "
        "uniqueness (Pitman, Zayatz, SNB, Dankar), quasi-identifier distinction and "
        "separation and HIPAA identifiers, as ARX computes them; writes a JSON report.")
    source = parser.add_mutually_exclusive_group(required=True)
    add_input_option(source, "--project", type=Path, metavar="FILE", help="an .arxpy project")
    add_input_option(source, "--data", type=Path, paths=source_paths, metavar="CSV",
                     help="the data: a CSV file, or FILE.sqlite:TABLE")

    parser.add_argument("--delimiter", metavar="C", type=delimiter_option,
                        help="field delimiter of the data and hierarchy files; 'tab' for a tab")
    parser.add_argument("--encoding", metavar="NAME", type=encoding_option,
                        help="text encoding of the data file (default: detected)")
    parser.add_argument("--qi", metavar="A,B,...",
                        help="quasi-identifiers (default for a project: its quasi-identifiers)")
    add_input_option(parser, "--hierarchy", action="append", default=[], metavar="ATTR=FILE",
                     paths=assignment_paths,
                     help="a generalization hierarchy (ARX CSV), needed by --transformation")
    parser.add_argument("--transformation", metavar="optimum|ATTR=LEVEL,...",
                        help="analyse the output of this transformation instead of the input")
    parser.add_argument("--k", type=int, metavar="K", help="k-anonymity for 'optimum'")
    parser.add_argument("--suppression", type=float, metavar="FRACTION",
                        help="suppression limit for 'optimum'")
    population = parser.add_mutually_exclusive_group()
    population.add_argument("--population-size", type=int, metavar="N",
                            help="population size (default: ARX's USA preset, 317,238,626)")
    population.add_argument("--region", metavar="NAME", help="a population preset, e.g. usa")
    population.add_argument("--sampling-fraction", type=float, metavar="F",
                            help="the data is this fraction of the population")
    parser.add_argument("--threshold", type=float, default=0.2, metavar="X",
                        help="record-risk threshold for 'records at risk' (default 0.2)")
    parser.add_argument("--qi-max-size", type=int, default=3, metavar="N",
                        help="largest quasi-identifier combination scored (default 3, 0: none)")
    parser.add_argument("--no-hipaa", action="store_true", help="skip HIPAA identifier detection")
    add_output_option(parser, "--report", type=Path, metavar="R.json", required=True,
                      help="write the JSON report here")
    parser.set_defaults(func=run)


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _load(args: argparse.Namespace):
    """(frame, definition, hierarchies, settings, quasi-identifiers) from the arguments."""
    from arxpy.commands.options import read_data_option, read_hierarchy_options
    from arxpy.data.definition import AttributeType, DataDefinition
    from arxpy.project import Project

    if args.project is not None:
        project = Project.load(args.project)
        frame, definition = project.data, project.definition
        hierarchies, settings = dict(project.hierarchies), dict(project.settings or {})
        qis = _names(args.qi) if args.qi else definition.quasi_identifiers
    else:
        if not args.qi:
            raise ConfigurationError("With --data, name the quasi-identifiers with --qi A,B,...")
        frame = read_data_option(args.data, args.delimiter, args.encoding)
        definition, hierarchies, settings = DataDefinition.for_columns(frame.columns), {}, {}
        qis = _names(args.qi)
    hierarchies.update(read_hierarchy_options(args.hierarchy, args.delimiter))
    if not qis:
        raise ConfigurationError("No quasi-identifiers: mark some in the project or use --qi.")
    for name in qis:
        definition[name]  # DefinitionError naming an unknown attribute
    for name in definition.quasi_identifiers:
        if name not in qis:
            definition = definition.with_attribute(name, type=AttributeType.INSENSITIVE)
    for name in qis:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    return frame, definition, hierarchies, settings, qis


def _config(args: argparse.Namespace, settings: dict[str, Any], needed: bool):
    """The configuration deciding what a transformation suppresses.

    ``--k``/``--suppression`` override the project's settings. Without any privacy model
    an ``ATTR=LEVEL`` transformation suppresses nothing (1-anonymity); the optimum
    (``needed``) requires one.
    """
    from arxpy.engine import AnonymizationConfig

    settings = dict(settings)
    if args.k is not None:
        settings["privacy_models"] = [{"kind": "k-anonymity", "k": args.k}]
    if args.suppression is not None:
        settings["suppression_limit"] = args.suppression
    if not settings.get("privacy_models"):
        if needed:
            raise ConfigurationError("'--transformation optimum' needs a privacy model: use a "
                                     "project with settings, or give --k K.")
        settings["privacy_models"] = [{"kind": "k-anonymity", "k": 1}]
    return AnonymizationConfig.from_dict(settings)


def _release(args, frame, definition, hierarchies, settings, qis, bar):
    """The release the transformation names: the optimum, or ATTR=LEVEL,... under the
    configuration (the same table ``anonymize --output`` writes for it)."""
    from arxpy.engine import anonymize, apply, parse_transformation

    if args.transformation.strip() == "optimum":
        config = _config(args, settings, needed=True)
        result = anonymize(frame, definition, hierarchies, config, progress=bar)
        if result.optimum is None:
            raise ConfigurationError("No transformation satisfies the privacy models within "
                                     "the suppression limit; allow more suppression or relax "
                                     "them.")
        return result.release()
    levels = parse_transformation(args.transformation, qis)
    missing = [name for name, level in levels.items() if level and name not in hierarchies]
    if missing:
        raise HierarchyError(f"'{missing[0]}' needs a hierarchy for level {levels[missing[0]]};"
                             f" give --hierarchy {missing[0]}=FILE.")
    # A quasi-identifier kept at level 0 needs no hierarchy: its values stand for themselves.
    from arxpy.hierarchy.model import Hierarchy

    hierarchies = dict(hierarchies)
    for name in qis:
        hierarchies.setdefault(name, Hierarchy([v] for v in frame[name].unique()))
    return apply(frame, definition, hierarchies, _config(args, settings, needed=False), levels)


def _population(args: argparse.Namespace, records: int):
    """The population of ``--population-size``, ``--region`` or ``--sampling-fraction``
    (None: ARX's default)."""
    from arxpy.risk import PopulationSetting

    for kind, value in (("size", args.population_size), ("region", args.region),
                        ("fraction", args.sampling_fraction)):
        if value is not None:
            return PopulationSetting(kind, value).model(records)
    return None


def run(args: argparse.Namespace) -> int:
    import arxpy.privacy  # noqa: F401  (registers every privacy model)
    import arxpy.quality  # noqa: F401  (registers every quality model)
    from arxpy.commands.options import ProgressBar, write_json
    from arxpy.risk import analyze_release, analyze_risk

    frame, definition, hierarchies, settings, qis = _load(args)
    release = None
    bar = ProgressBar()
    try:
        options = dict(threshold=args.threshold, qi_max_size=args.qi_max_size,
                       hipaa=not args.no_hipaa, progress=bar)
        if args.transformation:
            release = _release(args, frame, definition, hierarchies, settings, qis, bar)
            population = _population(args, release.records - release.suppressed_records)
            analysis = analyze_release(release, population=population, **options)
        else:
            analysis = analyze_risk(frame, qis, population=_population(args, len(frame)),
                                    **options)
    finally:
        bar.close()
    report: dict[str, Any] = analysis.to_dict()
    report["analysed"] = "input" if release is None else "output"
    report["transformation"] = None if release is None else dict(release.transformation)
    write_json(args.report, report)
    _print(report)
    return 0


def _print(report: dict[str, Any]) -> None:
    p = report["prosecutor"]
    print(f"Records: {report['records_analyzed']} analysed of {report['records']}; "
          f"sample uniqueness {report['sample_uniqueness']:.4f}")
    print(f"Prosecutor risk: highest {p['highest']:.4f} ({p['records_at_highest']:.2%} of "
          f"records), average {p['average']:.4f}; above {report['threshold']:g}: "
          f"{report['fraction_above_threshold']:.2%}")
    population = report["population_uniqueness"]
    if population:
        print(f"Population uniqueness (population {population['population_size']:,}): "
              f"Pitman {population['pitman']:.4g}, Zayatz {population['zayatz']:.4g}, "
              f"SNB {population['snb']:.4g}, Dankar {population['dankar']:.4g} "
              f"({population['dankar_model']})")
        if population["stopped_early"]:
            print("  Stopped early (solver time budget spent, estimate unavailable): "
                  + ", ".join(population["stopped_early"]))
