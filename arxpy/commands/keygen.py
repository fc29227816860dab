"""``arxpy keygen --pseudonym KEYFILE``: create the secret key of keyed pseudonyms and
per-patient date shifts (32 random bytes, owner-only permissions, never overwritten).
``arxpy keygen --signing KEYFILE``: create an Ed25519 key pair that signs release
certificates (KEYFILE, owner-only; KEYFILE.pub for reviewers).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_output_option


def _signing_paths(value: Any, args: argparse.Namespace) -> list[Path]:
    return [] if value is None else [Path(value), Path(f"{value}.pub")]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "keygen", help="create a key file for pseudonyms and date shifts, or for signing",
        description="Create a key file for --pseudonymize and --date-shift (32 random "
        "bytes readable by you only; reports record only its fingerprint), or with "
        "--signing an Ed25519 key pair that signs release certificates. Keep key files "
        "apart from the data and the releases.")
    kind = parser.add_mutually_exclusive_group(required=True)
    add_output_option(kind, "--pseudonym", type=Path, metavar="KEYFILE",
                      help="the key file to create (an existing file is never overwritten)")
    add_output_option(kind, "--signing", type=Path, metavar="KEYFILE",
                      paths=_signing_paths,
                      help="create a signing key KEYFILE (readable by you only) and its "
                      "public key KEYFILE.pub (neither is ever overwritten)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.signing is not None:
        return _signing(args.signing)
    from arxpy.identifiers.keys import create_key_file

    key = create_key_file(args.pseudonym)
    print(f"Created the key file '{args.pseudonym}' (readable by you only); key "
          f"fingerprint {key.fingerprint}.")
    print("Keep it apart from the data and the releases, and keep a copy: a lost key "
          "cannot be recovered, and a new key gives new pseudonyms and date shifts that "
          "do not link to earlier releases.")
    return 0


def _signing(path: Path) -> int:
    from arxpy.recipes.signing import create_signing_key, fingerprint, public_key_path

    public = create_signing_key(path)
    print(f"Created the signing key '{path}' (readable by you only) and its public key "
          f"'{public_key_path(path)}'; key fingerprint {fingerprint(public)}.")
    print("Give the public key to whoever verifies your certificates; keep the signing "
          "key to yourself.")
    return 0
