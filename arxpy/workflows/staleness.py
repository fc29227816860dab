"""What changed in the configuration since a result was computed (no Qt).

A result stays on screen after an edit, marked stale with these changes; undoing the
edits makes the configuration equal to the result's again, and the result current.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

from arxpy.data.definition import DataDefinition
from arxpy.hierarchy.model import Hierarchy

#: How settings keys read in a sentence.
SETTING_NAMES = {
    "privacy_models": "privacy models",
    "quality_model": "quality model",
    "suppression_limit": "suppression limit",
    "strategy": "search strategy",
    "time_limit": "time limit",
    "identifiers": "identifier treatments",
    "linked": "linked tables' aggregates or dates",
    "linked_tables": "linked tables",
}
_FIELD_NAMES = {"type": "type", "data_type": "data type", "min_level": "minimum level",
                "max_level": "maximum level", "weight": "weight"}


@dataclass(frozen=True)
class ConfigurationSnapshot:
    """The definition, hierarchies and settings a result was computed for."""

    definition: DataDefinition
    hierarchies: dict[str, Hierarchy]
    settings: dict[str, Any]

    @classmethod
    def of(cls, definition: DataDefinition, hierarchies: dict[str, Hierarchy],
           settings: dict[str, Any]) -> ConfigurationSnapshot:
        # Definitions and hierarchies are replaced, never mutated, by edits: no deep copy.
        return cls(definition, dict(hierarchies), copy.deepcopy(settings))

    def changes_to(self, now: ConfigurationSnapshot) -> list[str]:
        """What differs in ``now``, one short phrase each ("type of 'Age'"); [] if equal."""
        return (_definition_changes(self.definition, now.definition)
                + _hierarchy_changes(self.hierarchies, now.hierarchies)
                + [SETTING_NAMES.get(key, key.replace("_", " "))
                   for key in sorted(set(self.settings) | set(now.settings))
                   if self.settings.get(key) != now.settings.get(key)])


def _definition_changes(old: DataDefinition, new: DataDefinition) -> list[str]:
    if old is new:
        return []
    changes = []
    for name in new.names:
        if name not in old.names:
            changes.append(f"attribute '{name}'")
            continue
        before, after = old[name], new[name]
        for field in dataclasses.fields(after):
            if field.name != "name" and getattr(before, field.name) != getattr(after, field.name):
                changes.append(f"{_FIELD_NAMES.get(field.name, field.name)} of '{name}'")
    return changes


def _hierarchy_changes(old: dict[str, Hierarchy], new: dict[str, Hierarchy]) -> list[str]:
    return [f"hierarchy of '{name}'" for name in sorted(set(old) | set(new))
            if old.get(name) is not new.get(name) and old.get(name) != new.get(name)]


def describe(changes: list[str], limit: int = 3) -> str:
    """``changes`` as one phrase: the first ``limit`` and how many more."""
    shown = ", ".join(changes[:limit])
    more = len(changes) - limit
    return f"{shown} and {more} more" if more > 0 else shown
