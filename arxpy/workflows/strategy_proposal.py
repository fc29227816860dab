"""What Configure and Run propose when the lattice is too large for the optimal search
(issue 34): Lightning or the genetic strategy under a time limit, with one click.

The engine refuses such a lattice (``check_lattice_size``) before it encodes anything;
this module tells the window beforehand, from the hierarchies' heights alone, and makes
the settings the proposal's buttons write.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arxpy.data.definition import DataDefinition
from arxpy.errors import ArxpyError
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.encoding import lattice_size_of
from arxpy.search.optimal import MAX_NODES

#: The strategies that hold one state per transformation, so MAX_NODES bounds them.
BOUNDED = ("optimal", "exhaustive")
#: The time limit a proposal sets when none is set (ARX's genetic benchmarks use 60 s).
PROPOSED_TIME_LIMIT = 60.0
#: The proposed strategies, with their button texts' names.
PROPOSED = {"lightning": "Lightning", "genetic": "genetic"}


@dataclass(frozen=True)
class StrategyProposal:
    """The lattice is too large for the chosen strategy; these settings would search it."""

    lattice_size: int
    strategy: str
    time_limit: float

    @property
    def problem(self) -> str:
        return (f"The lattice has {self.lattice_size:,} transformations, too many for the "
                f"{self.strategy} strategy (at most {MAX_NODES:,}).")

    @property
    def text(self) -> str:
        return (f"{self.problem} Search it within a time limit instead, or narrow the "
                "generalization levels.")

    @property
    def hint(self) -> str:
        """The short form beside the settings (its buttons say only the strategy)."""
        return f"{self.problem} Search within {self.time_limit:g} s instead:"

    def button_text(self, strategy: str, short: bool = False) -> str:
        if short:
            return f"Use {PROPOSED[strategy]}"
        return f"Use {PROPOSED[strategy]} (time limit {self.time_limit:g} s)"

    def settings(self, settings: Mapping[str, Any], strategy: str) -> dict[str, Any]:
        """``settings`` with ``strategy`` (lightning or genetic) and the time limit."""
        return {**settings, "strategy": strategy, "time_limit": self.time_limit}


def strategy_proposal(definition: DataDefinition, hierarchies: Mapping[str, Hierarchy],
                      settings: Mapping[str, Any]) -> StrategyProposal | None:
    """The proposal when the settings' strategy cannot search this lattice, else None
    (also None while a hierarchy is missing or a level is out of range: the engine then
    says what to fix)."""
    strategy = settings.get("strategy") or "optimal"
    if strategy not in BOUNDED:
        return None
    try:
        size = lattice_size_of(definition, hierarchies)
    except ArxpyError:
        return None
    if size is None or size <= MAX_NODES:
        return None
    return StrategyProposal(size, strategy,
                            float(settings.get("time_limit") or PROPOSED_TIME_LIMIT))
