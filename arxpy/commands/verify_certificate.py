"""``arxpy verify-certificate CERT --release OUT.csv --public-key KEYFILE.pub``: check a
certificate offline (its JSON, HTML page or PDF): its Ed25519 signature under the
custodian's public key, the release file's SHA-256 and, for a PDF, the hashes its pages
show. Exit 0 valid; 1 invalid, naming what differs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arxpy.commands.files import add_input_option

#: Exit status of a certificate that does not verify (2 stays a usage error).
INVALID_STATUS = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify-certificate", help="check a release certificate's signature and hashes",
        description="Verify a certificate written by --certificate (its JSON, its HTML "
        "page or its PDF): the signature under the public key, and the release file's "
        "SHA-256. "
        "Exit status 0 when valid, 1 when not (with the reason).")
    add_input_option(parser, "certificate", type=Path, metavar="CERT",
                     help="the certificate (.json, or the .html page or .pdf carrying it)")
    add_input_option(parser, "--release", type=Path, required=True, metavar="FILE",
                     help="the released file the certificate is about")
    add_input_option(parser, "--public-key", type=Path, required=True, metavar="KEYFILE.pub",
                     help="the custodian's public key (arxpy keygen --signing writes it)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.errors import ConfigurationError
    from arxpy.recipes.certificate import read_signed, verify
    from arxpy.recipes.signing import read_public_key

    key = read_public_key(args.public_key)
    document = read_signed(args.certificate)
    if not args.release.is_file():
        raise ConfigurationError(f"The release file '{args.release}' does not exist.")
    problems = verify(document, key, args.release) + _page_problems(args.certificate,
                                                                     document)
    if problems:
        for problem in problems:
            print(f"arxpy: invalid certificate: {problem}", file=sys.stderr)
        return INVALID_STATUS
    certificate = document["certificate"]
    print(f"Valid: signed by key {document['signature']['public_key_fingerprint']} on "
          f"{certificate.get('issued')}; '{args.release.name}' has the certified SHA-256. "
          f"{certificate.get('verdict', {}).get('headline', '')}".rstrip())
    return 0


def _page_problems(path: Path, document: dict) -> list[str]:
    """A PDF's pages must show the hashes its attached statement signs."""
    with open(path, "rb") as handle:
        if handle.read(4) != b"%PDF":
            return []
    from arxpy.recipes.certificate_pdf import page_problems

    return page_problems(path.read_bytes(), document)
