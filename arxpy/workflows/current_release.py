"""The current release: what Utility, Risk and Export analyse (no Qt).

Either the applied transformation of the lattice search's result, or one finished run
of another method. Both give a :class:`~arxpy.release.Release`; views that need the
lattice (levels, hierarchies, the study) ask :attr:`CurrentRelease.is_lattice`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.result import Result
from arxpy.hierarchy.model import Hierarchy
from arxpy.release import Release
from arxpy.workflows.runs import MethodRun


@dataclass(frozen=True, eq=False)
class CurrentRelease:
    """The input and the release made of it; ``result``/``levels`` for the lattice
    search, ``run`` for any other method."""

    frame: pd.DataFrame
    definition: DataDefinition
    hierarchies: dict[str, Hierarchy]
    result: Result | None = None
    levels: tuple[int, ...] | None = None
    run: MethodRun | None = None
    #: The identifiers record of the treatments applied before the release (what the
    #: report lists: treatments, key fingerprint, shift range; never a key or a value).
    identifiers: dict[str, Any] | None = None

    @property
    def is_lattice(self) -> bool:
        return self.run is None

    @property
    def key(self) -> tuple[Any, ...]:
        """Equal for the same release of the same input (views skip recomputing it)."""
        return id(self.frame), id(self.result), self.levels, id(self.run)

    @property
    def label(self) -> str:
        """How headers name it: "transformation [1, 0, 2]" or the run's label."""
        if self.run is not None:
            return self.run.label
        return f"transformation {list(self.levels or ())}"

    @property
    def level_map(self) -> dict[str, int]:
        """Level per quasi-identifier; {} for releases of other methods."""
        if self.result is None or self.levels is None:
            return {}
        return dict(zip(self.result.quasi_identifiers, self.levels, strict=True))

    def release(self) -> Release:
        """The release itself (the lattice's is computed, and cached by the result)."""
        if self.run is not None:
            return self.run.release
        return self.result.release(self.levels)

    def suppressed(self) -> Any:
        """Per input record, True where the release suppresses it."""
        return self.release().suppressed
