"""The optimal strategy: best-first over lower bounds, with predictive tagging.

Provably optimal like ARX's Flash (Kohlmayer et al., "Flash: efficient, stable and
optimal k-anonymity", 2012), but ordered by the quality model's lower bound:

* Transformations are visited in increasing order of their lower bound (when the model
  can bound from levels alone) or of their height. Once the next bound reaches the best
  score found, no unvisited transformation can beat it and the search stops.
* Without level bounds, a bound computed from a transformation's classes that reaches
  the best prunes it and everything above it (bounds grow with generalization).
* A bound equal to the best prunes too, as in ARX (``FLASHAlgorithmImpl.skip``): what it
  skips can only tie, and ARX's choice among ties is settled afterwards by replaying its
  traversal (:mod:`arxpy.search.flash`), which only lattices it can replay allow.
* Predictive tagging (Flash, Sec. 4): when the privacy models are monotonic, a
  non-anonymous transformation makes every transformation below it non-anonymous
  (skipped unchecked), an anonymous one every transformation above it anonymous.
* Classes come from the snapshot cache by roll-up (Flash, Sec. 5) when possible.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.jobs import ThrottledProgress
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.search.base import (
    ANONYMOUS,
    NOT_ANONYMOUS,
    Check,
    SearchContext,
    SearchOutcome,
    better,
    exceeds,
    reaches,
)
from arxpy.search.flash import (
    FULL,
    MAX_REPLAY_NODES,
    FlashReplay,
    privacy_monotonicity,
    utility_monotonic,
)

#: Largest lattice the optimal strategy enumerates (one state byte per node).
MAX_NODES = 5_000_000


class _Boxes:
    """Up-sets and down-sets of nodes as boxes of a grid of the lattice's shape.

    A node-state array indexed like :meth:`Lattice.index`, reshaped to the lattice's
    widths, holds the up-set and the down-set of a node as boxes; the slices are made
    once per attribute and level and picked by ``map`` (this runs per check).
    """

    def __init__(self, bottom: Sequence[int], top: Sequence[int],
                 place_values: Sequence[int]) -> None:
        self._above = [[slice(v - b, None) for v in range(b, t + 1)]
                       for b, t in zip(bottom, top, strict=True)]
        self._below = [[slice(0, v - b + 1) for v in range(b, t + 1)]
                       for b, t in zip(bottom, top, strict=True)]
        self._bottom = [int(b) for b in bottom]
        self.places = [int(p) for p in place_values]
        self._offset = sum(b * p for b, p in zip(self._bottom, self.places, strict=True))

    def index(self, levels: Sequence[int]) -> int:
        """:meth:`Lattice.index` in plain Python."""
        return sum(map(operator.mul, levels, self.places)) - self._offset

    def above(self, levels: Sequence[int]) -> tuple[slice, ...]:
        return tuple(map(operator.getitem, self._above, map(operator.sub, levels, self._bottom)))

    def below(self, levels: Sequence[int]) -> tuple[slice, ...]:
        return tuple(map(operator.getitem, self._below, map(operator.sub, levels, self._bottom)))

    def tag(self, grid: np.ndarray, levels: Sequence[int], anonymous: bool) -> None:
        """Predictive tagging of everything above (anonymous) or below (not) ``levels``."""
        if anonymous:
            # Nothing above a node holding a monotonic property can fail it: the whole
            # box is set, without reading it first.
            grid[self.above(levels)] = ANONYMOUS
        else:
            grid[self.below(levels)] = NOT_ANONYMOUS


def _path_up(start: tuple[int, ...], bottom: tuple[int, ...],
             top: tuple[int, ...]) -> list[tuple[int, ...]]:
    """A chain from ``start`` to the top, raising the relatively least generalized attribute.

    Balanced chains cross the anonymity border near its middle, where the
    non-anonymous transformations found below it have large down-sets to tag. Each
    attribute's relative level only grows, so raising the least one step by step (ties
    to the first attribute) is the same as sorting every raise by (relative level, index).
    """
    raises = sorted(((c + k - b) / (t - b), i)
                    for i, (c, b, t) in enumerate(zip(start, bottom, top, strict=True))
                    for k in range(t - c))
    path, current = [start], list(start)
    for _, i in raises:
        current[i] += 1
        path.append(tuple(current))
    return path


#: Most positions of the search order looked up at once for the next node to visit.
_WINDOW = 4096


class _OptimalSearch:
    """State of one optimal search: node states, bounds, the best so far."""

    def __init__(self, ctx: SearchContext, prune_ties: bool = True,
                 best: Check | None = None) -> None:
        self.ctx = ctx
        self.lattice = ctx.lattice
        self.nodes = self.lattice.nodes()
        self.bounds = ctx.quality.lower_bounds_for_levels(self.nodes)
        # Read one node at a time on the hot paths: Python floats, not NumPy scalars.
        self._bound_list = None if self.bounds is None else self.bounds.tolist()
        #: The best and the first position its key rules out (see _relevant_end).
        self._end: tuple[Check, int] | None = None
        self.states = np.zeros(len(self.nodes), dtype=np.int8)
        self.pruned = np.zeros(len(self.nodes), dtype=bool)
        #: The best so far: none, or one found before the search (ARX's choice, replayed).
        self.best: Check | None = best
        #: Prune on bounds equal to the best, as ARX does, where the tie ARX would choose
        #: can be replayed afterwards (else only on bounds above it).
        self._beaten = reaches if prune_ties and self.lattice.size <= MAX_REPLAY_NODES \
            else exceeds
        #: Were transformations skipped that might tie with the best?
        self.unchecked_ties = False
        #: Binary search on the border of the monotonic per-class models alone when the
        #: models together are not monotonic (Flash's two phases: k-anonymity first).
        self.partial = not ctx.monotonic and bool(ctx.monotonic_per_class)
        #: What the binary search propagates: anonymity itself when every model is
        #: monotonic, else passing the monotonic per-class models (ANONYMOUS = passes).
        self.known = self.states if not self.partial else np.zeros_like(self.states)
        #: Without level bounds: checked nodes whose classes-based bound may prune their
        #: up-sets once a good enough optimum is known (ARX's potentiallyInsufficientUtility).
        self.candidates: list[tuple[tuple[float, ...], tuple[int, ...]]] = []
        self._boxes = _Boxes(self.lattice.bottom, self.lattice.top, self.lattice.place_values)
        # The state arrays as grids of the lattice's shape (views), for tagging boxes.
        shape = tuple(int(w) for w in self.lattice.widths)
        self._states_grid = self.states.reshape(shape)
        self._known_grid = self.known.reshape(shape)
        self._pruned_grid = self.pruned.reshape(shape)

    def index(self, levels: Sequence[int]) -> int:
        """:meth:`Lattice.index` in plain Python (called per check and per successor)."""
        return self._boxes.index(levels)

    def relevant(self, index: int) -> bool:
        """Could the node at ``index`` still beat the best (by its level bound)?"""
        return self._bound_list is None or self.best is None or not self.ruled_out(
            (self._bound_list[index],), self.best.key)

    def ruled_out(self, bound: tuple[float, ...], best: tuple[float, ...]) -> bool:
        """Can nothing ``bound`` bounds beat ``best``? Notes when it might tie."""
        if not self._beaten(bound, best):
            return False
        if not exceeds(bound, best):
            self.unchecked_ties = True
        return True

    def classify(self, levels: tuple[int, ...]) -> bool:
        """Check ``levels`` and tag by the propagated property; does it hold there?"""
        check = self.ctx.checks.get(levels)
        if check is None:
            classes = self.ctx.classes(levels)
            check = self.ctx.check(levels, classes)
            self.note_bound(levels, classes)
            if check.anonymous and better(check, self.best):
                # Any anonymous check bounds the optimum: taking it now lets bounds prune
                # sooner (the top, checked first, often ties with the optimum; which tie
                # is returned is ARX's choice, settled after the search).
                self.improve(check)
        return self.tag(levels, check)

    def tag(self, levels: tuple[int, ...], check: Check) -> bool:
        """Record a check and tag by the propagated property; does it hold there?"""
        index = self.index(levels)
        holds = check.anonymous if not self.partial else not check.fails_downward
        known = ANONYMOUS if holds else NOT_ANONYMOUS
        # Tagged already (a node below passed, or one above failed): the up- or down-set
        # is tagged too, since tagged sets are closed that way.
        tagged = self.known[index] == known
        self.states[index] = ANONYMOUS if check.anonymous else NOT_ANONYMOUS
        if not (self.ctx.monotonic or self.partial):
            return holds
        self.known[index] = known
        if not tagged:
            self._boxes.tag(self._known_grid, levels, holds)
            if self.partial and not holds:
                self._boxes.tag(self._states_grid, levels, anonymous=False)
        return holds

    def note_bound(self, levels: tuple[int, ...], classes: EquivalenceClasses,
                   bound: tuple[float, ...] | None = None) -> None:
        """Prune above ``levels`` by its classes-based bound now, or once the best is good
        enough (only when no level bounds ordered the search)."""
        if self.bounds is not None:
            return
        bound = bound if bound is not None else self.ctx.quality.lower_bound_key(classes)
        if bound is None:
            return
        if self.best is not None and self.ruled_out(bound, self.best.key):
            self.prune_above(levels)
        else:
            self.candidates.append((bound, levels))

    def improve(self, check: Check) -> None:
        """Take a better optimum and prune the up-sets its score now rules out."""
        self.best = check
        waiting = []
        for bound, levels in self.candidates:
            if self.ruled_out(bound, check.key):
                self.prune_above(levels)
            else:
                waiting.append((bound, levels))
        self.candidates = waiting

    def resolve(self, start: tuple[int, ...]) -> None:
        """Classify ``start`` by binary search on a chain above it (Flash, Sec. 4.2).

        Along a chain anonymity is monotonic, so the first anonymous node is found with
        logarithmically many checks; every check tags its up- or down-set. Without full
        monotonicity the same is done for the monotonic per-class models' property.
        """
        path = _path_up(start, self.lattice.bottom, self.lattice.top)
        known = self.known[self.lattice.indices(np.array(path))].tolist()
        low = max((i + 1 for i, s in enumerate(known) if s == NOT_ANONYMOUS), default=0)
        high = min((i for i, s in enumerate(known) if s == ANONYMOUS), default=len(path))
        while low < high:
            self.ctx.cancel.raise_if_cancelled()
            middle = (low + high) // 2
            if self.classify(path[middle]):
                high = middle
            else:
                low = middle + 1
        if low > 0:
            self.climb(path[low - 1])

    def climb(self, current: tuple[int, ...]) -> None:
        """From a non-anonymous node, move up while a relevant successor is non-anonymous.

        The node reached is maximal among the non-anonymous ones along the climb, so
        its down-set (all tagged) is as large as it gets.
        """
        top = self.lattice.top
        while True:
            self.ctx.cancel.raise_if_cancelled()
            here = self.index(current)
            # The direct successors in Lattice.successors' order, indexed incrementally.
            for q, (level, highest) in enumerate(zip(current, top, strict=True)):
                if level >= highest:
                    continue
                index = here + self._boxes.places[q]
                if self.known[index] == ANONYMOUS or self.pruned[index] or \
                        not self.relevant(index):
                    continue
                successor = current[:q] + (level + 1,) + current[q + 1:]
                if self.known[index] == 0:
                    self.classify(successor)
                if self.known[index] == NOT_ANONYMOUS:
                    current = successor
                    break
            else:
                return

    def prune_above(self, levels: Sequence[int]) -> None:
        self._pruned_grid[self._boxes.above(levels)] = True

    def visit(self, index: int) -> None:
        """Settle one node: classify it, and score it if it is anonymous."""
        ctx = self.ctx
        levels = tuple(int(v) for v in self.nodes[index])
        if (ctx.monotonic or self.partial) and self.known[index] == 0:
            self.resolve(levels)
            if self.states[index] == NOT_ANONYMOUS:
                return
        if levels in ctx.checks:  # checked while classifying another node
            check = ctx.checks[levels]
        else:
            classes = ctx.classes(levels)
            bound = ctx.quality.lower_bound_key(classes) if self.bounds is None else None
            if bound is not None and self.best is not None and \
                    self.ruled_out(bound, self.best.key):
                self.prune_above(levels)
                return
            check = ctx.check(levels, classes)
            self.note_bound(levels, classes, bound)
        self.tag(levels, check)
        if check.anonymous and better(check, self.best):
            self.improve(check)

    def infeasible(self) -> bool:
        """Does the top already fail the monotonic models? Then nothing is anonymous.

        Every transformation is a specialization of the top, so one check settles the
        lattice whatever its size (Flash reaches the same verdict by tagging the top's
        down-set). An anonymous top becomes the first best (:meth:`classify`): its score
        prunes, and the tie ARX prefers below it is chosen after the search.
        """
        top = self.lattice.top
        if self.ctx.monotonic or self.partial:
            if self.classify(top):
                return False
            self.states[:] = NOT_ANONYMOUS
            return True
        if not self.ctx.check(top).anonymous:
            self.states[self.index(top)] = NOT_ANONYMOUS
        return False

    def run(self) -> SearchOutcome:
        ctx = self.ctx
        if self.infeasible():
            return ctx.outcome(None, optimal=True, states=self.states, infeasible=1.0)
        heights = self.nodes.sum(axis=1)
        order = np.argsort(heights, kind="stable") if self.bounds is None else \
            np.lexsort((heights, self.bounds))
        skipped, total = 0, len(order)
        position = 0
        while True:
            end = self._relevant_end(order, position)
            position = self._next_open(order, position, end)
            if position >= end:
                break
            ctx.cancel.raise_if_cancelled()
            ctx.progress(position / total, f"Checked {len(ctx.checks)} transformations")
            self.visit(int(order[position]))
            position += 1
        if end < total:
            self.relevant(int(order[end]))  # notes whether a tie may lie beyond
            skipped = total - end
        outcome = ctx.outcome(self.best, optimal=True, states=self.states,
                              skipped_by_bound=float(skipped),
                              pruned_by_bound=float(self.pruned.sum()))
        outcome.unchecked_ties = self.unchecked_ties
        return outcome

    def _relevant_end(self, order: np.ndarray, position: int) -> int:
        """The first position from ``position`` whose bound rules it out against the
        best (bounds grow along the order, so by bisection, once per best); the end if
        none."""
        low, high = position, len(order)
        if self._bound_list is None or self.best is None:
            return high
        if self._end is not None and self._end[0] is self.best:
            return max(self._end[1], position)
        while low < high:
            middle = (low + high) // 2
            if self._beaten((self._bound_list[int(order[middle])],), self.best.key):
                high = middle
            else:
                low = middle + 1
        self._end = (self.best, low)
        return low

    def _next_open(self, order: np.ndarray, position: int, end: int) -> int:
        """The first position in [position, end) whose node is neither pruned nor known to
        fail, else ``end``. Most are settled by tagging: looked up in growing windows,
        not node by node (which was most of a small search's time)."""
        window = 16
        while position < end:
            chunk = order[position:min(position + window, end)]
            open_ = np.flatnonzero(~self.pruned[chunk] & (self.states[chunk] != NOT_ANONYMOUS))
            if open_.size:
                return position + int(open_[0])
            position += window
            window = min(4 * window, _WINDOW)
        return end


def check_lattice_size(size: int, strategy: str) -> None:
    """Refuse a lattice of ``size`` transformations too large for ``strategy`` (the
    optimal and exhaustive strategies hold one state per node; Lightning does not).
    Cheap: the engine calls it from the hierarchies' heights before encoding anything."""
    if strategy in ("optimal", "exhaustive") and size > MAX_NODES:
        raise ConfigurationError(
            f"The lattice has {size:,} transformations, too many for the {strategy} "
            f"strategy (at most {MAX_NODES:,}); use the lightning strategy (or the genetic "
            "one) with a time limit (--strategy lightning), or narrow the generalization "
            "levels (minimum and maximum level) or the hierarchies."
        )


def replays_first(ctx: SearchContext) -> bool:
    """Is ARX's Flash replayed before the search rather than after it?

    Where the privacy models are monotonic for both ARX and arxpy and so is the quality
    model in ARX's eyes, Flash only binary-searches the lattice (no pruning by loss): it
    checks every minimal anonymous transformation, about as many checks as the search,
    and often the search skips ties that the replay then checks after it. Replayed
    first, its checks tag the lattice and its choice bounds the search, which then
    checks almost nothing more (Adult, δ-presence without suppression: 848 checks before,
    492 after)."""
    return (ctx.lattice.size <= MAX_REPLAY_NODES and ctx.monotonic
            and privacy_monotonicity(ctx) == FULL and utility_monotonic(ctx))


#: Share of the progress bar for the replay when it comes first (the search after it
#: checks little).
_REPLAY_SHARE = 0.9


def search_after_replay(ctx: SearchContext) -> SearchOutcome | None:
    """The optimal search with ARX's choice replayed first (:func:`replays_first`): the
    replay's checks tag the lattice as the search's own would, and its choice is the best
    to beat. Its optimum is ARX's choice when nothing beats it; None when something does
    (ARX's Flash stopped short of the optimum), when nothing is anonymous or ARX chose the
    top (whose ties below need the search's own rules): the caller searches as usual."""
    report = ctx.progress
    choice = FlashReplay(ctx).run(lambda f, message: report(_REPLAY_SHARE * f, message))
    if choice is None or choice.levels == tuple(ctx.lattice.top):
        return None
    search = _OptimalSearch(ctx, best=choice)
    for check in list(ctx.checks.values()):
        search.tag(check.levels, check)
    ctx.progress = ThrottledProgress(
        lambda f, message: report(_REPLAY_SHARE + (1.0 - _REPLAY_SHARE) * f, message))
    try:
        outcome = search.run()
    finally:
        ctx.progress = report
    if outcome.optimum is None or outcome.optimum.key != choice.key:
        return None
    outcome.optimum = choice
    return outcome


def search_optimal(ctx: SearchContext, prune_ties: bool = True) -> SearchOutcome:
    """Find the transformation with the best score among the anonymous ones.

    ``prune_ties``: skip transformations whose bound equals the best score, as ARX does
    (only where the lattice is small enough to replay ARX's choice among ties)."""
    check_lattice_size(ctx.lattice.size, "optimal")
    return _OptimalSearch(ctx, prune_ties).run()
