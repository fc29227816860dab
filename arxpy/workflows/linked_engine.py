"""A release of linked tables whose event tables a record engine reads out of core
(issue 32; ``arxpy anonymize --link ... --engine duckdb``). Qt-free.

The patient table is in memory and judged as :mod:`arxpy.workflows.linked_release`
judges it (the same view, search and verdict). Each event table stays in its file:
the engine's histograms give the link checks' counts and the view's aggregates (rows
per patient; each patient's earliest day, grouped by DuckDB; the distinct (patient,
cell) pairs that :meth:`EventAggregate.values` reads as it reads the whole table: a set
does not depend on repeated pairs), and its write releases the rows of released
patients, treated by the engine's identifier treatment (the same pseudonyms and offsets
as in memory) and shuffled as the memory path shuffles them: the same files, byte for
byte, with the same seed.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.data.types import parse_values
from arxpy.engine.backends.base import Histogram, OutputPlan, RecordSource
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import DateShift, IdentifierPlan, PseudonymKey
from arxpy.identifiers.dates import date_format_of, patient_offsets, shiftable_dates
from arxpy.release import Release
from arxpy.workflows.linked_release import (
    EventProjection,
    ViewMethod,
    check_plan,
    linked_record,
    linked_report,
    linked_summary,
    release_random_key,
    released_patients,
    tables_or_none,
    treat_patients,
    write_released,
)
from arxpy.workflows.linked_tables import (
    COUNT,
    FIRST_YEAR,
    EventAggregate,
    check_links,
    left_out,
    view_of,
)


@dataclass
class EventFiles:
    """The patient table in memory and event tables a record engine reads (``sources``
    by name), linked by ``link_column``. Histograms of the link column are read once."""

    patients: pd.DataFrame
    sources: dict[str, RecordSource]
    link_column: str
    engine: Any
    patient_table: str = "patients"
    _per_patient: dict[str, Histogram] = field(default_factory=dict, repr=False)
    _columns: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    def columns(self, name: str) -> tuple[str, ...]:
        if name not in self._columns:
            self._columns[name] = tuple(self.engine.columns(self.sources[name]))
        return self._columns[name]

    def per_patient(self, name: str) -> Histogram:
        """The rows of event table ``name`` by link value (one pass)."""
        if name not in self._per_patient:
            self._per_patient[name] = self.engine.histogram(self.sources[name],
                                                            [self.link_column])
        return self._per_patient[name]

    def records(self) -> dict[str, int]:
        """Rows of every table, the patient table first."""
        return {self.patient_table: len(self.patients),
                **{name: self.per_patient(name).n_records for name in self.sources}}

    def check(self) -> None:
        """:meth:`LinkedTables.check` on counts the engine gives."""
        link = self.link_column

        def orphans(name: str, ids: pd.Series) -> int:
            linked = self.per_patient(name)
            return int(linked.counts[~linked.frame[link].isin(ids).to_numpy()].sum())

        check_links(self.patient_table, link, self.patients.columns,
                    {name: self.columns(name) for name in self.sources},
                    lambda: self.patients[link].astype(str), orphans)


def aggregate_values(aggregate: EventAggregate, events: EventFiles, ids: pd.Series,
                     shift: DateShift | None, key: PseudonymKey | None) -> pd.Series:
    """What :meth:`EventAggregate.values` gives on the treated event table, from the
    engine's histograms: rows per patient, each patient's earliest day (shifted as the
    memory path shifts it), or the distinct (patient, cell) pairs. ``ids``: the
    patients' original identifiers, in the patient table's order."""
    link, name = events.link_column, aggregate.table
    if aggregate.kind == COUNT:
        linked = events.per_patient(name)
        return aggregate.counted(pd.Series(linked.counts, index=linked.frame[link].to_numpy()),
                                 ids)
    aggregate.refuse_unknown(events.columns(name))
    if aggregate.kind == FIRST_YEAR:
        shifted = shift is not None and aggregate.attribute in shift.attributes
        return _first_years(aggregate, events, ids, shift.days if shifted else 0, key)
    pairs = events.engine.histogram(events.sources[name], [link, aggregate.attribute]).frame
    return aggregate.values(pairs, link, ids)


def _first_years(aggregate: EventAggregate, events: EventFiles, ids: pd.Series,
                 shift_days: int, key: PseudonymKey | None) -> pd.Series:
    """A first-year aggregate from each patient's earliest original day (DuckDB's
    grouping), moved by the patient's offset when the dates are shifted (``shift_days``
    > 0): every date of a patient moves by one offset, so the earliest stays earliest."""
    from arxpy.engine.backends.duckdb_events import NO_DAY, FirstDays

    link, date, source = events.link_column, aggregate.attribute, events.sources[aggregate.table]
    distinct = pd.Series(events.engine.distinct_values(source, [date])[date], dtype=object,
                         name=date)
    if shift_days:  # read as the shift reads them (its format, its refusals)
        dates = shiftable_dates(distinct, date_format_of(distinct, None, date), shift_days)
    else:
        dates = parse_values(distinct, aggregate.date_type(distinct))
    days = dates.astype("datetime64[D]")
    days = np.where(np.isnat(days), NO_DAY, days.astype(np.int64))
    first = events.engine.histogram(dataclasses.replace(
        source, treatment=FirstDays(link, date, distinct, days)), [link, date]).frame
    first_day = first[date].astype(np.int64).to_numpy()
    dated = first_day != NO_DAY
    patients, first_day = first[link].to_numpy()[dated], first_day[dated]
    if shift_days:
        first_day = first_day + patient_offsets(key, patients.tolist(), shift_days)
    return aggregate.first_years(pd.Series(first_day.astype("datetime64[D]"), index=patients),
                                 ids)


@dataclass(frozen=True)
class EngineJudgedView:
    """The patient-level view (``frame``, ``definition``, ``hierarchies``), as the memory
    path's :class:`~arxpy.workflows.linked_release.JudgedView`, over event files;
    ``original_ids``: the patients' link values before treatment, in the patient table's
    order (``frame`` holds their pseudonyms)."""

    frame: pd.DataFrame
    definition: DataDefinition
    hierarchies: dict[str, Hierarchy]
    events: EventFiles
    aggregates: tuple[EventAggregate, ...]
    identifiers: dict[str, Any]
    plan: IdentifierPlan
    key: PseudonymKey | None
    event_identifying: tuple[str, ...]
    original_ids: pd.Series
    random_key: PseudonymKey | None = None  # the release's (release_random_key)

    def released(self, view: Release) -> EngineLinkedRelease:
        link = self.events.link_column
        patients = released_patients(view, link)
        originals = pd.Series(self.original_ids.to_numpy(), index=self.frame[link].astype(str))
        kept = originals.loc[patients[link].astype(str)].tolist()
        return EngineLinkedRelease(view, patients, self, kept, left_out(self.aggregates))


def judged_view_on_engine(events: EventFiles, definition: DataDefinition,
                          hierarchies: Mapping[str, Hierarchy],
                          aggregates: tuple[EventAggregate, ...], plan: IdentifierPlan,
                          key: PseudonymKey | None, event_identifying: tuple[str, ...] = ()
                          ) -> EngineJudgedView:
    """Check the tables, treat the patient table and build the view (the memory path's
    :func:`~arxpy.workflows.linked_release.judged_view`, the event tables read by the
    engine)."""
    events.check()
    link = events.link_column
    check_plan(plan, link, {events.patient_table: events.patients.columns,
                            **{name: events.columns(name) for name in events.sources}},
               event_identifying)
    random_key = release_random_key(plan)
    patients = treat_patients(events.patients, definition, plan, key, hierarchies,
                              random_key)
    ids = events.patients[link].astype(str).reset_index(drop=True)
    frame, view_definition, view_hierarchies = view_of(
        patients.frame, tuple(events.sources), patients.definition, aggregates, hierarchies,
        lambda a: aggregate_values(a, events, ids, plan.date_shift, key))
    record = plan.record(definition, key) or {}
    record["linked"] = linked_summary(events.patient_table, link, events.records(), aggregates)
    return EngineJudgedView(frame, view_definition, view_hierarchies, events, aggregates,
                            record, plan, key, event_identifying, ids, random_key)


def release_linked_on_engine(events: EventFiles, definition: DataDefinition,
                             hierarchies: Mapping[str, Hierarchy], method: ViewMethod,
                             aggregates: tuple[EventAggregate, ...], plan: IdentifierPlan,
                             key: PseudonymKey | None, event_identifying: tuple[str, ...] = ()
                             ) -> EngineLinkedRelease:
    """:func:`~arxpy.workflows.linked_release.release_linked` with the event tables
    left in their files; they are written by :meth:`EngineLinkedRelease.write`."""
    view = judged_view_on_engine(events, definition, hierarchies, aggregates, plan, key,
                                 event_identifying)
    return view.released(method(view.frame, view.definition, view.hierarchies))


@dataclass
class EngineLinkedRelease:
    """The view's release, the released patient table and, once :meth:`write` ran, the
    released rows of each event table (``released_records``)."""

    view: Release
    patients: pd.DataFrame
    judged: EngineJudgedView
    kept: list[str]  # the released patients' original identifiers
    left_out: dict[str, list[str]]
    released_records: dict[str, int] = field(default_factory=dict)
    seconds: float | None = None  # the event tables' write

    @property
    def identifiers(self) -> dict[str, Any]:
        return self.judged.identifiers

    def write(self, directory: str | Path, files: Mapping[str, str], *,
              shuffle_seed: int | None = None, delimiter: str | None = None,
              neutralize_formulas: bool = False) -> dict[str, Path]:
        """The patient table (from memory) and every event table (by the engine) to
        ``directory / files[name]``, rows shuffled by ``shuffle_seed`` as
        :meth:`LinkedRelease.write` shuffles them; a failure removes what was written.
        The engine writes cells as they are: ``neutralize_formulas`` is refused."""
        if neutralize_formulas:
            raise ConfigurationError(
                "The DuckDB engine writes cells as they are; leave out "
                "--neutralize-formulas or --engine duckdb.")
        events = self.judged.events
        directory = Path(directory)
        with tables_or_none(directory) as written:  # as LinkedRelease.write
            written[events.patient_table] = write_released(
                self.patients, directory / files[events.patient_table], shuffle_seed,
                delimiter)
            self.released_records = {events.patient_table: len(self.patients)}
            started = time.perf_counter()
            for name in events.sources:
                written[name] = self._write_events(name, directory / files[name],
                                                   shuffle_seed, delimiter or ";")
            self.seconds = time.perf_counter() - started
        return written

    def _write_events(self, name: str, path: Path, shuffle_seed: int | None,
                      delimiter: str) -> Path:
        from arxpy.engine.backends.duckdb_events import ReleasedPatientsOnly
        from arxpy.engine.backends.duckdb_identifiers import DuckDBTreatment

        judged, events = self.judged, self.judged.events
        source, engine = events.sources[name], events.engine
        projection = EventProjection.of(events.columns(name), judged.plan,
                                        judged.event_identifying, self.left_out.get(name, ()))
        treatment = DuckDBTreatment(projection.plan, judged.key, projection.roles,
                                    judged.random_key)
        released = dataclasses.replace(source, treatment=ReleasedPatientsOnly(
            treatment, events.link_column, self.kept))
        self._check_suppressed(source, treatment, projection.plan)
        plan = OutputPlan(columns=projection.released, labels={}, suppressed=pd.DataFrame(),
                          shuffle_seed=shuffle_seed)
        with treatment.failures():
            summary = engine.write(released, plan, path, delimiter=delimiter)
        treatment.check(summary.path)  # pseudonyms that met: refused, file removed
        self.released_records[name] = summary.records
        return summary.path

    def _check_suppressed(self, source: RecordSource, treatment: Any,
                          plan: IdentifierPlan) -> None:
        """Pseudonyms and random replacements of the suppressed patients' rows, computed
        and discarded: the memory path treats every row before the view is judged, so
        their values are checked too (too long for ``digits``, pseudonyms that met)."""
        from arxpy.engine.backends.duckdb_events import ReleasedPatientsOnly
        from arxpy.identifiers import PSEUDONYM, RANDOM

        link = self.judged.events.link_column
        keyed = [t.attribute for t in plan.treatments
                 if t.kind in (PSEUDONYM, RANDOM) and t.attribute != link]
        if keyed:  # the link column's values are the patient table's, treated there
            others = dataclasses.replace(source, treatment=ReleasedPatientsOnly(
                treatment, link, self.kept, others=True))
            with treatment.failures():
                self.judged.events.engine.histogram(others, keyed)

    def record(self, files: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The report's ``linked``, as :meth:`LinkedRelease.record` gives it (after
        :meth:`write`: the released counts are the written rows)."""
        events = self.judged.events
        return linked_record(events.patient_table, events.link_column, self.view,
                             events.records(), self.released_records, self.judged.aggregates,
                             self.left_out, files)

    def report(self, files: Mapping[str, str], output_order: Mapping[str, Any],
               search: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """:meth:`LinkedRelease.report` of this release."""
        return linked_report(self.view, self.identifiers, self.record(files), output_order,
                             search)
