"""One release of linked tables (issue 32): treat identifiers and shift dates in every
table with one plan and one key, judge the patient-level view with a method, and
project its release back onto every table. Qt-free.

Projection: a patient the view's release suppresses is left out of every table; the
patient table is the view's release (its attributes generalized as the view's were,
plus each aggregate as judged); an event table keeps its rows of released patients, its
link column pseudonymized, its dates shifted, and leaves out the columns a first-year
aggregate summarizes. Its other columns are released as they are (not judged).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.data.export import export_table
from arxpy.engine.export import released_frame, shuffled
from arxpy.errors import ConfigurationError, DataExportError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import PSEUDONYM, RANDOM, DateShift, IdentifierPlan, PseudonymKey
from arxpy.identifiers.reidentification import (
    ReidentificationRequest,
    ReidentificationTable,
    reversible,
)
from arxpy.jobs import CancelToken, Progress, progress_part
from arxpy.params import drawn_seed
from arxpy.release import Release
from arxpy.workflows.linked_tables import EventAggregate, LinkedTables, left_out, patient_view

#: The report the desktop writes beside the released tables (File › Export, File ›
#: Release linked tables…): :meth:`LinkedRelease.report`, as ``--report`` writes it.
REPORT_FILE = "report.json"
#: A method judging the view: ``(frame, definition, hierarchies) -> Release``.
ViewMethod = Callable[[pd.DataFrame, DataDefinition, Mapping[str, Hierarchy]], Release]
LINKED_NOTE = (
    "The privacy models judged one row per patient: the patient table's attributes and "
    "the aggregates of linked tables. A suppressed patient is left out of every table. "
    "Columns of linked tables that no aggregate summarizes are released as they are and "
    "were not judged; a column a first-year or set aggregate summarizes is left out.")


@dataclass(frozen=True)
class LinkedRelease:
    """The view's release (what was judged) and the released tables by name, the
    patient table first; ``identifiers`` is the report's record of the treatments."""

    view: Release
    tables: dict[str, pd.DataFrame]
    source: LinkedTables
    aggregates: tuple[EventAggregate, ...]
    identifiers: dict[str, Any] | None = None
    left_out: dict[str, list[str]] = field(default_factory=dict)

    def record(self, files: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The report's ``linked``: tables (name, file, records in and out), the link
        column and the aggregates; names and counts, never a value."""
        source = self.source
        return linked_record(source.patient_table, source.link_column, self.view,
                             {name: len(source.table(name)) for name in source.names},
                             {name: len(frame) for name, frame in self.tables.items()},
                             self.aggregates, self.left_out, files)

    def report(self, files: Mapping[str, str], output_order: Mapping[str, Any],
               search: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The JSON report of this release, as ``--report`` and the desktop export write
        it: the view's release (its keys, the patient-level verdict), ``identifiers``,
        ``output_order`` (``shuffled``, ``seed``) and :meth:`record` as ``linked``. With
        ``search`` (a lattice search's own report) its keys come first and the view's
        release goes under ``release``."""
        return linked_report(self.view, self.identifiers, self.record(files), output_order,
                             search)

    def reidentification_table(self, original: LinkedTables) -> ReidentificationTable:
        """Pseudonym -> original of the keyed pseudonyms and random replacements of every
        table (``original``: the tables this release was made of), one column per
        attribute: the link column's pseudonyms appear once, though every table holds
        them. Written, on request only, by ``write_table`` as a single table's is."""
        record = self.identifiers or {}
        parts = []
        for name in original.names:
            treated = self.source.table(name)
            here = {**record, "treatments": [t for t in record.get("treatments", ())
                                             if t["attribute"] in treated.columns]}
            if reversible(here):
                parts.append(ReidentificationTable.of(original.table(name), treated, here))
        return ReidentificationTable.merged(parts)

    def write(self, directory: str | Path, files: Mapping[str, str], *,
              shuffle_seed: int | None = None, delimiter: str | None = None,
              neutralize_formulas: bool = False,
              progress: Progress | None = None) -> dict[str, Path]:
        """Write each table to ``directory / files[name]`` (created if missing), rows
        shuffled by ``shuffle_seed`` (None keeps them in order); every table or none (a
        failure removes the tables already written)."""
        directory = Path(directory)
        with tables_or_none(directory) as written:
            for number, (name, frame) in enumerate(self.tables.items()):
                if progress is not None:
                    progress(number / len(self.tables), f"Writing {files[name]}")
                written[name] = write_released(frame, directory / files[name], shuffle_seed,
                                               delimiter, neutralize_formulas)
        return written


@contextmanager
def tables_or_none(directory: Path) -> Iterator[dict[str, Path]]:
    """``directory`` (created if missing) and the dict of the tables written into it:
    every table or none (a failure removes those already written)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataExportError(f"Cannot create '{directory}': {exc}.") from exc
    written: dict[str, Path] = {}
    try:
        yield written
    except BaseException:
        _remove(written.values())
        raise


def write_released(frame: pd.DataFrame, path: Path, shuffle_seed: int | None,
                   delimiter: str | None, neutralize_formulas: bool = False) -> Path:
    """One released table as :meth:`LinkedRelease.write` writes it (rows shuffled by
    ``shuffle_seed``; None keeps them in order)."""
    if shuffle_seed is not None:
        frame = shuffled(frame, shuffle_seed)
    return export_table(frame, path, delimiter=delimiter,
                        neutralize_formulas=neutralize_formulas)


def linked_record(patient_table: str, link_column: str, view: Release,
                  records: Mapping[str, int], released: Mapping[str, int],
                  aggregates: tuple[EventAggregate, ...], dropped: Mapping[str, list[str]],
                  files: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The report's ``linked`` of a release of ``view`` (:meth:`LinkedRelease.record`):
    ``records`` and ``released`` count each table's rows in and out, the patient table
    first."""
    files = files or {}
    tables = [{"name": name, "role": "patients" if name == patient_table else "events",
               "file": files.get(name), "records": records[name],
               "released_records": released[name], "left_out": dropped.get(name, [])}
              for name in records]
    return {"link_column": link_column, "patient_table": patient_table,
            "tables": tables, "aggregates": [a.to_dict() for a in aggregates],
            "patients": {"records": view.records, "suppressed": view.suppressed_records},
            "note": LINKED_NOTE}


def linked_report(view: Release, identifiers: dict[str, Any] | None,
                  record: dict[str, Any], output_order: Mapping[str, Any],
                  search: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """:meth:`LinkedRelease.report` given its ``linked`` (``record``)."""
    released = view.to_dict()
    report = {**search, "release": released} if search is not None else released
    if identifiers is not None:
        report["identifiers"] = identifiers
    report.update(output_order=dict(output_order), linked=record)
    return report


def write_linked_files(release: LinkedRelease, original: LinkedTables, folder: str | Path,
                       files: Mapping[str, str],
                       reidentification: ReidentificationRequest | None = None,
                       progress: Progress | None = None,
                       cancel: CancelToken | None = None) -> dict[str, Path]:
    """The desktop's linked release on disk: every table of ``release`` into ``folder``
    under ``files`` (rows shuffled by a drawn seed), the report (:data:`REPORT_FILE`),
    then, if asked, the encrypted re-identification table of ``original`` (the tables
    before treatment; scrypt takes about half a second). Returns the paths by table
    name, ``"report"`` and ``"reidentification"``.

    All or nothing: a failure or a cancel removes every file this call wrote, and
    ``folder`` if it made it, so a release is never left half written. Runs as a job."""
    folder = Path(folder)
    made = not folder.exists()
    share = 0.7 if reidentification is not None else 0.9  # scrypt's half second
    written: dict[str, Path] = {}
    try:
        _step(cancel, progress, 0.0, "Writing the released tables")
        seed = drawn_seed()
        written.update(release.write(folder, files, shuffle_seed=seed,
                                     progress=progress_part(progress, 0.0, share)))
        _step(cancel, progress, share, f"Writing {REPORT_FILE}")
        written["report"] = write_report(folder / REPORT_FILE, release.report(
            files, {"shuffled": True, "seed": seed}))
        if reidentification is not None:  # last: the release is complete without it
            _step(cancel, progress, share + 0.05, "Encrypting the re-identification table")
            written["reidentification"] = reidentification.write(
                release.reidentification_table(original))
        _step(None, progress, 1.0, "Written")
    except BaseException:
        _remove(written.values(), folder if made else None)
        raise
    return written


def _step(cancel: CancelToken | None, progress: Progress | None, fraction: float,
          message: str) -> None:
    if cancel is not None:
        cancel.raise_if_cancelled()
    if progress is not None:
        progress(fraction, message)


def _remove(paths: Iterable[Path], folder: Path | None = None) -> None:
    """Remove ``paths`` (what a failed write made) and ``folder`` if left empty."""
    for path in paths:
        path.unlink(missing_ok=True)
    if folder is not None:
        try:
            folder.rmdir()
        except OSError:  # not empty: something else is in it
            pass


def write_report(path: str | Path, report: Mapping[str, Any]) -> Path:
    """Write a report of :meth:`LinkedRelease.report` as strict JSON (all or nothing)."""
    import json

    from arxpy.data.atomic import atomic_write

    with atomic_write(path) as handle:
        json.dump(report, handle, indent=2, allow_nan=False)
        handle.write("\n")
    return Path(path)


def release_linked(tables: LinkedTables, definition: DataDefinition,
                   hierarchies: Mapping[str, Hierarchy], method: ViewMethod,
                   aggregates: tuple[EventAggregate, ...] = (), plan: IdentifierPlan | None = None,
                   key: PseudonymKey | None = None,
                   event_identifying: tuple[str, ...] = ()) -> LinkedRelease:
    """Treat every table, judge the patient view with ``method``, project its release.

    ``definition`` and ``hierarchies`` describe the patient table (the view's aggregates
    get default hierarchies unless ``hierarchies`` names them); ``event_identifying``
    names event columns to remove. The link column must be a keyed pseudonym of ``plan``
    so the released tables link without the original identifier.
    """
    plan = plan or IdentifierPlan()
    view = judged_view(tables, definition, hierarchies, aggregates, plan, key,
                       event_identifying)
    return view.released(method(view.frame, view.definition, view.hierarchies))


@dataclass(frozen=True)
class JudgedView:
    """The patient-level view a method judges (``frame``, ``definition``,
    ``hierarchies``) and the treated tables its release is projected onto;
    ``original``: the tables before treatment (what a re-identification table reverses
    to)."""

    frame: pd.DataFrame
    definition: DataDefinition
    hierarchies: dict[str, Hierarchy]
    treated: LinkedTables
    aggregates: tuple[EventAggregate, ...]
    identifiers: dict[str, Any] | None
    original: LinkedTables | None = None

    def released(self, view: Release) -> LinkedRelease:
        """Every table released as ``view`` (a release of :attr:`frame`) says."""
        dropped = left_out(self.aggregates)
        return LinkedRelease(view, project_release(view, self.treated, dropped), self.treated,
                             self.aggregates, self.identifiers, dropped)


def judged_view(tables: LinkedTables, definition: DataDefinition,
                hierarchies: Mapping[str, Hierarchy], aggregates: tuple[EventAggregate, ...],
                plan: IdentifierPlan, key: PseudonymKey | None,
                event_identifying: tuple[str, ...] = ()) -> JudgedView:
    """Check the tables, treat every one with ``plan`` and ``key``, and build the view."""
    tables.check()
    check_plan(plan, tables.link_column,
               {name: tables.table(name).columns for name in tables.names}, event_identifying)
    random_key = release_random_key(plan)
    patients = treat_patients(tables.patients, definition, plan, key, hierarchies,
                              random_key)
    events = {}
    for name, frame in tables.events.items():
        projection = EventProjection.of(frame.columns, plan, event_identifying)
        treated = projection.plan.apply(frame, projection.roles, key, random_key=random_key)
        events[name] = treated.frame.drop(columns=list(projection.removed))
    treated = LinkedTables(patients.frame, events, tables.link_column, tables.patient_table)
    frame, view_definition, view_hierarchies = patient_view(
        treated, patients.definition, aggregates, hierarchies)
    record = plan.record(definition, key) or {}
    record["linked"] = linked_summary(tables.patient_table, tables.link_column,
                                      {name: len(tables.table(name)) for name in tables.names},
                                      aggregates)
    return JudgedView(frame, view_definition, view_hierarchies, treated, aggregates, record,
                      tables)


def linked_summary(patient_table: str, link_column: str, records: Mapping[str, int],
                   aggregates: tuple[EventAggregate, ...]) -> dict[str, Any]:
    """What the release report says of linked tables: their names and sizes
    (``records`` by table, the patient table first), the link column and the aggregates
    the view judged (names and counts, never a value)."""
    return {"patient_table": patient_table, "link_column": link_column,
            "tables": [{"name": name, "records": count} for name, count in records.items()],
            "aggregates": [a.label for a in aggregates]}


def anonymize_linked(tables: LinkedTables, definition: DataDefinition,
                     hierarchies: Mapping[str, Hierarchy], config: Any,
                     aggregates: tuple[EventAggregate, ...] = (),
                     plan: IdentifierPlan | None = None, key: PseudonymKey | None = None,
                     **run: Any) -> LinkedRelease:
    """:func:`release_linked` with the lattice search (``config``: an
    ``AnonymizationConfig``; ``run`` passes ``progress`` and ``cancel``)."""
    from arxpy.engine import anonymize

    def search(frame, view_definition, view_hierarchies):
        result = anonymize(frame, view_definition, view_hierarchies, config, **run)
        if result.optimum is None:
            raise ConfigurationError(
                "No transformation of the patient-level view satisfies the privacy models "
                "within the suppression limit; allow more suppression, relax the models "
                "or choose fewer aggregates.")
        return result.release()

    return release_linked(tables, definition, hierarchies, search, aggregates, plan, key)


def check_plan(plan: IdentifierPlan, link: str, columns: Mapping[str, Sequence[str]],
               event_identifying: tuple[str, ...]) -> None:
    """Refuse a plan the linked tables (``columns`` by table name) cannot take: the link
    column not a keyed pseudonym, dates shifted by another patient column, a treated,
    shifted or identifying attribute no table has."""
    treatment = next((t for t in plan.treatments if t.attribute == link), None)
    if treatment is None or treatment.kind != PSEUDONYM:
        raise ConfigurationError(
            f"The link column '{link}' must be a keyed pseudonym (--pseudonymize {link}), "
            "so the released tables link without the original identifier.")
    if plan.date_shift is not None and plan.date_shift.patient != link:
        raise ConfigurationError(
            f"Dates of linked tables move by the patient of the link column; give "
            f"--patient {link}.")
    known = {c for names in columns.values() for c in names}
    shifted = plan.date_shift.attributes if plan.date_shift else ()
    for name in [t.attribute for t in plan.treatments] + list(shifted) + list(event_identifying):
        if name not in known:
            raise ConfigurationError(
                f"No table has an attribute '{name}'; tables: {', '.join(columns)}.")


def plan_for(plan: IdentifierPlan, columns: Sequence[str]) -> IdentifierPlan:
    """The part of ``plan`` that concerns a table with ``columns``."""
    shift = plan.date_shift
    dates = tuple(a for a in shift.attributes if a in columns) if shift else ()
    return IdentifierPlan(tuple(t for t in plan.treatments if t.attribute in columns),
                          DateShift(dates, shift.patient, shift.days) if dates else None,
                          plan.mask_character)


def treat_patients(patients: pd.DataFrame, definition: DataDefinition, plan: IdentifierPlan,
                   key: PseudonymKey | None, hierarchies: Mapping[str, Hierarchy],
                   random_key: PseudonymKey | None = None) -> Any:
    """The patient table treated with its part of ``plan`` (a ``TreatedTable``): with the
    same key as the event tables, so pseudonyms of one namespace and date offsets agree
    across tables (both derive from the key and the original value), and random
    replacements too (``random_key``, :func:`release_random_key`)."""
    return plan_for(plan, patients.columns).apply(patients, definition, key, hierarchies,
                                                  random_key)


def release_random_key(plan: IdentifierPlan) -> PseudonymKey | None:
    """The key of a linked release's random replacements: drawn for the release and
    never kept, so a value replaced at random has one replacement in every table of the
    release and none in common with another release. None without random replacement."""
    import secrets

    return PseudonymKey(secrets.token_bytes(32)) if plan.of_kind(RANDOM) else None


@dataclass(frozen=True)
class EventProjection:
    """How an event table is released, whichever engine writes it: ``plan`` (its part of
    the identifier plan) applied to its columns with ``roles`` (``--identifying`` ones
    identifying, the rest insensitive); ``removed`` (identifying, untreated) and
    ``left_out`` (summarized by a first-year or set aggregate) leave; ``released`` are
    the columns written, in the input's order."""

    plan: IdentifierPlan
    roles: DataDefinition
    removed: tuple[str, ...]
    left_out: tuple[str, ...]
    released: tuple[str, ...]

    @classmethod
    def of(cls, columns: Sequence[str], plan: IdentifierPlan,
           event_identifying: tuple[str, ...], left_out: Sequence[str] = ()
           ) -> EventProjection:
        roles = DataDefinition.for_columns(list(columns))
        for column in event_identifying:
            if column in roles:
                roles = roles.with_attribute(column, type=AttributeType.IDENTIFYING)
        part = plan_for(plan, list(columns))
        removed = tuple(part.treated_definition(roles).identifying)
        released = tuple(c for c in columns if c not in removed and c not in left_out)
        return cls(part, roles, removed, tuple(left_out), released)


def released_patients(view: Release, link: str) -> pd.DataFrame:
    """The patient table's release: the view's released rows, suppressed patients left
    out; refuses a release no event can link to."""
    if view.synthetic or view.input_rows() is None:
        raise ConfigurationError(
            f"A '{view.method}' release publishes generated rows, which no event can link "
            "to; choose a method that releases the patients' own records.")
    patients = released_frame(view, remove_suppressed=True).reset_index(drop=True)
    if link not in patients.columns:
        raise ConfigurationError(
            f"The '{view.method}' release left out the link column '{link}'.")
    return patients


def project_release(view: Release, tables: LinkedTables, dropped: Mapping[str, list[str]]
             ) -> dict[str, pd.DataFrame]:
    """The released tables: the view's released rows, and each event table's rows of
    released patients without the columns in ``dropped``."""
    link = tables.link_column
    patients = released_patients(view, link)
    kept = set(patients[link].astype(str))
    out = {tables.patient_table: patients}
    for name, frame in tables.events.items():
        rows = frame[frame[link].astype(str).isin(kept)]
        out[name] = rows.drop(columns=dropped.get(name, [])).reset_index(drop=True)
    return out


@dataclass(frozen=True)
class LinkedFilesRequest:
    """A project's patient table and settings, event tables as CSV files, and where the
    release goes (File › Release linked tables…). ``patient_file`` names the patient
    table's output file."""

    patients: pd.DataFrame
    definition: DataDefinition
    hierarchies: Mapping[str, Hierarchy]
    settings: Mapping[str, Any]
    events: Mapping[str, Path]
    link_column: str
    output_dir: Path
    aggregates: tuple[EventAggregate, ...] = ()
    patient_file: str = "patients.csv"
    plan: IdentifierPlan | None = None
    key: PseudonymKey | None = None
    #: The encrypted re-identification table asked for (None: none is written).
    reidentification: ReidentificationRequest | None = None

    @property
    def files(self) -> dict[str, str]:
        """Output file names by table name, the patient table first."""
        return {Path(self.patient_file).stem: self.patient_file,
                **{name: path.name for name, path in self.events.items()}}


def release_linked_files(request: LinkedFilesRequest, progress: Progress | None = None,
                         cancel: CancelToken | None = None
                         ) -> tuple[LinkedRelease, dict[str, Path]]:
    """Read the event tables, release the linked tables with the lattice search and
    write them with :func:`write_linked_files` (the re-identification table too, if
    asked) to ``request.output_dir``. Runs as a job."""
    from arxpy.data.csv_io import read_csv
    from arxpy.engine import AnonymizationConfig

    events = {name: read_csv(path, guess_encoding=True) for name, path in request.events.items()}
    tables = LinkedTables(request.patients, events, request.link_column,
                          Path(request.patient_file).stem)
    release = anonymize_linked(tables, request.definition, request.hierarchies,
                               AnonymizationConfig.from_dict(dict(request.settings)),
                               request.aggregates, request.plan, request.key,
                               progress=progress_part(progress, 0.0, 0.8), cancel=cancel)
    return release, write_linked_files(release, tables, request.output_dir, request.files,
                                       request.reidentification,
                                       progress_part(progress, 0.8, 0.2), cancel)
