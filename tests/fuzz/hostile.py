"""Builders of hostile input files, written into a test's tmp_path (never committed)."""

from __future__ import annotations

import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

GOOD_DATA = '"age","sex","disease"\n"20","M","flu"\n"21","F","cold"\n"20","F","flu"\n'
GOOD_HIERARCHY = "20;20-29;*\n21;20-29;*\n"


def good_manifest(**changes: Any) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "schema_version": 1, "arxpy_version": "0", "name": "fuzz", "data": "data.csv",
        "definition": [
            {"name": "age", "type": "quasi-identifying", "data_type": {"kind": "integer"},
             "min_level": None, "max_level": None, "weight": 1.0},
            {"name": "sex", "type": "insensitive", "data_type": {"kind": "string"},
             "min_level": None, "max_level": None, "weight": 1.0},
            {"name": "disease", "type": "sensitive", "data_type": {"kind": "string"},
             "min_level": None, "max_level": None, "weight": 1.0},
        ],
        "hierarchies": {"age": "hierarchies/0.csv"},
        "settings": {"privacy_models": [{"kind": "k-anonymity", "k": 2}],
                     "quality_model": {"name": "loss"}, "suppression_limit": 0.0,
                     "strategy": "optimal", "time_limit": None},
    }
    manifest.update(changes)
    return manifest


def write_project(path: Path, manifest: Any = None, members: dict[str, bytes] | None = None,
                  raw_manifest: bytes | None = None) -> Path:
    """A project archive; ``members`` add to or replace the good data and hierarchy."""
    content = {"data.csv": GOOD_DATA.encode(), "hierarchies/0.csv": GOOD_HIERARCHY.encode()}
    content.update(members or {})
    if raw_manifest is None:
        raw_manifest = json.dumps(good_manifest() if manifest is None else manifest).encode()
    content = {"project.json": raw_manifest, **content}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, payload in content.items():
            archive.writestr(name, payload)
    return path


def zip_with_declared_size(path: Path, name: str, payload: bytes, declared: int) -> Path:
    """A one-member archive whose headers lie about the uncompressed size."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, payload)
    raw = bytearray(path.read_bytes())
    real = len(payload)
    # Patch the size in the local header (offset 22) and the central directory (24).
    local = raw.find(b"PK\x03\x04")
    central = raw.find(b"PK\x01\x02")
    struct.pack_into("<I", raw, local + 22, declared)
    struct.pack_into("<I", raw, central + 24, declared)
    assert struct.unpack_from("<I", bytes(raw), central + 24)[0] != real or declared == real
    path.write_bytes(bytes(raw))
    return path


def deflate_bomb(path: Path, name: str, inflated: int, others: dict[str, bytes]) -> Path:
    """An archive with a member of ``inflated`` zero bytes (ratio about 1000 to 1)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for other, payload in others.items():
            archive.writestr(other, payload)
        with archive.open(name, "w", force_zip64=True) as member:
            block = bytes(2**20)
            for _ in range(inflated // len(block)):
                member.write(block)
    return path


def set_flag(path: Path, name: str, *, encrypted: bool = False,
             method: int | None = None) -> Path:
    """Mark member ``name`` encrypted or give it another compression method, in place."""
    raw = bytearray(path.read_bytes())
    encoded = name.encode()
    for signature, flag_offset, method_offset, name_offset in (
            (b"PK\x03\x04", 6, 8, 30), (b"PK\x01\x02", 8, 10, 46)):
        start = 0
        while (start := raw.find(signature, start)) != -1:
            if raw[start + name_offset:start + name_offset + len(encoded)] == encoded:
                if encrypted:
                    raw[start + flag_offset] |= 0x1
                if method is not None:
                    struct.pack_into("<H", raw, start + method_offset, method)
            start += 4
    path.write_bytes(bytes(raw))
    return path


def corrupt_deflate(path: Path, name: str) -> Path:
    """Overwrite the middle of member ``name``'s compressed stream with garbage."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    raw = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start, start + max(info.compress_size, 2)):
        raw[i] = 0xFF
    path.write_bytes(bytes(raw))
    return path


def duplicate_member(path: Path, name: str, payload: bytes) -> Path:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate: that is the point
        with zipfile.ZipFile(path, "a") as archive:
            archive.writestr(name, payload)
    return path


def compressed(payload: bytes) -> bytes:
    return zlib.compress(payload)


def workbook(path: Path, cells: dict[str, Any]) -> Path:
    """An .xlsx with the given cells (``{"A1": "age", ...}``) on its only sheet."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    for ref, value in cells.items():
        sheet[ref] = value
    book.save(path)
    return path


def rewrite_member(path: Path, member: str, change) -> Path:
    """Replace ``member`` of a zip archive with ``change(old_bytes)``."""
    with zipfile.ZipFile(path) as archive:
        content = {info.filename: archive.read(info) for info in archive.infolist()}
    content[member] = change(content[member])
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, payload in content.items():
            archive.writestr(name, payload)
    return path


ENTITY_BOMB_DOCTYPE = (
    b'<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa">'
    + b"".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">'.encode()
               for i in range(8))
    + b"]>")
