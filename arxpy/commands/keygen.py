"""``arxpy keygen --pseudonym KEYFILE``: create the secret key of keyed pseudonyms and
per-patient date shifts (32 random bytes, owner-only permissions, never overwritten).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from arxpy.commands.files import add_output_option


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "keygen", help="create a secret key file for pseudonyms and date shifts",
        description="Create a key file for --pseudonymize and --date-shift: 32 random "
        "bytes readable by you only. Keep it apart from the data and the releases; "
        "reports record only its fingerprint.")
    add_output_option(parser, "--pseudonym", type=Path, required=True, metavar="KEYFILE",
                      help="the key file to create (an existing file is never overwritten)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.identifiers.keys import create_key_file

    key = create_key_file(args.pseudonym)
    print(f"Created the key file '{args.pseudonym}' (readable by you only); key "
          f"fingerprint {key.fingerprint}.")
    print("Keep it apart from the data and the releases, and keep a copy: a lost key "
          "cannot be recovered, and a new key gives new pseudonyms and date shifts that "
          "do not link to earlier releases.")
    return 0
