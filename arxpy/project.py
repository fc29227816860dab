"""Project files (``.arxpy``): data, attribute definitions, hierarchies and settings.

A project file is a zip archive holding

* ``project.json``: ``schema_version``, the project name, the arxpy version that
  wrote it, the attribute definitions, hierarchies by reference (attribute → member
  path), and the privacy, quality and search settings;
* ``data.csv``: the table as UTF-8 CSV, every cell the exact string loaded;
* ``hierarchies/<n>.csv``: one ARX-format hierarchy per attribute.

Saving writes a complete archive to a temporary file and renames it over the target,
so an existing project is never left half-written.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from arxpy import __version__
from arxpy.data.atomic import atomic_write, remove_stale_temporaries
from arxpy.data.definition import DataDefinition
from arxpy.errors import ArxpyError, ProjectError
from arxpy.hierarchy.model import Hierarchy

#: Version of the project.json layout this arxpy writes and the newest it reads.
SCHEMA_VERSION = 1
PROJECT_SUFFIX = ".arxpy"
_MANIFEST = "project.json"
_DATA = "data.csv"


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

    def __post_init__(self) -> None:
        self.definition.check_columns(self.data.columns)
        unknown = [a for a in self.hierarchies if a not in self.definition]
        if unknown:
            raise ProjectError(f"Hierarchies for unknown attributes: {', '.join(unknown)}.")

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
    def load(cls, path: str | Path) -> Project:
        """Read a project file; raises :class:`ProjectError` on any problem with it."""
        path = Path(path)
        remove_stale_temporaries(path)  # left by a save that was killed
        try:
            with zipfile.ZipFile(path) as archive:
                manifest = _read_manifest(archive, path)
                return cls._from_archive(archive, manifest, path)
        except FileNotFoundError:
            raise ProjectError(f"Project file '{path}' does not exist.") from None
        except (zipfile.BadZipFile, OSError) as exc:
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
        )

    def _members(self) -> dict[str, bytes]:
        references = {
            attribute: f"hierarchies/{i}.csv" for i, attribute in enumerate(self.hierarchies)
        }
        manifest = {
            "schema_version": SCHEMA_VERSION,
            "arxpy_version": __version__,
            "name": self.name,
            "data": _DATA,
            "definition": self.definition.to_list(),
            "hierarchies": references,
            "settings": self.settings,
        }
        members = {
            _MANIFEST: json.dumps(manifest, indent=2, ensure_ascii=False).encode("utf-8"),
            # Quote every cell: keeps empty rows, lone "\r" and leading spaces exact.
            _DATA: self.data.to_csv(index=False, lineterminator="\n", quoting=csv.QUOTE_ALL)
            .encode("utf-8"),
        }
        for attribute, member in references.items():
            members[member] = _hierarchy_bytes(self.hierarchies[attribute])
        return members

    @classmethod
    def _from_archive(
        cls, archive: zipfile.ZipFile, manifest: dict[str, Any], path: Path
    ) -> Project:
        try:
            data = pd.read_csv(
                io.BytesIO(archive.read(manifest["data"])),
                dtype=str,
                keep_default_na=False,
                na_filter=False,
                encoding="utf-8",
            )
            hierarchies = {
                attribute: _hierarchy_from_bytes(archive.read(member))
                for attribute, member in manifest.get("hierarchies", {}).items()
            }
            definition = DataDefinition.from_list(manifest["definition"])
        except KeyError as exc:
            raise ProjectError(f"Project file '{path}' is incomplete: missing {exc}.") from None
        except ArxpyError as exc:
            raise ProjectError(f"Project file '{path}' is inconsistent: {exc}") from exc
        return cls(
            data=data,
            definition=definition,
            hierarchies=hierarchies,
            settings=manifest.get("settings", {}),
            name=manifest.get("name", path.stem),
        )


def _read_manifest(archive: zipfile.ZipFile, path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads(archive.read(_MANIFEST).decode("utf-8"))
    except KeyError:
        raise ProjectError(f"'{path}' has no {_MANIFEST}; it is not an arxpy project.") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProjectError(f"{_MANIFEST} in '{path}' is damaged ({exc}).") from exc
    version = manifest.get("schema_version")
    if not isinstance(version, int):
        raise ProjectError(f"{_MANIFEST} in '{path}' has no schema version.")
    if version > SCHEMA_VERSION:
        raise ProjectError(
            f"'{path}' was written by a newer arxpy ({manifest.get('arxpy_version', '?')}, "
            f"project schema {version}); this arxpy {__version__} reads schema "
            f"{SCHEMA_VERSION} or older. Update arxpy to open it."
        )
    return manifest


def _hierarchy_bytes(hierarchy: Hierarchy) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=";", lineterminator="\n").writerows(hierarchy.rows)
    return buffer.getvalue().encode("utf-8")


def _hierarchy_from_bytes(payload: bytes) -> Hierarchy:
    return Hierarchy(csv.reader(io.StringIO(payload.decode("utf-8")), delimiter=";"))
