"""An independent check of a release's class-size claims, for the Summary badge (no Qt).

Nothing of the method's own bookkeeping is trusted: group sizes are recounted here
from the per-record group ids (``np.bincount``), or, for a method without groups,
from the released records sharing all quasi-identifier values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arxpy.release import Claim, Release

#: Claim kinds whose parameter ``k`` is a smallest group size.
SIZE_CLAIM_KINDS = ("k-anonymity", "k-cluster", "k-map")


@dataclass(frozen=True)
class ClaimCheck:
    """One claim and what the recount found; ``holds`` None: nothing checkable here."""

    claim: Claim
    required: int | None
    smallest: int | None
    holds: bool | None

    @property
    def text(self) -> str:
        what = self.claim.description or self.claim.kind
        if self.holds is None:
            return f"{what} — not checked here"
        verdict = "holds" if self.holds else "FAILS"
        return (f"{what} — {verdict}: smallest group {self.smallest:,} records "
                f"(k = {self.required:,})")


def recounted_group_sizes(release: Release) -> np.ndarray:
    """Sizes of the released groups, recounted from the records (suppressed left out)."""
    kept = ~np.asarray(release.suppressed, dtype=bool)
    if release.groups is not None:
        groups = np.asarray(release.groups)[kept]
        groups = groups[groups >= 0]
        sizes = np.bincount(groups) if groups.size else np.zeros(0, dtype=np.int64)
        return sizes[sizes > 0]
    qis = release.quasi_identifiers
    released = release.table.loc[kept]
    if not qis or released.empty:
        return np.array([len(released)] if len(released) else [], dtype=np.int64)
    return released.groupby(qis, sort=False, dropna=False).size().to_numpy(dtype=np.int64)


def required_size(claim: Claim) -> int | None:
    """The smallest group size ``claim`` promises, if it promises one."""
    if claim.min_class_size:
        return int(claim.min_class_size)
    k = claim.parameters.get("k") if claim.kind in SIZE_CLAIM_KINDS else None
    return int(k) if isinstance(k, int | np.integer) else None


def check_claims(release: Release) -> list[ClaimCheck]:
    """Every claim of ``release`` with the recount's verdict on its group size."""
    sizes = recounted_group_sizes(release)
    smallest = int(sizes.min()) if sizes.size else None
    out = []
    for claim in release.claims:
        required = required_size(claim)
        if required is None:
            out.append(ClaimCheck(claim, None, smallest, None))
        else:
            holds = smallest is None or smallest >= required  # nothing released: vacuous
            out.append(ClaimCheck(claim, required, smallest, holds))
    return out


def badge(checks: list[ClaimCheck]) -> tuple[str, str]:
    """(verdict, colour) for the Summary's privacy badge."""
    checked = [c for c in checks if c.holds is not None]
    if not checked:
        return "No group-size claim to verify independently", "#666666"
    if all(c.holds for c in checked):
        return (f"✔ Verified independently: {len(checked)} group-size claim(s) hold",
                "#1a7f37")
    failed = sum(1 for c in checked if not c.holds)
    return f"✘ {failed} group-size claim(s) do NOT hold on the release", "#b3261e"
