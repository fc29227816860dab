"""Ed25519 signing keys of certificates (``cryptography``): create, read, fingerprint.

The private key is a PKCS#8 PEM file readable by its owner only (0600), never
overwritten; the public key (``KEYFILE.pub``, SubjectPublicKeyInfo PEM) is what a
reviewer holds to verify a certificate offline.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from arxpy.data.atomic import write_new_file
from arxpy.errors import ConfigurationError

#: Largest key file read (a PEM Ed25519 key is about 120 bytes).
MAX_KEY_FILE_BYTES = 4096


def public_key_path(path: str | os.PathLike[str]) -> Path:
    """Where the public key of the signing key ``path`` is written: ``path`` + ``.pub``."""
    return Path(f"{os.fspath(path)}.pub")


def raw_public_bytes(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(key: Ed25519PublicKey) -> str:
    """The first 16 hex digits of the SHA-256 of the raw public key."""
    return hashlib.sha256(raw_public_bytes(key)).hexdigest()[:16]


def create_signing_key(path: str | os.PathLike[str]) -> Ed25519PublicKey:
    """A new key pair: the private key at ``path`` (0600), the public key beside it."""
    private_path, public_path = Path(path), public_key_path(path)
    for target in (private_path, public_path):
        if target.exists() or target.is_symlink():
            raise ConfigurationError(
                f"'{target}' exists; a signing key is never overwritten (certificates "
                "signed with it could no longer be verified). Choose another name.")
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    _write_new(private_path, private, 0o600)
    try:
        _write_new(public_path, public, 0o644)
    except ConfigurationError:
        private_path.unlink(missing_ok=True)  # a key without its public half is no use
        raise
    return key.public_key()


def _write_new(path: Path, content: bytes, mode: int) -> None:
    try:
        write_new_file(path, content, mode)
    except FileExistsError:
        raise ConfigurationError(
            f"'{path}' exists; a signing key is never overwritten. Choose another name."
        ) from None
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot create '{path}': {exc.strerror or exc}.") from None


def _read(path: str | os.PathLike[str], what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            content = handle.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot read the {what} '{path}': {exc.strerror or exc}.") from None
    if len(content) > MAX_KEY_FILE_BYTES:
        raise ConfigurationError(f"'{path}' is too large to be a {what}.")
    return content


def read_private_key(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """The signing key ``arxpy keygen --signing KEYFILE`` wrote."""
    try:
        key = serialization.load_pem_private_key(_read(path, "signing key"), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigurationError(
            f"'{path}' is not an Ed25519 signing key; give the KEYFILE 'arxpy keygen "
            "--signing KEYFILE' wrote (not its .pub).")
    return key


def read_public_key(path: str | os.PathLike[str]) -> Ed25519PublicKey:
    """The public key (``KEYFILE.pub``) of a signing key."""
    try:
        key = serialization.load_pem_public_key(_read(path, "public key"))
    except (ValueError, TypeError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigurationError(
            f"'{path}' is not an Ed25519 public key; give the KEYFILE.pub 'arxpy keygen "
            "--signing KEYFILE' wrote.")
    return key
