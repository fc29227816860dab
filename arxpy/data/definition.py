"""Attribute definitions: what role each column plays in de-identification.

A table in arxpy is a pandas DataFrame whose cells are the strings read from the
source (missing values such as ``""`` or ``"NA"`` are kept as their own value).
A :class:`DataDefinition` says, per column, its attribute type (identifying,
quasi-identifying, sensitive, insensitive), its data type, and for
quasi-identifiers the allowed generalization levels and a weight.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from arxpy.data.transactions import DEFAULT_CODE_DELIMITER
from arxpy.errors import DefinitionError

#: The weight of an attribute nobody gave one, as in ARX (``ARXConfiguration.
#: getAttributeWeight``); weighted quality models divide every weight by the largest,
#: so only ratios matter.
DEFAULT_WEIGHT = 0.5


class AttributeType(StrEnum):
    """The role of an attribute, as in ARX."""

    IDENTIFYING = "identifying"  # removed from every output
    QUASI_IDENTIFYING = "quasi-identifying"  # generalized; needs a hierarchy
    SENSITIVE = "sensitive"  # kept; protected by l-diversity, t-closeness, ...
    INSENSITIVE = "insensitive"  # kept as is

    @property
    def label(self) -> str:
        return self.value.capitalize()


class DataKind(StrEnum):
    """The data types arxpy infers and understands."""

    INTEGER = "integer"
    DECIMAL = "decimal"
    DATE = "date"
    STRING = "string"
    ORDINAL = "ordinal"
    #: A set of codes per record (e.g. diagnosis codes) in one cell, separated by the
    #: type's ``format`` (default ``;``); read by :mod:`arxpy.data.transactions`.
    SET = "set"


@dataclass(frozen=True)
class DataType:
    """A data type with its format.

    ``format`` is a ``strptime`` pattern for dates (for example ``"%Y-%m-%d"``), ``","``
    for decimals written with a decimal comma, and unused otherwise. ``order`` lists the
    values of an ordinal attribute from lowest to highest. For a set the ``format`` is
    the delimiter of the codes in a cell (``None``: ``;``, the default of
    :mod:`arxpy.data.transactions`).
    """

    kind: DataKind = DataKind.STRING
    format: str | None = None
    order: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind is DataKind.ORDINAL and not self.order:
            raise DefinitionError("An ordinal data type needs the order of its values.")
        if self.kind is DataKind.DATE and not self.format:
            raise DefinitionError("A date data type needs a format such as %Y-%m-%d.")

    @property
    def is_numeric(self) -> bool:
        return self.kind in (DataKind.INTEGER, DataKind.DECIMAL)

    def describe(self) -> str:
        if self.kind is DataKind.DATE:
            return f"date ({self.format})"
        if self.kind is DataKind.ORDINAL:
            return f"ordinal ({len(self.order or ())} values)"
        if self.kind is DataKind.SET:
            return f"set of codes (separated by {self.code_delimiter!r})"
        return self.kind.value

    @property
    def code_delimiter(self) -> str:
        """The delimiter of the codes in a cell of a set (``;`` unless the format says)."""
        return self.format or DEFAULT_CODE_DELIMITER

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value}
        if self.format is not None:
            out["format"] = self.format
        if self.order is not None:
            out["order"] = list(self.order)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DataType:
        order = d.get("order")
        return cls(DataKind(d["kind"]), d.get("format"), tuple(order) if order else None)


@dataclass(frozen=True)
class AttributeDefinition:
    """Everything arxpy knows about one column.

    ``min_level``/``max_level`` bound the generalization levels the search may use
    for a quasi-identifier (``None`` = hierarchy bottom/top). ``weight`` (> 0)
    scales the attribute's contribution to weighted quality models; an attribute
    without one gets :data:`DEFAULT_WEIGHT` (0.5), as in ARX.
    """

    name: str
    type: AttributeType = AttributeType.INSENSITIVE
    data_type: DataType = field(default_factory=DataType)
    min_level: int | None = None
    max_level: int | None = None
    weight: float = DEFAULT_WEIGHT

    def __post_init__(self) -> None:
        if not (isinstance(self.weight, int | float) and 0 < self.weight < math.inf):
            raise DefinitionError(
                f"Weight of '{self.name}' must be a positive finite number, got {self.weight}.")
        for bound in (self.min_level, self.max_level):
            if bound is not None and bound < 0:
                raise DefinitionError(
                    f"Generalization levels of '{self.name}' must be 0 or more, got {bound}."
                )
        if (
            self.min_level is not None
            and self.max_level is not None
            and self.min_level > self.max_level
        ):
            raise DefinitionError(
                f"Minimum generalization level of '{self.name}' ({self.min_level}) "
                f"exceeds its maximum ({self.max_level})."
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type.value,
            "data_type": self.data_type.to_dict(),
            "min_level": self.min_level,
            "max_level": self.max_level,
            "weight": self.weight,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AttributeDefinition:
        return cls(
            name=d["name"],
            type=AttributeType(d.get("type", AttributeType.INSENSITIVE.value)),
            data_type=DataType.from_dict(d.get("data_type", {"kind": "string"})),
            min_level=d.get("min_level"),
            max_level=d.get("max_level"),
            # Missing = never set = ARX's default (arxpy has always written every weight,
            # so the files it wrote keep theirs: see docs/engine.md, "Attribute weights").
            weight=float(d.get("weight", DEFAULT_WEIGHT)),
        )


class DataDefinition:
    """The ordered attribute definitions of a table (one per column, data order)."""

    def __init__(self, attributes: Iterable[AttributeDefinition] = ()) -> None:
        self._attributes: dict[str, AttributeDefinition] = {}
        for attribute in attributes:
            if attribute.name in self._attributes:
                raise DefinitionError(f"Attribute '{attribute.name}' is defined twice.")
            self._attributes[attribute.name] = attribute

    @classmethod
    def for_columns(cls, columns: Iterable[str]) -> DataDefinition:
        """All columns insensitive strings: the starting point after an import."""
        return cls(AttributeDefinition(str(c)) for c in columns)

    def __iter__(self) -> Iterator[AttributeDefinition]:
        return iter(self._attributes.values())

    def __len__(self) -> int:
        return len(self._attributes)

    def __contains__(self, name: object) -> bool:
        return name in self._attributes

    def __getitem__(self, name: str) -> AttributeDefinition:
        try:
            return self._attributes[name]
        except KeyError:
            known = ", ".join(self._attributes) or "none"
            raise DefinitionError(
                f"Unknown attribute '{name}'. Known attributes: {known}."
            ) from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DataDefinition) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"DataDefinition({list(self)!r})"

    @property
    def names(self) -> list[str]:
        return list(self._attributes)

    def with_attribute(self, name: str, **changes: Any) -> DataDefinition:
        """A copy with the named attribute's fields changed (definitions are immutable)."""
        updated = replace(self[name], **changes)
        return DataDefinition(updated if a.name == name else a for a in self)

    def of_type(self, attribute_type: AttributeType) -> list[str]:
        """Names of the attributes of one type, in data order."""
        return [a.name for a in self if a.type is attribute_type]

    @property
    def quasi_identifiers(self) -> list[str]:
        return self.of_type(AttributeType.QUASI_IDENTIFYING)

    @property
    def sensitive(self) -> list[str]:
        return self.of_type(AttributeType.SENSITIVE)

    @property
    def identifying(self) -> list[str]:
        return self.of_type(AttributeType.IDENTIFYING)

    def check_columns(self, columns: Iterable[str]) -> None:
        """Raise unless the definition names exactly these columns."""
        columns = list(columns)
        missing = [c for c in columns if c not in self._attributes]
        extra = [n for n in self._attributes if n not in columns]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"columns without a definition: {', '.join(missing)}")
            if extra:
                parts.append(f"definitions without a column: {', '.join(extra)}")
            raise DefinitionError("Definition does not match the data (" + "; ".join(parts) + ").")

    def to_list(self) -> list[dict[str, Any]]:
        return [a.to_dict() for a in self]

    @classmethod
    def from_list(cls, items: Iterable[dict[str, Any]]) -> DataDefinition:
        return cls(AttributeDefinition.from_dict(d) for d in items)
