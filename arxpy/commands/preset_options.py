"""``--preset`` of ``anonymize`` (issue 35): a policy preset configures the run.

``--preset safe-harbor|expert-determination|pseudonymised`` applies the preset's rules
to the configuration the other options give (``docs/presets.md``); Expert
Determination takes ``--highest-risk`` and ``--average-risk`` as its thresholds, the
pseudonymised release ``--key-file`` and ``--shift-days``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arxpy.errors import ConfigurationError

PRESET_NAMES = ("safe-harbor", "expert-determination", "pseudonymised")


def add_preset_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "policy preset", "rules with their reasons that configure the run; each rule goes "
        "into the report, the recipe and the certificate (docs/presets.md)")
    group.add_argument("--preset", choices=PRESET_NAMES,
                       help="HIPAA Safe Harbor, HIPAA Expert Determination (risk "
                       "thresholds) or a pseudonymised release (needs --key-file)")
    group.add_argument("--highest-risk", type=float, metavar="X",
                       help="expert-determination: highest prosecutor risk (default 0.09, "
                       "a published convention)")


def preset_parameters(args: argparse.Namespace) -> dict[str, Any]:
    """The preset's parameters the options give; an option of another preset is refused."""
    name = args.preset
    highest = getattr(args, "highest_risk", None)
    if highest is not None and name != "expert-determination":
        raise ConfigurationError("--highest-risk is a threshold of --preset "
                                 "expert-determination; add it or leave --highest-risk out.")
    if name == "expert-determination":
        parameters = {"average_risk": args.average_risk}
        if highest is not None:
            parameters["highest_risk"] = highest
        return parameters
    if name == "pseudonymised" and args.shift_days is not None:
        return {"shift_days": args.shift_days}
    return {}


def apply_preset_option(args: argparse.Namespace, frame: Any, definition: Any,
                        hierarchies: Any, settings: dict[str, Any], identifiers: Any
                        ) -> tuple[Any, Any, Any, dict[str, Any]]:
    """(outcome or None, definition, hierarchies, settings) after ``--preset``; the
    preset's identifier plan (and key) replace ``identifiers``' own."""
    if args.preset is None:
        preset_parameters(args)  # refuses a preset option without its preset
        return None, definition, hierarchies, settings
    from arxpy.commands.identifier_options import read_key
    from arxpy.presets import apply_preset

    parameters = preset_parameters(args)
    if args.preset == "expert-determination":
        settings = {**settings, "privacy_models": [
            m for m in settings.get("privacy_models") or [] if m.get("kind") != "average-risk"]}
    outcome = apply_preset(args.preset, frame, definition, hierarchies, settings,
                           plan=identifiers.plan, parameters=parameters)
    if outcome.plan.treatments or outcome.plan.date_shift is not None:
        identifiers.plan = outcome.plan
        if outcome.plan.needs_key:
            identifiers.key = identifiers.key or read_key(args.key_file)
            if identifiers.key is None:
                raise ConfigurationError(
                    f"The {args.preset} preset makes keyed pseudonyms or date shifts, which "
                    "need the secret key: add --key-file KEYFILE (create one with 'arxpy "
                    "keygen --pseudonym KEYFILE').")
    else:
        identifiers.plan = None
    return outcome, outcome.definition, outcome.hierarchies, outcome.settings


def preset_report(outcome: Any, release: Any) -> dict[str, Any]:
    """The report's ``preset``: every rule with its reason, and the remaining risk over
    the declared quasi-identifiers (which Safe Harbor does not bound)."""
    from arxpy.presets.policies import SAFE_HARBOR, scan_problems

    record = outcome.record()
    record["remaining_risk"] = release.verify().attacker.to_dict()
    if outcome.name == SAFE_HARBOR:
        record["output_scan"] = scan_problems(release)
    return record


def print_preset(outcome: Any, record: dict[str, Any]) -> None:
    print(f"Policy preset: {record['label']} ({len(outcome.rules)} rules)")
    for rule in outcome.rules:
        where = f"'{rule.attribute}': " if rule.attribute else ""
        print(f"  {where}{rule.describe()}")
    for problem in record.get("output_scan", ()):
        print(f"arxpy: warning: {problem}", file=sys.stderr)
    risk = record["remaining_risk"]
    if risk.get("highest_prosecutor_risk") is not None:
        print(f"Remaining risk over the quasi-identifiers: highest prosecutor risk "
              f"{risk['highest_prosecutor_risk']:.4g}, average "
              f"{risk['average_prosecutor_risk']:.4g}")
