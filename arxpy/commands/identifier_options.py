"""The identifier options of ``anonymize`` and ``run`` (issue 32), in one place.

``--pseudonymize ATTR`` (repeatable; ``ATTR=NAMESPACE`` keeps unrelated identifiers
apart, all others share one namespace) with ``--pseudonym-format``, ``--mask ATTR=RULE``,
``--replace-random ATTR``, ``--key-file KEYFILE`` and ``--date-shift ATTR[,ATTR...]
--shift-days N --patient ATTR``. :class:`IdentifierOptions` turns them into an
:class:`~arxpy.identifiers.IdentifierPlan`, reads the key, treats the table and adds the
report's ``identifiers``. The key is read here and nowhere else; it never reaches a
message, a report or a log.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_input_option
from arxpy.errors import ConfigurationError


def add_identifier_arguments(parser: argparse.ArgumentParser) -> None:
    """The identifier options, as one group of ``parser``."""
    from arxpy.identifiers.formats import FORMAT_HELP
    from arxpy.identifiers.masking import RULE_HELP

    group = parser.add_argument_group(
        "identifiers", "treat identifying attributes instead of removing them (pseudonyms "
        "protect against direct identification only) and shift dates per patient; "
        "see docs/identifiers.md")
    group.add_argument("--pseudonymize", action="append", default=[],
                       metavar="ATTR[=NAMESPACE]",
                       help="replace ATTR by a keyed pseudonym (HMAC-SHA-256, needs "
                       "--key-file); attributes of one namespace (default: all) give one "
                       "value one pseudonym")
    group.add_argument("--pseudonym-format", metavar="FORMAT",
                       help=f"format of pseudonyms and random replacements: {FORMAT_HELP} "
                       "(default hex:16)")
    group.add_argument("--mask", action="append", default=[], metavar="ATTR=RULE",
                       help=f"mask ATTR keeping its layout: {RULE_HELP}")
    group.add_argument("--mask-character", metavar="C",
                       help="what masked letters and digits become (default *)")
    group.add_argument("--replace-random", action="append", default=[], metavar="ATTR",
                       help="replace each value of ATTR by a random one (not reproducible)")
    add_input_option(group, "--key-file", type=Path, metavar="KEYFILE",
                     help="the secret key of pseudonyms and date shifts (arxpy keygen "
                     "--pseudonym KEYFILE); only its fingerprint is reported")
    group.add_argument("--date-shift", action="append", default=[], metavar="ATTR[,ATTR...]",
                       help="shift these dates by one offset per patient (before "
                       "generalization; needs --shift-days, --patient and --key-file)")
    group.add_argument("--shift-days", type=int, metavar="N",
                       help="offsets are drawn from -N..-1 and 1..N days")
    group.add_argument("--patient", metavar="ATTR",
                       help="the patient identifier whose dates move together")


def _option_given(args: argparse.Namespace) -> dict[str, bool]:
    return {"--pseudonymize": bool(args.pseudonymize), "--mask": bool(args.mask),
            "--replace-random": bool(args.replace_random),
            "--date-shift": bool(args.date_shift)}


@dataclass
class IdentifierOptions:
    """The plan the options give (None: no option given), the key they name, and the
    report's record once the table is treated."""

    plan: Any = None
    key: Any = None
    record: dict[str, Any] | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> IdentifierOptions:
        """Check the options together and read the key; nothing is read when none is given."""
        given = _option_given(args)
        _refuse_orphans(args, given)
        if not any(given.values()):
            return cls()
        plan = _plan(args)
        key = read_key(args.key_file) if plan.needs_key else None
        if plan.needs_key and key is None:
            raise ConfigurationError(
                "Keyed pseudonyms and date shifts need the secret key: add --key-file "
                "KEYFILE (create one with 'arxpy keygen --pseudonym KEYFILE').")
        return cls(plan, key)

    def checking(self, check: Callable[..., None]) -> Callable[..., None]:
        """``check`` (of ``load_inputs``) that also refuses roles the treatments cannot
        go with, before the data are read."""
        def both(definition: Any, *rest: Any) -> None:
            check(definition, *rest)
            if self.plan is not None:
                self.plan.check(definition)
        return both

    def refuse_record_engine(self, engine: str, parquet: bool) -> None:
        """Treatments run on a table in memory; a record engine would skip them."""
        if self.plan is not None and (engine != "memory" or parquet):
            raise ConfigurationError(
                "Identifier treatments and date shifts run on data read into memory (a CSV "
                f"file or a project); leave out --engine {engine}" +
                (" and give the data as CSV." if parquet else "."))

    def apply(self, frame: Any, definition: Any, hierarchies: Any = None
              ) -> tuple[Any, Any]:
        """(frame, definition) with dates shifted and identifiers treated."""
        if self.plan is None:
            return frame, definition
        treated = self.plan.apply(frame, definition, self.key, hierarchies)
        self.record = treated.record
        return treated.frame, treated.definition

    def refuse_quasi_identifying(self, release: Any) -> None:
        """A method that chose treated columns as quasi-identifiers itself (every
        attribute, when none is declared) is refused: a pseudonym is never one."""
        treated = set(self.plan.treated) if self.plan is not None else set()
        for claim in getattr(release, "claims", ()):
            named = sorted(treated & set(claim.attributes))
            if named:
                raise ConfigurationError(
                    f"The method judged '{named[0]}' as a quasi-identifier, but it is a "
                    "treated identifier, which never is one; declare the quasi-identifiers "
                    "(--quasi-identifying ATTR or --hierarchy ATTR=FILE).")

    def add_to(self, report: dict[str, Any]) -> None:
        """The report's ``identifiers`` (only when an identifier option was given)."""
        if self.record is not None:
            report["identifiers"] = self.record

    def summary(self) -> str | None:
        """One line for the terminal, or None."""
        record = self.record
        if record is None:
            return None
        labels = {"keyed-pseudonym": "pseudonymized", "mask": "masked",
                  "random-replacement": "replaced at random (not reproducible)",
                  "remove": "removed"}
        named: dict[str, list[str]] = {}
        for treatment in record["treatments"]:
            named.setdefault(labels[treatment["treatment"]], []).append(treatment["attribute"])
        parts = [f"{label} {', '.join(names)}" for label, names in named.items()]
        shift = record["date_shift"]
        if shift:
            parts.append(f"dates of {', '.join(shift['attributes'])} shifted within "
                         f"±{shift['days']} days per patient")
        if record["key_fingerprint"]:
            parts.append(f"key fingerprint {record['key_fingerprint']}")
        return ("Identifiers: " + "; ".join(parts) + ". Pseudonyms protect against direct "
                "identification only.")


def _refuse_orphans(args: argparse.Namespace, given: dict[str, bool]) -> None:
    """An option whose partner is missing would be ignored: refuse it."""
    orphans = (
        ("--pseudonym-format", args.pseudonym_format, ("--pseudonymize", "--replace-random")),
        ("--mask-character", args.mask_character, ("--mask",)),
        ("--shift-days", args.shift_days, ("--date-shift",)),
        ("--patient", args.patient, ("--date-shift",)),
        ("--key-file", args.key_file, ("--pseudonymize", "--date-shift")),
    )
    if getattr(args, "preset", None) == "pseudonymised":  # its pseudonyms and shifts
        given = {**given, "--preset pseudonymised": True}
        orphans = tuple((o, v, (*p, "--preset pseudonymised")) if o in
                        ("--key-file", "--shift-days") else (o, v, p) for o, v, p in orphans)
    for option, value, partners in orphans:
        if value is not None and not any(given[p] for p in partners):
            raise ConfigurationError(
                f"{option} goes with {' or '.join(partners)}; add it or leave {option} out.")
    if given["--date-shift"] and (args.shift_days is None or args.patient is None):
        raise ConfigurationError(
            "--date-shift needs --shift-days N (the widest offset in days) and --patient "
            "ATTR (whose dates move together).")


def _plan(args: argparse.Namespace):
    from arxpy.identifiers import (
        MASK,
        PSEUDONYM,
        RANDOM,
        DateShift,
        IdentifierPlan,
        MaskRule,
        PseudonymFormat,
        Treatment,
    )
    from arxpy.identifiers.plan import DEFAULT_NAMESPACE

    fmt = PseudonymFormat.parse(args.pseudonym_format) if args.pseudonym_format \
        else PseudonymFormat()
    treatments = []
    for item in args.pseudonymize:
        name, sep, namespace = item.rpartition("=")
        if not sep:
            name, namespace = item, DEFAULT_NAMESPACE
        elif not (name and namespace):
            raise ConfigurationError(
                f"Cannot read --pseudonymize '{item}'; write ATTR or ATTR=NAMESPACE.")
        treatments.append(Treatment(name, PSEUDONYM, fmt,
                                    namespace=namespace))
    for item in args.mask:
        name, sep, rule = item.partition("=")
        if not (sep and name and rule):
            raise ConfigurationError(f"Cannot read --mask '{item}'; write ATTR=RULE.")
        treatments.append(Treatment(name, MASK, rule=MaskRule.parse(rule)))
    treatments += [Treatment(name, RANDOM, fmt) for name in args.replace_random]
    shift = None
    if args.date_shift:
        dates = [n.strip() for item in args.date_shift for n in item.split(",") if n.strip()]
        shift = DateShift(tuple(dates), args.patient, args.shift_days)
    extra = {"mask_character": args.mask_character} if args.mask_character else {}
    return IdentifierPlan(tuple(treatments), shift, **extra)


def read_key(path: Path | None):
    """The key in ``--key-file`` (None if not given), with a warning if others can read it."""
    from arxpy.identifiers.keys import read_key_file, readable_by_others

    if path is None:
        return None
    key = read_key_file(path)
    if readable_by_others(path):
        print(f"arxpy: warning: the key file '{path}' is readable by other users; "
              f"restrict it (chmod 600 '{path}')", file=sys.stderr)
    return key
