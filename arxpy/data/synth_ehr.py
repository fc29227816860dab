"""A synthetic EHR generator: sets of real ICD-9-CM diagnosis codes per patient.

Development data for set-valued methods (spec 002 §7), because no installable package
ships patient-level diagnosis codes and the paper's INFORMS 2008 data cannot be
redistributed. Calibrated only to the published marginals of that data (Loukides et al.
2014, Table 1: 58,302 records, 631 distinct codes, 5.11 codes per record on average, at
most 43) -- never to any algorithm's output:

1. Domain: random 3-digit categories (no E-codes), Geometric(0.35) leaves from each,
   until there are ``codes`` codes.
2. Popularity: Zipf over categories (random order), Zipf over leaves in a category.
3. Comorbidity profiles: sparse mixtures over categories concentrated on two chapters,
   each with 6 core codes included with probability U(0.3, 0.9).
4. Record length 1 + NegBin(r = 1.6, mean 4.11), capped at 43.
5. A record's codes (no duplicates): its primary profile's core codes first (with
   probability 0.8), then repeatedly a sibling of a code it has (0.30), a code of its
   profile (0.55; 40 % of patients have a secondary profile, used 40 % of the time) or a
   code by global popularity.

Draws run in rounds over all unfinished records at once (numpy), so 58,302 records take
a few seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.data import icd9
from arxpy.data.transactions import CodeSets
from arxpy.errors import ConfigurationError

#: The published marginals of the INFORMS 2008 diagnosis codes (paper Table 1).
PAPER_RECORDS = 58_302
PAPER_CODES = 631
#: Most records generated: about 35 times the INFORMS data the generator mimics (a
#: million take about 1.2 GB and 20 s), so a typo cannot exhaust the machine's memory.
MAX_RECORDS = 2_000_000
PAPER_MEAN_LENGTH = 5.11
PAPER_MAX_LENGTH = 43


@dataclass(frozen=True)
class SynthEhrConfig:
    """Shape parameters of the generator (spec 002 §7; defaults are the spec's)."""

    leaves_per_category_p: float = 0.35  # Geometric success probability
    zipf_category: float = 1.1
    zipf_leaf: float = 1.0
    profiles: int = 14
    profile_chapter_boost: float = 8.0
    profile_noise_shape: float = 0.5  # Gamma shape of the per-category noise
    profile_mixing_alpha: float = 2.0  # Dirichlet
    core_codes: int = 6
    core_probability: tuple[float, float] = (0.3, 0.9)
    length_r: float = 1.6
    length_mean_extra: float = 4.11  # mean of the NegBin part (length = 1 + NegBin)
    max_length: int = PAPER_MAX_LENGTH
    p_core: float = 0.8
    p_sibling: float = 0.30
    p_profile: float = 0.55
    p_secondary_patient: float = 0.40
    p_secondary_use: float = 0.40


def generate_code_sets(records: int = PAPER_RECORDS, codes: int = PAPER_CODES, seed: int = 0,
                       config: SynthEhrConfig | None = None) -> CodeSets:
    """``records`` synthetic patients' sets of undotted ICD-9-CM codes from a domain of
    ``codes`` codes (some rare codes may never be drawn)."""
    if not 1 <= records <= MAX_RECORDS:
        raise ConfigurationError(
            f"--records must be from 1 to {MAX_RECORDS:,} (development data), not {records}.")
    if codes < 2:
        raise ConfigurationError(f"--codes must be at least 2, not {codes}.")
    config = config or SynthEhrConfig()
    rng = np.random.default_rng(seed)
    domain = _Domain.draw(codes, config, rng)
    profiles = _Profiles.draw(domain, config, rng)
    lengths = _lengths(records, min(config.max_length, len(domain.codes)), config, rng)
    has = _fill_records(domain, profiles, lengths, config, rng)
    return _code_sets(domain.codes, has)


def generate_ehr(records: int = PAPER_RECORDS, codes: int = PAPER_CODES, seed: int = 0,
                 config: SynthEhrConfig | None = None) -> pd.DataFrame:
    """The generated data as a table: ``patient_id`` and ``codes`` (dotted, ``;``-joined)."""
    sets = generate_code_sets(records, codes, seed, config)
    shown = [icd9.dotted(c) for c in sets.vocabulary]
    ptr, idx = sets.indptr, sets.indices
    cells = [";".join(shown[c] for c in idx[ptr[i]:ptr[i + 1]]) for i in range(len(sets))]
    width = len(str(records))
    return pd.DataFrame({"patient_id": [f"P{i + 1:0{width}d}" for i in range(len(sets))],
                         "codes": cells})


@dataclass(frozen=True)
class _Domain:
    codes: list[str]  # ICD order
    category: np.ndarray  # category index of each code
    chapter: np.ndarray  # chapter index of each code
    popularity: np.ndarray  # probability of each code

    @classmethod
    def draw(cls, n_codes: int, config: SynthEhrConfig, rng: np.random.Generator) -> _Domain:
        by_category = icd9.leaves_by_category()
        pool = [c for c in icd9.categories() if c in by_category]
        chosen: list[tuple[str, list[str]]] = []
        total = 0
        for cat in rng.permutation(pool):
            leaves = list(by_category[str(cat)])
            take = min(int(rng.geometric(config.leaves_per_category_p)), len(leaves),
                       n_codes - total)
            picked = sorted(rng.choice(len(leaves), size=take, replace=False))
            chosen.append((str(cat), [leaves[i] for i in picked]))
            total += take
            if total >= n_codes:
                break
        if total < n_codes:
            raise ConfigurationError(f"ICD-9-CM has fewer than {n_codes} usable codes.")
        cat_weight = 1.0 / np.arange(1, len(chosen) + 1) ** config.zipf_category
        cat_weight = cat_weight[rng.permutation(len(chosen))]
        codes, category, weight = [], [], []
        for index, (_, leaves) in enumerate(chosen):
            leaf_weight = 1.0 / np.arange(1, len(leaves) + 1) ** config.zipf_leaf
            leaf_weight = rng.permutation(leaf_weight) / leaf_weight.sum()
            codes += leaves
            category += [index] * len(leaves)
            weight += list(cat_weight[index] * leaf_weight)
        order = np.argsort([icd9.dfs_position(c) for c in codes], kind="stable")
        codes = [codes[i] for i in order]
        chapters = [icd9.ancestor(c, 3) for c in codes]
        chapter_ids = {ch: i for i, ch in enumerate(dict.fromkeys(chapters))}
        popularity = np.asarray(weight)[order]
        return cls(codes, np.asarray(category)[order],
                   np.array([chapter_ids[ch] for ch in chapters]),
                   popularity / popularity.sum())


@dataclass(frozen=True)
class _Profiles:
    cdf: np.ndarray  # (profiles, codes) cumulative code distribution
    mixing: np.ndarray  # (profiles,)
    core: np.ndarray  # (profiles, core_codes) code indices
    core_p: np.ndarray  # (profiles, core_codes) inclusion probabilities

    @classmethod
    def draw(cls, domain: _Domain, config: SynthEhrConfig, rng: np.random.Generator
             ) -> _Profiles:
        n_chapters = int(domain.chapter.max()) + 1
        n_categories = int(domain.category.max()) + 1
        weights = []
        for _ in range(config.profiles):
            boost = np.ones(n_chapters)
            boost[rng.choice(n_chapters, size=min(2, n_chapters), replace=False)] = \
                config.profile_chapter_boost
            noise = rng.gamma(config.profile_noise_shape, size=n_categories)
            w = domain.popularity * boost[domain.chapter] * noise[domain.category]
            weights.append(w / w.sum())
        weights = np.asarray(weights)
        n_core = min(config.core_codes, len(domain.codes))
        core = np.array([rng.choice(len(domain.codes), size=n_core, replace=False, p=w)
                         for w in weights])
        core_p = rng.uniform(*config.core_probability, size=core.shape)
        mixing = rng.dirichlet(np.full(config.profiles, config.profile_mixing_alpha))
        return cls(np.cumsum(weights, axis=1), mixing, core, core_p)

    def code_of(self, profile: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One code from each row's profile."""
        picked = np.empty(len(profile), dtype=np.int64)
        for p in np.unique(profile):
            mine = profile == p
            picked[mine] = _draw(self.cdf[p], rng.random(int(mine.sum())))
        return picked


def _lengths(records: int, cap: int, config: SynthEhrConfig, rng: np.random.Generator
             ) -> np.ndarray:
    p = config.length_r / (config.length_r + config.length_mean_extra)
    return np.minimum(1 + rng.negative_binomial(config.length_r, p, size=records), cap)


def _draw(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    return np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), len(cdf) - 1)


def _fill_records(domain: _Domain, profiles: _Profiles, lengths: np.ndarray,
                  config: SynthEhrConfig, rng: np.random.Generator) -> np.ndarray:
    """A (records, codes) boolean matrix of who has which code."""
    n, n_codes = len(lengths), len(domain.codes)
    has = np.zeros((n, n_codes), dtype=bool)
    count = np.zeros(n, dtype=np.int64)
    slots = np.zeros((n, int(lengths.max())), dtype=np.int64)  # codes in drawing order
    primary = rng.choice(len(profiles.mixing), size=n, p=profiles.mixing)
    secondary = np.where(rng.random(n) < config.p_secondary_patient,
                         rng.choice(len(profiles.mixing), size=n, p=profiles.mixing), -1)
    _add_core_codes(profiles, primary, lengths, has, count, slots, config, rng)
    global_cdf = np.cumsum(domain.popularity)
    siblings = _Siblings.of(domain)
    for _ in range(200 * int(lengths.max())):  # each round adds at most one code per record
        active = np.flatnonzero(count < lengths)
        if len(active) == 0:
            break
        u = rng.random(len(active))
        draw = _draw(global_cdf, rng.random(len(active)))
        sibling = (u < config.p_sibling) & (count[active] > 0)
        if sibling.any():
            rows = active[sibling]
            pick = slots[rows, (rng.random(len(rows)) * count[rows]).astype(np.int64)]
            draw[sibling] = siblings.draw(domain.category[pick], rng)
        from_profile = ~sibling & (u < config.p_sibling + config.p_profile)
        if from_profile.any():
            rows = active[from_profile]
            second = (secondary[rows] >= 0) & (rng.random(len(rows)) < config.p_secondary_use)
            profile = np.where(second, secondary[rows], primary[rows])
            draw[from_profile] = profiles.code_of(profile, rng)
        fresh = ~has[active, draw]  # a code the record has already is drawn again later
        rows, codes = active[fresh], draw[fresh]
        has[rows, codes] = True
        slots[rows, count[rows]] = codes
        count[rows] += 1
    return has


@dataclass(frozen=True)
class _Siblings:
    """Codes sorted by category with cumulative popularity, to draw within a category."""

    order: np.ndarray
    cdf: np.ndarray
    start: np.ndarray  # first position of each category in ``order`` (and one past the end)

    @classmethod
    def of(cls, domain: _Domain) -> _Siblings:
        order = np.argsort(domain.category, kind="stable")
        start = np.searchsorted(domain.category[order], np.arange(domain.category.max() + 2))
        return cls(order, np.cumsum(domain.popularity[order]), start)

    def draw(self, category: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        first, last = self.start[category], self.start[category + 1] - 1
        lo = np.where(first > 0, self.cdf[first - 1], 0.0)
        target = lo + rng.random(len(category)) * (self.cdf[last] - lo)
        where = np.clip(np.searchsorted(self.cdf, target, side="right"), first, last)
        return self.order[where]


def _add_core_codes(profiles: _Profiles, primary: np.ndarray, lengths: np.ndarray,
                    has: np.ndarray, count: np.ndarray, slots: np.ndarray,
                    config: SynthEhrConfig, rng: np.random.Generator) -> None:
    n = len(primary)
    with_core = rng.random(n) < config.p_core
    include = with_core[:, None] & (rng.random(profiles.core_p[primary].shape)
                                    < profiles.core_p[primary])
    # Keep the first length-many included core codes of each record.
    include &= np.cumsum(include, axis=1) <= lengths[:, None]
    for j in range(profiles.core.shape[1]):
        rows = np.flatnonzero(include[:, j])
        codes = profiles.core[primary[rows], j]
        has[rows, codes] = True
        slots[rows, count[rows]] = codes
        count[rows] += 1


def _code_sets(codes: list[str], has: np.ndarray) -> CodeSets:
    """CSR code sets over the codes that occur (vocabulary sorted as CodeSets expects)."""
    used = np.flatnonzero(has.any(axis=0))
    vocabulary = sorted(codes[i] for i in used)
    position = {code: i for i, code in enumerate(vocabulary)}
    remap = np.full(len(codes), -1, dtype=np.int64)
    remap[used] = [position[codes[i]] for i in used]
    rows, cols = np.nonzero(has)
    new = remap[cols]
    order = np.lexsort((new, rows))
    indptr = np.zeros(len(has) + 1, dtype=np.int64)
    np.cumsum(has.sum(axis=1), out=indptr[1:])
    return CodeSets(tuple(vocabulary), indptr, new[order].astype(np.int32))
