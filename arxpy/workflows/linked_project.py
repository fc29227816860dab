"""Linked tables held by a project (issue 32): the project's table is the patient table,
``Project.events`` the event tables, and ``settings["linked"]`` says how they link and
what the patient-level view judges. Qt-free: the session and the GUI use it.

The setting holds names only: the link column, the aggregates of the view
(:class:`~arxpy.workflows.linked_tables.EventAggregate` names), the event tables' date
columns shifted with the project's identifier plan, and the shift range. Kept in the
settings, its edits are undoable and make a result stale like any other setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition, DataKind
from arxpy.data.types import infer_data_type
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import DateShift, IdentifierPlan, PseudonymKey
from arxpy.workflows.identifier_settings import KEY_MENU, check_key, plan_of
from arxpy.workflows.linked_release import JudgedView, judged_view
from arxpy.workflows.linked_tables import (
    CODE_SET,
    COUNT,
    FIRST_YEAR,
    EventAggregate,
    LinkedTables,
)

#: The settings key of the linked tables' choices.
LINKED = "linked"
#: The shift range offered before one is chosen (days either way).
DEFAULT_SHIFT_DAYS = 30
#: Rows read to guess which event columns hold dates (a guess the release checks).
SAMPLE_ROWS = 200


@dataclass(frozen=True)
class LinkedSettings:
    """How the event tables link to the patient table and what the view judges."""

    link_column: str
    aggregates: tuple[EventAggregate, ...] = ()
    #: Date columns of event tables shifted by the link column's patient.
    shifted: tuple[str, ...] = ()
    shift_days: int = DEFAULT_SHIFT_DAYS

    def to_dict(self) -> dict[str, Any]:
        return {"link_column": self.link_column,
                "aggregates": [a.name for a in self.aggregates],
                "shifted": list(self.shifted), "shift_days": self.shift_days}

    @classmethod
    def from_dict(cls, record: Any) -> LinkedSettings:
        """Read the setting; ConfigurationError naming the key that does not fit."""
        if not isinstance(record, Mapping) or not isinstance(record.get("link_column"), str):
            raise ConfigurationError(
                "The setting 'linked' must name its link column (a string).")
        aggregates, shifted = record.get("aggregates", []), record.get("shifted", [])
        days = record.get("shift_days", DEFAULT_SHIFT_DAYS)
        if not (_strings(aggregates) and _strings(shifted)):
            raise ConfigurationError(
                "The setting 'linked' lists its aggregates and shifted dates as names.")
        if not isinstance(days, int) or isinstance(days, bool) or days < 1:
            raise ConfigurationError(
                "The setting 'linked' needs a shift range of at least 1 day.")
        return cls(record["link_column"], tuple(EventAggregate.parse(a) for a in aggregates),
                   tuple(shifted), days)


def _strings(values: Any) -> bool:
    return isinstance(values, list) and all(isinstance(v, str) for v in values)


def linked_of(settings: Mapping[str, Any]) -> LinkedSettings | None:
    """The project's linked-table choices (None: it has no linked tables)."""
    record = settings.get(LINKED)
    return LinkedSettings.from_dict(record) if record else None


def with_linked(settings: Mapping[str, Any], linked: LinkedSettings | None) -> dict[str, Any]:
    """``settings`` with the linked choices replaced (None: removed)."""
    out = {k: v for k, v in settings.items() if k != LINKED}
    if linked is not None:
        out[LINKED] = linked.to_dict()
    return out


def date_columns(frame: pd.DataFrame, link_column: str | None = None) -> list[str]:
    """The columns of an event table whose first values read as dates."""
    sample = frame.head(SAMPLE_ROWS)
    return [c for c in sample.columns if c != link_column
            and infer_data_type(sample[c]).kind is DataKind.DATE]


def code_columns(frame: pd.DataFrame, link_column: str | None = None) -> list[str]:
    """The columns of an event table whose first values read as text or sets of codes
    (diagnoses, procedures): those a set aggregate may gather per patient."""
    sample = frame.head(SAMPLE_ROWS)
    return [c for c in sample.columns if c != link_column
            and infer_data_type(sample[c]).kind in (DataKind.STRING, DataKind.SET)]


def offered_aggregates(name: str, frame: pd.DataFrame,
                       link_column: str | None = None) -> list[EventAggregate]:
    """What the view may judge of event table ``name``: its count, the first year of
    each column that reads as dates, and the set of each column of codes."""
    return [EventAggregate(name, COUNT)] + [
        EventAggregate(name, FIRST_YEAR, c) for c in date_columns(frame, link_column)] + [
        EventAggregate(name, CODE_SET, c) for c in code_columns(frame, link_column)]


def without_table(linked: LinkedSettings, name: str,
                  remaining: Mapping[str, pd.DataFrame]) -> LinkedSettings:
    """``linked`` without the aggregates of table ``name``, and without the shifted
    dates no table of ``remaining`` holds."""
    held = {c for frame in remaining.values() for c in frame.columns}
    return LinkedSettings(linked.link_column,
                          tuple(a for a in linked.aggregates if a.table != name),
                          tuple(c for c in linked.shifted if c in held), linked.shift_days)


def linked_plan(plan: IdentifierPlan, linked: LinkedSettings) -> IdentifierPlan:
    """The project's plan with its date shift widened to the event tables' shifted
    dates: one range, by the link column's patient, so every date of a patient moves
    alike in every table."""
    own = plan.date_shift.attributes if plan.date_shift is not None else ()
    dates = tuple(dict.fromkeys((*own, *linked.shifted)))
    if not dates:
        return plan
    days = linked.shift_days if linked.shifted or plan.date_shift is None \
        else plan.date_shift.days
    return IdentifierPlan(plan.treatments, DateShift(dates, linked.link_column, days),
                          plan.mask_character)


def project_view(data: pd.DataFrame, definition: DataDefinition,
                 hierarchies: Mapping[str, Hierarchy], events: Mapping[str, pd.DataFrame],
                 settings: Mapping[str, Any], key: PseudonymKey | None,
                 patient_table: str) -> JudgedView:
    """The patient-level view of a project with linked tables, every table treated by
    the project's plan widened to the event dates. Raises ConfigurationError saying
    what to change (no key, a link column that is no pseudonym, ...)."""
    linked = linked_of(settings)
    if linked is None or not events:
        raise ConfigurationError("The project holds no linked tables; import or add one.")
    plan = linked_plan(plan_of(settings), linked)
    if plan.needs_key and key is None:
        raise ConfigurationError(
            "Keyed pseudonyms and date shifts need this project's key: choose its key file "
            f"({KEY_MENU}), or create one.")
    if key is not None:
        check_key(settings, key)
    tables = LinkedTables(data, dict(events), linked.link_column, patient_table)
    return judged_view(tables, definition, hierarchies, linked.aggregates, plan, key)
