"""The simplest hierarchy: every value straight to ``*``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from arxpy.hierarchy.builders.base import TOP, HierarchyBuilder, natural_key, require_values
from arxpy.hierarchy.model import Hierarchy


@dataclass(frozen=True)
class FlatBuilder(HierarchyBuilder):
    """Every value generalizes straight to ``*`` (height 2, values sorted naturally)."""

    kind: ClassVar[str] = "flat"

    def build(self, values: Iterable[str]) -> Hierarchy:
        distinct = sorted(require_values(values, "flat"), key=natural_key)
        return Hierarchy((v, TOP) for v in distinct)
