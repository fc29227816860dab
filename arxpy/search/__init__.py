"""Search strategies over the generalization lattice."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from arxpy.errors import ConfigurationError
from arxpy.jobs import ThrottledProgress
from arxpy.search.base import (
    ANONYMOUS,
    NOT_ANONYMOUS,
    NOT_CHECKED,
    STATE_NAMES,
    Check,
    SearchContext,
    SearchOutcome,
)
from arxpy.search.exhaustive import search_exhaustive
from arxpy.search.flash import arx_choice
from arxpy.search.genetic import search_genetic
from arxpy.search.lightning import search_lightning
from arxpy.search.optimal import (
    check_lattice_size,
    replays_first,
    search_after_replay,
    search_optimal,
)

STRATEGIES: dict[str, Callable[[SearchContext], SearchOutcome]] = {
    "optimal": search_optimal,
    "exhaustive": search_exhaustive,
    "lightning": search_lightning,
    "genetic": search_genetic,
    "heuristic": search_lightning,  # Lightning's former name
}


@contextmanager
def _heap_set_aside() -> Iterator[None]:
    """The objects alive before the search left out of the collector's full passes
    while it runs (``gc.freeze``), unless someone else froze them already.

    A search allocates many short-lived objects, and every full collection would walk
    the whole prepared heap (pandas, the encoded data) again: on a small search such
    as δ-presence on Adult, up to a sixth of its time.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def run_search(ctx: SearchContext, strategy: str) -> SearchOutcome:
    """Run the named strategy (``optimal``, ``exhaustive``, ``lightning`` or ``genetic``)."""
    try:
        function = STRATEGIES[strategy]
    except KeyError:
        raise ConfigurationError(
            f"Unknown search strategy '{strategy}'; use one of {', '.join(STRATEGIES)}."
        ) from None
    with _heap_set_aside():
        return _run(ctx, function)


def _run(ctx: SearchContext, function: Callable[[SearchContext], SearchOutcome]
         ) -> SearchOutcome:
    if function is search_optimal and replays_first(ctx):
        report = ctx.progress
        try:
            replayed = search_after_replay(ctx)
            if replayed is not None:  # ARX's choice, and nothing beats it
                return replayed
            # The usual search and replay decide; progress went as far as it goes.
            ctx.progress = ThrottledProgress(None)
            return _with_arx_choice(ctx, function(ctx))
        finally:
            ctx.progress = report
    return _with_arx_choice(ctx, function(ctx))


def _with_arx_choice(ctx: SearchContext, outcome: SearchOutcome) -> SearchOutcome:
    """``outcome`` with ARX's choice among the optimum's ties, when it is optimal."""
    if outcome.optimal and outcome.optimum is not None:
        # Among equally good transformations, the one ARX's Flash returns.
        choice = arx_choice(ctx, outcome.optimum, outcome.unchecked_ties)
        if choice is None:  # ARX's replay cannot settle the ties the search skipped
            outcome = search_optimal(ctx, prune_ties=False)
            choice = arx_choice(ctx, outcome.optimum)  # type: ignore[arg-type]
        outcome.optimum = choice
        outcome.transformations_checked = len(ctx.checks)
        outcome.rollups = ctx.grouper.rollups
    return outcome


__all__ = [
    "ANONYMOUS", "NOT_ANONYMOUS", "NOT_CHECKED", "STATE_NAMES", "STRATEGIES", "Check",
    "SearchContext", "SearchOutcome", "check_lattice_size", "run_search",
]
