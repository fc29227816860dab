"""``arxpy reidentify TABLE``: the trusted party opens a re-identification table with its
passphrase and looks up pseudonyms (``--pseudonym P``, repeatable) or writes a release
with the original identifiers back in place (``--release OUT.csv --output FILE``; the
new file is readable by its owner only and never replaces another).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from arxpy.commands.files import add_input_option, add_output_option
from arxpy.errors import ConfigurationError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "reidentify", help="open a re-identification table (for the trusted party)",
        description="Decrypt a re-identification table written by --reidentification-table "
        "and look up pseudonyms, or put the original identifiers back into a release. The "
        "passphrase comes from --passphrase-file, $ARXPY_PASSPHRASE or the terminal, never "
        "from the command line.")
    add_input_option(parser, "table", type=Path, metavar="TABLE",
                     help="the encrypted re-identification table")
    add_input_option(parser, "--passphrase-file", type=Path, metavar="FILE",
                     help="the passphrase on the file's first line")
    parser.add_argument("--pseudonym", action="append", default=[], metavar="P",
                        help="print the original value of pseudonym P (repeatable)")
    add_input_option(parser, "--release", type=Path, metavar="OUT.csv",
                     help="a released CSV file whose pseudonyms to replace")
    add_output_option(parser, "--output", type=Path, metavar="FILE",
                      help="where to write the re-identified release (mode 0600, new file)")
    parser.add_argument("--delimiter", default=";", metavar="C",
                        help="the release's delimiter (default ;), also used for --output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.commands.passphrase import read_passphrase
    from arxpy.identifiers.reidentification import read_table

    if bool(args.pseudonym) == (args.release is not None):
        raise ConfigurationError(
            "Give either --pseudonym P (to look pseudonyms up) or --release OUT.csv with "
            "--output FILE (to re-identify a release).")
    if (args.release is None) != (args.output is None):
        raise ConfigurationError("--release and --output go together; give both.")
    table = read_table(args.table, read_passphrase(args.passphrase_file, confirm=False))
    if args.pseudonym:
        return _look_up(table, args.pseudonym)
    return _reidentify_release(table, args.release, args.output, args.delimiter)


def _look_up(table, pseudonyms: list[str]) -> int:
    missing = 0
    for pseudonym in pseudonyms:
        found = table.originals_of(pseudonym)
        missing += not found
        for attribute, original in found:
            print(f"{pseudonym}\t{attribute}\t{original}")
        if not found:
            print(f"{pseudonym}\t(not in this table)")
    return 1 if missing else 0


def _reidentify_release(table, release: Path, output: Path, delimiter: str) -> int:
    from arxpy.data.atomic import write_new_file
    from arxpy.data.csv_io import CsvFormat, read_csv
    from arxpy.data.export import csv_text

    frame = read_csv(release, CsvFormat(delimiter=delimiter))
    restored, unknown = table.reidentify(frame)
    names = [c.attribute for c in table.columns if c.attribute in frame.columns]
    if not names:
        raise ConfigurationError(
            f"'{release}' has none of the table's attributes "
            f"({', '.join(c.attribute for c in table.columns)}); is it the right release?")
    text = csv_text(list(restored.columns), [restored[c] for c in restored.columns],
                    delimiter)
    try:
        write_new_file(output, text.encode("utf-8"), 0o600)
    except FileExistsError:
        raise ConfigurationError(f"'{output}' exists; choose a new file.") from None
    except OSError as exc:
        raise ConfigurationError(f"Cannot write '{output}': {exc.strerror or exc}.") from None
    kept = sum(unknown.values())
    print(f"Re-identified {', '.join(names)} in {len(frame):,} records into '{output}' "
          f"(readable by you only)" + (f"; {kept} values held no pseudonym of the table and "
                                       "were kept as they are" if kept else "") + ".")
    return 0
