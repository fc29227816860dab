"""``arxpy run METHOD``: any registered method, with options generated from its declared
parameters (``arxpy run METHOD --help`` lists them with their ranges and defaults).

Data and roles: ``--project FILE``, or ``--data CSV`` with ``--hierarchy ATTR=FILE``
(a quasi-identifier with its hierarchy), ``--quasi-identifying ATTR`` (a quasi-identifier
without one: the attacker's view covers it), ``--sensitive`` and ``--identifying``.
A search method (the lattice) releases its optimum. ``--output`` receives the released
table (a set-valued method's published document, if it ends in .json); ``--report`` the
release's report: ``method``, ``parameters``, ``anonymous``, ``claims``,
``verification`` (the one verdict), ``classes``, ``input_sha256``, ``output_sha256``,
``versions``, ``seed``, ``elapsed_seconds`` (keys of ``Release.to_dict()``), plus
``output_file_sha256`` and ``output`` (the file name, never an absolute path).

The method commands (``condense``, ``intervals``, ``disassociate``, ``kpbms``,
``anonymize``) stay as documented aliases with their own report keys.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from arxpy.commands.files import INPUT, add_output_option, declare_files
from arxpy.commands.identifier_options import IdentifierOptions, add_identifier_arguments
from arxpy.commands.linked_options import LinkedOptions, add_linked_arguments, file_names
from arxpy.commands.options import (
    ProgressBar,
    add_data_arguments,
    add_order_arguments,
    check_roles,
    file_sha256,
    output_order,
    read_data_option,
    read_hierarchy_options,
    write_json,
)
from arxpy.commands.recipe_options import (
    add_recipe_arguments,
    add_recipe_figures,
    check_recipe_options,
    write_certificate,
    write_recipe,
)
from arxpy.errors import ConfigurationError


def register(subparsers: argparse._SubParsersAction) -> None:
    from arxpy.methods import method_classes
    from arxpy.methods.options import add_param_options

    parser = subparsers.add_parser(
        "run", help="run any anonymization method; its options come from its declaration",
        description="Run one registered anonymization method on a table and write the "
        "release and its report. 'arxpy run METHOD --help' lists the method's settings.")
    methods = parser.add_subparsers(dest="method", metavar="METHOD", required=True)
    for name, cls in method_classes().items():
        sub = methods.add_parser(name, help=cls.description,
                                 description=f"{cls.label}: {cls.description}")
        add_data_arguments(sub)
        sub.add_argument("--quasi-identifying", action="append", default=[], metavar="ATTR",
                         help="a quasi-identifier without a hierarchy (the attacker's view "
                         "groups released records by the quasi-identifiers)")
        add_output_option(sub, "--output", type=Path, metavar="OUT.csv",
                          help="the released table (.csv, .tsv, .xlsx; a set-valued "
                          "method's published document if .json); required unless --link")
        add_output_option(sub, "--report", type=Path, metavar="R.json",
                          help="the JSON report")
        add_order_arguments(sub)
        add_param_options(sub, cls.params, prefix=name)
        _declare_parameter_files(sub, cls.params)
        add_identifier_arguments(sub)  # after the parameters: their option names stay
        add_linked_arguments(sub)
        add_recipe_arguments(sub, search=name == "generalization")
        sub.set_defaults(func=run, method_class=cls)


def _declare_parameter_files(parser: argparse.ArgumentParser, params) -> None:
    """Options of parameters whose declaration says their value names files to read
    (a disassociation's ``policy=file:U.json``) are inputs for the overwrite guard."""
    from pathlib import Path

    for param in params:
        if param.reads_files is None:
            continue
        action = next(a for a in parser._actions if a.dest == f"param_{param.name}")

        def paths(value, args, read=param.reads_files):
            return [] if value is None else [Path(p) for p in read(value)]

        declare_files(action, INPUT, paths)


def load(args: argparse.Namespace):
    """(frame, definition, hierarchies) from the data and role options."""
    from arxpy.data.definition import AttributeType, DataDefinition
    from arxpy.data.value_checks import warn_sensitive_variants

    if args.project is not None:
        from arxpy.project import Project

        project = Project.load(args.project)
        frame, definition, hierarchies = project.data, project.definition, project.hierarchies
    else:
        frame = read_data_option(args.data, args.delimiter, args.encoding)
        definition = DataDefinition.for_columns(frame.columns)
        hierarchies = read_hierarchy_options(args.hierarchy, args.delimiter)
    quasi = set(hierarchies) | set(args.quasi_identifying)
    for name in quasi | set(args.sensitive) | set(args.identifying):
        definition[name]  # DefinitionError naming the known attributes
    check_roles(quasi, set(args.sensitive), set(args.identifying))
    for names, role in ((quasi, AttributeType.QUASI_IDENTIFYING),
                        (args.sensitive, AttributeType.SENSITIVE),
                        (args.identifying, AttributeType.IDENTIFYING)):
        for name in names:
            definition = definition.with_attribute(name, type=role)
    warn_sensitive_variants(frame, definition)
    return frame, definition, hierarchies


def run(args: argparse.Namespace) -> int:
    from arxpy.methods.options import params_from_args

    cls = args.method_class
    method = cls(**params_from_args(args, cls.params))  # checked by the declaration
    check_recipe_options(args)
    identifiers = IdentifierOptions.from_args(args)
    linked = LinkedOptions.from_args(args)
    if linked is not None:
        return _run_linked(args, method, identifiers, linked)
    if args.output is None:
        raise ConfigurationError(
            "Give --output OUT.csv for the released table (or --link NAME=FILE with "
            "--output-dir DIR for linked tables).")
    frame, given, hierarchies = load(args)
    frame, definition = identifiers.apply(frame, given, hierarchies)  # before the method runs
    bar = ProgressBar()
    try:
        outcome = method.run(frame, definition, hierarchies=hierarchies, progress=bar)
    finally:
        bar.close()
    release = outcome.release() if hasattr(outcome, "release") else outcome
    identifiers.refuse_quasi_identifying(release)
    order = release_order(args, release)
    written = write_release(release, args.output, order["seed"])
    report: dict[str, Any] = {**release.to_dict(), "output": written.name,
                              "output_file_sha256": file_sha256(written),
                              "output_order": order}
    identifiers.write_reidentification_table()
    identifiers.add_to(report)
    recipe = write_recipe(args, given, hierarchies, lambda: release, identifiers.record,
                          method.get_params())
    if recipe is not None:
        add_recipe_figures(report, recipe, frame, release)
    if args.report:
        write_json(args.report, report)
    if recipe is not None:
        write_certificate(args, release, recipe, identifiers.record, args.data,
                          original=frame)
    print(f"{cls.name}: {release.records - release.suppressed_records:,} of "
          f"{release.records:,} records released. {release.verify().headline}")
    if identifiers.summary():
        print(identifiers.summary())
    return 0


def _run_linked(args: argparse.Namespace, method, identifiers: IdentifierOptions,
                linked: LinkedOptions) -> int:
    """The method on the patient-level view of linked tables; every table written to
    ``--output-dir``; the report adds ``linked``."""
    from arxpy.workflows.linked_release import release_linked

    patient_args, event_identifying = linked.split_identifying(args)
    frame, given, hierarchies = load(patient_args)

    def judge(view, definition, view_hierarchies):
        bar = ProgressBar()
        try:
            outcome = method.run(view, definition, hierarchies=view_hierarchies, progress=bar)
        finally:
            bar.close()
        release = outcome.release() if hasattr(outcome, "release") else outcome
        identifiers.refuse_quasi_identifying(release)
        return release

    tables = linked.tables(args, frame)
    release = release_linked(tables, given, hierarchies, judge, linked.aggregates,
                             identifiers.plan, identifiers.key, event_identifying)
    identifiers.reverse_linked(tables, release)
    identifiers.write_reidentification_table()  # before the tables, as for one table
    order = output_order(args, release.view.seed)
    linked.write(args, release, order["seed"])
    identifiers.record = release.identifiers
    report = release.report(file_names(args), order)
    identifiers.add_to(report)  # with the re-identification table, if written
    if args.report:
        write_json(args.report, report)
    view = release.view
    print(f"{args.method_class.name}: {view.records - view.suppressed_records:,} of "
          f"{view.records:,} patients released. {view.verify().headline}")
    print(linked.summary(release))
    print(identifiers.summary())
    return 0


def release_order(args: argparse.Namespace, release) -> dict[str, Any]:
    """The report's ``output_order``: rows in input order are shuffled as the options
    say; a method that orders its own rows keeps its order."""
    if _in_input_order(release):
        return output_order(args, release.seed)
    return {"shuffled": False, "seed": None, "note": "the method orders its own rows"}


def _in_input_order(release) -> bool:
    rows = release.input_rows()
    return rows is not None and bool(np.array_equal(rows, np.arange(len(rows))))


def write_release(release, path: Path, shuffle_seed: int | None = None) -> Path:
    """The release's table (shuffled by ``shuffle_seed``), or a set-valued release's
    published document (.json)."""
    if path.suffix.lower() == ".json":
        if not hasattr(release, "published_json"):
            raise ConfigurationError(
                f"A '{release.method}' release is a table; write it as .csv, .tsv or .xlsx.")
        from arxpy.data.atomic import atomic_write

        with atomic_write(path, "w", encoding="utf-8") as handle:
            handle.write(release.published_json())
        return path
    from arxpy.engine.export import export_release

    return export_release(release, path, overwrite=True, shuffle_seed=shuffle_seed)[0]

