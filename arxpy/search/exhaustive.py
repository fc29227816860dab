"""The exhaustive strategy: check every transformation (the reference for tests)."""

from __future__ import annotations

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.search.base import (
    ANONYMOUS,
    NOT_ANONYMOUS,
    Check,
    SearchContext,
    SearchOutcome,
    better,
)
from arxpy.search.optimal import MAX_NODES


def search_exhaustive(ctx: SearchContext) -> SearchOutcome:
    """Check all transformations bottom-up (so each can roll up from one below)."""
    lattice = ctx.lattice
    if lattice.size > MAX_NODES:
        raise ConfigurationError(
            f"The lattice has {lattice.size} transformations, too many for the exhaustive "
            "strategy; use the optimal or heuristic strategy."
        )
    nodes = lattice.nodes()
    order = np.argsort(nodes.sum(axis=1), kind="stable")
    states = np.zeros(len(nodes), dtype=np.int8)
    best: Check | None = None
    for position, index in enumerate(order):
        ctx.cancel.raise_if_cancelled()
        ctx.progress(position / len(order), f"Checked {position} of {len(order)} transformations")
        check = ctx.check(nodes[index])
        states[index] = ANONYMOUS if check.anonymous else NOT_ANONYMOUS
        if check.anonymous and better(check, best):
            best = check
    return ctx.outcome(best, optimal=True, states=states)
