"""The two-dimensional Newton-Raphson solver ARX uses for the Pitman and SNB estimators.

Mirrors ``de.linearbits.newtonraphson.NewtonRaphson2D`` as ARX 3.9 configures it
(``ARXSolverConfiguration``: accuracy 1e-6, 1,000 iterations per try; prepared start
values): iterate ``x <- x - J(x)^-1 f(x)`` from the given start until both components
of ``f`` are at most ``accuracy`` in magnitude. When that try fails (NaN, a violated
constraint, a root outside the valid parameter range, too many iterations or too long)
the solver retries from ARX's 16 fixed start points ``{0, 0.33, 0.66, 0.99}^2`` in
order, then gives up; ARX bounds the iterations by ``(16 + 1) * iterations_per_try``.
ARX allows 0.1 s per try and 1 s in total; we allow 0.5 s per try (Python iterations
are slower) and the same 1 s in total per solve, checked after every iteration, failed
or not, so a budget is never overrun by tries that fail at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from arxpy.jobs import CancelToken

#: ``f(x) -> (values (2,), Jacobian (2, 2))`` with Jacobian[i, j] = d f_i / d x_j.
MasterFunction = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
Constraint = Callable[[np.ndarray], bool]


def _arx_start_values() -> tuple[tuple[float, float], ...]:
    # Accumulated as ARX does (d += 0.33), so the last value is 0.33 + 0.33 + 0.33.
    steps, value = [], 0.0
    while value < 1.0:
        steps.append(value)
        value += 0.33
    return tuple((a, b) for a in steps for b in steps)


#: The start points ARX retries from after the first try fails, in ARX's order.
ARX_START_VALUES = _arx_start_values()


@dataclass(frozen=True)
class SolverConfig:
    """Convergence settings; the iteration limits, accuracy and start values are ARX's."""

    accuracy: float = 1e-6
    iterations_per_try: int = 1000
    seconds_per_try: float = 0.5
    seconds_total: float = 1.0
    start_values: tuple[tuple[float, float], ...] = ARX_START_VALUES

    @property
    def iterations_total(self) -> int:
        """ARX's bound: one try's iterations for the given start and each start value."""
        return (len(self.start_values) + 1) * self.iterations_per_try


#: ARX's default configuration.
DEFAULT_SOLVER = SolverConfig()


@dataclass(frozen=True)
class SolverOutcome:
    """A root (``[nan, nan]`` when none was found) and whether the time budget ran out."""

    root: np.ndarray
    stopped_early: bool = False

    @property
    def found(self) -> bool:
        return not bool(np.isnan(self.root).any())


_NO_ROOT = np.array([np.nan, np.nan])


def find_root(function: MasterFunction, start: tuple[float, float],
              config: SolverConfig = DEFAULT_SOLVER, constraint: Constraint | None = None,
              cancel: CancelToken | None = None,
              valid: Constraint | None = None) -> SolverOutcome:
    """Solve ``function(x) = 0`` from ``start``, then from each of ``config.start_values``.

    ``constraint`` must hold for every iterate and ``valid`` for the root (a root outside
    the valid parameter range fails the try). Stops when the total time is spent
    (``stopped_early``) and raises ``CancelledError`` within one iteration of a cancel.
    """
    begun = time.monotonic()
    total = 0
    for initial in ((start, *config.start_values)):
        if total > config.iterations_total:
            break
        root, total, out_of_time = _try(function, initial, config, constraint, cancel,
                                        begun, total)
        if root is not None and (valid is None or valid(root)):
            return SolverOutcome(root)
        if out_of_time or time.monotonic() - begun > config.seconds_total:
            return SolverOutcome(_NO_ROOT.copy(), stopped_early=True)
    return SolverOutcome(_NO_ROOT.copy())


def solve_2d(function: MasterFunction, start: tuple[float, float],
             config: SolverConfig = DEFAULT_SOLVER, constraint: Constraint | None = None,
             cancel: CancelToken | None = None) -> np.ndarray:
    """A root of ``function`` near ``start``, or ``[nan, nan]`` when none is found."""
    return find_root(function, start, config, constraint, cancel).root


def _try(function: MasterFunction, initial: tuple[float, float], config: SolverConfig,
         constraint: Constraint | None, cancel: CancelToken | None, begun: float,
         total: int) -> tuple[np.ndarray | None, int, bool]:
    """One Newton try: (root or None, total iterations so far, total time spent)."""
    solution = np.array(initial, dtype=float)
    try_begun = time.monotonic()
    iterations = 0
    while True:
        total += 1
        if cancel is not None:
            cancel.raise_if_cancelled()
        if total % 4 == 0:
            # Hand the GIL over often: on a worker thread beside the GUI this loop kept
            # the GUI thread waiting for up to 0.5 s (measured; every 32nd iteration
            # still left 100 ms gaps).
            time.sleep(0)
        with np.errstate(all="ignore"):
            values, jacobian = function(solution)
        if abs(values[0]) <= config.accuracy and abs(values[1]) <= config.accuracy:
            return solution, total, False
        solution = solution - _inverse_times(jacobian, values)
        now = time.monotonic()
        if np.isnan(solution).any() or iterations >= config.iterations_per_try \
                or now - try_begun > config.seconds_per_try:
            return None, total, now - begun > config.seconds_total
        iterations += 1
        if constraint is not None and not constraint(solution):
            return None, total, now - begun > config.seconds_total
        if now - begun > config.seconds_total:
            return None, total, True


def _inverse_times(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix^-1 @ vector`` by the explicit 2x2 inverse (NaN/inf when singular, as in ARX)."""
    (a, b), (c, d) = matrix
    with np.errstate(all="ignore"):
        scalar = 1.0 / (a * d - b * c)
        return np.array([(d * vector[0] - b * vector[1]) * scalar,
                         (-c * vector[0] + a * vector[1]) * scalar])
