"""The recipe and certificate options of ``anonymize``, ``run`` and ``replay`` (issue 35).

``--recipe-out R.json`` writes the release's recipe (``--recipe-replay`` says whether
replay applies the same transformation or searches again); ``--certificate CERT
--signing-key KEYFILE`` writes a signed certificate of the output file: ``CERT.pdf`` a
PDF, ``CERT.html`` a page, any other name the JSON and its page ``CERT.html``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_input_option, add_output_option
from arxpy.errors import ConfigurationError


def certificate_paths(value: Any, args: argparse.Namespace) -> list[Path]:
    """The files ``--certificate`` writes (a JSON certificate has its page beside it)."""
    if value is None:
        return []
    from arxpy.recipes.certificate import certificate_files

    return certificate_files(value)


def add_certificate_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "certificate", "a signed certificate of the output file (docs/recipes.md)")
    add_output_option(group, "--certificate", type=Path, metavar="CERT",
                      paths=certificate_paths,
                      help="write a certificate of the output signed with --signing-key: "
                      "CERT.pdf a PDF, CERT.html a page (each carries the signed JSON), "
                      "any other name the JSON and its page CERT.html")
    add_input_option(group, "--signing-key", type=Path, metavar="KEYFILE",
                     help="the Ed25519 key of 'arxpy keygen --signing KEYFILE'")


def add_recipe_arguments(parser: argparse.ArgumentParser, search: bool = True) -> None:
    """``--recipe-out`` (and ``--recipe-replay`` for the lattice search) and the
    certificate options."""
    group = parser.add_argument_group(
        "recipe", "a file without data holding everything that decides this release, "
        "for 'arxpy replay' on a new extract (docs/recipes.md)")
    add_output_option(group, "--recipe-out", type=Path, metavar="RECIPE.json",
                      help="write the release's recipe")
    if search:
        group.add_argument("--recipe-replay", choices=("fixed", "search"), default="fixed",
                           help="what replay does with a new extract: apply this run's "
                           "transformation (fixed, the default) or search again")
    add_certificate_arguments(parser)


def check_recipe_options(args: argparse.Namespace) -> None:
    """Refuse, before any work, a certificate without its key or its output file."""
    certificate, key = args.certificate, args.signing_key
    if (certificate is None) != (key is None):
        raise ConfigurationError(
            "--certificate and --signing-key go together; give both or neither.")
    if certificate is not None and getattr(args, "output", None) is None:
        raise ConfigurationError("A certificate states the output file's hash; add --output.")


def write_recipe(args: argparse.Namespace, definition: Any, hierarchies: Any,
                 release_of: Any, identifiers: dict[str, Any] | None,
                 parameters: dict[str, Any] | None = None, preset: Any = None) -> Any:
    """The release's recipe, written when ``--recipe-out`` asks (before the report, which
    then names it), or None when neither a recipe nor a certificate is asked for.
    ``release_of()`` gives the release (computed only when needed); ``preset`` the policy
    preset's outcome, whose rules and built hierarchies the recipe keeps."""
    if args.recipe_out is None and args.certificate is None:
        return None
    from arxpy.recipes import build_recipe

    files = {name: path for name, _, path in
             (item.partition("=") for item in getattr(args, "hierarchy", []) or [])}
    recipe = build_recipe(definition, hierarchies, release_of(),
                          mode=getattr(args, "recipe_replay", "fixed"),
                          identifiers=identifiers, hierarchy_files=files,
                          parameters=parameters,
                          preset=None if preset is None else preset.record(),
                          built=None if preset is None else preset.built)
    if args.recipe_out is not None:
        recipe.save(args.recipe_out)
        print(f"Recipe written to {args.recipe_out} (SHA-256 {recipe.sha256[:16]}…).")
    return recipe


def add_recipe_figures(report: dict[str, Any], recipe: Any, original: Any,
                       release: Any) -> None:
    """What ``arxpy diff`` compares with a replay's report: the recipe's hash and the
    release's utility figures against ``original``, the table it was made of."""
    from arxpy.recipes.certificate import utility

    report["recipe_sha256"] = recipe.sha256
    report["utility"] = utility(original, release)


def write_certificate(args: argparse.Namespace, release: Any, recipe: Any,
                      identifiers: dict[str, Any] | None, data: Path | None,
                      original: Any = None) -> None:
    """Sign and write the certificate of ``args.output`` in the form its name says
    (nothing without ``--certificate``); ``original`` is the table the release was made
    of (the certificate's utility figures)."""
    if args.certificate is None:
        return
    from arxpy.commands.table_source import TableSource
    from arxpy.recipes.certificate import build_certificate, file_sha256, sign, write_signed
    from arxpy.recipes.signing import fingerprint, read_private_key

    key = read_private_key(args.signing_key)
    certificate = build_certificate(
        release, recipe, output_file=Path(args.output), identifiers=identifiers,
        input_file_sha256=file_sha256(TableSource.parse(data).path) if data is not None
        else None,  # a SQLite table's: its database file's
        original=original)
    written = write_signed(sign(certificate, key), args.certificate)
    print(f"Certificate signed with key {fingerprint(key.public_key())}: "
          f"{', '.join(str(p) for p in written)}.")
