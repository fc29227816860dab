"""The project's identifier plan as a setting, and the release inputs it gives (no Qt).

A project keeps its plan in ``settings["identifiers"]``, in the shape of the report's
``identifiers`` record (:meth:`IdentifierPlan.from_record` reads both), with the
fingerprint of the key its pseudonyms and date shifts were made with: never the key,
which the user chooses per session from its key file (see docs/identifiers.md).
Keeping it in the settings makes edits undoable and stale results visible like any
other setting.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import (
    REMOVE,
    DateShift,
    IdentifierPlan,
    PseudonymKey,
    TreatedTable,
    Treatment,
)

#: The settings key holding the plan (and the key's fingerprint).
IDENTIFIERS = "identifiers"
KEY_MENU = "File > Choose pseudonym key…"


def plan_of(settings: Mapping[str, Any]) -> IdentifierPlan:
    """The project's plan (an empty one when it has none)."""
    record = settings.get(IDENTIFIERS)
    return IdentifierPlan.from_record(record) if record else IdentifierPlan()


def is_empty(plan: IdentifierPlan) -> bool:
    return not plan.treatments and plan.date_shift is None


def recorded_fingerprint(settings: Mapping[str, Any]) -> str | None:
    """The fingerprint of the key the project's pseudonyms were made with, if any."""
    record = settings.get(IDENTIFIERS) or {}
    return record.get("key_fingerprint")


def plan_record(plan: IdentifierPlan, fingerprint: str | None) -> dict[str, Any] | None:
    """The setting for ``plan`` (None: no plan); ``fingerprint`` only where a key is
    needed."""
    if is_empty(plan):
        return None
    return {"treatments": [t.to_dict() for t in plan.treatments],
            "date_shift": None if plan.date_shift is None else plan.date_shift.to_dict(),
            "mask_character": plan.mask_character,
            "key_fingerprint": fingerprint if plan.needs_key else None}


def with_treatment(plan: IdentifierPlan, attribute: str,
                   treatment: Treatment | None) -> IdentifierPlan:
    """``plan`` with ``attribute``'s treatment replaced (None: removed, the default)."""
    drop = treatment is None or treatment.kind == REMOVE
    treatments = [treatment if t.attribute == attribute else t for t in plan.treatments
                  if not (drop and t.attribute == attribute)]
    if not drop and treatment not in treatments:
        treatments.append(treatment)
    return IdentifierPlan(tuple(treatments), plan.date_shift, plan.mask_character)


def with_date_shift(plan: IdentifierPlan, shift: DateShift | None) -> IdentifierPlan:
    return IdentifierPlan(plan.treatments, shift, plan.mask_character)


def without_attribute(plan: IdentifierPlan, attribute: str) -> IdentifierPlan:
    """``plan`` without ``attribute``'s treatment (the attribute is no longer
    identifying); its date shift stays (the run refuses what no longer fits)."""
    return with_treatment(plan, attribute, None)


def check_key(settings: Mapping[str, Any], key: PseudonymKey) -> None:
    """Refuse a key that is not the one the project's pseudonyms were made with."""
    recorded = recorded_fingerprint(settings)
    if recorded is not None and key.fingerprint != recorded:
        raise ConfigurationError(
            f"The chosen key (fingerprint {key.fingerprint}) is not this project's (fingerprint "
            f"{recorded}); choose the key file its pseudonyms were made with. Another key "
            "gives pseudonyms and date shifts that link to no earlier release.")


def treated_inputs(data: pd.DataFrame, definition: DataDefinition,
                   hierarchies: Mapping[str, Hierarchy], settings: Mapping[str, Any],
                   key: PseudonymKey | None) -> TreatedTable | None:
    """The table every run releases: dates shifted and identifiers treated (None: no
    plan, the data as they are). Raises ConfigurationError saying what is missing."""
    plan = plan_of(settings)
    if is_empty(plan):
        return None
    if plan.needs_key and key is None:
        recorded = recorded_fingerprint(settings)
        which = f" (fingerprint {recorded})" if recorded else ""
        raise ConfigurationError(
            f"Keyed pseudonyms and date shifts need this project's key{which}: choose its "
            f"key file ({KEY_MENU}), or create one.")
    if key is not None:
        check_key(settings, key)
    return plan.apply(data, definition, key, hierarchies)


def refuse_treated_claims(treated: Iterable[str], claims: Iterable[Any]) -> None:
    """A method that picked a treated column as a quasi-identifier itself (every
    attribute, when none is declared) is refused: a pseudonym never is one."""
    treated = set(treated)
    for claim in claims:
        named = sorted(treated & set(claim.attributes))
        if named:
            raise ConfigurationError(
                f"The method judged '{named[0]}' as a quasi-identifier, but it is a treated "
                "identifier, which never is one; mark the quasi-identifiers in Configure.")


def describe(record: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """(attribute, treatment in words) for each treatment of a plan's ``record``:
    what the report and the panel's summary show (formats and rules, never values)."""
    if not record:
        return []
    rows = []
    for t in record.get("treatments", ()):
        kind = t["treatment"]
        if kind == "keyed-pseudonym":
            text = f"keyed pseudonym {t['format']} (namespace {t['namespace']}, HMAC-SHA-256)"
        elif kind == "mask":
            text = f"masked ({t['rule']})"
        elif kind == "random-replacement":
            text = f"random replacement {t['format']} (not reproducible)"
        else:
            text = "removed"
        rows.append((t["attribute"], text))
    return rows
