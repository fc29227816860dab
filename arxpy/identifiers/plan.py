"""An identifier plan: what happens to each identifying attribute, and date shifting.

Treatments: remove (every identifying attribute without another treatment, as before),
keyed pseudonym, format-preserving mask, random replacement. A treated attribute is
released as treated (insensitive, a string) and is never a quasi-identifier or
sensitive: it is refused as one, since generalizing or judging it makes no sense and a
pseudonym only protects against direct identification. Work is per distinct value,
mapped back by integer codes, so a million records cost about as much as their
distinct values.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition, DataType
from arxpy.data.types import MISSING_VALUES, is_missing
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers.dates import DateShift, shift_dates
from arxpy.identifiers.formats import DIGITS, HEX, PseudonymFormat, distinct_hex_prefixes
from arxpy.identifiers.keys import PseudonymKey
from arxpy.identifiers.masking import (
    DEFAULT_MASK_CHARACTER,
    REGEX,
    MaskRule,
    check_mask_character,
    mask_values,
)

REMOVE, PSEUDONYM, MASK, RANDOM = "remove", "keyed-pseudonym", "mask", "random-replacement"
#: The namespace of pseudonyms that name none: one value, one pseudonym, under any name.
DEFAULT_NAMESPACE = "default"
PSEUDONYM_LABEL = "arxpy pseudonym v1"
#: The label of a random replacement keyed by a key drawn for one release and never
#: kept (``label NUL attribute NUL value``): the DuckDB engine's, and linked tables'.
RANDOM_LABEL = "arxpy random replacement"
_LONGEST_MISSING = max(map(len, MISSING_VALUES))
#: Redraws of random replacements that met another before the format is called too short.
_RANDOM_ROUNDS = 32
PROTECTION_NOTE = (
    "Pseudonyms, masks and random replacements protect against direct identification "
    "only: records can still be re-identified through their quasi-identifiers (which the "
    "privacy models judge), and keyed pseudonyms link the records of one person across "
    "every release made with the same key.")
RANDOM_NOTE = "not reproducible: drawn at random without a key; another run gives other values"


@dataclass(frozen=True)
class Treatment:
    """One identifying attribute's treatment; ``format`` for pseudonyms and random
    replacement, ``rule`` for masks, ``namespace`` for pseudonyms."""

    attribute: str
    kind: str
    format: PseudonymFormat | None = None
    rule: MaskRule | None = None
    namespace: str = DEFAULT_NAMESPACE

    def __post_init__(self) -> None:
        if self.kind not in (REMOVE, PSEUDONYM, MASK, RANDOM):
            raise ConfigurationError(f"Unknown identifier treatment '{self.kind}'.")
        if self.kind in (PSEUDONYM, RANDOM) and self.format is None:
            object.__setattr__(self, "format", PseudonymFormat())
        if self.kind == MASK and self.rule is None:
            raise ConfigurationError(f"The mask of '{self.attribute}' needs a rule.")

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {"attribute": self.attribute, "treatment": self.kind}
        if self.kind == PSEUDONYM:
            record.update(format=str(self.format), namespace=self.namespace,
                          algorithm="HMAC-SHA-256")
        elif self.kind == RANDOM:
            record.update(format=str(self.format), reproducible=False, note=RANDOM_NOTE)
        elif self.kind == MASK:
            record["rule"] = str(self.rule)
        return record

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> Treatment:
        kind = record["treatment"]
        text = record.get("format")
        rule = record.get("rule")
        return cls(record["attribute"], kind,
                   PseudonymFormat.parse(text) if text else None,
                   MaskRule.parse(rule) if rule else None,
                   record.get("namespace", DEFAULT_NAMESPACE))


@dataclass(frozen=True)
class TreatedTable:
    """The table with treated identifiers and shifted dates, its definition (treated
    attributes insensitive strings) and the report's ``identifiers`` record."""

    frame: pd.DataFrame
    definition: DataDefinition
    record: dict[str, Any]


@dataclass(frozen=True)
class IdentifierPlan:
    """Treatments by attribute, an optional date shift, and the mask character."""

    treatments: tuple[Treatment, ...] = ()
    date_shift: DateShift | None = None
    mask_character: str = DEFAULT_MASK_CHARACTER
    _by_attribute: dict[str, Treatment] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_attribute: dict[str, Treatment] = {}
        for treatment in self.treatments:
            if treatment.attribute in by_attribute:
                raise ConfigurationError(
                    f"'{treatment.attribute}' is given two identifier treatments; choose one.")
            by_attribute[treatment.attribute] = treatment
        object.__setattr__(self, "_by_attribute", by_attribute)
        check_mask_character(self.mask_character)
        formats: dict[str, PseudonymFormat] = {}
        for t in self.of_kind(PSEUDONYM):
            if formats.setdefault(t.namespace, t.format) != t.format:
                raise ConfigurationError(
                    f"The pseudonyms of namespace '{t.namespace}' have two formats; one "
                    "namespace is one mapping from values to pseudonyms, so give them one.")
        shifted = set(self.date_shift.attributes) if self.date_shift else set()
        for name in shifted & set(by_attribute):
            raise ConfigurationError(
                f"'{name}' is both treated as an identifier and a date to shift; choose one.")

    def of_kind(self, kind: str) -> list[Treatment]:
        return [t for t in self.treatments if t.kind == kind]

    @property
    def needs_key(self) -> bool:
        return bool(self.of_kind(PSEUDONYM)) or self.date_shift is not None

    @property
    def treated(self) -> list[str]:
        """Attributes released as treated (not removed)."""
        return [t.attribute for t in self.treatments if t.kind != REMOVE]

    def check(self, definition: DataDefinition) -> None:
        """Refuse what no data could make work: unknown attributes, a treated attribute
        that is a quasi-identifier or sensitive, a shifted date that is removed."""
        for name in [t.attribute for t in self.treatments] + self._shift_names():
            definition[name]  # DefinitionError naming the known attributes
        for t in self.treatments:
            role = definition[t.attribute].type
            if role in (AttributeType.QUASI_IDENTIFYING, AttributeType.SENSITIVE):
                what = "a quasi-identifier" if role is AttributeType.QUASI_IDENTIFYING \
                    else "sensitive"
                raise ConfigurationError(
                    f"'{t.attribute}' is {what} and has an identifier treatment ({t.kind}); "
                    "a treated identifier is removed or released as treated, never "
                    "generalized or judged. Give it one role.")
        if self.date_shift is not None:
            for name in self.date_shift.attributes:
                if definition[name].type is AttributeType.IDENTIFYING:
                    raise ConfigurationError(
                        f"'{name}' is identifying, so it is removed and shifting it changes "
                        "nothing; give it another role or leave it out of --date-shift.")

    def _shift_names(self) -> list[str]:
        shift = self.date_shift
        return [] if shift is None else [*shift.attributes, shift.patient]

    def apply(self, frame: pd.DataFrame, definition: DataDefinition,
              key: PseudonymKey | None = None,
              hierarchies: Mapping[str, Hierarchy] | None = None,
              random_key: PseudonymKey | None = None) -> TreatedTable:
        """Shift dates (by the original patient identifiers), then treat identifiers.

        A shifted date attribute's hierarchy in ``hierarchies`` must cover the shifted
        dates (refused otherwise, with advice, before a search would fail on them).
        ``random_key``: random replacements keyed by it (a key drawn for one release and
        never kept, so every table of the release replaces a value alike) instead of
        drawn per value."""
        self.check(definition)
        if self.needs_key and key is None:
            raise ConfigurationError(
                "Keyed pseudonyms and date shifts need a key: give its key file (create "
                "one with 'arxpy keygen --pseudonym KEYFILE').")
        columns: dict[str, pd.Series] = {}
        details: dict[str, dict[str, Any]] = {}
        if self.date_shift is not None:
            types = {a.name: a.data_type for a in definition}
            columns.update(shift_dates(frame, self.date_shift, key, types))
            _refuse_uncovered(columns, hierarchies or {}, self.date_shift.days)
        columns.update(self._pseudonyms(frame, key))
        columns.update(self._masks(frame, details))
        columns.update(self._random(frame, random_key))
        treated = frame.copy(deep=False)
        for name, values in columns.items():
            treated[name] = values
        definition = self.treated_definition(definition)
        return TreatedTable(treated, definition, self.record(definition, key, details))

    def treated_definition(self, definition: DataDefinition) -> DataDefinition:
        """``definition`` with removed attributes identifying and treated ones released as
        insensitive strings."""
        for t in self.treatments:
            definition = definition.with_attribute(t.attribute, type=AttributeType.IDENTIFYING) \
                if t.kind == REMOVE else definition.with_attribute(
                    t.attribute, type=AttributeType.INSENSITIVE, data_type=DataType())
        return definition

    def record(self, definition: DataDefinition, key: PseudonymKey | None,
               details: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
        """The report's ``identifiers``: each treatment (identifying attributes left
        untreated are removed) with ``details`` by attribute (counts, never values), the
        key fingerprint, the shift; never a key or an identifier."""
        removed = [Treatment(n, REMOVE) for n in definition.identifying
                   if n not in self._by_attribute]
        details = details or {}
        return {"treatments": [{**t.to_dict(), **details.get(t.attribute, {})}
                               for t in (*self.treatments, *removed)],
                "key_fingerprint": key.fingerprint if key is not None and self.needs_key
                else None,
                "date_shift": None if self.date_shift is None else self.date_shift.to_dict(),
                "mask_character": self.mask_character if self.of_kind(MASK) else None,
                "note": PROTECTION_NOTE}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> IdentifierPlan:
        """The plan a report's (or a project's) ``identifiers`` record describes."""
        shift = record.get("date_shift")
        return cls(tuple(Treatment.from_dict(t) for t in record.get("treatments", ())
                         if t["treatment"] != REMOVE),
                   DateShift.from_dict(shift) if shift else None,
                   record.get("mask_character") or DEFAULT_MASK_CHARACTER)

    def _pseudonyms(self, frame: pd.DataFrame, key: PseudonymKey | None
                    ) -> dict[str, pd.Series]:
        out: dict[str, pd.Series] = {}
        for namespace in dict.fromkeys(t.namespace for t in self.of_kind(PSEUDONYM)):
            members = [t for t in self.of_kind(PSEUDONYM) if t.namespace == namespace]
            fmt = members[0].format
            distinct = [_Distinct.of(frame[t.attribute]) for t in members]
            union = distinct[0].present if len(distinct) == 1 else pd.unique(
                np.concatenate([d.present for d in distinct]))
            values = np.asarray(union, dtype=object)
            names = ", ".join(f"'{t.attribute}'" for t in members)
            fmt.check_values(values, names)
            macs = key.digests(f"{PSEUDONYM_LABEL}\0{namespace}", values)
            pseudonyms = fmt.render(macs, values)
            if not (fmt.kind == HEX and distinct_hex_prefixes(macs, fmt.length)):
                _refuse_collisions(pseudonyms, fmt, names)
            if len(members) == 1:
                out[members[0].attribute] = distinct[0].mapped(pseudonyms)
                continue
            positions = pd.Index(values)
            for t, d in zip(members, distinct, strict=True):
                out[t.attribute] = d.mapped(pseudonyms[positions.get_indexer(d.present)])
        return out

    def _masks(self, frame: pd.DataFrame, details: dict[str, dict[str, Any]]
               ) -> dict[str, pd.Series]:
        out = {}
        for t in self.of_kind(MASK):
            d = _Distinct.of(frame[t.attribute])
            masked, unmatched = mask_values(list(d.present), t.rule, self.mask_character)
            if t.rule.kind == REGEX:
                details[t.attribute] = {"unmatched_distinct_values": unmatched}
            out[t.attribute] = d.mapped(np.array(masked, dtype=object))
        return out

    def _random(self, frame: pd.DataFrame, random_key: PseudonymKey | None
                ) -> dict[str, pd.Series]:
        out = {}
        for t in self.of_kind(RANDOM):
            d = _Distinct.of(frame[t.attribute])
            name = f"'{t.attribute}'"
            t.format.check_values(d.present, name)
            if random_key is None:
                drawn = _random_replacements(d.present, t.format, t.attribute)
            else:  # as the DuckDB engine draws them: two values meeting refuse the run
                values = np.asarray(d.present, dtype=object)
                if t.format.capacity is not None and t.format.capacity < len(values):
                    raise too_few_values(t.format, len(values), t.attribute)
                drawn = t.format.render(random_key.digests(
                    f"{RANDOM_LABEL}\0{t.attribute}", values), values)
                _refuse_collisions(drawn, t.format, name)
            out[t.attribute] = d.mapped(drawn)
        return out


@dataclass(frozen=True)
class _Distinct:
    """A column's distinct values: codes per row, which are missing, the present ones."""

    column: pd.Series
    codes: np.ndarray
    uniques: np.ndarray
    missing: np.ndarray

    @classmethod
    def of(cls, column: pd.Series) -> _Distinct:
        codes, uniques = pd.factorize(column.astype(str), sort=False)
        uniques = np.asarray(uniques, dtype=object)
        # Only short values can spell a missing one: test those alone (fast on 10^6).
        short = np.fromiter((len(v.strip()) <= _LONGEST_MISSING for v in uniques), bool,
                            len(uniques))
        missing = np.zeros(len(uniques), bool)
        missing[short] = is_missing(pd.Series(uniques[short], dtype=object))
        return cls(column, codes, uniques, missing)

    @property
    def present(self) -> np.ndarray:
        return self.uniques[~self.missing]

    def mapped(self, replacements: np.ndarray) -> pd.Series:
        """The column with each present value replaced (missing values kept)."""
        new = self.uniques.copy()
        new[~self.missing] = replacements
        return pd.Series(new[self.codes], index=self.column.index, name=self.column.name,
                         dtype=object)


def _refuse_uncovered(shifted: Mapping[str, pd.Series], hierarchies: Mapping[str, Hierarchy],
                      days: int) -> None:
    """A hierarchy built over the input's dates misses shifted ones: say how to fix it
    (how many, not which: the shifted dates of a patient are still personal data)."""
    for name, values in shifted.items():
        if name not in hierarchies:
            continue
        known = set(hierarchies[name].values)
        distinct = pd.Series(pd.unique(values), dtype=object)
        dates = distinct[~np.asarray(is_missing(distinct.tolist()), dtype=bool)]
        lacking = int((~dates.isin(known)).sum())  # missing values: the hierarchy's check
        if lacking:
            raise ConfigurationError(
                f"The hierarchy of '{name}' lacks {lacking} of the shifted dates; build it "
                f"over a range reaching {days} days beyond the earliest and latest date of "
                "the data (or every day of the years concerned).")


def _refuse_collisions(pseudonyms: np.ndarray, fmt: PseudonymFormat, names: str) -> None:
    """A pseudonym stays one-to-one on the released data: refuse two values meeting."""
    shared = int(pd.Series(pseudonyms, dtype=object).duplicated(keep=False).sum())
    if not shared:
        return
    advice = "a number as long as the value has too few digits for them; use " \
        if fmt.kind == DIGITS else "lengthen the format, e.g. "
    raise ConfigurationError(
        f"{shared} of the {len(pseudonyms)} distinct values of {names} share their "
        f"pseudonym with another under {fmt}; a pseudonym must be one-to-one on the "
        f"released data: {advice}{fmt.suggestion(len(pseudonyms))}.")


def _random_replacements(values: np.ndarray, fmt: PseudonymFormat, attribute: str
                         ) -> np.ndarray:
    """One distinct random replacement per value (``secrets``: unpredictable)."""
    out = fmt.render([secrets.token_bytes(32) for _ in values], values)
    for _ in range(_RANDOM_ROUNDS):
        again = pd.Series(out).duplicated().to_numpy()
        if not again.any():
            return out
        redrawn = fmt.render([secrets.token_bytes(32) for _ in range(int(again.sum()))],
                             values[again])
        out[again] = redrawn
    raise too_few_values(fmt, len(values), attribute)


def too_few_values(fmt: PseudonymFormat, distinct: int, attribute: str
                   ) -> ConfigurationError:
    """The refusal of random replacements that ``fmt`` cannot draw apart."""
    return ConfigurationError(
        f"The format {fmt} has too few values for the {distinct} distinct values of "
        f"'{attribute}'; use a longer one, e.g. {fmt.suggestion(distinct)}.")
