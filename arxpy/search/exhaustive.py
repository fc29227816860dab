"""The exhaustive strategy: check every transformation (the reference for tests)."""

from __future__ import annotations

import numpy as np

from arxpy.search.base import (
    ANONYMOUS,
    NOT_ANONYMOUS,
    Check,
    SearchContext,
    SearchOutcome,
    better,
)
from arxpy.search.optimal import check_lattice_size


def search_exhaustive(ctx: SearchContext) -> SearchOutcome:
    """Check all transformations bottom-up (so each can roll up from one below)."""
    lattice = ctx.lattice
    check_lattice_size(lattice.size, "exhaustive")
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
