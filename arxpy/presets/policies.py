"""The policy presets: HIPAA Safe Harbor, HIPAA Expert Determination (a risk-threshold
template) and a pseudonymised release for secure processing environments.

A preset reads the HIPAA scan of the data (:func:`arxpy.risk.hipaa.find_hipaa_identifiers`)
and the project's configuration, and returns rules (:class:`PresetRule`, each with its
reason) and the configuration they give: roles, hierarchies built by the rules, the
identifier plan and the privacy models. The engine then runs as for any configuration;
no transformation happens here. ``docs/presets.md`` cites the sources.
"""

from __future__ import annotations

import copy
import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import DateShift, IdentifierPlan, Treatment
from arxpy.identifiers.plan import PSEUDONYM as KEYED
from arxpy.presets.hierarchies import AGE90, BIRTH_YEAR, BUILT, YEAR, ZIP3, build_hierarchy
from arxpy.presets.rules import (
    DATE_SHIFT,
    NO_MODEL,
    PSEUDONYM,
    REMOVE,
    THRESHOLD,
    PresetRule,
    category,
)
from arxpy.release import Release
from arxpy.risk.hipaa import (
    HipaaAnalysis,
    HipaaMatch,
    find_hipaa_identifiers,
    find_hipaa_identifiers_in_output,
)

SAFE_HARBOR, EXPERT_DETERMINATION, PSEUDONYMISED = \
    "safe-harbor", "expert-determination", "pseudonymised"
PRESETS = {
    SAFE_HARBOR: "HIPAA Safe Harbor",
    EXPERT_DETERMINATION: "HIPAA Expert Determination (risk thresholds)",
    PSEUDONYMISED: "Pseudonymised release (secure processing environment)",
}
DESCRIPTIONS = {
    SAFE_HARBOR: "Removes or transforms each of the 18 identifier categories of 45 CFR "
                 "164.514(b)(2) that the HIPAA scan finds: ZIP codes to three digits (000 "
                 "for areas of 20,000 people or fewer), dates to the year, ages over 89 as "
                 "one category, every other identifier removed. The remaining risk is "
                 "measured, not bounded.",
    EXPERT_DETERMINATION: "Removes direct identifiers and bounds the re-identification "
                          "risk over the quasi-identifiers by thresholds you set; the "
                          "defaults are published conventions, not rules.",
    PSEUDONYMISED: "Replaces identifying attributes by keyed pseudonyms and shifts dates "
                   "per patient (both need the key file), removes the other direct "
                   "identifiers; for analysis inside a secure processing environment.",
}
#: Expert Determination's default highest prosecutor risk: the threshold of the EMA's
#: and Health Canada's guidance for public release of clinical reports (a convention).
DEFAULT_HIGHEST_RISK = 0.09
#: Pseudonymised release: widest date shift in days (this preset's choice, a parameter).
DEFAULT_SHIFT_DAYS = 180
#: Settings key of the preset record in a project.
SETTINGS_KEY = "policy_preset"

_PSEUDONYM_KINDS = {"medical_record_number", "health_plan_beneficiary_number",
                    "account_number", "social_security_number", "certificate_license_number",
                    "vehicle_identifier", "device_identifier", "other_unique_identifier"}
_HHS_ZIP = ("HHS, Guidance Regarding Methods for De-identification of Protected Health "
            "Information (2012), section 3.3: 17 three-digit ZIP areas of 20,000 people or "
            "fewer (2000 census)")


@dataclass(frozen=True)
class PresetOutcome:
    """The rules a preset applied and the configuration they give."""

    name: str
    rules: tuple[PresetRule, ...]
    definition: DataDefinition
    hierarchies: dict[str, Hierarchy]
    settings: dict[str, Any]
    plan: IdentifierPlan
    parameters: Mapping[str, Any] = field(default_factory=dict)

    @property
    def built(self) -> dict[str, dict[str, Any]]:
        """Attribute -> the rule that built its hierarchy (``built_by``, ``parameters``)."""
        return {r.attribute: {"built_by": r.action, "parameters": dict(r.parameters)}
                for r in self.rules if r.action in BUILT and r.attribute is not None}

    def record(self) -> dict[str, Any]:
        """What reports, recipes and certificates keep: the preset, its parameters and
        every rule in words with its reason."""
        return {"name": self.name, "label": PRESETS[self.name],
                "parameters": dict(self.parameters),
                "rules": [r.to_dict() for r in self.rules]}


def output_scan(release: Release) -> HipaaAnalysis:
    """The HIPAA scan of ``release``'s published records (generalized attributes judged
    by their values alone): what a Safe Harbor release must not contain."""
    generalized = {n for n, level in (release.transformation or {}).items() if level}
    return find_hipaa_identifiers_in_output(release.released(), generalized)


def scan_problems(release: Release) -> list[str]:
    """One sentence per attribute the output scan still flags (empty: clean)."""
    found: dict[str, list[str]] = {}
    for match in output_scan(release).matches:
        found.setdefault(match.attribute, []).append(match.reason)
    return [f"The HIPAA scan of the output still flags '{name}' ({'; '.join(reasons)}); "
            "Safe Harbor needs a rule for it: apply the preset again and make a new recipe."
            for name, reasons in found.items()]


def built_hierarchies(record: Mapping[str, Any] | None, frame: pd.DataFrame,
                      definition: DataDefinition, hierarchies: Mapping[str, Hierarchy]
                      ) -> dict[str, dict[str, Any]]:
    """Attribute -> the rule of ``record`` (a preset's record kept in a project) that
    built its hierarchy, for hierarchies still exactly as the rule builds them from
    ``frame`` (one edited since is the user's, with no rule)."""
    out = {}
    for rule in (record or {}).get("rules", ()):
        name, action = rule.get("attribute"), rule["action"]
        if action not in BUILT or name not in hierarchies or name not in definition:
            continue
        parameters = dict(rule.get("parameters") or {})
        if build_hierarchy(action, frame[name].astype(str), parameters,
                           definition[name].data_type) == hierarchies[name]:
            out[name] = {"built_by": action, "parameters": parameters}
    return out


def apply_preset(name: str, frame: pd.DataFrame, definition: DataDefinition,
                 hierarchies: Mapping[str, Hierarchy], settings: Mapping[str, Any], *,
                 plan: IdentifierPlan | None = None,
                 parameters: Mapping[str, Any] | None = None,
                 analysis: HipaaAnalysis | None = None) -> PresetOutcome:
    """The configuration preset ``name`` gives for ``frame`` (nothing is changed in
    place). ``parameters``: ``highest_risk`` and ``average_risk`` (Expert
    Determination), ``shift_days`` (pseudonymised). ``analysis``: the HIPAA scan of
    ``frame`` if already made."""
    if name not in PRESETS:
        raise ConfigurationError(f"Unknown policy preset '{name}'; use one of "
                                 f"{', '.join(PRESETS)}.")
    state = _State(frame, definition, dict(hierarchies), copy.deepcopy(dict(settings)),
                   plan or IdentifierPlan(),
                   analysis if analysis is not None else find_hipaa_identifiers(frame))
    given = dict(parameters or {})
    used = {SAFE_HARBOR: _safe_harbor, EXPERT_DETERMINATION: _expert_determination,
            PSEUDONYMISED: _pseudonymised}[name](state, given)
    if not state.settings.get("privacy_models"):
        state.rules.append(PresetRule(
            NO_MODEL, None, PRESETS[name],
            "No privacy model was configured; the lattice search needs one, and 1-anonymity "
            "adds no condition to the preset's rules."))
        state.settings["privacy_models"] = [{"kind": "k-anonymity", "k": 1}]
    outcome = PresetOutcome(name, tuple(state.rules), state.definition, state.hierarchies,
                            state.settings, state.plan, used)
    state.settings[SETTINGS_KEY] = outcome.record()  # a project keeps what was applied
    return outcome


@dataclass
class _State:
    frame: pd.DataFrame
    definition: DataDefinition
    hierarchies: dict[str, Hierarchy]
    settings: dict[str, Any]
    plan: IdentifierPlan
    analysis: HipaaAnalysis
    rules: list[PresetRule] = field(default_factory=list)

    def matches(self) -> dict[str, list[HipaaMatch]]:
        out: dict[str, list[HipaaMatch]] = {}
        for match in self.analysis.matches:
            if match.attribute in self.definition:
                out.setdefault(match.attribute, []).append(match)
        return out

    def remove(self, name: str, category_text: str, reason: str) -> None:
        self.definition = self.definition.with_attribute(name, type=AttributeType.IDENTIFYING)
        self.hierarchies.pop(name, None)
        self._drop_from_plan(name)
        self.rules.append(PresetRule(REMOVE, name, category_text, reason))

    def build(self, name: str, action: str, category_text: str, reason: str,
              parameters: dict[str, Any] | None = None) -> None:
        self._refuse_sensitive(name)
        attribute = self.definition[name]
        self.hierarchies[name] = build_hierarchy(action, self.frame[name], parameters,
                                                 attribute.data_type)
        highest = attribute.max_level
        self.definition = self.definition.with_attribute(
            name, type=AttributeType.QUASI_IDENTIFYING, min_level=1,
            max_level=None if highest is not None and highest < 1 else highest)
        self._drop_from_plan(name)
        self.rules.append(PresetRule(action, name, category_text, reason, parameters or {}))

    def _refuse_sensitive(self, name: str) -> None:
        for spec in self.settings.get("privacy_models") or []:
            if isinstance(spec, dict) and spec.get("attribute") == name:
                raise ConfigurationError(
                    f"'{name}' is protected as sensitive by {spec.get('kind')}, but the "
                    "preset must generalize it; remove that privacy model first.")

    def _drop_from_plan(self, name: str) -> None:
        shift = self.plan.date_shift
        if shift is not None and name in (*shift.attributes, shift.patient):
            kept = tuple(a for a in shift.attributes if a != name)
            shift = DateShift(kept, shift.patient, shift.days) \
                if kept and name != shift.patient else None
        self.plan = IdentifierPlan(tuple(t for t in self.plan.treatments if t.attribute != name),
                                   shift, self.plan.mask_character)


def _found(matches: list[HipaaMatch]) -> str:
    return "; ".join(dict.fromkeys(m.reason for m in matches))


def _because(found: str, policy: str) -> str:
    """What the scan found and the policy's sentence, unless the finding says it."""
    return found if "Safe Harbor" in found else f"{found} {policy}"


def _safe_harbor(state: _State, given: dict[str, Any]) -> dict[str, Any]:
    if given:
        raise ConfigurationError(f"Safe Harbor takes no parameters (got {', '.join(given)}).")
    for name, matches in state.matches().items():
        instances = {m.instance for m in matches}
        found = f"Found: {_found(matches)}."
        if instances <= {"ZIP Code", "ZIP Code (3 digits)"}:
            state.build(name, ZIP3, category("geographic_subdivision"),
                        f"{found} Safe Harbor allows the initial three digits of a ZIP code "
                        "only where the area they form holds more than 20,000 people, "
                        f"else 000 ({_HHS_ZIP}).")
        elif instances == {"Date"}:
            state.build(name, YEAR, category("date"),
                        f"{found} Safe Harbor allows the year of a date related to a "
                        "person, no finer element.")
        elif instances == {"Age over 89"}:
            state.build(name, AGE90, category("date"), _because(
                found, "Safe Harbor allows ages over 89 only aggregated into a single "
                "category of age 90 or older."))
        elif instances == {"Year"}:
            cutoff = _dt.date.today().year - 90
            state.build(name, BIRTH_YEAR, category("date"),
                        f"{found} Safe Harbor allows years indicative of an age over 89 "
                        "only aggregated into a single category.", {"cutoff": cutoff})
        else:
            kind = matches[0].identifier
            state.remove(name, category(kind),
                         f"{found} Safe Harbor removes this identifier.")
    for treatment in list(state.plan.treatments):
        state.remove(treatment.attribute, "45 CFR 164.514(c)",
                     f"'{treatment.attribute}' had a {treatment.kind} treatment; a Safe "
                     "Harbor release may carry a re-identification code only if it is not "
                     "derived from information about the person, so the attribute is "
                     "removed.")
    return {}


def _check_threshold(name: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = -1.0
    if not 0 < number <= 1:
        raise ConfigurationError(f"The Expert Determination threshold {name} is a "
                                 f"probability in (0, 1]; got {value!r}.")
    return number


def _expert_determination(state: _State, given: dict[str, Any]) -> dict[str, Any]:
    unknown = set(given) - {"highest_risk", "average_risk"}
    if unknown:
        raise ConfigurationError(f"Expert Determination takes highest_risk and "
                                 f"average_risk; not {', '.join(sorted(unknown))}.")
    highest = _check_threshold("highest_risk", given.get("highest_risk", DEFAULT_HIGHEST_RISK))
    average = given.get("average_risk")
    average = None if average is None else _check_threshold("average_risk", average)
    _remove_direct_identifiers(state, "Expert Determination")
    if not state.definition.quasi_identifiers:
        raise ConfigurationError(
            "Expert Determination bounds the risk over the quasi-identifiers, and none is "
            "declared; give them hierarchies (--hierarchy ATTR=FILE).")
    models = [m for m in state.settings.get("privacy_models") or []
              if m.get("kind") not in ("prosecutor-risk", "average-risk")]
    models.append({"kind": "prosecutor-risk", "threshold": highest})
    state.rules.append(PresetRule(
        THRESHOLD, None, "45 CFR 164.514(b)(1): a very small risk, as an expert determines",
        "A threshold of 0.09 (about 1/11) is the convention of the EMA's and Health "
        "Canada's guidance for public release of clinical reports; 0.2 (cell size 5) and "
        "0.05 (cell size 20) are other precedents (El Emam, Guide to the De-Identification "
        "of Personal Health Information, 2013, 'Cell Size Precedents'). HHS sets no "
        "number: the expert chooses and documents it.",
        {"measure": "highest prosecutor risk", "threshold": highest}))
    if average is not None:
        models.append({"kind": "average-risk", "threshold": average})
        state.rules.append(PresetRule(
            THRESHOLD, None, "45 CFR 164.514(b)(1): a very small risk, as an expert "
            "determines",
            "An average risk bounds the share of records an attacker who tries them all "
            "re-identifies; it suits releases to recipients bound by contracts and "
            "controls (El Emam & Malin, IOM 2015). The value is the expert's choice, a "
            "convention, not a rule.",
            {"measure": "average prosecutor risk", "threshold": average}))
    state.settings["privacy_models"] = models
    return {"highest_risk": highest, "average_risk": average}


#: Identifier kinds removed (never pseudonymised or kept) by every preset.
_REMOVED_KINDS = {"name", "telephone_number", "fax_number", "email_address", "url",
                  "ip_address", "biometric_identifier", "photograph"}


def _remove_direct_identifiers(state: _State, preset: str,
                               kinds: set[str] | None = None) -> None:
    """Remove flagged direct identifiers that are not declared quasi-identifiers."""
    quasi = set(state.definition.quasi_identifiers)
    for name, matches in state.matches().items():
        direct = [m for m in matches if m.identifier in (kinds or _REMOVED_KINDS | _PSEUDONYM_KINDS)
                  or m.instance in ("Address", "City", "County")]
        if direct and name not in quasi:
            state.remove(name, category(direct[0].identifier),
                         f"Found: {_found(direct)}. {preset} measures risk over the "
                         "quasi-identifiers; a direct identifier is removed first.")


def _pseudonymised(state: _State, given: dict[str, Any]) -> dict[str, Any]:
    unknown = set(given) - {"shift_days"}
    if unknown:
        raise ConfigurationError(f"The pseudonymised preset takes shift_days; not "
                                 f"{', '.join(sorted(unknown))}.")
    days = int(given.get("shift_days") or DEFAULT_SHIFT_DAYS)
    matches = state.matches()
    _remove_direct_identifiers(state, "A pseudonymised release", _REMOVED_KINDS)
    keyed = [n for n in state.definition.identifying if n not in
             {r.attribute for r in state.rules}]
    keyed += [n for n, ms in matches.items() if n not in keyed
              and n not in state.definition.quasi_identifiers
              and state.definition[n].type is not AttributeType.IDENTIFYING
              and any(m.identifier in _PSEUDONYM_KINDS for m in ms)]
    for name in keyed:
        state.definition = state.definition.with_attribute(name, type=AttributeType.IDENTIFYING)
        state.hierarchies.pop(name, None)
        found = f"Found: {_found(matches[name])}. " if name in matches else ""
        state.rules.append(PresetRule(
            PSEUDONYM, name, "identifying attribute",
            f"{found}Inside a secure processing environment records of one person must "
            "still link across tables and releases; a keyed pseudonym links them without "
            "the value, and only the key's holder can recompute it."))
    treatments = [t for t in state.plan.treatments if t.attribute not in keyed]
    treatments += [Treatment(n, KEYED) for n in keyed]
    shift = _date_shift(state, matches, keyed, days)
    state.plan = IdentifierPlan(tuple(treatments), shift or state.plan.date_shift,
                                state.plan.mask_character)
    return {"shift_days": days}


def _date_shift(state: _State, matches: dict[str, list[HipaaMatch]], keyed: list[str],
                days: int) -> DateShift | None:
    """Shift exact dates by patient when a pseudonymised patient identifier exists."""
    dates = [n for n, ms in matches.items() if any(m.instance == "Date" and
                                                   m.match_type == "value" for m in ms)
             and state.definition[n].type is not AttributeType.IDENTIFYING]
    patients = [n for n in keyed if any(m.identifier == "medical_record_number"
                                        for m in matches.get(n, ()))] or keyed
    if not (dates and patients):
        return None
    patient = patients[0]
    for name in dates:
        state.rules.append(PresetRule(
            DATE_SHIFT, name, "dates of a person",
            f"Exact dates identify; shifting every date of one patient by the same "
            f"offset keeps intervals within the patient, so analyses of durations still "
            f"hold. The offset is drawn from the key and '{patient}' (±{days} days, this "
            "preset's default, a choice, not a rule).",
            {"patient": patient, "days": days}))
    return DateShift(tuple(dates), patient, days)
