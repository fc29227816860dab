"""Detection of HIPAA Safe Harbor identifiers (45 CFR 164.514(b)(2)) by attribute name and value.

Shaped like ARX's ``RiskModelHIPAASafeHarbor``: every attribute name is compared with
labels at a Levenshtein tolerance (``HIPAAMatcherAttributeName``), and every attribute's
distinct values (missing-value spellings left out) are tested against value patterns; an
attribute matches a pattern when the fraction of its distinct values that match is above
``threshold``. Each match carries the identifier kind and a reason a person can read.
Value patterns: e-mail, SSN (ARX's pattern), IPv4/IPv6, URL, US phone/fax numbers, ZIP
codes with five digits (or ZIP+4), three-digit ZIP areas of 20,000 people or fewer, dates
more precise than a year (quarters such as 2013-Q1 too), years implying an age over 89,
ages over 89 (in attributes named like an age), common given names and surnames, and
record/account-like codes that are distinct for every record.
"""

from __future__ import annotations

import datetime as _dt
import functools
import ipaddress
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.data.types import MISSING_VALUES
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
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
    (r"\d{4} ?-? ?Q[1-4]|Q[1-4] ?-? ?\d{4}", None),  # quarters: an element finer than a year
    (r"\d{4}-\d{1,2}-\d{1,2}[ T]\d{1,2}:\d{2}(?::\d{2})?", None),
    (r"\d{1,2} [A-Za-z]{3,9} \d{4}", "%d %B %Y"),
    (r"\d{1,2} [A-Za-z]{3} \d{4}", "%d %b %Y"),
    (r"[A-Za-z]{3,9} \d{1,2}, \d{4}", "%B %d, %Y"),
    (r"[A-Za-z]{3} \d{1,2}, \d{4}", "%b %d, %Y"),
)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


#: Values matched between yields of the GIL. The loop below runs in C without the
#: interpreter's periodic switch, so without a yield a GUI thread waited 70-140 ms.
_GIL_STEP = 1024


def _full(values: pd.Series, pattern: str) -> np.ndarray:
    """Which values (all strings) match ``pattern`` entirely.

    A plain loop over the compiled pattern: pandas' ``str.fullmatch`` costs about twice
    as much per value, and these run over millions of distinct values.
    """
    matcher = _compiled(pattern).fullmatch
    out = np.empty(len(values), dtype=bool)
    for start in range(0, len(values), _GIL_STEP):
        part = values.iloc[start:start + _GIL_STEP]
        out[start:start + len(part)] = np.fromiter(map(bool, map(matcher, part)), bool,
                                                    count=len(part))
        time.sleep(0)  # hand the GIL to a waiting thread (the GUI's event loop)
    return out


#: Dotted quads and anything with a colon: the only strings ipaddress accepts.
_IP_SHAPE = r"\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f.:]{0,44}:[0-9A-Fa-f.:]{0,44}"


def _is_ip(values: pd.Series) -> np.ndarray:
    def parse(v: str) -> bool:
        try:
            ipaddress.ip_address(v)
        except ValueError:
            return False
        return True
    candidates = _full(values, _IP_SHAPE)
    out = np.zeros(len(values), bool)
    out[candidates] = [parse(v) for v in values[candidates]]
    return out


#: Any of the date shapes: one pass that rules out most values before the precise ones.
_ANY_DATE = "|".join(f"(?:{pattern})" for pattern, _ in _DATES)


def _is_date(values: pd.Series) -> np.ndarray:
    out = np.zeros(len(values), bool)
    candidates = _full(values, _ANY_DATE)
    if not candidates.any():
        return out
    values = values[candidates]
    found = np.zeros(len(values), bool)
    for pattern, fmt in _DATES:
        shaped = _full(values, pattern) & ~found
        if not shaped.any():
            continue
        if fmt is None:
            found |= shaped
            continue
        parsed = pd.to_datetime(values[shaped], format=fmt, errors="coerce")
        found[np.flatnonzero(shaped)[parsed.notna().to_numpy()]] = True
    out[candidates] = found
    return out


def _old_year(values: pd.Series) -> np.ndarray:
    year = pd.to_numeric(values.where(_full(values, r"\d{4}")), errors="coerce")
    age = _dt.date.today().year - year
    # ARX: a year more than 89 and less than 130 years ago reveals an age over 89.
    return ((age > 89) & (age < 130)).fillna(False).to_numpy(dtype=bool)


def _ages(values: pd.Series) -> np.ndarray:
    number = pd.to_numeric(values.where(_full(values, r"\d{1,3}")), errors="coerce")
    return number.between(0, 130).fillna(False).to_numpy(dtype=bool)


_NAME_WORDS = pd.Index(sorted(set(FIRST_NAMES) | set(LAST_NAMES)))


def _names(values: pd.Series) -> np.ndarray:
    """Values made only of known given names and surnames (at least one word)."""
    words = values.str.strip().str.lower().str.split().explode()
    known = pd.Series(words.isin(_NAME_WORDS).to_numpy(), index=words.index)
    known[words.isna().to_numpy()] = False  # a value without words is no name
    return known.groupby(level=0, sort=False).all().reindex(values.index).to_numpy(bool)


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


#: Distinct values examined per step; cancellation is checked between steps, and a
#: step of every rule takes a few milliseconds.
_CHUNK = 10_000


def match_values(attribute: str, column: pd.Series, threshold: float,
                 cancel: CancelToken | None = None) -> list[HipaaMatch]:
    """Value-pattern matches of one column (fraction of distinct values > ``threshold``).

    Works through the distinct values in steps, so ``cancel`` stops it within
    milliseconds even on millions of records.
    """
    cancel = cancel or CancelToken()
    uniques = pd.Series(pd.unique(column.astype(str)), dtype=object)
    counts = np.zeros(len(_VALUE_RULES), np.int64)
    special = _SpecialTally()
    for start in range(0, len(uniques), _CHUNK):
        cancel.raise_if_cancelled()
        chunk = _cleaned(uniques.iloc[start:start + _CHUNK])
        special.total += len(chunk)
        # Counting characters (vectorized) rules out most values for most patterns;
        # only the candidates go through the regular expressions.
        shape = _Shape(chunk)
        for i, (_, _, _, matcher) in enumerate(_VALUE_RULES):
            counts[i] += int(matcher(chunk[_CANDIDATES[i](shape)]).sum())
            cancel.raise_if_cancelled()
        special.add(chunk, shape)
    if special.total == 0:
        return []
    out = []
    for count, (kind, instance, reason, _) in zip(counts, _VALUE_RULES, strict=True):
        share = count / special.total
        if share > threshold:
            out.append(HipaaMatch(attribute, kind, instance, "value", f"{share:.4g}",
                                  f"{share:.0%} of the distinct {reason}"))
    return out + special.matches(attribute, len(column), threshold)


def _cleaned(values: pd.Series) -> pd.Series:
    """Distinct values without missing-value spellings, stripped, indexed 0..n-1."""
    stripped = values.str.strip()
    return stripped[~stripped.str.lower().isin(MISSING_VALUES)].reset_index(drop=True)


class _Shape:
    """Character counts of strings, computed with numpy: cheap necessary conditions for
    the value patterns. Strings longer than ``_SHAPED`` characters or with non-ASCII
    characters (``\\d`` also matches other scripts' digits) are not counted: they stay
    candidates of every pattern."""

    _SHAPED = 48

    def __init__(self, values: pd.Series) -> None:
        texts = values.to_numpy(dtype=object)
        self.length = np.fromiter(map(len, texts), np.int64, count=len(texts))
        self.long = self.length > self._SHAPED
        chars = np.zeros((len(texts), self._SHAPED), np.uint32)
        short = np.flatnonzero(~self.long)
        if len(short):
            fixed = np.array(texts[short].tolist(), dtype=f"<U{self._SHAPED}")
            chars[short] = fixed.view(np.uint32).reshape(len(short), self._SHAPED)
        self.long |= (chars > 127).any(axis=1)
        self._chars = chars
        self.digits = ((chars >= ord("0")) & (chars <= ord("9"))).sum(axis=1)

    def has(self, character: str) -> np.ndarray:
        return (self._chars == ord(character)).any(axis=1) | self.long

    def digits_between(self, low: int, high: int) -> np.ndarray:
        return ((self.digits >= low) & (self.digits <= high)) | self.long

    def digits_in(self, *counts: int) -> np.ndarray:
        return np.isin(self.digits, counts) | self.long

    def exact_digits(self, low: int, high: int) -> np.ndarray:
        """Strings of ``low`` to ``high`` characters, all digits."""
        return ((self.digits == self.length) & (self.length >= low)
                & (self.length <= high)) | self.long


#: Per value rule (same order as _VALUE_RULES), a condition every match meets.
_CANDIDATES: tuple[Callable[[_Shape], np.ndarray], ...] = (
    lambda s: s.has("@"),  # e-mail
    lambda s: s.digits_between(9, 9),  # SSN: nine digits, dashed or not
    lambda s: s.has(":") | (s.has(".") & (s.length <= 15)),  # IPv6, dotted IPv4
    lambda s: s.has(":") | s.has("."),  # URL: scheme or www.
    lambda s: s.digits_between(10, 11),  # US phone, with or without 1
    lambda s: s.digits_in(5, 9),  # ZIP, ZIP+4
    lambda s: s.digits_between(5, 14),  # dates from 1/2020 to 2020-01-01 12:00:00
    lambda s: s.exact_digits(4, 4),  # years
    lambda s: s.digits_between(0, 0),  # names
)


class _SpecialTally:
    """Rules that look at more than the share of matching distinct values, counted
    step by step over the distinct values."""

    def __init__(self) -> None:
        self.total = self.zip3 = self.ages = self.codes = 0
        self.restricted: set[str] = set()
        self.oldest: float | None = None

    def add(self, distinct: pd.Series, shape: _Shape) -> None:
        """Count the rules' matches among ``distinct`` (``total`` is the caller's)."""
        short_number = shape.exact_digits(1, 3)
        zip3_values = distinct[shape.exact_digits(3, 3)]
        zip3 = _full(zip3_values, r"\d{3}")
        self.zip3 += int(zip3.sum())
        self.restricted |= set(zip3_values[zip3]) & RESTRICTED_ZIP3
        age_values = distinct[short_number]
        ages = _ages(age_values)
        self.ages += int(ages.sum())
        if ages.any():
            oldest = float(pd.to_numeric(age_values[ages]).max())
            self.oldest = oldest if self.oldest is None else max(self.oldest, oldest)
        self.codes += int(_full(distinct[shape.digits_between(4, 10**9)], _CODE).sum())

    def matches(self, attribute: str, records: int, threshold: float) -> list[HipaaMatch]:
        out = []
        restricted = sorted(self.restricted)
        if self.zip3 / self.total > threshold and restricted:
            out.append(HipaaMatch(
                attribute, "geographic_subdivision", "ZIP Code (3 digits)", "value",
                ", ".join(restricted),
                f"three-digit ZIP areas of 20,000 people or fewer occur "
                f"({', '.join(restricted)}); Safe Harbor requires them to be replaced by 000"))
        # Small whole numbers are everywhere (lengths of stay, counts): only an age-like
        # name counts.
        if ("age" in _normalize_name(attribute).split() and self.ages / self.total > threshold
                and self.oldest is not None and self.oldest > 89):
            oldest = int(self.oldest)
            out.append(HipaaMatch(
                attribute, "date", "Age over 89", "value", str(oldest),
                f"values look like ages and include ages over 89 (up to {oldest}); "
                "Safe Harbor requires aggregating them to 90 or older"))
        codes = self.codes / self.total
        if records >= 20 and self.total == records and codes > threshold:
            out.append(HipaaMatch(
                attribute, "other_unique_identifier", "Record or account number", "value",
                f"{codes:.4g}",
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
        matches += match_values(str(attribute), frame[attribute], threshold, cancel)
        report((index + 1) / len(frame.columns),
               f"Looking for HIPAA identifiers ({index + 1} of {len(frame.columns)} attributes)")
    return HipaaAnalysis(tuple(matches))


#: Characters a generalization puts in place of removed detail ("750**", "1985-**").
_MASKS = "*#x"


def find_hipaa_identifiers_in_output(frame: pd.DataFrame, generalized: set[str],
                                     threshold: float = 0.8, *,
                                     cancel: CancelToken | None = None) -> HipaaAnalysis:
    """Safe Harbor identifiers still present in an anonymized output, judged by its values.

    Attributes in ``generalized`` (transformed above level 0) count only where their
    output values still match a pattern, after stripping masked characters: ``75***`` is
    a two-digit ZIP prefix and no longer a ZIP code; ``750**`` is flagged only if 750 is
    a restricted three-digit area. Other attributes keep their input values, so their
    names count as in :func:`find_hipaa_identifiers`.
    """
    threshold = check_threshold(threshold)
    cancel = cancel or CancelToken()
    matches: list[HipaaMatch] = []
    for attribute in frame.columns:
        cancel.raise_if_cancelled()
        name = str(attribute)
        if name in generalized:
            kept = frame[attribute].astype(str).str.rstrip(_MASKS).str.rstrip("-/. ")
            matches += match_values(name, kept, threshold, cancel)
        else:
            matches += match_name(name) + match_values(name, frame[attribute], threshold,
                                                       cancel)
    return HipaaAnalysis(tuple(matches))
