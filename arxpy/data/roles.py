"""Which attributes fit a role a method asks for (a survival time, a class to predict),
and which one a form may suggest from its name.

A form never fills a required attribute with an arbitrary column: it offers the
attributes whose data type fits and, when exactly one column is named like the role
(``time``, ``class``, ``status``, …), suggests it and says so. Nothing here decides for
the user; :func:`guess_attribute` returns None when in doubt.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from arxpy.data.definition import AttributeType, DataDefinition, DataKind

#: Data types of numbers (a survival time, a response, an interval's attribute).
NUMERIC = (DataKind.INTEGER.value, DataKind.DECIMAL.value)
#: Data types a class to predict can have: categories or whole numbers.
DISCRETE = (DataKind.STRING.value, DataKind.ORDINAL.value, DataKind.INTEGER.value)

#: Column names (lower case, words separated by spaces) that name a role.
SURVIVAL_TIME_NAMES = ("time", "survival time", "survival", "futime", "follow up",
                       "follow up time", "time to event", "os time", "survival days")
STATUS_NAMES = ("status", "vital status", "event", "death", "dead", "died", "deceased",
                "fustat", "censor", "censored", "os status")
CLASS_NAMES = ("class", "label", "target", "outcome", "response", "diagnosis")

#: How data types read in messages ("sex is text, not a number").
KIND_WORDS = {"string": "text", "integer": "a whole number", "decimal": "a decimal number",
              "date": "a date", "ordinal": "ordinal", "set": "a set of codes"}


#: Why a form never offers an identifying attribute: it is removed, or released as a
#: treated identifier (a pseudonym), never judged or generalized by a method.
IDENTIFYING_REASON = "identifying: it is removed or released as a treated identifier, " \
    "never used by a method"


def normalized_name(name: str) -> str:
    """``"Survival_Time"`` -> ``"survival time"``: lower case, one space between words."""
    return re.sub(r"[\s_\-.]+", " ", name).strip().lower()


def fits(definition: DataDefinition, name: str, data_types: Collection[str]) -> bool:
    """Whether attribute ``name``'s data type is one of ``data_types`` (empty: any)."""
    return not data_types or definition[name].data_type.kind.value in data_types


def fitting_attributes(definition: DataDefinition, data_types: Collection[str] = (),
                       *, identifying: bool = True) -> list[str]:
    """The attributes, in table order, whose data type is one of ``data_types`` (empty:
    any); identifying attributes only with ``identifying``."""
    return [a.name for a in definition
            if fits(definition, a.name, data_types)
            and (identifying or a.type is not AttributeType.IDENTIFYING)]


def guess_attribute(definition: DataDefinition, named_like: Sequence[str],
                    data_types: Collection[str] = (), *, exclude: Collection[str] = (),
                    identifying: bool = True) -> str | None:
    """The one fitting attribute named like the role (``named_like`` in order of
    preference, compared by :func:`normalized_name`); None if none is, or if two
    columns are named alike."""
    candidates = [name for name in fitting_attributes(definition, data_types,
                                                      identifying=identifying)
                  if name not in exclude]
    for wanted in named_like:
        matches = [name for name in candidates if normalized_name(name) == wanted]
        if len(matches) == 1:
            return matches[0]
        if matches:
            return None  # "Time" and "time": the user must say which
    return None


def misfit_reason(definition: DataDefinition, name: object,
                  data_types: Collection[str] = ()) -> str:
    """Why ``name`` cannot fill a role needing ``data_types`` ("" if it can)."""
    if not isinstance(name, str) or name not in definition.names:
        return "not an attribute of the data"
    if definition[name].type is AttributeType.IDENTIFYING:
        return IDENTIFYING_REASON
    if not fits(definition, name, data_types):
        kind = definition[name].data_type.kind.value
        wanted = "a number" if set(data_types) <= set(NUMERIC) else \
            " or ".join(KIND_WORDS.get(t, t) for t in data_types)
        return f"{KIND_WORDS.get(kind, kind)}, not {wanted}"
    return ""
