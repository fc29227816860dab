"""Detection of HIPAA Safe Harbor identifiers (45 CFR 164.514(b)(2)) by attribute name and value.

Shaped like ARX's ``RiskModelHIPAASafeHarbor``: every attribute name is compared with
labels at a Levenshtein tolerance (``HIPAAMatcherAttributeName``), and every attribute's
distinct values (missing-value spellings left out) are tested against value patterns; an
attribute matches a pattern when the fraction of its distinct values that match is above
``threshold``. Each match carries the identifier kind and a reason a person can read.
Value patterns: e-mail, SSN (ARX's pattern), IPv4/IPv6, URL, US phone/fax numbers, ZIP
codes with five digits (or ZIP+4), three-digit ZIP areas of 20,000 people or fewer, dates
more precise than a year, years implying an age over 89, ages over 89 (in attributes named
like an age), common given names and surnames, and record/account-like codes that are
distinct for every record.
"""

from __future__ import annotations

import datetime as _dt
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.data.types import MISSING_VALUES
from arxpy.engine.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.risk.hipaa_lists import FIRST_NAMES, LAST_NAMES, NAME_LABELS, RESTRICTED_ZIP3
from arxpy.risk.sample import check_threshold

#: The 18 Safe Harbor identifier kinds, (A) to (R).
IDENTIFIER_KINDS = (
    "name", "geographic_subdivision", "date", "telephone_number", "fax_number",
    "email_address", "social_security_number", "medical_record_number",
    "health_plan_beneficiary_number", "account_number", "certificate_license_number",
    "vehicle_identifier", "device_identifier", "url", "ip_address", "biometric_identifier",
    "photograph", "other_unique_identifier",
)


@dataclass(frozen=True)
class HipaaMatch:
    """One attribute that looks like a Safe Harbor identifier."""

    attribute: str
    identifier: str  # one of IDENTIFIER_KINDS
    instance: str  # what exactly, e.g. "ZIP Code"
    match_type: str  # "name" or "value"
    matched: str  # the label matched, or the fraction of distinct values matching
    reason: str

    def to_dict(self) -> dict[str, str]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class HipaaAnalysis:
    """Every match found, in column order (names before values per column)."""

    matches: tuple[HipaaMatch, ...]

    def summary(self) -> pd.DataFrame:
        columns = ["attribute", "identifier", "instance", "match_type", "matched", "reason"]
        return pd.DataFrame([m.to_dict() for m in self.matches], columns=columns)

    def attributes(self) -> list[str]:
        return list(dict.fromkeys(m.attribute for m in self.matches))

    def to_list(self) -> list[dict[str, str]]:
        return [m.to_dict() for m in self.matches]


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions) between two strings."""
    previous = list(range(len(a) + 1))
    for j, cb in enumerate(b, 1):
        current = [j]
        for i, ca in enumerate(a, 1):
            current.append(min(previous[i] + 1, current[i - 1] + 1,
                               previous[i - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _normalize_name(name: str) -> str:
    return " ".join(str(name).replace("_", " ").replace(".", " ").strip().lower().split())


def match_name(attribute: str) -> list[HipaaMatch]:
    """Matches of an attribute name against the labels (closest label per instance)."""
    name = _normalize_name(attribute)
    out = []
    for kind, instances in NAME_LABELS.items():
        for instance, labels in instances.items():
            hits = [(levenshtein(name, label), label) for label, tolerance in labels.items()
                    if levenshtein(name, label) <= tolerance]
            if hits:
                distance, label = min(hits)
                how = "is" if distance == 0 else f"is {distance} edit(s) from"
                out.append(HipaaMatch(attribute, kind, instance, "name", label,
                                      f"the attribute name {how} '{label}'"))
    return out


# --- value patterns ------------------------------------------------------------------------

_EMAIL = r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?" \
         r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}"
_URL = r"(?:(?:https?|ftp)://|www\.)[^\s/$.?#][^\s]*"
_PHONE = r"(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-]?)\d{3}[\s.-]?\d{4}"
_SSN = r"[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9}"  # ARX's HIPAAMatcherSSN
_ZIP5 = r"\d{5}(?:-?\d{4})?"
_CODE = r"[A-Za-z]{0,4}[-_ ]?\d{4,}[A-Za-z]?"
#: Date formats more precise than a year (pattern, strptime format for validation).
_DATES = (
    (r"\d{4}-\d{1,2}-\d{1,2}", "%Y-%m-%d"),
    (r"\d{4}/\d{1,2}/\d{1,2}", "%Y/%m/%d"),
    (r"\d{1,2}/\d{1,2}/\d{4}", "%m/%d/%Y"),
    (r"\d{1,2}/\d{1,2}/\d{4}", "%d/%m/%Y"),
    (r"\d{1,2}\.\d{1,2}\.\d{4}", "%d.%m.%Y"),
    (r"\d{1,2}-\d{1,2}-\d{4}", "%d-%m-%Y"),
    (r"\d{1,2}-\d{1,2}-\d{4}", "%m-%d-%Y"),
    (r"\d{4}-\d{1,2}", "%Y-%m"),
    (r"\d{1,2}/\d{4}", "%m/%Y"),
    (r"\d{4}-\d{1,2}-\d{1,2}[ T]\d{1,2}:\d{2}(?::\d{2})?", None),
    (r"\d{1,2} [A-Za-z]{3,9} \d{4}", "%d %B %Y"),
    (r"\d{1,2} [A-Za-z]{3} \d{4}", "%d %b %Y"),
    (r"[A-Za-z]{3,9} \d{1,2}, \d{4}", "%B %d, %Y"),
    (r"[A-Za-z]{3} \d{1,2}, \d{4}", "%b %d, %Y"),
)


def _full(values: pd.Series, pattern: str) -> np.ndarray:
    return values.str.fullmatch(pattern).fillna(False).to_numpy(dtype=bool)


def _is_ip(values: pd.Series) -> np.ndarray:
    def parse(v: str) -> bool:
        try:
            ipaddress.ip_address(v)
        except ValueError:
            return False
        return True
    candidates = _full(values, r"[0-9A-Fa-f.:]{2,45}")
    out = np.zeros(len(values), bool)
    out[candidates] = [parse(v) for v in values[candidates]]
    return out


def _is_date(values: pd.Series) -> np.ndarray:
    out = np.zeros(len(values), bool)
    for pattern, fmt in _DATES:
        shaped = _full(values, pattern) & ~out
        if not shaped.any():
            continue
        if fmt is None:
            out |= shaped
            continue
        parsed = pd.to_datetime(values[shaped], format=fmt, errors="coerce")
        out[np.flatnonzero(shaped)[parsed.notna().to_numpy()]] = True
    return out


def _old_year(values: pd.Series) -> np.ndarray:
    year = pd.to_numeric(values.where(_full(values, r"\d{4}")), errors="coerce")
    age = _dt.date.today().year - year
    # ARX: a year more than 89 and less than 130 years ago reveals an age over 89.
    return ((age > 89) & (age < 130)).fillna(False).to_numpy(dtype=bool)


def _ages(values: pd.Series) -> np.ndarray:
    number = pd.to_numeric(values.where(_full(values, r"\d{1,3}")), errors="coerce")
    return number.between(0, 130).fillna(False).to_numpy(dtype=bool)


def _names(values: pd.Series) -> np.ndarray:
    lowered = values.str.strip().str.lower()
    words = lowered.str.split()
    return words.map(lambda w: bool(w) and all(x in FIRST_NAMES or x in LAST_NAMES
                                                for x in w)).to_numpy(dtype=bool)


#: (kind, instance, reason, matcher over distinct values)
_VALUE_RULES: tuple[tuple[str, str, str, Callable[[pd.Series], np.ndarray]], ...] = (
    ("email_address", "Email address", "values look like e-mail addresses",
     lambda v: _full(v, _EMAIL)),
    ("social_security_number", "Social security number",
     "values look like social security numbers (123-45-6789 or nine digits)",
     lambda v: _full(v, _SSN)),
    ("ip_address", "IP address", "values are IPv4 or IPv6 addresses", _is_ip),
    ("url", "URL", "values look like web addresses (URLs)", lambda v: _full(v, _URL)),
    ("telephone_number", "Phone or fax number",
     "values look like US telephone or fax numbers", lambda v: _full(v, _PHONE)),
    ("geographic_subdivision", "ZIP Code",
     "values look like ZIP codes with more than three digits (five digits or ZIP+4)",
     lambda v: _full(v, _ZIP5)),
    ("date", "Date", "values are dates more precise than a year", _is_date),
    ("date", "Year", "values are years implying an age over 89", _old_year),
    ("name", "Person name", "values are common given names or surnames", _names),
)


def match_values(attribute: str, column: pd.Series, threshold: float) -> list[HipaaMatch]:
    """Value-pattern matches of one column (fraction of distinct values > ``threshold``)."""
    distinct = pd.Series(pd.unique(column.astype(str)), dtype=object)
    distinct = distinct[~distinct.str.strip().str.lower().isin(MISSING_VALUES)]
    distinct = distinct.str.strip().reset_index(drop=True)
    if distinct.empty:
        return []
    out = []
    for kind, instance, reason, matcher in _VALUE_RULES:
        share = float(matcher(distinct).mean())
        if share > threshold:
            out.append(HipaaMatch(attribute, kind, instance, "value", f"{share:.4g}",
                                  f"{share:.0%} of the distinct {reason}"))
    out += _special_values(attribute, column, distinct, threshold)
    return out


def _special_values(attribute: str, column: pd.Series, distinct: pd.Series,
                    threshold: float) -> list[HipaaMatch]:
    """Rules that look at more than the share of matching distinct values."""
    out = []
    zip3 = _full(distinct, r"\d{3}")
    restricted = sorted(set(distinct[zip3]) & RESTRICTED_ZIP3)
    if zip3.mean() > threshold and restricted:
        out.append(HipaaMatch(
            attribute, "geographic_subdivision", "ZIP Code (3 digits)", "value",
            ", ".join(restricted),
            f"three-digit ZIP areas of 20,000 people or fewer occur ({', '.join(restricted)}); "
            "Safe Harbor requires them to be replaced by 000"))
    ages = _ages(distinct)
    # Small whole numbers are everywhere (lengths of stay, counts): only an age-like name counts.
    if "age" in _normalize_name(attribute).split() and ages.mean() > threshold:
        numbers = pd.to_numeric(distinct[ages])
        if numbers.max() > 89:
            out.append(HipaaMatch(
                attribute, "date", "Age over 89", "value", str(int(numbers.max())),
                f"values look like ages and include ages over 89 (up to {int(numbers.max())}); "
                "Safe Harbor requires aggregating them to 90 or older"))
    n = len(column)
    codes = _full(distinct, _CODE)
    if n >= 20 and len(distinct) == n and codes.mean() > threshold:
        out.append(HipaaMatch(
            attribute, "other_unique_identifier", "Record or account number", "value",
            f"{codes.mean():.4g}",
            "every record has its own value and the values look like record, account or "
            "other identifying numbers"))
    return out


def find_hipaa_identifiers(frame: pd.DataFrame, threshold: float = 0.8, *,
                           progress: Progress | None = None,
                           cancel: CancelToken | None = None) -> HipaaAnalysis:
    """Every attribute of ``frame`` that looks like a Safe Harbor identifier, with reasons.

    ``threshold`` in [0, 1] is the share of distinct values a value pattern must exceed.
    """
    threshold = check_threshold(threshold)
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    matches: list[HipaaMatch] = []
    for index, attribute in enumerate(frame.columns):
        cancel.raise_if_cancelled()
        matches += match_name(str(attribute))
        matches += match_values(str(attribute), frame[attribute], threshold)
        report((index + 1) / len(frame.columns), f"HIPAA identifiers: {attribute}")
    return HipaaAnalysis(tuple(matches))
