"""Linked tables (issue 32): a patient table and event tables joined by a patient
identifier, judged together on a patient-level view. Qt-free.

The privacy models see one row per patient: the patient table's attributes plus the
aggregates of event tables the user chooses (:class:`EventAggregate`: the number of events,
the year of the earliest date of a column, the set of a column's codes).
:mod:`arxpy.workflows.linked_release` runs a method on that view and projects its release
back onto every table.
``docs/linked-tables.md`` says what is released for each table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.arrays import distinct
from arxpy.data.definition import (
    AttributeDefinition,
    AttributeType,
    DataDefinition,
    DataKind,
    DataType,
)
from arxpy.data.transactions import DEFAULT_CODE_DELIMITER
from arxpy.data.types import is_missing, parse_values
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers.dates import date_format_of

COUNT, FIRST_YEAR, CODE_SET = "count", "first-year", "set"
#: The kinds that summarize a column of the event table (named after the kind).
OF_COLUMN = (FIRST_YEAR, CODE_SET)
AGGREGATE_HELP = ("TABLE:count (events per patient), TABLE:first-year:DATE (year of the "
                  "patient's earliest DATE in TABLE) or TABLE:set:ATTR (the set of the "
                  "patient's ATTR codes in TABLE)")
#: How a patient without a date (first-year) or a code (set) in an event table reads.
NO_DATE = NO_CODES = "NA"
#: Width of the year bands of a first-year aggregate's default hierarchy.
YEAR_BAND = 5
#: Characters of a code kept by the levels of a set's default hierarchy: the category
#: of an ICD-9 or ICD-10 code ("250.01" -> "250", "E11.9" -> "E11"), then its first
#: character (the chapter letter of an ICD-10 code: "E").
CODE_PREFIXES = (3, 1)


@dataclass(frozen=True)
class EventAggregate:
    """A quasi-identifier of the patient view computed from the event table ``table``:
    ``count`` (its rows per patient), ``first-year`` of the date column ``attribute``, or
    ``set``: the patient's codes in column ``attribute`` (a set-valued attribute, codes
    sorted and joined by ``;``, judged as one value: the attacker knows them all)."""

    table: str
    kind: str
    attribute: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in (COUNT, *OF_COLUMN) or \
                (self.kind in OF_COLUMN) != bool(self.attribute):
            raise ConfigurationError(
                f"Cannot read the aggregate '{self.name}'; write {AGGREGATE_HELP}.")

    @property
    def name(self) -> str:
        """The view's column: ``TABLE:count``, ``TABLE:first-year:DATE`` or
        ``TABLE:set:ATTR``."""
        return ":".join(p for p in (self.table, self.kind, self.attribute) if p)

    @property
    def label(self) -> str:
        """The aggregate in words: "admissions per patient", "first year of Admission
        date", "set of Diagnosis" (listed under its table's count, which names the table)."""
        if self.kind == COUNT:
            return f"{self.table} per patient"
        if self.kind == CODE_SET:
            return f"set of {self.attribute}"
        return f"first year of {self.attribute}"

    @classmethod
    def parse(cls, text: str) -> EventAggregate:
        table, _, rest = text.partition(":")
        kind, _, attribute = rest.partition(":")
        if not (table and kind):
            raise ConfigurationError(f"Cannot read the aggregate '{text}'; write {AGGREGATE_HELP}.")
        return cls(table, kind, attribute or None)

    def to_dict(self) -> dict[str, str | None]:
        return {"name": self.name, "table": self.table, "kind": self.kind,
                "attribute": self.attribute}

    @property
    def definition(self) -> AttributeDefinition:
        # The released rows show every patient's number of events, so a count is judged
        # as it is: its level stays 0 whatever its hierarchy.
        kind = DataKind.SET if self.kind == CODE_SET else DataKind.INTEGER
        return AttributeDefinition(self.name, AttributeType.QUASI_IDENTIFYING, DataType(kind),
                                   max_level=0 if self.kind == COUNT else None)

    def values(self, events: pd.DataFrame, link: str, patients: pd.Series) -> pd.Series:
        """The aggregate of each patient of ``patients`` (link values), as text."""
        if self.kind == COUNT:
            return self.counted(events[link].astype(str).value_counts(), patients)
        self.refuse_unknown(events.columns)
        if self.kind == CODE_SET:
            return self._code_sets(events, link, patients)
        column = events[self.attribute]
        dates = parse_values(column.reset_index(drop=True), self.date_type(column))
        present = ~np.isnat(dates)
        first = pd.Series(dates[present].astype("datetime64[D]"),
                          index=events[link].astype(str).to_numpy()[present])
        return self.first_years(first.groupby(level=0).min(), patients)

    def date_type(self, values: pd.Series) -> DataType:
        """The date type a first-year aggregate reads ``values`` (its column) in."""
        try:
            return DataType(DataKind.DATE, date_format_of(values, None, self.attribute))
        except ConfigurationError:
            raise ConfigurationError(
                f"The aggregate '{self.name}' takes dates, but the values of "
                f"'{self.attribute}' are not dates with a day in a format arxpy "
                "recognizes.") from None

    @staticmethod
    def first_years(first: pd.Series, patients: pd.Series) -> pd.Series:
        """A first-year aggregate from ``first`` (each patient's earliest day,
        datetime64[D], by link value) for each patient of ``patients``, as text."""
        years = first.to_numpy(dtype="datetime64[D]").astype("datetime64[Y]").astype(
            np.int64) + 1970
        by_link = pd.Series(years, index=first.index)
        return pd.Series([NO_DATE if pd.isna(y) else str(int(y))
                          for y in patients.map(by_link)], dtype=object)

    def refuse_unknown(self, columns: Sequence[str]) -> None:
        """Refuse an aggregate of a column its table (with ``columns``) does not have."""
        if self.attribute not in columns:
            raise ConfigurationError(
                f"The aggregate '{self.name}' names no column of '{self.table}'.")

    @staticmethod
    def counted(counts: pd.Series, patients: pd.Series) -> pd.Series:
        """A count aggregate from ``counts`` (events by link value) for each patient of
        ``patients``, as text ("0" for a patient without events)."""
        return pd.Series(patients.map(counts).fillna(0).astype(np.int64).astype(str),
                         dtype=object)

    def _code_sets(self, events: pd.DataFrame, link: str, patients: pd.Series) -> pd.Series:
        """Each patient's codes of :attr:`attribute`, sorted, without repeats, joined by
        ``;`` (a cell holding several codes joined by ``;`` gives each)."""
        if self.attribute == link:
            raise ConfigurationError(
                f"The aggregate '{self.name}' would release each patient's identifier; "
                "choose another column.")
        owners, codes = _codes_by_patient(events[link], events[self.attribute])
        # Integers in place of strings: distinct (patient, code) pairs, sorted, give
        # every patient's codes in order with one sort.
        patient_of, patient_ids = pd.factorize(owners)
        code_of, vocabulary = pd.factorize(codes, sort=True)
        width = max(len(vocabulary), 1)
        pairs = distinct(patient_of.astype(np.int64) * width + code_of)
        owner, labels = pairs // width, np.asarray(vocabulary)[pairs % width].tolist()
        starts = np.flatnonzero(np.diff(owner, prepend=-1))  # each patient's first pair
        bounds = [*starts.tolist(), len(labels)]
        sets = pd.Series([DEFAULT_CODE_DELIMITER.join(labels[a:b])
                          for a, b in zip(bounds[:-1], bounds[1:], strict=True)],
                         index=np.asarray(patient_ids)[owner[starts]], dtype=object)
        return pd.Series(patients.map(sets).fillna(NO_CODES).to_numpy(), dtype=object)

    def hierarchy(self, values: pd.Series) -> Hierarchy:
        """The default hierarchy: a count as it is; a year, then its band of
        :data:`YEAR_BAND` years, then ``*``; a set of codes, then the sets of their
        prefixes of :data:`CODE_PREFIXES` characters (categories, chapters), then ``*``."""
        if self.kind == CODE_SET:
            return _code_set_hierarchy(values)
        numbers = sorted({int(v) for v in values if v != NO_DATE})
        if self.kind == COUNT:
            return Hierarchy((str(n), "*") for n in numbers)
        rows = [(str(y), f"{y - y % YEAR_BAND}-{y - y % YEAR_BAND + YEAR_BAND - 1}", "*")
                for y in numbers]
        if NO_DATE in set(values):
            rows.append((NO_DATE, NO_DATE, "*"))
        return Hierarchy(rows)


def _codes_by_patient(link: pd.Series, column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(patient, code) of every code present in ``column``, a cell of several codes
    joined by ``;`` split into each (stripped; empty and missing cells give none)."""
    column = column.astype(str)
    present = ~is_missing(column)
    owners, codes = link.astype(str).to_numpy()[present], column.to_numpy()[present]
    if column[present].str.contains(DEFAULT_CODE_DELIMITER, regex=False).any():
        pairs = pd.DataFrame({"patient": owners, "code": pd.Series(codes).str.split(
            DEFAULT_CODE_DELIMITER)}).explode("code")
        owners, codes = pairs["patient"].to_numpy(), pairs["code"].to_numpy()
    codes = pd.Series(codes, dtype=object).str.strip().to_numpy()
    kept = codes != ""
    return owners[kept], codes[kept]


def _code_set_hierarchy(values: pd.Series) -> Hierarchy:
    rows = []
    for codes in sorted(set(values)):
        members = codes.split(DEFAULT_CODE_DELIMITER)
        prefixes = [codes if codes == NO_CODES else DEFAULT_CODE_DELIMITER.join(
            sorted({c[:n] for c in members})) for n in CODE_PREFIXES]
        rows.append((codes, *prefixes, "*"))
    return Hierarchy(rows)


@dataclass(frozen=True)
class LinkedTables:
    """A patient table (one row per patient) and event tables by name, all holding
    ``link_column``, the patient identifier."""

    patients: pd.DataFrame
    events: Mapping[str, pd.DataFrame]
    link_column: str
    patient_table: str = "patients"

    @property
    def names(self) -> list[str]:
        return [self.patient_table, *self.events]

    def table(self, name: str) -> pd.DataFrame:
        return self.patients if name == self.patient_table else self.events[name]

    def check(self) -> None:
        """Refuse tables that do not link: a table without the link column, a patient
        without an identifier or with two rows, an event of no patient (counts only:
        the identifiers are personal data)."""
        link = self.link_column
        check_links(self.patient_table, link, self.patients.columns,
                    {name: frame.columns for name, frame in self.events.items()},
                    lambda: self.patients[link].astype(str),
                    lambda name, ids: int((~self.events[name][link].astype(str).isin(ids)).sum()))


def check_links(patient_table: str, link: str, patient_columns: Sequence[str],
                event_columns: Mapping[str, Sequence[str]],
                patient_ids: Callable[[], pd.Series],
                orphans: Callable[[str, pd.Series], int]) -> None:
    """:meth:`LinkedTables.check` for tables wherever they are: the columns of each
    table, ``patient_ids()`` the patient table's link values as text,
    ``orphans(name, ids)`` the rows of event table ``name`` naming none of ``ids``
    (each asked only once the checks before it passed)."""
    if patient_table in event_columns:
        raise ConfigurationError(
            f"The linked table '{patient_table}' has the patient table's name; "
            "give it another (--link NAME=FILE).")
    for name, names in {patient_table: patient_columns, **event_columns}.items():
        if link not in names:
            raise ConfigurationError(
                f"The table '{name}' has no link column '{link}'; every linked table "
                "names its patient in that column (--link-column ATTR).")
    ids = patient_ids()
    missing = int(is_missing(ids).sum())
    if missing:
        raise ConfigurationError(
            f"{missing} rows of the patient table have no '{link}'; each patient "
            "needs one to link their events.")
    repeated = int(ids.duplicated().sum())
    if repeated:
        raise ConfigurationError(
            f"{repeated} values of '{link}' appear more than once in the patient "
            "table, which holds one row per patient; put repeated rows in a linked "
            "table.")
    for name in event_columns:
        count = orphans(name, ids)
        if count:
            raise ConfigurationError(
                f"{count} rows of '{name}' name no patient of the patient table; "
                "add the patients or leave those rows out.")


def patient_view(tables: LinkedTables, definition: DataDefinition,
                 aggregates: tuple[EventAggregate, ...], hierarchies: Mapping[str, Hierarchy]
                 ) -> tuple[pd.DataFrame, DataDefinition, dict[str, Hierarchy]]:
    """(frame, definition, hierarchies) of the view: the patient table's rows, in its
    order, plus one quasi-identifying column per aggregate (with its default hierarchy
    unless ``hierarchies`` names one)."""
    ids = tables.patients[tables.link_column].astype(str).reset_index(drop=True)
    return view_of(tables.patients, tuple(tables.events), definition, aggregates, hierarchies,
                   lambda a: a.values(tables.events[a.table], tables.link_column, ids))


def view_of(patients: pd.DataFrame, events: tuple[str, ...], definition: DataDefinition,
            aggregates: tuple[EventAggregate, ...], hierarchies: Mapping[str, Hierarchy],
            values_of: Callable[[EventAggregate], pd.Series]
            ) -> tuple[pd.DataFrame, DataDefinition, dict[str, Hierarchy]]:
    """:func:`patient_view` with each aggregate's values (one per patient, in the patient
    table's order) given by ``values_of``; ``events`` names the event tables."""
    frame = patients.reset_index(drop=True).copy()
    attributes, hierarchies = list(definition), dict(hierarchies)
    for aggregate in aggregates:
        if aggregate.table not in events:
            raise ConfigurationError(
                f"The aggregate '{aggregate.name}' names no linked table; linked tables: "
                f"{', '.join(events) or 'none'}.")
        if aggregate.name in frame.columns:
            raise ConfigurationError(f"The aggregate '{aggregate.name}' is given twice.")
        values = values_of(aggregate)
        frame[aggregate.name] = values
        attributes.append(aggregate.definition)
        hierarchies.setdefault(aggregate.name, aggregate.hierarchy(values))
    return frame, DataDefinition(attributes), hierarchies


def left_out(aggregates: tuple[EventAggregate, ...]) -> dict[str, list[str]]:
    """The event columns a release leaves out, by table: those a first-year or a set
    aggregate summarizes (their values would tell more than the judged aggregate: the
    date of every event, the codes of every event)."""
    out: dict[str, list[str]] = {}
    for aggregate in aggregates:
        if aggregate.kind in OF_COLUMN and aggregate.attribute not in out.get(aggregate.table, []):
            out.setdefault(aggregate.table, []).append(aggregate.attribute)
    return out
