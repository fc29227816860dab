"""The re-identification table for a trusted third party: pseudonym -> original value,
encrypted with a passphrase, written only on request.

The file is one header line and the ciphertext::

    arxpy re-identification table v1
    {"kdf": "scrypt", "n": 131072, "r": 8, "p": 1, "salt": "...", "cipher": "AES-256-GCM",
     "nonce": "..."}
    <AES-256-GCM ciphertext of the zlib-compressed JSON table, tag appended>

The key is scrypt(passphrase, salt) (RFC 7914) with the header's parameters; AES-GCM
(NIST SP 800-38D) authenticates the ciphertext and, as associated data, both header
lines, so a changed byte anywhere fails to open like a wrong passphrase does. The table
is built, compressed and encrypted in memory: the plaintext never reaches the disk.
The file is created new with mode 0600 and never overwrites another.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.atomic import write_new_file
from arxpy.data.types import is_missing
from arxpy.errors import ConfigurationError

MAGIC = b"arxpy re-identification table v1\n"
CIPHER = "AES-256-GCM"
#: scrypt's cost: 2^17 x 128 x 8 bytes = 128 MiB and about half a second per opening,
#: what OWASP's password storage guidance gives for scrypt.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**17, 8, 1
#: A header asking for more (a changed file) is refused before scrypt would need it.
MAX_SCRYPT_N = 2**20
MIN_SCRYPT_N = 2**10
#: The shortest passphrase accepted: a table holds every original identifier.
MIN_PASSPHRASE_CHARACTERS = 12
_SALT_BYTES, _NONCE_BYTES = 16, 12
#: Treatments a table can undo: keyed pseudonyms and random replacements (a mask keeps
#: too little to be one-to-one).
REVERSIBLE = ("keyed-pseudonym", "random-replacement")
_NOTHING_TO_REVERSE = (
    "A re-identification table needs a keyed pseudonym or a random replacement "
    "(--pseudonymize or --replace-random); masks and removed attributes cannot be "
    "reversed.")


@dataclass(frozen=True)
class ReidentifiedColumn:
    """One treated attribute: its pseudonyms and, at the same positions, the originals."""

    attribute: str
    treatment: str
    pseudonyms: tuple[str, ...]
    originals: tuple[str, ...]


@dataclass(frozen=True)
class ReidentificationTable:
    """Pseudonym -> original for each reversible treated attribute of one release."""

    columns: tuple[ReidentifiedColumn, ...]
    key_fingerprint: str | None = None

    @classmethod
    def of(cls, original: pd.DataFrame, treated: pd.DataFrame,
           record: Mapping[str, Any]) -> ReidentificationTable:
        """The table of a release: ``original`` and ``treated`` rows in the same order,
        ``record`` the report's ``identifiers`` (which treatments were applied)."""
        columns = []
        for treatment in record["treatments"]:
            name, kind = treatment["attribute"], treatment["treatment"]
            if kind not in REVERSIBLE:
                continue
            pairs = pd.DataFrame({"p": treated[name].astype(str).to_numpy(),
                                  "o": original[name].astype(str).to_numpy()})
            pairs = pairs.drop_duplicates(ignore_index=True)
            pairs = pairs[~np.asarray(is_missing(pairs["o"]))]  # missing stays missing
            columns.append(ReidentifiedColumn(name, kind, tuple(pairs["p"]),
                                              tuple(pairs["o"])))
        if not columns:
            raise ConfigurationError(_NOTHING_TO_REVERSE)
        return cls(tuple(columns), record.get("key_fingerprint"))

    @classmethod
    def merged(cls, parts: list[ReidentificationTable]) -> ReidentificationTable:
        """One table of the tables of several linked tables, made with one key: the
        pairs of an attribute that several tables hold (the link column) appear once."""
        pairs: dict[tuple[str, str], dict[tuple[str, str], None]] = {}
        for part in parts:
            for c in part.columns:
                pairs.setdefault((c.attribute, c.treatment), {}).update(
                    dict.fromkeys(zip(c.pseudonyms, c.originals, strict=True)))
        if not pairs:
            raise ConfigurationError(_NOTHING_TO_REVERSE)
        columns = tuple(ReidentifiedColumn(name, kind, tuple(p for p, _ in both),
                                           tuple(o for _, o in both))
                        for (name, kind), both in pairs.items())
        return cls(columns, parts[0].key_fingerprint)

    @property
    def entries(self) -> int:
        return sum(len(c.pseudonyms) for c in self.columns)

    def originals_of(self, pseudonym: str) -> list[tuple[str, str]]:
        """(attribute, original) of each column holding ``pseudonym``."""
        return [(c.attribute, c.originals[i]) for c in self.columns
                for i in np.flatnonzero(np.asarray(c.pseudonyms, dtype=object) == pseudonym)]

    def reidentify(self, release: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
        """``release`` with each column's pseudonyms replaced by the originals, and by
        column how many non-missing cells held no pseudonym of the table (kept as they
        are: suppressed ``*`` or another release's)."""
        out = release.copy()
        unknown: dict[str, int] = {}
        for column in self.columns:
            if column.attribute not in out.columns:
                continue
            values = out[column.attribute].astype(str)
            lookup = pd.Series(column.originals, index=column.pseudonyms, dtype=object)
            found = values.map(lookup)
            kept = found.isna().to_numpy() & ~np.asarray(is_missing(values))
            unknown[column.attribute] = int(kept.sum())
            out[column.attribute] = found.where(found.notna(), values)
        return out, unknown

    def to_bytes(self) -> bytes:
        document = {"version": 1, "key_fingerprint": self.key_fingerprint,
                    "columns": [{"attribute": c.attribute, "treatment": c.treatment,
                                 "pseudonyms": list(c.pseudonyms),
                                 "originals": list(c.originals)} for c in self.columns]}
        return zlib.compress(json.dumps(document, ensure_ascii=False).encode("utf-8"), 6)

    @classmethod
    def from_bytes(cls, payload: bytes) -> ReidentificationTable:
        document = json.loads(zlib.decompress(payload).decode("utf-8"))
        return cls(tuple(ReidentifiedColumn(c["attribute"], c["treatment"],
                                            tuple(c["pseudonyms"]), tuple(c["originals"]))
                         for c in document["columns"]), document.get("key_fingerprint"))


def beside_release(table: str | os.PathLike[str],
                   release_folders: list[str | os.PathLike[str]],
                   release_trees: list[str | os.PathLike[str]] = ()) -> bool:
    """Would the table go into a folder a release goes to, or anywhere inside a folder
    released as a whole (``release_trees``: linked tables' output folder), where it
    would travel with it? The callers refuse that unless the user insists."""
    path = Path(table).resolve()
    return any(Path(f).resolve() == path.parent for f in release_folders) or \
        any(path.is_relative_to(Path(t).resolve()) for t in release_trees)


def reversible(record: Mapping[str, Any] | None) -> list[str]:
    """The attributes a table could reverse, by the identifiers record of a release."""
    return [t["attribute"] for t in (record or {}).get("treatments", ())
            if t["treatment"] in REVERSIBLE]


def check_passphrase(passphrase: str) -> None:
    """Refuse a passphrase too short to protect every original identifier."""
    if len(passphrase) < MIN_PASSPHRASE_CHARACTERS:
        raise ConfigurationError(
            f"The passphrase of a re-identification table needs at least "
            f"{MIN_PASSPHRASE_CHARACTERS} characters; choose a longer one.")


def write_table(table: ReidentificationTable, path: str | os.PathLike[str], passphrase: str,
                *, scrypt_n: int | None = None) -> None:
    """Encrypt ``table`` with ``passphrase`` into the new file ``path`` (mode 0600);
    an existing file is refused, never replaced. ``scrypt_n`` None: :data:`SCRYPT_N`."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    check_passphrase(passphrase)
    scrypt_n = SCRYPT_N if scrypt_n is None else scrypt_n
    salt, nonce = secrets.token_bytes(_SALT_BYTES), secrets.token_bytes(_NONCE_BYTES)
    header = {"kdf": "scrypt", "n": scrypt_n, "r": SCRYPT_R, "p": SCRYPT_P,
              "salt": _b64(salt), "cipher": CIPHER, "nonce": _b64(nonce)}
    head = MAGIC + json.dumps(header, sort_keys=True).encode("ascii") + b"\n"
    key = _derive(passphrase, salt, scrypt_n, SCRYPT_R, SCRYPT_P)
    sealed = AESGCM(key).encrypt(nonce, table.to_bytes(), head)
    try:
        write_new_file(path, head + sealed, 0o600)
    except FileExistsError:
        raise ConfigurationError(
            f"'{path}' exists; a re-identification table is never overwritten. Choose "
            "another name.") from None
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot write the re-identification table '{path}': "
            f"{exc.strerror or exc}.") from None


@dataclass(frozen=True)
class ReidentificationRequest:
    """A re-identification table asked for: its new file and the passphrase (kept out
    of ``repr``, so it reaches no log or message)."""

    file: Path
    passphrase: str = field(repr=False)

    def write(self, table: ReidentificationTable) -> Path:
        """Encrypt ``table`` into :attr:`file` (:func:`write_table`); the file."""
        write_table(table, self.file, self.passphrase)
        return self.file


def read_table(path: str | os.PathLike[str], passphrase: str) -> ReidentificationTable:
    """The table in ``path``; one ConfigurationError line if it cannot be opened (not a
    table, a wrong passphrase, a changed file)."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    source = Path(path)
    try:
        content = source.read_bytes()
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot read the re-identification table '{source}': "
            f"{exc.strerror or exc}.") from None
    header, head, sealed = _header(content, source)
    key = _derive(passphrase, _unb64(header["salt"]), header["n"], header["r"], header["p"])
    try:
        payload = AESGCM(key).decrypt(_unb64(header["nonce"]), sealed, head)
    except InvalidTag:
        raise ConfigurationError(
            f"Cannot open the re-identification table '{source}': the passphrase is wrong "
            "or the file was changed.") from None
    return ReidentificationTable.from_bytes(payload)


def _header(content: bytes, source: Path) -> tuple[dict[str, Any], bytes, bytes]:
    """The header's settings, the header's bytes (authenticated) and the ciphertext."""
    line_end = content.find(b"\n", len(MAGIC))
    refused = ConfigurationError(
        f"'{source}' is not an arxpy re-identification table (or its header was changed).")
    if not content.startswith(MAGIC) or line_end < 0:
        raise refused
    try:
        header = json.loads(content[len(MAGIC):line_end])
        valid = header["kdf"] == "scrypt" and header["cipher"] == CIPHER and \
            MIN_SCRYPT_N <= int(header["n"]) <= MAX_SCRYPT_N and \
            int(header["n"]) & (int(header["n"]) - 1) == 0 and \
            1 <= int(header["r"]) <= 32 and 1 <= int(header["p"]) <= 16 and \
            len(_unb64(header["salt"])) == _SALT_BYTES and \
            len(_unb64(header["nonce"])) == _NONCE_BYTES
    except (ValueError, KeyError, TypeError):
        raise refused from None
    if not valid:
        raise refused
    return header, content[:line_end + 1], content[line_end + 1:]


def _derive(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    return Scrypt(salt=salt, length=32, n=int(n), r=int(r), p=int(p)).derive(
        passphrase.encode("utf-8"))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: Any) -> bytes:
    return base64.b64decode(str(text), validate=True)

