"""(ε, δ)-differential privacy as ARX's SafePub (``EDDifferentialPrivacy``).

Bild, Kuhn and Prasser, "SafePub: A Truthful Data Anonymization Algorithm With Strong
Privacy Guarantees", PoPETs 2018(1): each record is kept with probability β (Alg. 1,
step 1), a generalization is chosen (data-independent: given; data-dependent: by the
exponential mechanism over ``steps`` expansions from the top, with ``search_share`` of ε,
Alg. 2) and every class of the sample smaller than k is suppressed (step 3). β and k
follow from ε and δ as ARX 3.9.2 computes them (``dp/ParameterCalculation.java``,
Theorem 1 of Li, Qardaji and Su, ASIACCS 2012, in the paper's Section 4.2). The sampling
and the search run in :mod:`arxpy.search.safepub`; this model only judges classes.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.registry import register_privacy_model

#: ARX's generalization degrees (``DataGeneralizationScheme.GeneralizationDegree``).
DEGREES = {"none": 0.0, "low": 0.2, "low-medium": 0.4, "medium": 0.5,
           "medium-high": 0.6, "high": 0.8, "complete": 1.0}


def sampling_probability(epsilon: float) -> float:
    """β = 1 − e^(−ε): the largest sampling probability for ε (ARX ``calculateBeta``)."""
    return -math.expm1(-epsilon)


class _Sequences:
    """a_n (the binomial tail above ⌊nγ⌋) and the bound c_n of ARX's ``calculateA`` and
    ``calculateC``, computed for a growing range of n at once (ARX caches them too)."""

    def __init__(self, epsilon: float, beta: float) -> None:
        self.gamma = (math.expm1(epsilon) + beta) / math.exp(epsilon)
        self.beta = beta
        self.divergence = self.gamma * math.log(self.gamma / beta) - (self.gamma - beta)
        self.a = np.zeros(0)
        self.c = np.zeros(0)

    def grow(self, size: int) -> None:
        n = np.arange(len(self.a), size, dtype=np.float64)
        from scipy.stats import binom  # scipy.stats takes a second to import

        self.a = np.concatenate((self.a, binom.sf(np.floor(n * self.gamma), n, self.beta)))
        self.c = np.concatenate((self.c, np.exp(-n * self.divergence)))

    def delta_of(self, k: int) -> float:
        """δ reached with threshold k: the running maximum of a_n from n = ⌈k/γ − 1⌉,
        taken until it passes c_n (ARX ``calculateDelta``)."""
        start = max(math.ceil(k / self.gamma - 1.0), 0)
        size = max(2 * start, 1024)
        while True:
            if len(self.a) < size:
                self.grow(size)
            running = np.maximum.accumulate(self.a[start:])
            past = np.flatnonzero(running > self.c[start:])
            if past.size:
                return float(running[past[0]])
            size *= 2


@lru_cache(maxsize=64)
def safepub_parameters(epsilon: float, delta: float) -> tuple[float, int]:
    """(β, k) for (ε, δ) as ARX's ``ParameterCalculation``: the loop returns one more
    than the smallest k whose δ_k is below δ (ARX's own off-by-one, on the safe side)."""
    beta = sampling_probability(epsilon)
    sequences = _Sequences(epsilon, beta)
    k = 1
    while sequences.delta_of(k) >= delta:
        k += 1
    return beta, k + 1


@register_privacy_model
class EDDifferentialPrivacy(PrivacyModel):
    """(ε, δ)-differential privacy by random sampling, generalization and suppression of
    classes smaller than a k derived from ε and δ (SafePub)."""

    kind = "differential-privacy"
    label = "(ε, δ)-Differential privacy"
    description = ("Adding or removing any one person changes the probability of any "
                   "release by at most a factor e^ε, except with probability δ: records "
                   "are sampled at random, generalized, and classes smaller than k are "
                   "suppressed (SafePub).")
    params = (
        Param("epsilon", "float", suggested=2.0, low=0, low_open=True, high=100,
              label="epsilon (ε)", help="Privacy budget ε (ARX's default 2)"),
        Param("delta", "float", suggested=1e-6, low=0, high=1, low_open=True,
              high_open=True, label="delta (δ)", help="Probability δ the ε bound may fail"),
        Param("search_share", "float", 0.1, low=0, high=1, low_open=True, high_open=True,
              label="share of ε for the search",
              help="Fraction of ε the data-dependent search spends choosing the "
                   "generalization (ARX's default 0.1)"),
        Param("steps", "int", 100, low=1, high=1_000_000, unit="steps",
              label="search steps", aliases=("--dp-steps",),
              help="Exponential-mechanism draws of the data-dependent search, each at "
                   "most one level below an earlier one, from the top (ARX's step limit "
                   "in expansions); with many attributes few steps stay near the top"),
        Param("generalization", "text", None, optional=True,
              label="fixed generalization",
              help="Data-independent: the generalization, as ATTR=LEVEL,... or a degree "
                   f"({', '.join(DEGREES)}); empty: chosen from the data"),
        Param("seed", "int", None, low=0, high=2**32 - 1, optional=True,
              help="Seed of the sampling and the search (empty: drawn and reported)"),
    )
    # ARX: ImplicitPrivacyCriterion(false, false); the SafePub search never prunes.
    monotonic_with_suppression = False
    monotonic_without_suppression = False
    epsilon: float
    delta: float
    search_share: float
    steps: int
    generalization: str | None
    seed: int | None

    def check_together(self) -> None:
        if self.data_dependent:
            return
        if self.generalization.strip().lower() not in DEGREES and "=" not in self.generalization:
            raise ConfigurationError(
                f"Fixed generalization {self.generalization!r:.40}: write ATTR=LEVEL,... or "
                f"one of {', '.join(DEGREES)}.")

    @property
    def data_dependent(self) -> bool:
        """The generalization is chosen from the data (ARX: no generalization scheme)."""
        return not (self.generalization or "").strip()

    @property
    def epsilon_search(self) -> float:
        """ε spent by the exponential mechanism (0 when the generalization is fixed)."""
        return self.epsilon * self.search_share if self.data_dependent else 0.0

    @property
    def epsilon_anonymization(self) -> float:
        """ε left for sampling and suppression: the one β and k are derived from."""
        return self.epsilon - self.epsilon_search

    @property
    def beta(self) -> float:
        return safepub_parameters(self.epsilon_anonymization, self.delta)[0]

    @property
    def k(self) -> int:
        return safepub_parameters(self.epsilon_anonymization, self.delta)[1]

    @property
    def guaranteed_class_size(self) -> int:
        return self.k

    def levels_for(self, data: EncodedData) -> tuple[int, ...]:
        """The fixed generalization of the data-independent variant, within level bounds
        (ARX ``DataGeneralizationScheme.getGeneralizationLevel``)."""
        text = (self.generalization or "").strip()
        qis = data.quasi_identifiers
        if text.lower() in DEGREES:
            factor = DEGREES[text.lower()]
            wanted = {q.name: int(math.floor(factor * (len(q.level_maps) - 1) + 0.5)) for q in qis}
        else:
            wanted = {}
            for item in filter(None, (p.strip() for p in text.split(","))):
                name, _, level = item.rpartition("=")
                if name not in {q.name for q in qis} or not level.strip().isdigit():
                    raise ConfigurationError(
                        f"Fixed generalization: cannot read '{item}'; write ATTR=LEVEL with "
                        "a quasi-identifier and a whole number.")
                wanted[name] = int(level)
        return tuple(min(max(wanted.get(q.name, 0), q.min_level), q.max_level) for q in qis)

    def record_sample(self, taken: np.ndarray, seed: int, records: int) -> None:
        """Remember the run's sample (a row mask over the input), its seed and the input's
        records: what the release suppresses and reports (set on the run's clone)."""
        self._sample = np.asarray(taken, dtype=bool)
        self._seed_used = int(seed)
        self._records = int(records)

    @property
    def sample(self) -> np.ndarray | None:
        """Input rows drawn into the sample (None before a run)."""
        return getattr(self, "_sample", None)

    @property
    def seed_used(self) -> int | None:
        return getattr(self, "_seed_used", None)

    def satisfied(self, classes: EquivalenceClasses) -> np.ndarray:
        return classes.sizes >= self.k

    def claim_parameters(self) -> dict[str, Any]:
        """The declared parameters with what the run derived and spent (the claim's)."""
        out = {**super().claim_parameters(), **self.accounting()}
        if self.seed_used is not None:
            out.update(seed=self.seed_used, records=self._records)
        return out

    def accounting(self) -> dict[str, Any]:
        """What the release spends and derives: the report's and the claim's figures."""
        steps = self.steps if self.data_dependent else 0
        return {"epsilon_anonymization": self.epsilon_anonymization,
                "epsilon_search": self.epsilon_search,
                "epsilon_per_step": self.epsilon_search / steps if steps else 0.0,
                "beta": self.beta, "k": self.k, "data_dependent": self.data_dependent}

    def describe(self) -> str:
        return (f"({self.epsilon:g}, {self.delta:g})-differential privacy (random sample, "
                f"classes of at least {self.k})")
