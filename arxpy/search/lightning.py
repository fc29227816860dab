"""Lightning: ARX's best-effort bottom-up search, for lattices too large to search.

ARX 3.9.2 ``algorithm/LIGHTNINGAlgorithm.java`` (Prasser, Bild, Eicher, Spengler, Kuhn:
"Lightning: utility-driven anonymization of high-dimensional data", Trans. Data
Privacy 9(2), 2016). A priority queue ordered by information loss starts at the bottom.
Each step takes the best transformation not yet expanded and checks all of its direct
generalizations, queueing them; every ``stepping``-th step (``stepping`` = the top's
height) it then dives greedily upwards, always to the successor with the least loss,
until nothing is left to expand, so that an anonymous transformation is found early
even with many quasi-identifiers. A transformation whose lower bound on the loss is no
better than the best anonymous one found is not expanded. The search stops at the time
limit (or when nothing is left) and returns the best anonymous transformation checked.

arxpy checks the top first, as ARX's Lightning does not: when the top fails a monotonic
model, no transformation is anonymous and "none" is exact at once.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

import numpy as np

from arxpy.search.base import Check, SearchContext, SearchOutcome, reaches, tracks_optimum

#: Time budget when none is configured, in seconds.
DEFAULT_TIME_LIMIT = 10.0


class _Lightning:
    def __init__(self, ctx: SearchContext) -> None:
        self.ctx, self.lattice = ctx, ctx.lattice
        ctx.score_all = True  # non-anonymous transformations' losses order the queue
        self.budget = ctx.time_limit if ctx.time_limit is not None else DEFAULT_TIME_LIMIT
        self.best: Check | None = None
        self.expanded: set[tuple[int, ...]] = set()
        self.insufficient: set[tuple[int, ...]] = set()
        self.queue: list[tuple[tuple[float, ...], int, tuple[int, ...]]] = []
        self.pushed = 0  # ties leave the queue in the order they came (ARX: unspecified)
        height = sum(self.lattice.top) - sum(self.lattice.bottom)
        self.stepping = max(height, 1)

    def stop(self) -> bool:
        """ARX's ``mustStop``: the time limit, or the step limit in checks."""
        limit = self.ctx.step_limit
        return self.ctx.elapsed >= self.budget or (limit is not None
                                                   and len(self.ctx.checks) >= limit)

    def check(self, levels: tuple[int, ...]) -> Check:
        fresh = levels not in self.ctx.checks
        check = self.ctx.check(levels)
        if fresh:
            if check.anonymous and tracks_optimum(check, self.best):
                self.best = check
            self.ctx.progress(min(self.ctx.elapsed / self.budget, 0.99),
                              f"Checked {len(self.ctx.checks):,} transformations")
        return check

    def push(self, check: Check) -> None:
        self.pushed += 1
        heapq.heappush(self.queue, (check.key, self.pushed, check.levels))

    def pruned(self, levels: tuple[int, ...]) -> bool:
        """Expanded already, or its loss cannot beat the best anonymous one."""
        if levels in self.expanded or levels in self.insufficient:
            return True
        if self.best is not None and levels != self.best.levels:
            bound = self._bound(levels)
            if bound is not None and reaches(bound, self.best.key):
                self.insufficient.add(levels)
                return True
        return False

    def _bound(self, levels: tuple[int, ...]) -> tuple[float, ...] | None:
        quality = self.ctx.quality
        from_levels = quality.lower_bounds_for_levels(np.asarray([levels], dtype=np.int64))
        if from_levels is not None:
            return (float(from_levels[0]),)
        return quality.lower_bound_key(self.ctx.classes(levels))

    def expand(self, levels: tuple[int, ...]) -> tuple[int, ...] | None:
        """Check and queue the successors; the one with the least loss."""
        chosen: Check | None = None
        for successor in self._successors(levels):
            check = self.check(successor)
            self.push(check)
            if chosen is None or check.key < chosen.key:
                chosen = check
            if self.stop():
                return None
        self.expanded.add(levels)
        return None if chosen is None else chosen.levels

    def _successors(self, levels: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        for successor in self.lattice.successors(levels):
            if successor not in self.expanded and successor not in self.insufficient:
                yield successor

    def dive(self, levels: tuple[int, ...] | None) -> None:
        """Depth first, without backtracking: always on to the best successor."""
        while levels is not None and not self.stop():
            levels = self.expand(levels)

    def run(self) -> SearchOutcome:
        ctx, lattice = self.ctx, self.lattice
        top = self.check(lattice.top)
        if top.fails_downward or (ctx.monotonic and not top.anonymous):
            return ctx.outcome(None, optimal=True, infeasible=1.0)
        self.push(self.check(lattice.bottom))
        step = 0
        while self.queue and not self.stop():
            ctx.cancel.raise_if_cancelled()
            _, _, levels = heapq.heappop(self.queue)
            if self.pruned(levels):
                continue
            step += 1
            if step % self.stepping == 0:
                self.dive(levels)
            else:
                self.expand(levels)
        # Nothing left to expand before the time ran out: every transformation that could
        # beat the best was checked (ARX: "optimum found").
        return ctx.outcome(self.best, optimal=not self.queue and not self.stop())


def search_lightning(ctx: SearchContext) -> SearchOutcome:
    """ARX's Lightning until the time limit or until nothing is left to expand."""
    return _Lightning(ctx).run()
