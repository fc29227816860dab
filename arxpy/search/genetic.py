"""ARX's genetic algorithm: two subpopulations of transformations, bred for low loss.

ARX 3.9.2 ``algorithm/GeneticAlgorithm.java`` and ``GeneticAlgorithmSubpopulation.java``
(Wan et al., "Expanding access to large-scale genomic data while promoting privacy: a
game theoretic approach", Am. J. Hum. Genet. 100(2), 2017; in ARX: Meurers et al.,
GigaScience 2021), ported step for step so that with ARX's deterministic seed it checks
ARX's transformations in ARX's order:

1. Two subpopulations of k = (quasi-identifiers + subpopulation size) individuals: the
   first starts with a "triangle" (the first i+1 attributes at their top, the others at
   their bottom, for each i) and is filled up at random; the second is random.
2. Each iteration sorts both by loss (stable); every ``immigration_interval`` iterations
   the fittest move between them; then each is bred: the elite stays, the last
   ``crossover_fraction`` are replaced by children of two parents drawn with probability
   proportional to their fitness (1 − loss scaled to [0, 1] among the ``production
   fraction`` fittest), and those in between by mutants of random old individuals.
3. It stops after ``iterations`` iterations, at the step limit (checks) or the time
   limit, and returns the best anonymous transformation checked (ARX's ``trackOptimum``).

Every transformation is scored, anonymous or not (fitness orders them all).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from arxpy.search.base import Check, SearchContext, SearchOutcome, tracks_optimum
from arxpy.search.java_random import (
    ARX_SEED,
    EnumeratedDistribution,
    JavaRandom,
    java_round,
    shuffle,
)
from arxpy.search.lightning import DEFAULT_TIME_LIMIT

Levels = tuple[int, ...]


@dataclass(frozen=True)
class GeneticSettings:
    """ARX's ``geneticAlgorithm*`` settings with ARX's defaults (``ARXConfiguration``)."""

    iterations: int = 50
    subpopulation_size: int = 100
    immigration_interval: int = 10
    #: ARX casts this to int before multiplying (``(int) fraction * k``): below 1 no
    #: individual ever moves. Ported as it behaves.
    immigration_fraction: float = 0.2
    elite_fraction: float = 0.2
    crossover_fraction: float = 0.2
    mutation_probability: float = 0.2
    production_fraction: float = 0.2
    #: ARX's deterministic mode (``new Random(0xDEADBEEF)``): ARX's own draws.
    deterministic: bool = True
    #: The seed when not deterministic; None: a fresh one per run (ARX's ``new Random()``).
    seed: int | None = None

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> GeneticSettings:
        """From the configuration's ``genetic_*`` settings (missing ones: defaults)."""
        names = {f.name for f in fields(cls)}
        return cls(**{key.removeprefix("genetic_"): value for key, value in settings.items()
                      if key.removeprefix("genetic_") in names and value is not None})

    def random(self) -> JavaRandom:
        if self.deterministic:
            return JavaRandom(ARX_SEED)
        return JavaRandom(self.seed if self.seed is not None else secrets.randbits(48))


class _Genetic:
    def __init__(self, ctx: SearchContext, settings: GeneticSettings) -> None:
        self.ctx, self.s = ctx, settings
        ctx.score_all = True  # fitness compares transformations that are not anonymous too
        self.budget = ctx.time_limit if ctx.time_limit is not None else DEFAULT_TIME_LIMIT
        self.random = settings.random()
        self.low, self.high = ctx.lattice.bottom, ctx.lattice.top
        self.best: Check | None = None

    def stop(self) -> bool:
        """ARX's ``mustStop``: the time limit, or the step limit in checks."""
        limit = self.ctx.step_limit
        return self.ctx.elapsed >= self.budget or (limit is not None
                                                   and len(self.ctx.checks) >= limit)

    def individual(self, levels: Levels) -> Check:
        """ARX's ``getIndividual``: checked once, tracked every time it is bred."""
        check = self.ctx.check(levels)
        if check.anonymous and tracks_optimum(check, self.best):
            self.best = check
        limit = self.ctx.step_limit
        done = self.ctx.elapsed / self.budget
        if limit is not None:
            done = max(done, len(self.ctx.checks) / limit)
        self.ctx.progress(min(done, 0.99), f"Checked {len(self.ctx.checks):,} transformations")
        return check

    def random_level(self, dimension: int) -> int:
        low, high = self.low[dimension], self.high[dimension]
        return low + java_round(self.random.next_double() * (high - low))

    def random_levels(self) -> Levels:
        return tuple(self.random_level(j) for j in range(len(self.low)))

    def triangle(self, i: int) -> Levels:
        """The first ``i + 1`` attributes at their top, the others at their bottom."""
        return self.high[:i + 1] + self.low[i + 1:]

    def founders(self, k: int, triangle: bool) -> list[Check] | None:
        """A starting subpopulation of ``k``; None if a limit stops the search first."""
        population: list[Check] = []
        for i in range(k):
            levels = self.triangle(i) if triangle and i < len(self.low) else self.random_levels()
            if self.stop():
                return None
            population.append(self.individual(levels))
        return population

    def run(self) -> SearchOutcome:
        k = len(self.low) + self.s.subpopulation_size  # small ones lack diversity (ARX)
        immigrants = int(self.s.immigration_fraction) * k  # ARX: (int) fraction * k
        z1 = self.founders(k, triangle=True)
        z2 = None if z1 is None else self.founders(k, triangle=False)
        if z1 is not None and z2 is not None:
            for t in range(self.s.iterations):
                self.ctx.cancel.raise_if_cancelled()
                _sort(z1, z2)
                if t % self.s.immigration_interval == 0:
                    _move_fittest(z1, z2, immigrants)
                    _move_fittest(z2, z1, immigrants)
                    _sort(z1, z2)
                self.breed(z1)
                self.breed(z2)  # as in ARX, even when the first stopped
                if self.stop():
                    break
        return self.ctx.outcome(self.best, optimal=self._settled_infeasible())

    def _settled_infeasible(self) -> bool:
        """Nothing anonymous found, and the top failed a monotonic model: none is."""
        top = self.ctx.checks.get(self.high)
        return self.best is None and top is not None and (
            top.fails_downward or (self.ctx.monotonic and not top.anonymous))

    def breed(self, population: list[Check]) -> None:
        """ARX's ``iterateSubpopulation``: elite kept, children at the end, mutants between."""
        old = list(population)
        k = len(population)
        crossovers = _ceil_count(self.s.crossover_fraction, k)
        elite = _ceil_count(self.s.elite_fraction, k)
        production = _ceil_count(self.s.production_fraction, k)
        parents1 = self.parents(population, production, crossovers)
        parents2 = self.parents(population, production, crossovers)
        for c in range(crossovers):
            child = tuple(a if self.random.next_double() < 0.5 else b
                          for a, b in zip(parents1[c].levels, parents2[c].levels, strict=True))
            if self.stop():
                return
            population[k - c - 1] = self.individual(child)
        for m in range(elite, k - crossovers):
            population[m] = self.mutant(old[self.random.next_int(k)])
            if self.stop():
                return

    def parents(self, population: list[Check], production: int, count: int) -> list[Check]:
        """``count`` draws among the first ``production``, in proportion to their fitness:
        1 − loss scaled between the least and the most loss among them."""
        candidates = population[:production]
        least = min(candidates, key=lambda c: c.key)
        most = max(candidates, key=lambda c: c.key)
        span = most.score - least.score
        fitness = [1.0 - (_clamp((c.score - least.score) / span) if span != 0.0 else 0.0)
                   for c in candidates]
        distribution = EnumeratedDistribution(self.random, candidates, fitness)
        return [distribution.sample() for _ in range(count)]

    def mutant(self, parent: Check) -> Check:
        """Up to ceil(mutation probability · attributes) attributes at random levels."""
        levels = list(parent.levels)
        most = _ceil_count(self.s.mutation_probability, len(levels))
        count = self.random.next_int(most + 1)
        positions = list(range(len(levels)))
        shuffle(positions, self.random)
        for position in positions[:count]:
            levels[position] = self.random_level(position)
        return self.individual(tuple(levels))


def _sort(*populations: list[Check]) -> None:
    """Fittest first: ascending loss, stable (Java's ``List.sort``)."""
    for population in populations:
        population.sort(key=lambda c: c.key)


def _move_fittest(source: list[Check], target: list[Check], count: int) -> None:
    """ARX's ``moveFittestIndividuals``: the first ``count`` go to the end of ``target``."""
    for _ in range(min(len(source), count)):
        target.append(source.pop(0))


def _ceil_count(fraction: float, k: int) -> int:
    """Java's ``(int) Math.ceil(fraction * k)``."""
    return math.ceil(fraction * k)


def _clamp(value: float) -> float:
    """ARX clamps the rank aggregate's relative loss to [0, 1] (a no-op for the others)."""
    return min(max(value, 0.0), 1.0)


def search_genetic(ctx: SearchContext) -> SearchOutcome:
    """ARX's genetic algorithm until its iterations, the step or the time limit end."""
    return _Genetic(ctx, GeneticSettings.from_settings(ctx.strategy_settings)).run()
