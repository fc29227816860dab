"""A recipe: everything that decides a release, and no data (issue 35).

A recipe holds the attributes (roles, data types, levels, weights), each hierarchy by
file name and SHA-256, the identifier treatments (the plan's record: key fingerprint,
never the key), the method with its parameters (privacy and quality models, suppression
limit, search settings), what replay does (apply the chosen transformation, search
again, or run the method again with its seed) and the software versions it was made
with. Hierarchies and the orders of ordinal attributes list values of the input's
domain, so they stay out of the file: replay is given the hierarchy files and refuses
one whose SHA-256 differs (``docs/recipes.md``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arxpy.data.definition import DataDefinition, DataKind
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.io import format_hierarchy_csv
from arxpy.hierarchy.model import Hierarchy
from arxpy.release import Release, software_versions

FORMAT = "arxpy-recipe"
FORMAT_VERSION = 1
#: What replay does: apply the recipe's transformation, search the lattice again, or
#: run a method again with the recipe's parameters and seed.
FIXED, SEARCH, RUN = "fixed", "search", "run"
MODES = (FIXED, SEARCH)


def canonical_json(value: Any) -> bytes:
    """The one byte form of a JSON value that hashes and signatures are taken over
    (sorted keys, no spaces, UTF-8; NaN refused)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def hierarchy_sha256(hierarchy: Hierarchy) -> str:
    """SHA-256 of a hierarchy's ARX CSV text (``;``, UTF-8, ``\\n``): the same for the
    same hierarchy whatever delimiter or encoding its file was written with."""
    return hashlib.sha256(format_hierarchy_csv(hierarchy).encode("utf-8")).hexdigest()


def _order_sha256(order: tuple[str, ...]) -> str:
    return hashlib.sha256(canonical_json(list(order))).hexdigest()


@dataclass(frozen=True)
class Recipe:
    """A data-free description of a release (see the module's docstring).

    ``hierarchies`` maps an attribute to ``{"file", "sha256", "height"}``; ``decision``
    is ``{"mode": "fixed", "transformation": {ATTR: LEVEL}}``, ``{"mode": "search"}`` or
    ``{"mode": "run", "seed": N}``.
    """

    attributes: tuple[dict[str, Any], ...]
    hierarchies: Mapping[str, Mapping[str, Any]]
    method: str
    parameters: Mapping[str, Any]
    decision: Mapping[str, Any]
    identifiers: Mapping[str, Any] | None = None
    made_from: Mapping[str, Any] = field(default_factory=dict)
    versions: Mapping[str, str] = field(default_factory=software_versions)
    #: The policy preset's record (name, parameters, every rule with its reason), if any.
    preset: Mapping[str, Any] | None = None

    @property
    def mode(self) -> str:
        return str(self.decision["mode"])

    @property
    def names(self) -> list[str]:
        return [a["name"] for a in self.attributes]

    def definition(self) -> DataDefinition:
        """The attribute definition; an ordinal attribute (whose order is not stored)
        is read as a string: its hierarchy, not its order, generalizes it."""
        items = []
        for item in self.attributes:
            data_type = dict(item["data_type"])
            if data_type.get("kind") == DataKind.ORDINAL.value:
                data_type = {"kind": DataKind.STRING.value}
            items.append({**item, "data_type": data_type})
        return DataDefinition.from_list(items)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION,
                "attributes": [dict(a) for a in self.attributes],
                "hierarchies": {k: dict(v) for k, v in self.hierarchies.items()},
                "identifiers": None if self.identifiers is None else dict(self.identifiers),
                "method": {"name": self.method, "parameters": dict(self.parameters)},
                "decision": dict(self.decision), "made_from": dict(self.made_from),
                "versions": dict(self.versions),
                # only when present, so the hashes of recipes without one stay as they were
                **({} if self.preset is None else {"preset": dict(self.preset)})}

    @property
    def built(self) -> dict[str, Mapping[str, Any]]:
        """Hierarchies a preset's rule builds from the values (replay builds them again)."""
        return {name: h for name, h in self.hierarchies.items() if h.get("built_by")}

    @property
    def sha256(self) -> str:
        """SHA-256 of the recipe's canonical JSON (what a certificate names)."""
        return hashlib.sha256(canonical_json(self.to_dict())).hexdigest()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], source: str = "the recipe") -> Recipe:
        if not isinstance(d, Mapping) or d.get("format") != FORMAT:
            raise ConfigurationError(f"{source} is not an arxpy recipe (no \"format\": "
                                     f"\"{FORMAT}\"); give the file --recipe-out wrote.")
        if d.get("format_version") != FORMAT_VERSION:
            raise ConfigurationError(
                f"{source} has recipe format version {d.get('format_version')!r}; this "
                f"arxpy reads version {FORMAT_VERSION}. Write the recipe again.")
        try:
            method = d["method"]
            return cls(tuple(d["attributes"]), dict(d["hierarchies"]), method["name"],
                       dict(method["parameters"]), dict(d["decision"]), d.get("identifiers"),
                       dict(d.get("made_from") or {}), dict(d.get("versions") or {}),
                       d.get("preset"))
        except (KeyError, TypeError) as exc:
            raise ConfigurationError(
                f"{source} lacks {exc}; give the file --recipe-out wrote.") from None

    def save(self, path: str | Path) -> Path:
        from arxpy.data.atomic import atomic_write

        with atomic_write(path) as handle:
            json.dump(self.to_dict(), handle, indent=2, allow_nan=False)
            handle.write("\n")
        return Path(path)

    @classmethod
    def load(cls, path: str | Path) -> Recipe:
        source = Path(path)
        try:
            text = source.read_text(encoding="utf-8")
            return cls.from_dict(json.loads(text), f"'{source}'")
        except OSError as exc:
            raise ConfigurationError(
                f"Cannot read the recipe '{source}': {exc.strerror or exc}.") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ConfigurationError(f"'{source}' is not JSON ({exc}).") from None


def _attribute_records(definition: DataDefinition) -> tuple[dict[str, Any], ...]:
    """The definition without data values: an ordinal order becomes its SHA-256."""
    records = []
    for attribute in definition:
        record = attribute.to_dict()
        order = attribute.data_type.order
        if order is not None:
            record["data_type"] = {**record["data_type"], "order": None,
                                   "order_sha256": _order_sha256(order),
                                   "order_values": len(order)}
            del record["data_type"]["order"]
        records.append(record)
    return tuple(records)


def build_recipe(definition: DataDefinition, hierarchies: Mapping[str, Hierarchy],
                 release: Release, *, mode: str = FIXED,
                 identifiers: Mapping[str, Any] | None = None,
                 hierarchy_files: Mapping[str, str] | None = None,
                 parameters: Mapping[str, Any] | None = None,
                 preset: Mapping[str, Any] | None = None,
                 built: Mapping[str, Mapping[str, Any]] | None = None) -> Recipe:
    """The recipe of ``release``, made from ``definition`` (as given, before identifier
    treatments) and ``hierarchies`` with the treatments' record ``identifiers``.

    A lattice release is replayed at its transformation (``mode`` ``"fixed"``) or by
    searching again (``"search"``); any other method is run again with its
    ``parameters`` (default: the release's) and the release's seed.
    ``hierarchy_files`` names each hierarchy's file (file name only, no folder).
    ``preset`` is a policy preset's record; ``built`` the hierarchies its rules built
    (attribute -> ``built_by`` and ``parameters``), which have no file.
    """
    files, built = hierarchy_files or {}, built or {}
    table = {name: {"file": Path(files[name]).name if name in files and name not in built
                    else None, "sha256": hierarchy_sha256(h), "height": h.height,
                    **dict(built.get(name, {}))}
             for name, h in hierarchies.items() if name in definition}
    decision = _decision(release, mode)
    return Recipe(
        attributes=_attribute_records(definition), hierarchies=table,
        method=release.method, parameters=_jsonable(parameters or release.parameters),
        decision=decision, identifiers=None if identifiers is None else dict(identifiers),
        made_from={"input_sha256": release.input_sha256, "records": release.records},
        versions=dict(release.versions), preset=None if preset is None else dict(preset))


def _decision(release: Release, mode: str) -> dict[str, Any]:
    if release.transformation is None:
        return {"mode": RUN, "seed": release.seed}
    if mode not in MODES:
        raise ConfigurationError(
            f"Unknown replay mode '{mode}'; use {' or '.join(MODES)}.")
    if mode == SEARCH:
        return {"mode": SEARCH}
    if release.passes is not None:
        raise ConfigurationError(
            "A locally recoded release has no one transformation to fix; write its recipe "
            "to search again (--recipe-replay search), which repeats the passes.")
    return {"mode": FIXED, "transformation": {k: int(v) for k, v in
                                              release.transformation.items()}}


def _jsonable(value: Any) -> Any:
    """Parameters as plain JSON (round-tripped, so numpy scalars and tuples go)."""
    try:
        return json.loads(json.dumps(value, default=_plain, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"A parameter cannot be written to a recipe: {exc}.") \
            from None


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")
