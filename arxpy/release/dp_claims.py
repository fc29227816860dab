"""Checker of (ε, δ)-differential privacy claims (SafePub), written apart from
:mod:`arxpy.privacy.differential_privacy`.

From the claim's declared parameters alone it recomputes the ε accounting (the search's
share ε·share spread over the steps, the rest for sampling and suppression; nothing for
the search when the generalization is fixed), β = 1 − e^(−ε_anon) and the k of Li,
Qardaji and Su's Theorem 1 as ARX 3.9.2 evaluates it (``ParameterCalculation``: a_n the
Binomial(n, β) tail above ⌊nγ⌋, summed here term by term from log-factorials; c_n =
e^(−n(γ ln(γ/β) − (γ − β))); δ_k the running maximum of a_n from ⌈k/γ − 1⌉ until it passes
c_n; k one past the first δ_k below δ). The release holds if the claimed figures are
these and every released class of the claimed attributes holds at least k records.
The sampling itself is random and cannot be checked from one output.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from arxpy.release.claims import (
    ROUNDING,
    Claim,
    ClaimCheck,
    register_claim_checker,
    released_class_codes,
)

if TYPE_CHECKING:
    from arxpy.release.model import Release


def epsilon_split(epsilon: float, share: float, steps: int, data_dependent: bool
                  ) -> tuple[float, float, float]:
    """(ε for sampling and suppression, ε for the search, ε per search step)."""
    search = epsilon * share if data_dependent else 0.0
    return epsilon - search, search, (search / steps if data_dependent else 0.0)


def _binomial_tail(n: int, above: int, beta: float) -> float:
    """P(X > above) for X ~ Binomial(n, β), the terms summed from log-factorials."""
    if above >= n:
        return 0.0
    from scipy.special import gammaln  # here: the CLI's start need not import scipy

    j = np.arange(above + 1, n + 1, dtype=np.float64)
    log_terms = (gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1)
                 + j * math.log(beta) + (n - j) * math.log1p(-beta))
    return float(np.exp(log_terms).sum())


@lru_cache(maxsize=32)
def threshold_k(epsilon: float, delta: float) -> int:
    """k of SafePub's (k, β)-SDGS for (ε, δ), as ARX derives it."""
    beta = -math.expm1(-epsilon)
    gamma = (math.exp(epsilon) - 1.0 + beta) / math.exp(epsilon)
    divergence = gamma * math.log(gamma / beta) - (gamma - beta)
    tails: dict[int, float] = {}

    def delta_k(k: int) -> float:
        n = max(math.ceil(k / gamma - 1.0), 0)
        reached = -math.inf
        while True:
            if n not in tails:
                tails[n] = _binomial_tail(n, math.floor(n * gamma), beta)
            reached = max(reached, tails[n])
            if reached > math.exp(-n * divergence):
                return reached
            n += 1

    k = 1
    while delta_k(k) >= delta:
        k += 1
    return k + 1


def _matches(claimed: object, expected: float) -> bool:
    return claimed is not None and abs(float(claimed) - expected) <= ROUNDING * max(1.0, expected)


@register_claim_checker("differential-privacy")
def _differential_privacy(release: Release, claim: Claim) -> ClaimCheck:
    p = claim.parameters
    dependent = not str(p.get("generalization") or "").strip()
    anon, search, per_step = epsilon_split(float(p["epsilon"]), float(p.get("search_share", 0.1)),
                                           int(p.get("steps", 100)), dependent)
    k = threshold_k(anon, float(p["delta"]))
    beta = -math.expm1(-anon)
    wrong = [name for name, value in (("epsilon_anonymization", anon), ("epsilon_search", search),
                                      ("epsilon_per_step", per_step), ("beta", beta), ("k", k))
             if not _matches(p.get(name), value)]
    if wrong:
        return ClaimCheck(claim, False, f"claimed {', '.join(wrong)} differ from the "
                                        f"parameters' (k = {k}, β = {beta:.6g})")
    codes, n = released_class_codes(release, claim.attributes)
    sizes = np.bincount(codes, minlength=n)
    if not sizes.size:
        return ClaimCheck(claim, True, f"no record released; ε = {anon:g} + {search:g}")
    smallest = int(sizes.min())
    return ClaimCheck(claim, smallest >= k,
                      f"smallest class {smallest:,} records, k = {k} from ε = {anon:g} "
                      f"(+ {search:g} for the search), δ = {float(p['delta']):g}, "
                      f"β = {beta:.4f}")
