"""Builders that make a generalization hierarchy from the values of an attribute.

Each builder is a frozen dataclass whose fields are the parameters a wizard shows;
``build(values)`` returns a hierarchy with a row for every distinct value that
validates and is topped by ``*``. Parameters are checked when a builder is made,
values when it builds; both raise HierarchyError with a message for the user.

Missing values (empty, NA, N/A, NaN, NULL, ?, as for data files) fit no interval,
date or order: :class:`IntervalBuilder`, :class:`DateBuilder` and
:class:`OrderingBuilder` (unless its order lists them) keep each one as its own
group, labelled by itself at every level below ``*``. :class:`MaskingBuilder` and
:class:`FlatBuilder` treat every value as plain text. :func:`builder_to_dict` and
:func:`builder_from_dict` store a builder and its parameters in a project.
"""

from arxpy.hierarchy.builders.base import (
    TOP,
    HierarchyBuilder,
    distinct_values,
    natural_key,
)
from arxpy.hierarchy.builders.dates import GRANULARITIES, DateBuilder
from arxpy.hierarchy.builders.flat import FlatBuilder
from arxpy.hierarchy.builders.intervals import IntervalBuilder
from arxpy.hierarchy.builders.masking import MaskingBuilder
from arxpy.hierarchy.builders.ordering import OrderingBuilder
from arxpy.hierarchy.builders.registry import BUILDERS, builder_from_dict, builder_to_dict

__all__ = [
    "BUILDERS",
    "GRANULARITIES",
    "TOP",
    "DateBuilder",
    "FlatBuilder",
    "HierarchyBuilder",
    "IntervalBuilder",
    "MaskingBuilder",
    "OrderingBuilder",
    "builder_from_dict",
    "builder_to_dict",
    "distinct_values",
    "natural_key",
]
