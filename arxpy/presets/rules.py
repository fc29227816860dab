"""A preset's rules: what is done to which attribute, in words, and why.

A rule is data, not code: the action, the attribute, the category it answers and the
reason with its source. The preset turns rules into roles, hierarchies, identifier
treatments and privacy models that the ordinary engine applies; the report, the
certificate, the recipe and the GUI show the rules themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arxpy.presets.hierarchies import AGE90, BIRTH_YEAR, OLDEST, YEAR, ZIP3
from arxpy.risk.hipaa import IDENTIFIER_KINDS

REMOVE, PSEUDONYM, DATE_SHIFT, THRESHOLD = "remove", "keyed-pseudonym", "date-shift", \
    "risk-threshold"
NO_MODEL = "no-privacy-model"
ACTIONS = (REMOVE, ZIP3, YEAR, AGE90, BIRTH_YEAR, PSEUDONYM, DATE_SHIFT, THRESHOLD, NO_MODEL)

SAFE_HARBOR = "45 CFR 164.514(b)(2)(i)"
#: The Safe Harbor identifier categories (A) to (R), as the rule words them.
CATEGORY_TEXT = {
    "name": "names",
    "geographic_subdivision": "geographic subdivisions smaller than a State",
    "date": "elements of dates (except year) and ages over 89",
    "telephone_number": "telephone numbers",
    "fax_number": "fax numbers",
    "email_address": "electronic mail addresses",
    "social_security_number": "social security numbers",
    "medical_record_number": "medical record numbers",
    "health_plan_beneficiary_number": "health plan beneficiary numbers",
    "account_number": "account numbers",
    "certificate_license_number": "certificate/license numbers",
    "vehicle_identifier": "vehicle identifiers and serial numbers",
    "device_identifier": "device identifiers and serial numbers",
    "url": "web URLs",
    "ip_address": "IP addresses",
    "biometric_identifier": "biometric identifiers",
    "photograph": "full-face photographs and comparable images",
    "other_unique_identifier": "any other unique identifying number, characteristic or code",
}


def category(kind: str) -> str:
    """``(B) geographic subdivisions smaller than a State`` for a HIPAA identifier kind."""
    letter = chr(ord("A") + IDENTIFIER_KINDS.index(kind))
    return f"{SAFE_HARBOR}({letter}) {CATEGORY_TEXT[kind]}"


@dataclass(frozen=True)
class PresetRule:
    """One rule a preset applied: ``action`` (one of :data:`ACTIONS`) to ``attribute``
    (None for a rule about the whole release), answering ``category``, for ``reason``."""

    action: str
    attribute: str | None
    category: str
    reason: str
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """What the rule does, in words."""
        p = self.parameters
        return {
            REMOVE: "removed from the release",
            ZIP3: "generalized to its first three digits at least; the 17 three-digit "
                  "areas of 20,000 people or fewer become 000",
            YEAR: "generalized to the year at least",
            AGE90: f"ages over 89 aggregated into one category, '{OLDEST}'",
            BIRTH_YEAR: f"years up to {p.get('cutoff')} (an age over 89) aggregated into "
                        "one category",
            PSEUDONYM: "replaced by a keyed pseudonym (HMAC-SHA-256 with the key file)",
            DATE_SHIFT: f"dates shifted by one offset per patient of '{p.get('patient')}' "
                        f"within ±{p.get('days')} days",
            THRESHOLD: f"{p.get('measure')} at most {p.get('threshold')}",
            NO_MODEL: "no privacy model beyond the rules: 1-anonymity, so the search keeps "
                      "every attribute at the least generalization the rules allow",
        }[self.action]

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "attribute": self.attribute,
                "rule": self.describe(), "category": self.category,
                "reason": self.reason, "parameters": dict(self.parameters)}

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> PresetRule:
        return cls(record["action"], record.get("attribute"), record["category"],
                   record["reason"], dict(record.get("parameters") or {}))
