"""The heuristic strategy: best-first under a time budget, for lattices too large to search.

In the spirit of ARX's "Lightning" (Prasser et al., "Lightning: utility-driven
anonymization of high-dimensional data", 2016): start from the bottom and repeatedly
expand the most promising transformation not yet expanded (lowest score; a lower
bound breaks ties), remembering the best anonymous one. The top is checked first so
that some anonymous transformation is known early whenever one exists. The result is
never claimed optimal, except when the top proves that no transformation is anonymous.
"""

from __future__ import annotations

import heapq

from arxpy.search.base import Check, SearchContext, SearchOutcome, better

#: Time budget when none is configured, in seconds.
DEFAULT_TIME_LIMIT = 10.0


def search_heuristic(ctx: SearchContext) -> SearchOutcome:
    """Best-first search until the time limit or until nothing is left to expand."""
    lattice = ctx.lattice
    ctx.score_all = True  # non-anonymous transformations' scores order the expansion
    budget = ctx.time_limit if ctx.time_limit is not None else DEFAULT_TIME_LIMIT
    best: Check | None = None
    top = ctx.check(lattice.top)
    if top.fails_downward or (ctx.monotonic and not top.anonymous):
        # Nothing below the top can be anonymous: the answer "none" is exact.
        return ctx.outcome(None, optimal=True, infeasible=1.0)
    for levels in (lattice.top, lattice.bottom):
        check = ctx.check(levels)
        if check.anonymous and better(check, best):
            best = check
    queue: list[tuple[tuple[float, ...], int, tuple[int, ...]]] = []
    heapq.heappush(queue, (ctx.checks[lattice.bottom].key, 0, lattice.bottom))
    seen = {lattice.bottom}
    while queue and ctx.elapsed < budget:
        ctx.cancel.raise_if_cancelled()
        ctx.progress(min(ctx.elapsed / budget, 0.99), f"Checked {len(ctx.checks)} transformations")
        _, _, levels = heapq.heappop(queue)
        for successor in lattice.successors(levels):
            if successor in seen:
                continue
            seen.add(successor)
            check = ctx.check(successor)
            if check.anonymous:
                if better(check, best):
                    best = check
                # Above an anonymous transformation the loss only grows for most models.
                continue
            heapq.heappush(queue, (check.key, sum(successor), successor))
            if ctx.elapsed >= budget:
                break
    return ctx.outcome(best, optimal=False)
