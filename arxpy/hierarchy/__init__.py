"""Generalization hierarchies: the model, ARX CSV files, validation and builders."""

from arxpy.hierarchy.builders import (
    BUILDERS,
    DateBuilder,
    FlatBuilder,
    HierarchyBuilder,
    IntervalBuilder,
    MaskingBuilder,
    OrderingBuilder,
    builder_from_dict,
    builder_to_dict,
)
from arxpy.hierarchy.io import (
    format_hierarchy_csv,
    parse_hierarchy_csv,
    read_hierarchy,
    write_hierarchy,
)
from arxpy.hierarchy.model import Hierarchy
from arxpy.hierarchy.validation import HierarchyProblem, check_hierarchy, validate_hierarchy

__all__ = [
    "BUILDERS",
    "DateBuilder",
    "FlatBuilder",
    "Hierarchy",
    "HierarchyBuilder",
    "HierarchyProblem",
    "IntervalBuilder",
    "MaskingBuilder",
    "OrderingBuilder",
    "builder_from_dict",
    "builder_to_dict",
    "check_hierarchy",
    "format_hierarchy_csv",
    "parse_hierarchy_csv",
    "read_hierarchy",
    "validate_hierarchy",
    "write_hierarchy",
]
