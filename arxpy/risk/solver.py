"""The two-dimensional Newton-Raphson solver ARX uses for the Pitman and SNB estimators.

Mirrors ``de.linearbits.newtonraphson.NewtonRaphson2D`` as configured by ARX's
``ARXSolverConfiguration`` (accuracy 1e-6, 1,000 iterations per try, 10,000 in total):
iterate ``x <- x - J(x)^-1 f(x)`` from the start value until both components of ``f`` are
at most ``accuracy`` in magnitude; when a try fails (NaN, a violated constraint, too many
iterations or too long) restart from a random point in the box [0, start]. ARX draws
restarts from ``Math.random``; we draw them from a seeded generator so that results are
reproducible. ARX allows 0.1 s per try and 1 s in total; we allow 0.5 s per try (Python
iterations are slower) and the same 1 s in total per solve.
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


@dataclass(frozen=True)
class SolverConfig:
    """Convergence settings; the iteration limits and accuracy are ARX's defaults."""

    accuracy: float = 1e-6
    iterations_per_try: int = 1000
    iterations_total: int = 10000
    seconds_per_try: float = 0.5
    seconds_total: float = 1.0
    seed: int = 0


#: ARX's default configuration.
DEFAULT_SOLVER = SolverConfig()


def solve_2d(function: MasterFunction, start: tuple[float, float],
             config: SolverConfig = DEFAULT_SOLVER, constraint: Constraint | None = None,
             cancel: CancelToken | None = None) -> np.ndarray:
    """A root of ``function`` near ``start``, or ``[nan, nan]`` when none is found."""
    init = np.array(start, dtype=float)
    rng = np.random.default_rng(config.seed)
    begun = time.monotonic()
    total = 0
    solution: np.ndarray | None = None
    while total <= config.iterations_total:
        try_begun = time.monotonic()
        solution = init.copy() if solution is None else rng.random(2) * init
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
                return solution
            solution = solution - _inverse_times(jacobian, values)
            if constraint is not None and not constraint(solution):
                break
            now = time.monotonic()
            if np.isnan(solution).any() or iterations > config.iterations_per_try \
                    or now - try_begun > config.seconds_per_try:
                break
            iterations += 1
            if now - begun > config.seconds_total:
                return np.array([np.nan, np.nan])
    return np.array([np.nan, np.nan])


def _inverse_times(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix^-1 @ vector`` by the explicit 2x2 inverse (NaN/inf when singular, as in ARX)."""
    (a, b), (c, d) = matrix
    with np.errstate(all="ignore"):
        scalar = 1.0 / (a * d - b * c)
        return np.array([(d * vector[0] - b * vector[1]) * scalar,
                         (-c * vector[0] + a * vector[1]) * scalar])
