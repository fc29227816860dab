"""Remembering which builder, with which parameters, made a hierarchy."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from arxpy.errors import HierarchyError
from arxpy.hierarchy.builders.base import HierarchyBuilder, value_list
from arxpy.hierarchy.builders.dates import DateBuilder
from arxpy.hierarchy.builders.flat import FlatBuilder
from arxpy.hierarchy.builders.intervals import IntervalBuilder
from arxpy.hierarchy.builders.masking import MaskingBuilder
from arxpy.hierarchy.builders.ordering import OrderingBuilder

#: Builder classes by their ``kind``.
BUILDERS: dict[str, type[HierarchyBuilder]] = {
    cls.kind: cls
    for cls in (IntervalBuilder, OrderingBuilder, MaskingBuilder, DateBuilder, FlatBuilder)
}


def builder_to_dict(builder: HierarchyBuilder) -> dict[str, Any]:
    """A JSON-ready description, ``{"type": kind, "parameters": {name: value}}``
    (sequences as lists)."""
    parameters = {}
    for spec in fields(builder):  # type: ignore[arg-type]
        value = getattr(builder, spec.name)
        parameters[spec.name] = list(value) if isinstance(value, tuple) else value
    return {"type": builder.kind, "parameters": parameters}


def builder_from_dict(description: dict[str, Any]) -> HierarchyBuilder:
    """The builder that :func:`builder_to_dict` described; HierarchyError for an
    unknown type or parameter, or for parameter values the builder rejects."""
    kind = description.get("type") if isinstance(description, dict) else None
    if kind not in BUILDERS:
        raise HierarchyError(
            f"Hierarchy builder type {kind!r} is unknown; known types: {', '.join(BUILDERS)}."
        )
    cls = BUILDERS[kind]
    parameters = dict(description.get("parameters") or {})
    allowed = [spec.name for spec in fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(parameters) - set(allowed))
    if unknown:
        raise HierarchyError(
            f"The {kind} hierarchy builder has no parameter {value_list(unknown)}; "
            f"its parameters are {', '.join(allowed) or 'none'}."
        )
    return cls(**parameters)
