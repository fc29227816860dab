"""The linked-table options of ``anonymize`` and ``run`` (issue 32), in one place.

``--data`` is the patient table (one row per patient; a CSV file or, as
``FILE.sqlite:TABLE``, a table of a SQLite database); ``--link NAME=FILE`` (repeatable)
adds an event table from a CSV file or, as ``NAME=FILE.sqlite:TABLE``, from a table of a
SQLite database; ``--link-column ATTR`` names the patient identifier every table holds,
``--link-aggregate TABLE:KIND[:ATTR]`` adds a quasi-identifier of the patient-level view,
and ``--output-dir DIR`` receives one file per table under its input's file name
(``NAME.csv`` for a SQLite table, ``TABLE.csv`` for the patients). ``--identifying
ATTR`` removes ATTR from every table holding it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_input_option, add_output_option, assignment_paths
from arxpy.commands.table_source import SOURCE_HELP, TableSource, source_paths
from arxpy.errors import ConfigurationError


def add_linked_arguments(parser: argparse.ArgumentParser) -> None:
    """The linked-table options, as one group of ``parser``."""
    from arxpy.workflows.linked_tables import AGGREGATE_HELP

    group = parser.add_argument_group(
        "linked tables", "--data is the patient table; the privacy models judge one row "
        "per patient and a suppressed patient leaves every table; see "
        "docs/linked-tables.md")
    add_input_option(group, "--link", action="append", default=[], metavar="NAME=FILE",
                     paths=_link_files,
                     help="an event table (admissions, diagnoses, ...) linked to the "
                          f"patients: {SOURCE_HELP}")
    group.add_argument("--link-column", metavar="ATTR",
                       help="the patient identifier in every table (must be pseudonymized)")
    group.add_argument("--link-aggregate", action="append", default=[],
                       metavar="TABLE:KIND[:ATTR]",
                       help=f"a quasi-identifier of the patient-level view: {AGGREGATE_HELP}")
    add_output_option(group, "--output-dir", type=Path, metavar="DIR", paths=_written,
                      help="write each table to DIR under its input's file name")


def _written(value: Any, args: argparse.Namespace) -> list[Path]:
    """The files ``--output-dir`` receives (for the overwrite guard)."""
    if value is None or getattr(args, "data", None) is None:
        return []
    return [Path(value) / name for name in file_names(args).values()]


def file_names(args: argparse.Namespace) -> dict[str, str]:
    """Each table's output file name by table name, the patient table first: a CSV
    input's file name, ``NAME.csv`` for a SQLite table."""
    names = {patient_table(args): TableSource.parse(args.data).file_name()}
    for name, source in _links(args).items():
        names[name] = source.file_name(name)
    return names


def patient_table(args: argparse.Namespace) -> str:
    """The patient table's name: its CSV file's name without the ending, or its SQLite
    table's."""
    return TableSource.parse(args.data).stem


def _links(args: argparse.Namespace) -> dict[str, TableSource]:
    links: dict[str, TableSource] = {}
    for item in args.link:
        name, sep, source = item.partition("=")
        if not (sep and name and source):
            raise ConfigurationError(
                f"Cannot read --link '{item}'; write NAME=FILE or NAME=FILE.sqlite:TABLE.")
        if name in links:
            raise ConfigurationError(f"The linked table '{name}' is given twice.")
        links[name] = TableSource.parse(source, "--link", "NAME=FILE.sqlite:TABLE")
    return links


def _link_files(value: Any, args: argparse.Namespace) -> list[Path]:
    """The files ``--link`` reads, a database without its table (for the overwrite
    guard; an unreadable item is refused later, by :func:`_links`)."""
    return [file for path in assignment_paths(value, args)
            for file in source_paths(path, args)]


@dataclass(frozen=True)
class LinkedOptions:
    """What the options ask for, checked together before anything is read."""

    links: dict[str, TableSource]
    column: str
    aggregates: tuple[Any, ...]

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> LinkedOptions | None:
        """None without ``--link``; refuses options that would be ignored or clash."""
        from arxpy.workflows.linked_tables import EventAggregate

        _refuse_orphans(args)
        if not args.link:
            return None
        if args.project is not None:
            raise ConfigurationError(
                "--link takes the patient table as --data FILE (CSV or FILE.sqlite:TABLE); "
                "give --data in place of --project.")
        for option, value in (("--output", args.output), ("--recipe-out", args.recipe_out),
                              ("--certificate", args.certificate),
                              ("--preset", getattr(args, "preset", None))):
            if value is not None:
                raise ConfigurationError(
                    f"Linked tables are written with --output-dir DIR and configured by "
                    f"their options; leave {option} out.")
        if args.link_column is None or args.output_dir is None:
            raise ConfigurationError(
                "--link needs --link-column ATTR (the patient identifier of every table) "
                "and --output-dir DIR (where each table is written).")
        links = _links(args)
        names = list(file_names(args).values())
        if len(set(names)) < len(names):
            raise ConfigurationError(
                "Two tables have one file name, so one would replace the other in "
                "--output-dir; rename one of the files.")
        return cls(links, args.link_column,
                   tuple(EventAggregate.parse(a) for a in args.link_aggregate))

    def split_identifying(self, args: argparse.Namespace) -> tuple[argparse.Namespace,
                                                                   tuple[str, ...]]:
        """(args with the patient table's ``--identifying`` only, the other names),
        so the patient table's roles are read as before."""
        columns = set(TableSource.parse(args.data).columns(
            args.delimiter, getattr(args, "encoding", None)))
        patient = [n for n in args.identifying if n in columns]
        others = tuple(n for n in args.identifying if n not in columns)
        return argparse.Namespace(**{**vars(args), "identifying": patient}), others

    def tables(self, args: argparse.Namespace, patients: Any):
        """The linked tables: ``patients`` and each ``--link`` file."""
        from arxpy.workflows.linked_tables import LinkedTables

        events = {name: source.read(args.delimiter, getattr(args, "encoding", None))
                  for name, source in self.links.items()}
        return LinkedTables(patients, events, self.column, patient_table(args))

    def refuse_for_engine(self, args: argparse.Namespace) -> None:
        """What ``--engine duckdb`` cannot do with linked tables, one line each, before
        anything is read."""
        for name, source in self.links.items():
            if source.table is not None:
                raise ConfigurationError(
                    f"--link {name} names a SQLite table, but --engine {args.engine} reads "
                    "event tables from CSV files; leave out --engine to read it into memory.")
        if getattr(args, "neutralize_formulas", False):
            raise ConfigurationError(
                f"--neutralize-formulas works with the in-memory engine only; the "
                f"{args.engine} engine writes cells as they are. Leave out one of them.")

    def event_files(self, args: argparse.Namespace, patients: Any, engine: Any):
        """The linked tables with every ``--link`` CSV file left for ``engine`` to read."""
        from arxpy.data.csv_io import sniff_csv
        from arxpy.engine.backends.base import RecordSource
        from arxpy.workflows.linked_engine import EventFiles

        sources = {}
        for name, source in self.links.items():  # detected once, not at every pass
            fmt = sniff_csv(source.path, delimiter=args.delimiter,
                            encoding=getattr(args, "encoding", None))
            sources[name] = RecordSource(path=source.path, delimiter=fmt.delimiter,
                                         encoding=fmt.encoding, has_header=fmt.has_header)
        return EventFiles(patients, sources, self.column, engine, patient_table(args))

    def write(self, args: argparse.Namespace, release: Any, seed: int | None) -> None:
        """Every released table into ``--output-dir``; warnings as one line each."""
        import sys
        import warnings

        from arxpy.data.formulas import FormulaWarning

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", FormulaWarning)
            release.write(args.output_dir, file_names(args), shuffle_seed=seed,
                          delimiter=args.delimiter or ";",
                          neutralize_formulas=getattr(args, "neutralize_formulas", False))
        for warning in caught:
            print(f"arxpy: warning: {warning.message}", file=sys.stderr)

    @staticmethod
    def summary(release: Any) -> str:
        """One line for the terminal."""
        counts = ", ".join(f"{table['name']} {table['released_records']:,}"
                           for table in release.record()["tables"])
        return (f"Linked tables released ({counts} records); "
                f"{release.view.suppressed_records:,} patients suppressed in every table.")


def _refuse_orphans(args: argparse.Namespace) -> None:
    for option, value in (("--link-column", args.link_column),
                          ("--link-aggregate", args.link_aggregate),
                          ("--output-dir", args.output_dir)):
        if value and not args.link:
            raise ConfigurationError(
                f"{option} goes with --link NAME=FILE; add it or leave {option} out.")
