"""One verdict per release: its claims checked independently, and the attacker's view.

:func:`judge` is the only place a release is called anonymous or not. Explore's badge,
Compare, Risk's limits, the HTML report and every CLI report read its :class:`Verdict`
and print its sentences, so one release reads the same everywhere.

The verdict has two parts:

- **claims**: each claim of the release checked by the one checker of its kind
  (:mod:`arxpy.release.claims`);
- **the attacker's view**: the released table as an attacker holding the declared
  quasi-identifiers sees it: records equal in all of them form a class, and its size
  bounds the prosecutor risk. A method that covered fewer attributes than were declared
  (interval generalisation over Age alone, say) can keep every claim and still leave
  records unique over the declared quasi-identifiers; the verdict says so. Where the view
  means nothing (synthetic records; no quasi-identifier declared) it says why instead.
  Where a ``*`` cell matches any value (cell suppression), a record's class is every
  record compatible with it (:mod:`arxpy.release.wildcards`).

A release is anonymous when it makes a claim that bounds an attacker (not only a
suppression limit or a coding of values), every claim was checked and holds, and the
attacker's view, where it applies, keeps the class size the claims promise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from arxpy.data.codes import column_codes, group_codes
from arxpy.release.claims import ClaimCheck, check_claim, protects
from arxpy.release.wildcards import SUPPRESSED_CELL, compatible_records, pattern_sizes

if TYPE_CHECKING:
    from arxpy.release.model import Release

SYNTHETIC = ("the released records are synthetic (generated per cluster), so records with "
             "equal values are not the same people and their classes mean nothing; the "
             "cluster sizes checked above are the measure that applies")
NO_QUASI_IDENTIFIERS = ("no quasi-identifier is declared, so an attacker's classes cannot be "
                        "formed; declare the attributes an attacker could know (Configure)")


@dataclass(frozen=True)
class AttackerView:
    """The released records grouped by the declared quasi-identifiers.

    ``not_applicable`` holds the reason when the view means nothing for the release;
    then every figure is None. ``uncovered`` lists declared quasi-identifiers no claim
    covers.
    """

    quasi_identifiers: tuple[str, ...]
    classes: int | None = None
    smallest: int | None = None
    highest_risk: float | None = None
    average_risk: float | None = None
    uncovered: tuple[str, ...] = ()
    not_applicable: str = ""
    #: The class sizes themselves (Compare and the report draw on them; not in reports).
    sizes: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def applies(self) -> bool:
        return not self.not_applicable

    @property
    def text(self) -> str:
        if not self.applies:
            return f"Not applicable: {self.not_applicable}."
        if not self.classes:
            return "No record is released."
        return (f"{self.classes:,} classes over {len(self.quasi_identifiers)} declared "
                f"quasi-identifier(s); smallest class {self.smallest:,} (highest prosecutor "
                f"risk {_percent(self.highest_risk)}, average {_percent(self.average_risk)})")

    def to_dict(self) -> dict[str, Any]:
        return {"quasi_identifiers": list(self.quasi_identifiers), "classes": self.classes,
                "smallest_class": self.smallest, "highest_prosecutor_risk": self.highest_risk,
                "average_prosecutor_risk": self.average_risk, "uncovered": list(self.uncovered),
                "applies": self.applies, "not_applicable": self.not_applicable or None}


@dataclass(frozen=True)
class Verdict:
    """Every claim's check and the attacker's view of one release."""

    checks: tuple[ClaimCheck, ...]
    attacker: AttackerView

    @property
    def promised_class_size(self) -> int:
        """The largest class size a holding claim promises (1 if none does)."""
        sizes = [c.claim.promised_class_size or 1 for c in self.checks if c.holds]
        return max(sizes, default=1)

    @property
    def attacker_holds(self) -> bool:
        """Does the attacker's view keep the promised class size (vacuous where it does
        not apply or nothing is released)?"""
        view = self.attacker
        if not view.applies or view.smallest is None:
            return True
        return view.smallest >= self.promised_class_size

    @property
    def unchecked(self) -> tuple[ClaimCheck, ...]:
        return tuple(c for c in self.checks if c.holds is None)

    @property
    def failed(self) -> tuple[ClaimCheck, ...]:
        return tuple(c for c in self.checks if c.holds is False)

    @property
    def protecting(self) -> tuple[ClaimCheck, ...]:
        """Checks of claims that bound an attacker (not a suppression limit or coding)."""
        return tuple(c for c in self.checks if protects(c.claim.kind))

    @property
    def anonymous(self) -> bool:
        return (bool(self.protecting) and all(c.holds for c in self.checks)
                and self.attacker_holds)

    @property
    def verified_claims(self) -> tuple:
        """The claims whose check holds (what Risk may use to bound its estimates)."""
        if not self.attacker_holds:
            return ()
        return tuple(c.claim for c in self.checks if c.holds)

    @property
    def headline(self) -> str:
        """One sentence, the same in every view and report."""
        if not self.checks:
            return "Not anonymous: this release claims no privacy property."
        if self.failed:
            return (f"NOT anonymous: {len(self.failed)} of {_claims(len(self.checks))} "
                    f"{'does' if len(self.failed) == 1 else 'do'} not hold on the released "
                    "records.")
        if not self.protecting:
            kinds = ", ".join(sorted({c.claim.kind for c in self.checks}))
            return (f"Not anonymous: its claims ({kinds}) describe the transformation but "
                    "bound no attacker.")
        if not self.attacker_holds:
            covered = sorted(set(self.attacker.quasi_identifiers) - set(self.attacker.uncovered))
            return (f"Not anonymous over the declared quasi-identifiers (smallest class "
                    f"{self.attacker.smallest:,}): the method's claims cover "
                    f"{', '.join(covered) or 'none of them'} only.")
        if self.unchecked:
            return (f"Not verified: {len(self.unchecked)} of {_claims(len(self.checks))} "
                    f"{'is' if len(self.unchecked) == 1 else 'are'} not independently "
                    "checkable; the others hold.")
        if len(self.checks) == 1:
            return "Anonymous: its one claim verified independently."
        return f"Anonymous: all {_claims(len(self.checks))} verified independently."

    @property
    def status(self) -> str:
        """'anonymous', 'not anonymous' or 'not verified' (for badges and colours)."""
        if self.anonymous:
            return "anonymous"
        if self.protecting and not self.failed and self.attacker_holds:
            return "not verified"
        return "not anonymous"

    def lines(self) -> list[str]:
        """The headline, each check and the attacker's view, as plain sentences."""
        return [self.headline, *(c.text for c in self.checks),
                f"Attacker's view: {self.attacker.text}"]

    def to_dict(self) -> dict[str, Any]:
        return {"anonymous": self.anonymous, "status": self.status, "headline": self.headline,
                "claims": [c.to_dict() for c in self.checks],
                "attacker": self.attacker.to_dict()}


def judge(release: Release) -> Verdict:
    """The verdict on ``release`` (computed from its table; nothing is trusted)."""
    checks = tuple(check_claim(release, claim) for claim in release.claims)
    return Verdict(checks, attacker_view(release))


def attacker_view(release: Release) -> AttackerView:
    """The released records as an attacker holding the declared quasi-identifiers sees them."""
    qis = tuple(release.quasi_identifiers)
    if release.synthetic:
        return AttackerView(qis, not_applicable=SYNTHETIC)
    if not qis:
        return AttackerView(qis, not_applicable=NO_QUASI_IDENTIFIERS)
    covered = {a for claim in release.claims for a in claim.attributes}
    uncovered = tuple(q for q in qis if q not in covered)
    released = release.released()
    if not len(released):
        return AttackerView(qis, 0, None, None, None, uncovered,
                            sizes=np.zeros(0, dtype=np.int64))
    if release.wildcard_cells:
        return _wildcard_view(release, qis, uncovered)
    codes, n = group_codes(column_codes(released, qis))
    sizes = np.bincount(codes, minlength=n).astype(np.int64)
    return AttackerView(qis, int(n), int(sizes.min()), 1.0 / int(sizes.min()),
                        n / len(released), uncovered, sizes=sizes)


def _wildcard_view(release: Release, qis: tuple[str, ...], uncovered: tuple[str, ...]
                   ) -> AttackerView:
    """The view when ``*`` cells match any value: each record's class is the records
    compatible with it, so classes overlap; one per distinct released pattern, its size
    the records compatible with it, and the average risk the mean of 1 / that size."""
    fk = compatible_records(release.released(), qis, SUPPRESSED_CELL)
    sizes = pattern_sizes(release.released(), qis, fk)
    return AttackerView(qis, int(sizes.size), int(fk.min()), 1.0 / int(fk.min()),
                        float(np.mean(1.0 / fk)), uncovered, sizes=sizes)


def _percent(value: float | None) -> str:
    if value is None:
        return "n/a"
    shown = f"{100 * value:.2f}".rstrip("0").rstrip(".")
    return f"{shown} %"


def _claims(count: int) -> str:
    return f"{count} claim{'' if count == 1 else 's'}"
