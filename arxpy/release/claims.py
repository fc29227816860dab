"""Claims and the one checker per claim kind.

A :class:`Claim` is a privacy property a release states in a form a reader can test.
Each claim kind has exactly one checker, registered here (or, for a kind that needs a
method's published artefact, by that method's package with
:func:`register_claim_checker`). A checker reads only the released table, the
per-record groups and suppression flags, and the claim's parameters: never the method's
or the privacy model's own bookkeeping, so a method that lies about its output is
caught. The definitions are the textbook ones as ARX implements them (cited per
checker); the privacy models under :mod:`arxpy.privacy` are written apart from these.

Comparisons allow a relative rounding of 1e-9 in the claim's favour: the models compute
the same quantities by another route (integer ratios, running sums), and a release whose
figure equals its bound must not be refuted by the last bit of a float.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from arxpy.data.codes import column_codes, group_codes
from arxpy.data.definition import DataKind
from arxpy.data.types import parse_values
from arxpy.errors import DefinitionError

if TYPE_CHECKING:
    from arxpy.release.model import Release

#: Relative slack of every bound (see the module docstring).
ROUNDING = 1e-9


@dataclass(frozen=True)
class Claim:
    """A privacy property a release claims, checkable on its released records.

    ``kind`` and ``parameters`` are a privacy model's (``{"kind": "k-anonymity",
    "k": 5}`` becomes ``Claim("k-anonymity", {"k": 5}, qis)``); ``attributes`` are the
    quasi-identifiers it holds over. Suppressed records are outside every claim.
    """

    kind: str
    parameters: Mapping[str, Any]
    attributes: tuple[str, ...]
    description: str = ""
    #: Every released group holds at least this many records (None: no such promise).
    min_class_size: int | None = None
    #: The marketer risk of the released records is at most this (None: no promise).
    max_marketer_risk: float | None = None
    #: What the checker needs beyond the parameters and is not part of the claim's
    #: words (the sensitive attribute's hierarchy for hierarchical t-closeness).
    evidence: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def text(self) -> str:
        return self.description or self.kind

    @property
    def promised_class_size(self) -> int | None:
        """The smallest group size this claim promises, if it promises one."""
        if self.min_class_size:
            return int(self.min_class_size)
        k = self.parameters.get("k") if self.kind in SIZE_KINDS else None
        return int(k) if isinstance(k, int | np.integer) else None

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, **dict(self.parameters), "attributes": list(self.attributes),
               "description": self.description}
        if self.min_class_size is not None:
            out["min_class_size"] = self.min_class_size
        if self.max_marketer_risk is not None:
            out["max_marketer_risk"] = self.max_marketer_risk
        return out


#: The kind of the lattice search's suppression-limit claim.
SUPPRESSION_LIMIT = "suppression-limit"

#: Claim kinds whose parameter ``k`` is a smallest group size.
SIZE_KINDS = ("k-anonymity", "k-cluster")


@dataclass(frozen=True)
class ClaimCheck:
    """One claim and what its independent checker found.

    ``holds`` is None when no checker exists for the claim's kind (or this release lacks
    what the checker needs): the claim is then "not independently checkable".
    """

    claim: Claim
    holds: bool | None
    finding: str

    @property
    def text(self) -> str:
        if self.holds is None:
            return f"{self.claim.text}: not independently checkable ({self.finding})"
        verdict = "holds" if self.holds else "FAILS"
        return f"{self.claim.text}: {verdict} ({self.finding})"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.claim.kind, "claim": self.claim.text, "holds": self.holds,
                "finding": self.finding}


Checker = Callable[["Release", Claim], ClaimCheck]
_CHECKERS: dict[str, Checker] = {}
#: Claim kinds that describe how values were transformed or how many records were
#: left out, but bound no attacker's success (a suppression limit, top coding).
_NOT_PROTECTING: set[str] = set()


def register_claim_checker(kind: str, *, protects: bool = True
                           ) -> Callable[[Checker], Checker]:
    """Register the one checker of claims of ``kind`` (a decorator). ``protects``: a
    claim of this kind bounds re-identification or disclosure (False for claims about
    the transformation only); a release is anonymous only with a protecting claim."""

    def register(checker: Checker) -> Checker:
        if kind in _CHECKERS and _CHECKERS[kind] is not checker:
            raise ValueError(f"Claim kind '{kind}' already has a checker.")
        _CHECKERS[kind] = checker
        if not protects:
            _NOT_PROTECTING.add(kind)
        return checker

    return register


def protects(kind: str) -> bool:
    """Does a claim of ``kind`` bound an attacker (see :func:`register_claim_checker`)?"""
    return kind not in _NOT_PROTECTING


def check_claim(release: Release, claim: Claim) -> ClaimCheck:
    """The registered checker's verdict on ``claim`` (None if the kind has none)."""
    checker = _CHECKERS.get(claim.kind)
    if checker is None:
        return ClaimCheck(claim, None, f"no checker for '{claim.kind}' claims")
    return checker(release, claim)


def checkable_kinds() -> tuple[str, ...]:
    return tuple(sorted(_CHECKERS))


# --- what the checkers read ---------------------------------------------------------------


def released_class_codes(release: Release, attributes: tuple[str, ...]) -> tuple[np.ndarray, int]:
    """Per released record, the index of its class of equal values in ``attributes``
    (those present in the table), and the number of classes."""
    released = release.released()
    present = [a for a in attributes if a in released.columns]
    if not len(released):
        return np.zeros(0, dtype=np.int64), 0
    if not present:
        return np.zeros(len(released), dtype=np.int64), 1
    return group_codes(column_codes(released, present))


def released_group_sizes(release: Release) -> np.ndarray:
    """Sizes of the method's own groups among released records (clusters, boxes)."""
    if release.groups is None:
        return np.zeros(0, dtype=np.int64)
    groups = np.asarray(release.groups)[~np.asarray(release.suppressed, dtype=bool)]
    groups = groups[groups >= 0]
    sizes = np.bincount(groups) if groups.size else np.zeros(0, dtype=np.int64)
    return sizes[sizes > 0].astype(np.int64)


def _at_least(value: float, bound: float) -> bool:
    return value >= bound * (1 - ROUNDING)


def _at_most(value: float, bound: float) -> bool:
    return value <= bound * (1 + ROUNDING) + ROUNDING


def _size_check(claim: Claim, sizes: np.ndarray, what: str) -> ClaimCheck:
    required = claim.promised_class_size or 1
    if not sizes.size:
        return ClaimCheck(claim, True, "no record released")
    smallest = int(sizes.min())
    return ClaimCheck(claim, smallest >= required,
                      f"smallest {what} {smallest:,} records, at least {required:,} claimed")


# --- class sizes ---------------------------------------------------------------------------


@register_claim_checker("k-anonymity")
def _k_anonymity(release: Release, claim: Claim) -> ClaimCheck:
    """Records equal in every claimed attribute form a class; each holds >= k records."""
    codes, n = released_class_codes(release, claim.attributes)
    return _size_check(claim, np.bincount(codes, minlength=n), "class")


@register_claim_checker("k-cluster")
def _k_cluster(release: Release, claim: Claim) -> ClaimCheck:
    """Each of the method's groups (clusters) holds >= k released records. The rows of a
    cluster may differ (synthetic records), so groups are read from the release's
    per-record group ids, recounted here."""
    if release.groups is None:
        return ClaimCheck(claim, None, "the release has no per-record groups")
    return _size_check(claim, released_group_sizes(release), "cluster")


@register_claim_checker("prosecutor-risk")
def _prosecutor_risk(release: Release, claim: Claim) -> ClaimCheck:
    """Every released record's prosecutor risk 1/|class| is at most the threshold."""
    codes, n = released_class_codes(release, claim.attributes)
    sizes = np.bincount(codes, minlength=n)
    threshold = float(claim.parameters["threshold"])
    if not sizes.size:
        return ClaimCheck(claim, True, "no record released")
    highest = 1.0 / int(sizes.min())
    return ClaimCheck(claim, _at_most(highest, threshold),
                      f"highest prosecutor risk {highest:.4g}, at most {threshold:.4g} claimed")


@register_claim_checker("average-risk")
def _average_risk(release: Release, claim: Claim) -> ClaimCheck:
    """The average prosecutor risk, classes / released records, is at most the threshold
    (ARX's AverageReidentificationRisk)."""
    codes, n = released_class_codes(release, claim.attributes)
    threshold = float(claim.parameters["threshold"])
    if not codes.size:
        return ClaimCheck(claim, True, "no record released")
    average = n / codes.size
    return ClaimCheck(claim, _at_most(average, threshold),
                      f"average risk {average:.4g}, at most {threshold:.4g} claimed")


@register_claim_checker(SUPPRESSION_LIMIT, protects=False)
def _suppression_limit(release: Release, claim: Claim) -> ClaimCheck:
    """At most floor(limit x records) records are suppressed (ARX's limit)."""
    limit = float(claim.parameters["limit"])
    allowed = math.floor(limit * release.records + 1e-9)
    count = int(np.count_nonzero(release.suppressed))
    return ClaimCheck(claim, count <= allowed,
                      f"{count:,} records suppressed, at most {allowed:,} allowed")


# --- sensitive attributes ------------------------------------------------------------------


@dataclass(frozen=True)
class _Distributions:
    """Counts of sensitive values per released class, and over every input record."""

    counts: np.ndarray  # (classes, values): released records of each class with each value
    overall: np.ndarray  # (values,): all input records (suppressed ones too, as ARX)
    values: np.ndarray  # the sensitive values, column order of ``counts``

    @property
    def class_sizes(self) -> np.ndarray:
        return self.counts.sum(axis=1)

    @property
    def class_p(self) -> np.ndarray:
        return self.counts / self.class_sizes[:, None]

    @property
    def overall_p(self) -> np.ndarray:
        return self.overall / self.overall.sum()


def _distributions(release: Release, claim: Claim) -> _Distributions | None:
    attribute = claim.parameters.get("attribute")
    if attribute not in release.table.columns:
        return None
    everything = release.table[attribute].astype(str).to_numpy()
    values, value_codes = np.unique(everything, return_inverse=True)
    codes, n = released_class_codes(release, claim.attributes)
    kept = value_codes[~np.asarray(release.suppressed, dtype=bool)]
    counts = np.zeros((n, len(values)), dtype=np.int64)
    np.add.at(counts, (codes, kept), 1)
    return _Distributions(counts, np.bincount(value_codes, minlength=len(values)), values)


def _sensitive(check: Callable[[_Distributions, Claim], tuple[bool, str]]) -> Checker:
    """A checker over sensitive-value distributions (vacuous when nothing is released)."""

    def checker(release: Release, claim: Claim) -> ClaimCheck:
        dist = _distributions(release, claim)
        if dist is None:
            return ClaimCheck(claim, None, "the sensitive attribute is not in the release")
        if not dist.counts.shape[0]:
            return ClaimCheck(claim, True, "no record released")
        holds, finding = check(dist, claim)
        return ClaimCheck(claim, bool(holds), finding)

    checker.__doc__ = check.__doc__
    return checker


def _distinct_l(dist: _Distributions, claim: Claim) -> tuple[bool, str]:
    """Every class holds at least l distinct sensitive values."""
    l_value = int(claim.parameters["l"])
    fewest = int((dist.counts > 0).sum(axis=1).min())
    return fewest >= l_value, f"fewest distinct values in a class {fewest}, at least {l_value}"


def _entropy(counts: np.ndarray, estimator: str) -> np.ndarray:
    """Per row of counts, H = psi(N) - (1/N) sum n psi(n): psi = ln (Shannon's plug-in
    entropy) or Grassberger's G(n) = digamma(n) + (-1)^n/2 (digamma((n+1)/2) -
    digamma(n/2)) (Stammler et al., PSD 2016, as ARX's GRASSBERGER)."""

    def psi(n: np.ndarray) -> np.ndarray:
        n = n.astype(np.float64)
        if estimator == "shannon":
            with np.errstate(divide="ignore"):
                return np.where(n > 0, np.log(np.maximum(n, 1)), 0.0)
        from scipy.special import digamma  # here: the CLI's start need not import scipy

        sign = np.where(n.astype(np.int64) % 2 == 0, 1.0, -1.0)
        safe = np.maximum(n, 1)
        g = digamma(safe) + 0.5 * sign * (digamma((safe + 1) / 2) - digamma(safe / 2))
        return np.where(n > 0, g, 0.0)

    totals = counts.sum(axis=1)
    return psi(totals) - (counts * psi(counts)).sum(axis=1) / totals


def _entropy_l(dist: _Distributions, claim: Claim) -> tuple[bool, str]:
    """Every class's entropy of sensitive values is at least ln(l)."""
    l_value = float(claim.parameters["l"])
    estimator = str(claim.parameters.get("estimator", "shannon"))
    lowest = float(_entropy(dist.counts, estimator).min())
    bound = math.log(l_value)
    return (lowest >= bound - ROUNDING * max(1.0, bound),
            f"lowest class entropy {lowest:.4g}, at least ln({l_value:g}) = {bound:.4g}")


def _recursive_cl(dist: _Distributions, claim: Claim) -> tuple[bool, str]:
    """In every class, r_1 < c (r_l + ... + r_m) with r the value counts, descending."""
    c, l_value = float(claim.parameters["c"]), int(claim.parameters["l"])
    ranked = -np.sort(-dist.counts, axis=1)
    tail = ranked[:, l_value - 1:].sum(axis=1)
    failing = int((ranked[:, 0] >= c * tail).sum())
    return failing == 0, f"{failing:,} of {len(ranked):,} classes fail r1 < c(rl+...+rm)"


def _value_order(release: Release, attribute: str, values: np.ndarray) -> np.ndarray | None:
    """Positions of ``values`` lowest first by the attribute's data type; None if the
    values do not parse as that type."""
    data_type = release.definition[attribute].data_type if attribute in release.definition \
        else None
    if data_type is None or data_type.kind in (DataKind.STRING, DataKind.SET):
        return np.argsort(values, kind="stable")
    try:
        keys = parse_values(pd.Series(values, name=attribute), data_type)
    except DefinitionError:
        return None
    if pd.isna(keys).any():
        return None
    return np.argsort(keys, kind="stable")


def _t_closeness(release: Release, claim: Claim) -> ClaimCheck:
    """Earth mover's distance of each class's sensitive distribution to the input's is at
    most t: equal ground distance (half the L1 distance) or ordered distance (running
    sums over the values in data-type order, divided by m - 1)."""
    dist = _distributions(release, claim)
    distance = str(claim.parameters.get("distance", "equal"))
    if dist is None:
        return ClaimCheck(claim, None, "the sensitive attribute is not in the release")
    hierarchy = claim.evidence.get("hierarchy")
    if distance == "hierarchical" and hierarchy is None:
        return ClaimCheck(claim, None, "hierarchical ground distance needs the sensitive "
                                       "attribute's hierarchy, which this claim does not carry")
    if not dist.counts.shape[0]:
        return ClaimCheck(claim, True, "no record released")
    gap = dist.class_p - dist.overall_p[None, :]
    if distance == "equal":
        emd = 0.5 * np.abs(gap).sum(axis=1)
    elif distance == "hierarchical":
        emd = _hierarchical_emd(gap, dist.values, hierarchy.rows)
        if emd is None:
            return ClaimCheck(claim, None, "a sensitive value is missing from its hierarchy")
    else:
        order = _value_order(release, str(claim.parameters["attribute"]), dist.values)
        if order is None:
            return ClaimCheck(claim, None, "the sensitive values do not parse as their type")
        m = len(order)
        running = np.cumsum(gap[:, order], axis=1)
        emd = np.abs(running).sum(axis=1) / (m - 1) if m > 1 else np.zeros(len(gap))
    t = float(claim.parameters["t"])
    largest = float(emd.max())
    return ClaimCheck(claim, _at_most(largest, t),
                      f"largest distance {largest:.4g}, at most {t:g} claimed")


def _hierarchical_emd(gap: np.ndarray, values: np.ndarray,
                      rows: list[list[str]]) -> np.ndarray | None:
    """Li, Li & Venkatasubramanian's hierarchical EMD per class (``gap`` = q - p per
    value): every internal node N at level h of H moves min(positive, negative extra of
    its children) at cost h / H; a node's extra is the sum of its children's."""
    ancestors = {str(row[0]): [str(v) for v in row] for row in rows}
    if any(v not in ancestors for v in values):
        return None
    height = max(len(ancestors[v]) for v in values) - 1
    paths = [ancestors[v] + [ancestors[v][-1]] * (height + 1 - len(ancestors[v]))
             for v in values]
    extra = gap  # level 0: each value is its own node
    child_of_value = np.arange(len(values))
    cost = np.zeros(len(gap))
    for level in range(1, height + 1):
        parent_codes, _ = pd.factorize(np.array(["\x1f".join(p[level:]) for p in paths]))
        n_children, n_parents = extra.shape[1], int(parent_codes.max()) + 1
        link = np.zeros((n_children, n_parents))  # child node -> its parent
        link[child_of_value, parent_codes] = 1.0
        positive, negative = np.maximum(extra, 0) @ link, np.maximum(-extra, 0) @ link
        cost += level / height * np.minimum(positive, negative).sum(axis=1)
        extra, child_of_value = positive - negative, parent_codes
    return cost


def _delta_disclosure(dist: _Distributions, claim: Claim) -> tuple[bool, str]:
    """For every class and value present in it, |log2(p_class / p_input)| < delta."""
    delta = float(claim.parameters["delta"])
    present = dist.counts > 0
    ratio = dist.class_p / dist.overall_p[None, :]
    largest = float(np.abs(np.log2(ratio[present])).max())
    return largest < delta * (1 + ROUNDING), f"largest |log2 ratio| {largest:.4g}, below {delta:g}"


def _beta(dist: _Distributions, claim: Claim, enhanced: bool) -> tuple[bool, str]:
    """Every value's relative gain (p_class - p) / p in a class, where positive, is at
    most beta (enhanced: at most min(beta, -ln p))."""
    beta = float(claim.parameters["beta"])
    p = dist.overall_p
    gain = (dist.class_p - p[None, :]) / p[None, :]
    bound = np.minimum(beta, -np.log(p)) if enhanced else np.full(p.shape, beta)
    over = gain - bound[None, :]
    worst = float(over[gain > 0].max()) if (gain > 0).any() else -beta
    largest = float(gain.max())
    return (worst <= ROUNDING * max(1.0, beta),
            f"largest relative gain {largest:.4g} against a bound of {beta:g}"
            + (" or -ln p" if enhanced else ""))


register_claim_checker("t-closeness")(_t_closeness)
register_claim_checker("distinct-l-diversity")(_sensitive(_distinct_l))
register_claim_checker("entropy-l-diversity")(_sensitive(_entropy_l))
register_claim_checker("recursive-cl-diversity")(_sensitive(_recursive_cl))
register_claim_checker("delta-disclosure")(_sensitive(_delta_disclosure))
register_claim_checker("basic-beta-likeness")(
    _sensitive(lambda dist, claim: _beta(dist, claim, enhanced=False)))
register_claim_checker("enhanced-beta-likeness")(
    _sensitive(lambda dist, claim: _beta(dist, claim, enhanced=True)))
