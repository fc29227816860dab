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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_input_option, add_output_option
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
    add_output_option(group, "--reidentification-table", type=Path, metavar="FILE",
                      help="also write pseudonym -> original for a trusted party, encrypted "
                      "with a passphrase (AES-256-GCM, scrypt); not in the release's folder")
    add_input_option(group, "--passphrase-file", type=Path, metavar="FILE",
                     help="the table's passphrase on the file's first line (else "
                     "$ARXPY_PASSPHRASE, else typed twice on a terminal)")
    group.add_argument("--reidentification-beside-release", action="store_true",
                       help="allow the table in the folder of --output or --report")


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
    #: Where the re-identification table goes and its passphrase (None: not asked for).
    reidentification: Path | None = None
    passphrase: str | None = field(default=None, repr=False)
    _table: Any = field(default=None, repr=False)
    _written: dict[str, Any] | None = None

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
        if args.reidentification_table is None:
            return cls(plan, key)
        _refuse_beside_release(args)
        from arxpy.commands.passphrase import read_passphrase
        from arxpy.identifiers.reidentification import check_passphrase

        passphrase = read_passphrase(args.passphrase_file, confirm=True)
        check_passphrase(passphrase)  # now, not after the run
        return cls(plan, key, reidentification=args.reidentification_table,
                   passphrase=passphrase)

    def checking(self, check: Callable[..., None]) -> Callable[..., None]:
        """``check`` (of ``load_inputs``) that also refuses roles the treatments cannot
        go with, before the data are read."""
        def both(definition: Any, *rest: Any) -> None:
            check(definition, *rest)
            if self.plan is not None:
                self.plan.check(definition)
        return both

    def refuse_record_engine(self, engine: str, parquet: bool) -> None:
        """Treatments run in memory or in DuckDB; Spark would skip them."""
        if self.plan is None or (engine == "memory" and not parquet):
            return
        if engine == "spark":
            raise ConfigurationError(
                "Identifier treatments and date shifts run with --engine memory or duckdb; "
                "leave out --engine spark.")
        if self.reidentification is not None and engine == "memory":  # a Parquet file
            raise ConfigurationError(
                "--reidentification-table reads its originals from a CSV file or a project, "
                "not from Parquet; convert the file to CSV or leave out the table.")
        if self.reidentification is not None:
            raise ConfigurationError(
                "--reidentification-table runs with --engine memory (the table holds every "
                f"original value); leave out --engine {engine} or the table.")

    def engine_treatment(self, definition: Any) -> Any:
        """The DuckDB treatment of the records (None without a plan; the engine reads
        their dates and patients first, in the histogram's scan where it can); the
        report's record is kept."""
        if self.plan is None:
            return None
        from arxpy.engine.backends.duckdb_identifiers import DuckDBTreatment

        treatment = DuckDBTreatment(self.plan, self.key, definition)
        self.record = treatment.record
        return treatment

    def apply(self, frame: Any, definition: Any, hierarchies: Any = None
              ) -> tuple[Any, Any]:
        """(frame, definition) with dates shifted and identifiers treated."""
        if self.plan is None:
            return frame, definition
        treated = self.plan.apply(frame, definition, self.key, hierarchies)
        self.record = treated.record
        if self.reidentification is not None:
            from arxpy.identifiers.reidentification import ReidentificationTable

            self._table = ReidentificationTable.of(frame, treated.frame, treated.record)
        return treated.frame, treated.definition

    def reverse_linked(self, original: Any, release: Any) -> None:
        """Keep the re-identification table asked for of a linked release (``original``:
        the linked tables it was made of), to be written as a single table's is."""
        if self.reidentification is not None:
            self._table = release.reidentification_table(original)

    def write_reidentification_table(self) -> None:
        """Write the re-identification table asked for (once the run succeeded)."""
        if self._table is None:
            return
        from arxpy.identifiers import reidentification

        reidentification.write_table(self._table, self.reidentification, self.passphrase)
        self._written = {"file": str(self.reidentification), "entries": self._table.entries,
                         "attributes": [c.attribute for c in self._table.columns],
                         "encryption": "AES-256-GCM, key by scrypt (n="
                         f"{reidentification.SCRYPT_N}, r=8, p=1) from a passphrase"}
        self._table = None  # the originals are not kept longer than needed

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
            report["identifiers"] = self.record if self._written is None else {
                **self.record, "reidentification_table": self._written}

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
        if self._written is not None:
            parts.append(f"re-identification table '{self._written['file']}' "
                         f"({self._written['entries']} pseudonyms, encrypted)")
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
    table_options = (("--passphrase-file", args.passphrase_file),
                     ("--reidentification-beside-release",
                      args.reidentification_beside_release or None))
    for option, value in table_options:
        if value is not None and args.reidentification_table is None:
            raise ConfigurationError(
                f"{option} goes with --reidentification-table; add it or leave {option} out.")
    if args.reidentification_table is not None and not (
            given["--pseudonymize"] or given["--replace-random"]):
        raise ConfigurationError(
            "--reidentification-table reverses --pseudonymize or --replace-random; add one "
            "or leave the table out.")
    if given["--date-shift"] and (args.shift_days is None or args.patient is None):
        raise ConfigurationError(
            "--date-shift needs --shift-days N (the widest offset in days) and --patient "
            "ATTR (whose dates move together).")


def _refuse_beside_release(args: argparse.Namespace) -> None:
    """The table undoes the pseudonyms: by default never in a folder the release goes to,
    where it would travel with it."""
    from arxpy.identifiers.reidentification import beside_release

    if args.reidentification_beside_release:
        return
    folders = [Path(o).parent for o in (args.output, args.report) if o is not None]
    trees = [args.output_dir] if getattr(args, "output_dir", None) is not None else []
    if beside_release(args.reidentification_table, folders, trees):
        raise ConfigurationError(
            "The re-identification table would be written beside the release (in "
            f"'{Path(args.reidentification_table).resolve().parent}'); give it a folder "
            "only the trusted party uses, or add --reidentification-beside-release.")


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
