"""The generalization hierarchy of one attribute.

A hierarchy is a table with one row per original value: column 0 holds the value,
column ``i`` its generalization at level ``i`` (the top level is usually ``*``).
This is ARX's model and its CSV format. Rows are kept exactly as given, even when
ragged, so that validation can report what is wrong instead of failing on load.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from arxpy.errors import HierarchyError


class Hierarchy:
    """An immutable generalization hierarchy (rows of strings, column 0 = original)."""

    def __init__(self, rows: Iterable[Sequence[str]]) -> None:
        self._rows: tuple[tuple[str, ...], ...] = tuple(tuple(str(c) for c in r) for r in rows)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> Hierarchy:
        return cls(frame.astype(str).itertuples(index=False, name=None))

    @property
    def rows(self) -> tuple[tuple[str, ...], ...]:
        return self._rows

    @property
    def height(self) -> int:
        """Number of levels including level 0 (the original values)."""
        return max((len(r) for r in self._rows), default=0)

    @property
    def is_rectangular(self) -> bool:
        return len({len(r) for r in self._rows}) <= 1

    @property
    def values(self) -> list[str]:
        """The original values (column 0) in hierarchy order."""
        return [r[0] for r in self._rows if r]

    def level(self, level: int) -> list[str]:
        """Column ``level`` of every row (requires a rectangular hierarchy)."""
        self._require_rectangular()
        if not 0 <= level < self.height:
            raise HierarchyError(
                f"Level {level} does not exist; levels are 0 to {self.height - 1}."
            )
        return [r[level] for r in self._rows]

    def labels(self, level: int) -> list[str]:
        """The distinct labels of a level, in order of first appearance."""
        return list(dict.fromkeys(self.level(level)))

    def mapping(self, level: int) -> dict[str, str]:
        """Original value -> its label at ``level``."""
        return dict(zip(self.level(0), self.level(level), strict=True))

    def to_frame(self) -> pd.DataFrame:
        self._require_rectangular()
        return pd.DataFrame(list(self._rows), columns=[f"Level-{i}" for i in range(self.height)])

    def _require_rectangular(self) -> None:
        if not self.is_rectangular:
            raise HierarchyError(
                "Hierarchy rows have different numbers of levels; fix them before use.",
            )

    def __len__(self) -> int:
        return len(self._rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hierarchy) and self._rows == other._rows

    def __hash__(self) -> int:
        return hash(self._rows)

    def __repr__(self) -> str:
        return f"Hierarchy({len(self._rows)} values, height {self.height})"
