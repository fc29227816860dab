"""Which of several equally good transformations ARX returns: a replay of its Flash search.

ARX keeps, among anonymous transformations with equal information loss, the one with the
lower generalization level, else the one it checked first (``AbstractAlgorithm.
trackOptimum``); and it prunes a transformation whose lower bound merely *equals* the
best loss found (``FLASHAlgorithmImpl.skip``/``prune`` compare with ``<=``), so some ties
are never looked at. The choice among ties therefore depends on the order in which
Flash (Kohlmayer et al., 2012) visits the lattice, not on the transformations alone, and
is reproduced here by replaying that order with arxpy's own checks (cached, so
transformations the search already checked cost nothing):

* the six phase configurations of ``FLASHAlgorithm.create``, chosen by ARX's
  monotonicity of the privacy models (``ARXConfiguration.getMonotonicityOfPrivacy``) and
  of the quality model (``getMonotonicityOfUtility``);
* levels bottom-up, each level's unprocessed transformations in identifier order (ARX's
  solution space numbers them with the first attribute varying fastest) stably sorted by
  ``FLASHStrategy`` (relative level, mean relative level per attribute, then
  1 − mean share of distinct values kept);
* successors in identifier order, stably sorted the same way; the binary phase's queue
  behaves as ``java.util.PriorityQueue`` (a binary heap) does on equal keys;
* predictive properties as in ``SolutionSpace`` (anonymity up/down only when the privacy
  models are monotonic; k-anonymity, insufficient utility and pruned successors upward).

Only the choice among the optimum's ties is taken from the replay; the optimum's score
is always the optimal search's own.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
from collections.abc import Callable, Mapping

import numpy as np

from arxpy.jobs import Progress
from arxpy.lattice.kernels import stable_argsort
from arxpy.lattice.lattice import Lattice
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.privacy.ldiversity import EntropyLDiversity, _LDiversity
from arxpy.quality.base import QualityModel
from arxpy.search.base import Check, SearchContext

#: Largest lattice replayed; the replay walks it node by node in Python. (ARX itself
#: switches to a heuristic search above 100,000 transformations when that is enabled.)
MAX_REPLAY_NODES = 100_000

#: Quality models whose ARX counterparts give no lower bound at all (ARX's
#: ``MetricSDClassification`` and ``MetricSDNMKLDivergence``); arxpy's own bound for
#: classification prunes its search but must not prune the replay.
_NO_ARX_BOUND = frozenset({"classification", "kl"})
#: Quality models whose ARX counterparts bound a transformation from its levels alone
#: (``getLowerBoundInternal(Transformation)``: ``MetricMDHeight``, ``MetricMD(NM)Precision``).
#: ARX's Loss, entropy, AECS and discernibility return null there, so an unchecked
#: transformation is never skipped by its own bound; only a checked one carries a bound.
_ARX_LEVEL_BOUND = frozenset({"height", "precision"})

FULL, PARTIAL, NONE = "full", "partial", "none"


def _relative_equal(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


def compare_keys(a: tuple[float, ...], b: tuple[float, ...]) -> int:
    """ARX's ``InformationLoss.compareTo`` on arxpy's keys, with float sums' slack."""
    for x, y in zip(a, b, strict=False):
        if not _relative_equal(x, y):
            return -1 if x < y else 1
    return 0


def _arx_monotonic_with_generalization(model: object) -> bool:
    # ARX flags entropy-l-diversity monotonic with generalization for both estimators;
    # arxpy deliberately does not for Grassberger's (see privacy/ldiversity.py).
    if isinstance(model, EntropyLDiversity):
        return True
    return bool(model.monotonic_without_suppression)  # type: ignore[attr-defined]


def minimal_group_size(ctx: SearchContext) -> int | None:
    """ARX's ``getMinimalGroupSize``: max(k, ceil(l) of every l-diversity model)."""
    sizes = [int(m.k) for m in ctx.models if isinstance(m, KAnonymity)]
    sizes += [math.ceil(m.l) for m in ctx.models if isinstance(m, _LDiversity)]
    return max(sizes) if sizes else None


def privacy_monotonicity(ctx: SearchContext) -> str:
    """ARX's ``getMonotonicityOfPrivacy`` for the run's models and suppression limit."""
    for model in ctx.models:
        monotonic = _arx_monotonic_with_generalization(model)
        if ctx.max_suppressed > 0:
            monotonic = monotonic and bool(model.monotonic_with_suppression)
        if not monotonic:
            return PARTIAL if minimal_group_size(ctx) is not None else NONE
    return FULL


def utility_monotonic(ctx: SearchContext) -> bool:
    """ARX's ``Metric.isMonotonic(suppressionLimit)``: always without suppression."""
    quality = ctx.quality
    return ctx.max_suppressed == 0 or quality.name == "height" or \
        bool(getattr(quality, "monotonic", False))


class _AnyFlag:
    """A skip trigger: does a node have any of the named properties? Also read for a
    whole level at once (:meth:`of`), which the replay's outer loop does per level."""

    def __init__(self, flags: Mapping[str, np.ndarray], *names: str) -> None:
        self._arrays = [flags[name] for name in names]

    def __call__(self, index: int) -> bool:
        # A plain loop: the replay asks thousands of times, any() over a generator costs
        # twice as much.
        for array in self._arrays:
            if array[index]:
                return True
        return False

    def of(self, indices: np.ndarray) -> np.ndarray:
        return np.logical_or.reduce([array[indices] for array in self._arrays])


class _Phase:
    """One phase's triggers (``FLASHPhaseConfiguration``)."""

    def __init__(self, prop: str, skip: _AnyFlag, check: Callable[[int], bool],
                 tag: Callable[[int], None]) -> None:
        self.prop, self.skip, self.check, self.tag = prop, skip, check, tag


class _JavaPriorityQueue:
    """``java.util.PriorityQueue`` (binary heap, siftUp/siftDown) with a comparator, so
    elements that compare equal come out in Java's order."""

    def __init__(self, compare: Callable[[int, int], int]) -> None:
        self.items: list[int] = []
        self.compare = compare

    def __bool__(self) -> bool:
        return bool(self.items)

    def add(self, x: int) -> None:
        queue = self.items
        queue.append(x)
        k = len(queue) - 1
        while k > 0:
            parent = (k - 1) >> 1
            if self.compare(x, queue[parent]) >= 0:
                break
            queue[k] = queue[parent]
            k = parent
        queue[k] = x

    def poll(self) -> int:
        queue = self.items
        result = queue[0]
        x = queue.pop()
        n = len(queue)
        if n:
            k, half = 0, n >> 1
            while k < half:
                child = 2 * k + 1
                if child + 1 < n and self.compare(queue[child], queue[child + 1]) > 0:
                    child += 1
                if self.compare(x, queue[child]) <= 0:
                    break
                queue[k] = queue[child]
                k = child
            queue[k] = x
        return result


#: Flips a negative float's magnitude bits, so its bits as an int64 order as the floats.
_MAGNITUDE = np.int64(0x7FFFFFFFFFFFFFFF)


def _ranks(criteria: np.ndarray) -> list[int] | None:
    """Each row's rank in the lexicographic order of ``criteria`` (equal rows, equal
    rank), or None when a column is NaN for some rows only. A column NaN throughout
    compares equal everywhere (Java's ``<`` and ``>`` are both false), as a constant."""
    missing = np.isnan(criteria)
    columns = criteria
    if missing.any():
        if (missing.any(axis=0) & ~missing.all(axis=0)).any():
            return None
        columns = np.where(missing, 0.0, criteria)
    columns = columns + 0.0  # -0.0 ranks with 0.0
    # np.lexsort's order (stable sorts from the last column to the first) on each float's
    # bits as an order-preserving int64: the compiled sort, where built, takes a third of
    # lexsort's time, which each search pays once.
    order = np.arange(len(columns))
    for column in reversed(columns.T):
        bits = np.ascontiguousarray(column[order]).view(np.int64)
        order = order[stable_argsort(bits ^ ((bits >> 63) & _MAGNITUDE))]
    ordered = columns[order]
    step = np.concatenate(([False], (ordered[1:] != ordered[:-1]).any(axis=1)))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.cumsum(step)
    return rank.tolist()


class FlashReplay:
    """ARX's Flash traversal over ``ctx``'s lattice; :meth:`run` returns its optimum."""

    def __init__(self, ctx: SearchContext) -> None:
        self.ctx = ctx
        lattice: Lattice = ctx.lattice
        self.lattice = lattice
        self.nodes = lattice.nodes()
        self.shape = tuple(int(w) for w in lattice.widths)
        size = len(self.nodes)
        offsets = self.nodes - np.asarray(lattice.bottom, dtype=np.int64)
        # ARX's identifiers: mixed radix with the first attribute least significant.
        arx_place = np.cumprod([1] + [int(w) for w in lattice.widths[:-1]], dtype=np.int64)
        self.arx_id = offsets @ arx_place
        self._offsets = offsets  # levels above the bottom, per node (put runs per tag)
        self._places = [int(p) for p in lattice.place_values]
        self.level = self.nodes.sum(axis=1)
        self.criteria = self._strategy_criteria()
        #: The strategy's order as one integer per node (equal criteria, equal rank), so
        #: sorting and the queue compare integers; None when the criteria are not a total
        #: order (a column NaN for some nodes only: Java's comparison is then not one).
        self._rank = _ranks(self.criteria)
        self.flags = {name: np.zeros(size, dtype=bool) for name in (
            "anonymous", "not_anonymous", "k_anonymous", "not_k_anonymous", "checked",
            "visited", "successors_pruned", "insufficient_utility")}
        #: Each flag array as a grid of the lattice (a view), for tagging up- and down-sets.
        self._grids = {name: flags.reshape(self.shape) for name, flags in self.flags.items()}
        self._nothing_above = [None] * len(self.shape)
        self.privacy = privacy_monotonicity(ctx)
        self.min_group = minimal_group_size(ctx)
        # Upward / downward predictive properties (SolutionSpace); anonymity only when the
        # privacy models are monotonic (setAnonymityPropertyPredictable).
        self.direction = {"k_anonymous": "up", "not_k_anonymous": "down",
                          "successors_pruned": "up", "insufficient_utility": "up"}
        if self.privacy == FULL:
            self.direction.update(anonymous="up", not_anonymous="down")
        self.level_bounds = ctx.quality.lower_bounds_for_levels(self.nodes) \
            if ctx.quality.name in _ARX_LEVEL_BOUND else None
        self.bounds: dict[int, tuple[float, ...] | None] = {}
        self.loss: dict[int, tuple[float, ...]] = {}
        self.best: int | None = None
        self.candidates: list[int] = []
        self._sorted_successors: dict[int, list[int]] = {}
        self._configure(utility_monotonic(ctx))

    # --- FLASHStrategy ------------------------------------------------------------------

    def _strategy_criteria(self) -> np.ndarray:
        """``FLASHStrategy.getCriteria`` per node, summed attribute by attribute in
        Java's order (a different order could split ties by the last bit)."""
        data, nodes = self.ctx.data, self.nodes
        top = self.lattice.top
        prec = np.zeros(len(nodes))
        kept = np.zeros(len(nodes))
        with np.errstate(divide="ignore", invalid="ignore"):  # Java: 0.0/0.0 is NaN
            for q, qi in enumerate(data.quasi_identifiers):
                # GeneralizationHierarchy: the values in the data (codes, by a tally), and
                # how many distinct values each level keeps of them.
                present = np.flatnonzero(np.bincount(qi.codes))
                kept_values = np.array([np.count_nonzero(np.bincount(m[present]))
                                        for m in qi.level_maps], dtype=float)
                prec += nodes[:, q] / float(top[q])
                kept += kept_values[nodes[:, q]] / kept_values[0]
            level = self.level / float(sum(top))
        n = float(len(top))
        return np.column_stack([level, prec / n, 1.0 - kept / n])

    def levels_of(self, index: int) -> tuple[int, ...]:
        """The levels of the node at ``index`` (a few hundred nodes per replay: not all)."""
        return tuple(self.nodes[index].tolist())

    def compare(self, a: int, b: int) -> int:
        if self._rank is not None:
            x, y = self._rank[a], self._rank[b]
            return (x > y) - (x < y)
        for x, y in zip(self.criteria[a], self.criteria[b], strict=True):
            if x < y:
                return -1
            if x > y:
                return 1
        return 0  # NaN compares neither less nor greater, as in Java

    def sort(self, indices: list[int]) -> list[int]:
        """Stable sort by the strategy (colt's ``GenericSorting.mergeSort``)."""
        if self._rank is not None:
            return sorted(indices, key=self._rank.__getitem__)
        return sorted(indices, key=functools.cmp_to_key(self.compare))

    def successors(self, index: int) -> list[int]:
        cached = self._sorted_successors.get(index)
        if cached is None:
            # Successors in ARX's identifier order (Transformation.getSuccessors()): the
            # first attribute is least significant there, so by attribute.
            levels, top = self.levels_of(index), self.lattice.top
            found = [index + self._places[q] for q in range(len(top)) if levels[q] < top[q]]
            cached = self._sorted_successors[index] = self.sort(found)
        return cached

    # --- properties ---------------------------------------------------------------------

    def has(self, name: str, index: int) -> bool:
        return bool(self.flags[name][index])

    def put(self, name: str, index: int) -> None:
        direction = self.direction.get(name)
        if direction is None:
            self.flags[name][index] = True
            return
        offsets = self._offsets[index].tolist()
        if direction == "up":
            corner = tuple(map(slice, offsets, self._nothing_above))
        else:
            corner = tuple(map(slice, [o + 1 for o in offsets]))
        self._grids[name][corner] = True

    def put_to_successors(self, name: str, index: int) -> None:
        for successor in self.successors(index):
            self.put(name, successor)

    # --- checking -----------------------------------------------------------------------

    def check(self, index: int) -> None:
        """``TransformationChecker.check`` + ``Transformation.setChecked``."""
        levels = self.levels_of(index)
        ctx = self.ctx
        check = ctx.check(levels)
        self.put("checked", index)
        self.put("anonymous" if check.anonymous else "not_anonymous", index)
        if self.min_group is not None:
            sizes = ctx.classes(levels).sizes
            fulfilled = int(sizes[sizes < self.min_group].sum()) <= ctx.max_suppressed
            self.put("k_anonymous" if fulfilled else "not_k_anonymous", index)
        self.loss[index] = check.key
        if self.level_bounds is None and self.prune_enabled:  # else no bound is read
            self.bounds[index] = self._checked_bound(check, levels)

    def _checked_bound(self, check: Check, levels: tuple[int, ...]) -> tuple[float, ...] | None:
        """The bound ARX's checker stores with a checked transformation: the one its
        ``getInformationLoss`` returns beside the loss when the transformation is
        anonymous, else ``getLowerBound(transformation, groupify)``."""
        quality = self.ctx.quality
        if quality.name in _NO_ARX_BOUND:
            return None
        monotonic = bool(getattr(quality, "monotonic", False))
        if quality.name == "entropy":
            # MetricMDNU(NM)Entropy: no bound without the loss; the monotonic one's is it.
            if not check.anonymous:
                return None
            if monotonic:
                return check.key
        elif quality.name == "dm" and monotonic and check.anonymous:
            return check.key  # MetricSDDiscernability: the loss is its own bound
        return quality.lower_bound_key(self.ctx.classes(levels))

    def bound(self, index: int) -> tuple[float, ...] | None:
        if self.level_bounds is not None:
            return (float(self.level_bounds[index]),)
        return self.bounds.get(index)

    def track_optimum(self, index: int) -> None:
        """``AbstractAlgorithm.trackOptimum``: better loss, or equal loss and lower level."""
        if not self.has("anonymous", index) or index not in self.loss:
            return
        if self.best is None:
            self.best = index
            return
        order = compare_keys(self.loss[index], self.loss[self.best])
        if order < 0 or (order == 0 and self.level[index] < self.level[self.best]):
            self.best = index

    def skip(self, trigger: Callable[[int], bool], index: int) -> bool:
        if trigger(index):
            return True
        if not self.prune_enabled or self.best is None:
            return False
        if self.has("insufficient_utility", index):
            return True
        bound = self.bound(index)
        if bound is not None and compare_keys(self.loss[self.best], bound) <= 0:
            self.put("insufficient_utility", index)
            self.put("successors_pruned", index)
            return True
        return False

    def prune(self, index: int) -> None:
        if not self.prune_enabled:
            return
        bound = self.bound(index)
        if bound is None:
            return
        best = self.best
        if index != best and self.has("successors_pruned", index):
            return
        if best is None:
            self.candidates.append(index)
            return
        loss = self.loss[best]
        if index != best:
            if compare_keys(loss, bound) <= 0:
                self.put("insufficient_utility", index)
                self.put("successors_pruned", index)
            else:
                self.candidates.append(index)
            return
        waiting = []
        for candidate in self.candidates:
            if self.has("successors_pruned", candidate):
                continue
            if compare_keys(loss, self.bound(candidate)) <= 0:  # type: ignore[arg-type]
                self.put("insufficient_utility", candidate)
                self.put("successors_pruned", candidate)
            else:
                waiting.append(candidate)
        self.candidates = waiting
        if not self.has("successors_pruned", index):
            self.candidates.append(index)

    def check_and_tag(self, index: int, phase: _Phase) -> None:
        if phase.check(index):
            self.check(index)
        self.track_optimum(index)
        phase.tag(index)
        self.prune(index)

    # --- FLASHAlgorithm.create ----------------------------------------------------------

    def _configure(self, utility_full: bool) -> None:
        has = self.has
        flags = self.flags
        known_names = ("anonymous", "not_anonymous")
        k_known_names = ("k_anonymous", "not_k_anonymous")
        known = _AnyFlag(flags, *known_names)
        k_known = _AnyFlag(flags, *k_known_names)
        nothing = lambda i: None  # noqa: E731

        def prune_above_anonymous(i: int) -> None:
            if has("anonymous", i):
                self.put_to_successors("insufficient_utility", i)
                self.put("successors_pruned", i)

        def visit(i: int) -> None:
            self.put("visited", i)

        def visit_and_prune(i: int) -> None:
            visit(i)
            prune_above_anonymous(i)

        binary = linear = None
        privacy = self.privacy
        if privacy == FULL and utility_full:
            binary = _Phase("anonymous", known, lambda i: not known(i),
                            lambda i: self.put("successors_pruned", i)
                            if has("anonymous", i) else None)
            self.prune_enabled = False
        elif privacy == FULL:
            binary = _Phase("anonymous", known, lambda i: not known(i), nothing)
            linear = _Phase(
                "anonymous", _AnyFlag(flags, "not_anonymous", "visited"),
                lambda i: not has("checked", i) and not has("not_anonymous", i), visit)
            self.prune_enabled = True
        elif privacy == PARTIAL and utility_full:
            skip = _AnyFlag(flags, *k_known_names, "insufficient_utility")
            binary = _Phase("k_anonymous", skip, lambda i: not skip(i), prune_above_anonymous)
            linear_skip = _AnyFlag(flags, "visited", "not_k_anonymous", "insufficient_utility")
            linear = _Phase("anonymous", linear_skip,
                            lambda i: not linear_skip(i) and not has("checked", i),
                            visit_and_prune)
            self.prune_enabled = True
        elif privacy == PARTIAL:
            binary = _Phase("k_anonymous", k_known, lambda i: not k_known(i), nothing)
            linear = _Phase(
                "anonymous", _AnyFlag(flags, "visited", "not_k_anonymous"),
                lambda i: not has("checked", i) and not has("not_k_anonymous", i), visit)
            self.prune_enabled = True
        elif utility_full:
            skip = _AnyFlag(flags, *known_names, "insufficient_utility")
            linear = _Phase("anonymous", skip, lambda i: not skip(i), prune_above_anonymous)
            self.prune_enabled = True
        else:
            linear = _Phase("anonymous", known, lambda i: not known(i), nothing)
            self.prune_enabled = True
        self.binary, self.linear = binary, linear

    # --- FLASHAlgorithmImpl -------------------------------------------------------------

    def run(self, progress: Progress | None = None) -> Check | None:
        """Replay the traversal; ARX's optimum (None if nothing is anonymous).
        ``progress`` hears the share of the levels done (when the replay comes first)."""
        outer = self.binary if self.binary is not None else self.linear
        assert outer is not None
        order = np.lexsort((self.arx_id, self.level))
        levels, starts = np.unique(self.level[order], return_index=True)
        bounds = list(starts[1:]) + [len(order)]
        for start, end in zip(starts, bounds, strict=True):
            self.ctx.cancel.raise_if_cancelled()
            if progress is not None:
                progress(start / len(order), f"Checked {len(self.ctx.checks)} transformations")
            # A level's nodes are incomparable, so the skip of one (which tags only its
            # up-set) never changes another's trigger: read the triggers all at once.
            level = order[start:end]
            untriggered = level[~outer.skip.of(level)].tolist()
            unprocessed = [i for i in untriggered if not self.skip(outer.skip, i)]
            for index in self.sort(unprocessed):
                if self.binary is not None:
                    self.binary_search(index)
                else:
                    self.linear_search(index)
        if self.best is None:
            return None
        return self.ctx.checks[self.levels_of(self.best)]

    def binary_search(self, start: int) -> None:
        phase = self.binary
        assert phase is not None
        queue = _JavaPriorityQueue(self.compare)
        queue.add(start)
        while queue:
            head = queue.poll()
            if self.skip(phase.skip, head):
                continue
            path = self.find_path(head, phase)
            found = self.check_path(path, phase, queue)
            if self.linear is not None and found is not None:
                self.linear_search(found)

    def find_path(self, current: int, phase: _Phase) -> list[int]:
        path = [current]
        while True:
            for successor in self.successors(current):
                if not self.skip(phase.skip, successor):
                    current = successor
                    path.append(successor)
                    break
            else:
                return path

    def check_path(self, path: list[int], phase: _Phase, queue: _JavaPriorityQueue) -> int | None:
        low, high, last = 0, len(path) - 1, None
        while low <= high:
            middle = (low + high) // 2
            node = path[middle]
            if self.skip(phase.skip, node):
                high = middle - 1
                continue
            self.check_and_tag(node, phase)
            holds = self.has(phase.prop, node)
            if not holds:
                for successor in self.successors(node):
                    if not self.skip(phase.skip, successor):
                        queue.add(successor)
            if holds:
                last, high = node, middle - 1
            else:
                low = middle + 1
        return last

    def linear_search(self, index: int) -> None:
        phase = self.linear
        assert phase is not None
        if not self.skip(phase.skip, index):
            self.check_and_tag(index, phase)
            for child in self.successors(index):
                if not self.skip(phase.skip, child):
                    self.linear_search(child)
        self.put("successors_pruned", index)


def arx_choice(ctx: SearchContext, optimum: Check, unchecked_ties: bool = False
               ) -> Check | None:
    """Among the transformations tied with ``optimum``, the one ARX returns.

    Replays Flash when there is a tie to break: two checked ones, or ``unchecked_ties``
    (the search skipped transformations whose bound equals the optimum's score, as ARX
    does). When the replay ends elsewhere (a different score: ARX assumes every quality
    model monotonic without suppression, and may then stop at a transformation that is
    not optimal), keeps ``optimum``, or returns None if ties went unchecked (the caller
    then searches again without skipping them). Never the top when an equally good
    anonymous transformation below it was checked: the top releases nothing; None when
    the top is the choice and ties went unchecked (one below it may be among them).
    """
    ties = [c for c in ctx.checks.values() if c.anonymous and c.key == optimum.key]
    if (len(ties) < 2 and not unchecked_ties) or ctx.lattice.size > MAX_REPLAY_NODES:
        return optimum
    choice = FlashReplay(ctx).run()
    if choice is None or choice.key != optimum.key:
        if unchecked_ties:
            return None
        choice = optimum
    choice = _below_the_top(ctx, choice)
    if unchecked_ties and choice.levels == tuple(ctx.lattice.top):
        return None  # an equally good transformation below the top may have been skipped
    return choice


def _below_the_top(ctx: SearchContext, choice: Check) -> Check:
    """``choice``, or if it is the top, the checked tie ARX's ``trackOptimum`` prefers:
    the lowest level; among equals the first in ARX's node order (its identifiers,
    the first attribute least significant), so the answer does not depend on the order
    in which a strategy happened to check them."""
    if choice.levels != tuple(ctx.lattice.top):
        return choice

    def lower_ties() -> list[Check]:
        return [c for c in ctx.checks.values()
                if c.anonymous and c.key == choice.key and c.levels != choice.levels]

    lower = lower_ties()
    if not lower:
        return choice
    # A strategy checks only some ties: every transformation up to the lowest tie found
    # is checked (rare: Flash ended at the top), so the answer is the strategy's own.
    level = min(sum(c.levels) for c in lower)
    nodes = ctx.lattice.nodes()
    for levels in nodes[nodes.sum(axis=1) <= level]:
        ctx.check(levels)
    places = np.cumprod([1] + [int(w) for w in ctx.lattice.widths[:-1]])
    return min(lower_ties(), key=lambda c: (sum(c.levels), int(np.dot(c.levels, places))))


def arx_choice_for(ctx: SearchContext, quality: QualityModel,
                   scores: Mapping[tuple[int, ...], tuple[float, tuple[float, ...]]],
                   optimum: tuple[int, ...]) -> tuple[int, ...]:
    """ARX's choice for another (prepared) quality model scored on ``ctx``'s checks.

    ``scores`` holds (score, key) of every anonymous transformation ``ctx`` checked;
    ``optimum`` is one with the best key. The replay shares ``ctx``'s classes.
    """
    other = copy.copy(ctx)  # same data, models, classes cache; another quality model
    other.quality = quality
    other.on_check = None
    quality.suppression_budget = ctx.max_suppressed
    worst = (math.inf,)
    other.checks = {
        levels: dataclasses.replace(check, score=scores[levels][0], key=scores[levels][1])
        if levels in scores else dataclasses.replace(check, score=math.inf, key=worst)
        for levels, check in ctx.checks.items()}
    choice = arx_choice(other, other.checks[optimum])
    assert choice is not None  # every tie was checked
    return choice.levels
