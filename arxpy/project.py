"""Project files (``.arxpy``): data, attribute definitions, hierarchies and settings.

A project file is a zip archive holding

* ``project.json``: ``schema_version``, the project name, the arxpy version that
  wrote it, the attribute definitions, hierarchies by reference (attribute → member
  path), and the privacy, quality and search settings;
* ``data.csv``: the table as UTF-8 CSV, every cell the exact string loaded;
* ``hierarchies/<n>.csv``: one ARX-format hierarchy per attribute;
* ``events/<n>.csv`` (optional): the linked event tables, named in ``project.json``'s
  ``events`` (table name → member); how they link is in the settings' ``linked``
  (:mod:`arxpy.workflows.linked_project`; older projects have neither);
* ``result.json`` (optional): the last result itself, with the applied and pinned
  transformations and a fingerprint of what it was computed for (see
  ``arxpy.workflows.saved_result``; versioned on its own, ignored by older versions);
* ``runs.json`` (optional): the runs of other methods (see
  :mod:`arxpy.workflows.saved_runs`; ignored by older versions).

Saving writes a complete archive to a temporary file and renames it over the target,
so an existing project is never left half-written.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from arxpy._version import __version__
from arxpy.data.atomic import atomic_write, remove_stale_temporaries
from arxpy.data.definition import DataDefinition
from arxpy.errors import ArxpyError, ProjectError
from arxpy.hierarchy.io import format_hierarchy_csv, parse_hierarchy_csv
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import InterruptWatch
from arxpy.project_manifest import ManifestError, validate_manifest

#: Version of the project.json layout this arxpy writes and the newest it reads.
SCHEMA_VERSION = 1
PROJECT_SUFFIX = ".arxpy"
_MANIFEST = "project.json"
_DATA = "data.csv"
_RESULT = "result.json"
_RUNS = "runs.json"


@dataclass
class Project:
    """Everything a user configures, saved and loaded as one file.

    ``settings`` holds the JSON-able privacy, quality and search settings (see
    :class:`arxpy.engine.config.AnonymizationConfig` for their shape).
    """

    data: pd.DataFrame
    definition: DataDefinition
    hierarchies: dict[str, Hierarchy] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    name: str = "Untitled"
    #: Event tables linked to the data (the patient table) by name, in their order.
    events: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: The last result's JSON-able record (fingerprint, optimum, applied and pinned
    #: transformations) written by the application; not part of equality.
    saved_result: dict[str, Any] | None = field(default=None, compare=False)
    #: The method runs' records (arxpy.workflows.saved_runs), untrusted until checked.
    saved_runs: list[dict[str, Any]] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        self.definition.check_columns(self.data.columns)
        unknown = [a for a in self.hierarchies if a not in self.definition]
        if unknown:
            raise ProjectError(f"Hierarchies for unknown attributes: {', '.join(unknown)}.")
        if any(not name.strip() for name in self.events):
            raise ProjectError("Every linked table needs a name.")

    def save(self, path: str | Path) -> Path:
        """Write the project to ``path`` atomically; returns the path written."""
        path = Path(path)
        members = self._members()
        try:
            with atomic_write(path, mode="wb") as raw, zipfile.ZipFile(
                raw, "w", compression=zipfile.ZIP_DEFLATED
            ) as archive:
                for member, payload in members.items():
                    archive.writestr(member, payload)
        except ArxpyError as exc:
            raise ProjectError(f"Could not save project '{path}': {exc}") from exc
        return path

    @classmethod
    def load(cls, path: str | Path, limits: ArchiveLimits | None = None) -> Project:
        """Read a project file; raises :class:`ProjectError` on any problem with it.

        The archive is untrusted: ``limits`` bound what it may inflate to (see
        :class:`ArchiveLimits`) and ``project.json`` is validated before it is used.
        """
        path = Path(path)
        remove_stale_temporaries(path)  # left by a save that was killed
        reader = _MemberReader(path, limits or ArchiveLimits())
        try:
            with zipfile.ZipFile(path) as archive:
                reader.open(archive)
                manifest = _read_manifest(reader, path)
                return cls._from_archive(reader, manifest, path)
        except FileNotFoundError:
            raise ProjectError(f"Project file '{path}' does not exist.") from None
        except IsADirectoryError:
            raise ProjectError(f"'{path}' is a folder, not an arxpy project file.") from None
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
                NotImplementedError) as exc:
            raise ProjectError(f"'{path}' is not a readable arxpy project ({exc}).") from exc

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Project)
            and self.name == other.name
            and self.definition == other.definition
            and self.hierarchies == other.hierarchies
            and self.settings == other.settings
            and self.data.equals(other.data)
            and list(self.data.columns) == list(other.data.columns)
            and list(self.events) == list(other.events)
            and all(self.events[n].equals(other.events[n]) for n in self.events)
        )

    def _members(self) -> dict[str, bytes]:
        references = {
            attribute: f"hierarchies/{i}.csv" for i, attribute in enumerate(self.hierarchies)
        }
        tables = {name: f"events/{i}.csv" for i, name in enumerate(self.events)}
        manifest = {
            "schema_version": SCHEMA_VERSION,
            "arxpy_version": __version__,
            "name": self.name,
            "data": _DATA,
            "definition": self.definition.to_list(),
            "hierarchies": references,
            "settings": self.settings,
        }
        if tables:  # older arxpy reads the project without them
            manifest["events"] = tables
        members = {
            _MANIFEST: json.dumps(manifest, indent=2, ensure_ascii=False).encode("utf-8"),
            _DATA: _table_bytes(self.data),
        }
        for name, member in tables.items():
            members[member] = _table_bytes(self.events[name])
        for attribute, member in references.items():
            members[member] = _hierarchy_bytes(self.hierarchies[attribute])
        if self.saved_result is not None:
            members[_RESULT] = json.dumps(self.saved_result).encode("utf-8")
        if self.saved_runs:
            members[_RUNS] = json.dumps(self.saved_runs).encode("utf-8")
        return members

    @classmethod
    def _from_archive(cls, reader: _MemberReader, manifest: dict[str, Any],
                      path: Path) -> Project:
        data_member = manifest.get("data", _DATA)
        data = _table_from_text(reader.text(data_member), data_member)
        hierarchies = {
            attribute: _hierarchy_from_text(reader.text(member), member)
            for attribute, member in manifest.get("hierarchies", {}).items()
        }
        events = {name: _table_from_text(reader.text(member), member)
                  for name, member in manifest.get("events", {}).items()}
        try:
            definition = DataDefinition.from_list(manifest["definition"])
            saved_result = _saved_json(reader, path, _RESULT, dict)
            saved_runs = _saved_json(reader, path, _RUNS, list)
            return cls(
                data=data,
                definition=definition,
                hierarchies=hierarchies,
                settings=manifest.get("settings", {}),
                name=manifest.get("name", path.stem),
                events=events,
                saved_result=saved_result,
                saved_runs=saved_runs,
            )
        except ArxpyError as exc:
            raise ProjectError(f"Project file '{path}' is inconsistent: {exc}") from exc


def _saved_json(reader: _MemberReader, path: Path, member: str, kind: type) -> Any:
    """An optional JSON member (a record the application checks before use)."""
    if not reader.has(member):
        return None
    try:
        saved = json.loads(reader.text(member))
    except (json.JSONDecodeError, RecursionError) as exc:
        detail = exc if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        raise ProjectError(f"{member} in '{path}' is damaged ({detail}).") from None
    if not isinstance(saved, kind):
        shape = "an object" if kind is dict else "a list"
        raise ProjectError(f"{member} in '{path}' must hold {shape}, got "
                           f"{type(saved).__name__}.")
    return saved


@dataclass(frozen=True)
class ArchiveLimits:
    """Bounds on what a project file may inflate to, checked while it is read.

    A zip member can declare any size and compress 1000-fold, so a small file could
    exhaust memory. Sizes are uncompressed bytes; ``max_ratio`` (uncompressed per
    compressed byte) applies to members above ``ratio_exempt_bytes``. The defaults hold
    tables of several million records.
    """

    max_data_bytes: int = 512 * 2**20
    max_manifest_bytes: int = 8 * 2**20
    max_hierarchy_bytes: int = 64 * 2**20
    max_result_bytes: int = 64 * 2**20
    max_total_bytes: int = 1024 * 2**20
    max_ratio: float = 200.0
    ratio_exempt_bytes: int = 4 * 2**20


class _MemberReader:
    """Reads members of an untrusted archive within :class:`ArchiveLimits`."""

    _CHUNK = 2**20

    def __init__(self, path: Path, limits: ArchiveLimits) -> None:
        self.path, self.limits = path, limits
        self.total = 0
        self._archive: zipfile.ZipFile | None = None
        self._infos: dict[str, zipfile.ZipInfo] = {}

    def open(self, archive: zipfile.ZipFile) -> None:
        names = archive.namelist()
        duplicates = sorted({n for n in names if names.count(n) > 1}) if \
            len(set(names)) != len(names) else []
        if duplicates:
            raise self._error(duplicates[0], "appears more than once in the archive; the "
                              "file was not written by arxpy or has been tampered with")
        self._archive, self._infos = archive, {i.filename: i for i in archive.infolist()}

    def has(self, member: str) -> bool:
        return member in self._infos

    def read(self, member: str, limit: int) -> bytes:
        info = self._infos.get(member)
        if info is None:
            raise ProjectError(f"Project file '{self.path}' is incomplete: missing {member}.")
        self._check_entry(info, limit)
        assert self._archive is not None
        chunks, size = [], 0
        try:
            with self._archive.open(info) as stream:
                while chunk := stream.read(self._CHUNK):
                    size += len(chunk)
                    self._check_size(info, size, limit)
                    chunks.append(chunk)
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise self._error(member, f"is damaged ({exc})") from None
        self.total += size
        return b"".join(chunks)

    def text(self, member: str, limit: int | None = None) -> str:
        """A member as UTF-8 text; refuses binary and other encodings."""
        payload = self.read(member, limit if limit is not None else self._limit_of(member))
        if not payload.strip() and not member.startswith("hierarchies/"):
            raise self._error(member, "is empty")
        if b"\x00" in payload:
            raise self._error(member, "holds binary data (NUL bytes), not text")
        try:
            return payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self._error(member, f"is not UTF-8 text (byte {exc.start}); arxpy writes "
                              "UTF-8 only") from None

    def _limit_of(self, member: str) -> int:
        if member == _MANIFEST:
            return self.limits.max_manifest_bytes
        if member.startswith("hierarchies/"):
            return self.limits.max_hierarchy_bytes
        if member in (_RESULT, _RUNS):
            return self.limits.max_result_bytes
        return self.limits.max_data_bytes

    def _check_entry(self, info: zipfile.ZipInfo, limit: int) -> None:
        if info.flag_bits & 0x1:
            raise self._error(info.filename, "is encrypted; arxpy projects are not")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise self._error(info.filename, f"uses compression method {info.compress_type}; "
                              "arxpy reads stored or deflated members only")
        self._check_size(info, info.file_size, limit, declared=True)

    def _check_size(self, info: zipfile.ZipInfo, size: int, limit: int,
                    declared: bool = False) -> None:
        what = "declares" if declared else "inflates to"
        if size > limit or self.total + size > self.limits.max_total_bytes:
            bound = _mib(min(limit, self.limits.max_total_bytes))
            raise self._error(info.filename, f"{what} more than {bound} (the limit for "
                              "project files); it is damaged or hostile")
        if (size > self.limits.ratio_exempt_bytes
                and size > self.limits.max_ratio * max(info.compress_size, 1)):
            raise self._error(info.filename, f"{what} {_mib(size)} from "
                              f"{_mib(info.compress_size)} compressed, more than "
                              f"{self.limits.max_ratio:g} to 1; it looks like a zip bomb")

    def _error(self, member: str, problem: str) -> ProjectError:
        return ProjectError(f"Project file '{self.path}': member {member} {problem}.")


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def _read_manifest(reader: _MemberReader, path: Path) -> dict[str, Any]:
    if not reader.has(_MANIFEST):
        raise ProjectError(f"'{path}' has no {_MANIFEST}; it is not an arxpy project.")
    try:
        manifest = json.loads(reader.text(_MANIFEST))
    except (json.JSONDecodeError, RecursionError) as exc:
        detail = exc if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        raise ProjectError(f"{_MANIFEST} in '{path}' is damaged ({detail}).") from None
    try:
        validate_manifest(manifest, SCHEMA_VERSION)
    except ManifestError as exc:
        raise ProjectError(f"Project file '{path}': {_MANIFEST} {exc}.") from None
    version = manifest["schema_version"]
    if version > SCHEMA_VERSION:
        raise ProjectError(
            f"'{path}' was written by a newer arxpy ({manifest.get('arxpy_version', '?')}, "
            f"project schema {version}); this arxpy {__version__} reads schema "
            f"{SCHEMA_VERSION} or older. Update arxpy to open it."
        )
    return manifest


def _table_bytes(frame: pd.DataFrame) -> bytes:
    # Quote every cell: keeps empty rows, lone "\r" and leading spaces exact.
    return frame.to_csv(index=False, lineterminator="\n", quoting=csv.QUOTE_ALL).encode("utf-8")


def _hierarchy_bytes(hierarchy: Hierarchy) -> bytes:
    return format_hierarchy_csv(hierarchy).encode("utf-8")


def _table_from_text(text: str, member: str) -> pd.DataFrame:
    _check_row_lengths(text, member)
    watch = InterruptWatch()
    try:
        with watch:
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False,
                                na_filter=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        watch.reraise()  # a Ctrl-C, not a damaged member
        raise ProjectError(f"Member {member} of the project is not a readable CSV table "
                           f"({str(exc).strip()[:200]}).") from None
    return frame


def _check_row_lengths(text: str, member: str) -> None:
    """Every record has as many fields as the header: pandas would pad a short row with
    empty values and skip a blank line, silently changing the data."""
    try:
        for number, row in enumerate(csv.reader(io.StringIO(text, newline="")), start=1):
            if number == 1:
                width = len(row)
            elif len(row) != width:
                raise ProjectError(
                    f"Member {member} of the project is damaged: record {number - 1} has "
                    f"{'more' if len(row) > width else 'fewer'} fields than the header "
                    f"({len(row)}, not {width}).")
    except csv.Error as exc:
        raise ProjectError(f"Member {member} of the project is not a readable CSV table "
                           f"({exc}).") from None


def _hierarchy_from_text(text: str, member: str) -> Hierarchy:
    try:
        return parse_hierarchy_csv(text, source=f"member {member}")
    except ArxpyError as exc:
        raise ProjectError(f"Member {member} of the project is not a usable hierarchy "
                           f"({exc}).") from None
