"""The recipe and certificate options of ``anonymize``, ``run`` and ``replay`` (issue 35).

``--recipe-out R.json`` writes the release's recipe (``--recipe-replay`` says whether
replay applies the same transformation or searches again); ``--certificate CERT.json
--signing-key KEYFILE`` writes a signed certificate of the output file and its HTML
rendering (``CERT.html``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_input_option, add_output_option
from arxpy.errors import ConfigurationError


def certificate_paths(value: Any, args: argparse.Namespace) -> list[Path]:
    """The certificate and the HTML page written beside it."""
    if value is None:
        return []
    from arxpy.recipes.certificate import html_path

    return [Path(value), html_path(value)]


def add_certificate_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "certificate", "a signed certificate of the output file (docs/recipes.md)")
    add_output_option(group, "--certificate", type=Path, metavar="CERT.json",
                      paths=certificate_paths,
                      help="write a certificate of the output signed with --signing-key "
                      "(JSON, and its HTML rendering CERT.html)")
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


def write_recipe_and_certificate(args: argparse.Namespace, definition: Any,
                                 hierarchies: Any, release: Any,
                                 identifiers: dict[str, Any] | None,
                                 parameters: dict[str, Any] | None = None) -> None:
    """Write what ``--recipe-out`` and ``--certificate`` ask for (after the output)."""
    if args.recipe_out is None and args.certificate is None:
        return
    from arxpy.recipes import build_recipe

    files = {name: path for name, _, path in
             (item.partition("=") for item in getattr(args, "hierarchy", []) or [])}
    recipe = build_recipe(definition, hierarchies, release,
                          mode=getattr(args, "recipe_replay", "fixed"),
                          identifiers=identifiers, hierarchy_files=files,
                          parameters=parameters)
    if args.recipe_out is not None:
        recipe.save(args.recipe_out)
        print(f"Recipe written to {args.recipe_out} (SHA-256 {recipe.sha256[:16]}…).")
    if args.certificate is not None:
        data = getattr(args, "data", None)
        write_certificate(args, release, recipe, identifiers, data)


def write_certificate(args: argparse.Namespace, release: Any, recipe: Any,
                      identifiers: dict[str, Any] | None, data: Path | None) -> None:
    """Sign and write the certificate of ``args.output`` (its JSON and HTML)."""
    from arxpy.recipes.certificate import build_certificate, file_sha256, sign, write_signed
    from arxpy.recipes.signing import fingerprint, read_private_key

    key = read_private_key(args.signing_key)
    certificate = build_certificate(
        release, recipe, output_file=Path(args.output), identifiers=identifiers,
        input_file_sha256=file_sha256(data) if data is not None else None)
    written = write_signed(sign(certificate, key), args.certificate)
    print(f"Certificate signed with key {fingerprint(key.public_key())}: "
          f"{', '.join(str(p) for p in written)}.")
