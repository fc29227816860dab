"""The schema of ``project.json``: every key checked before any of it is used.

A project file may come from anyone, so its manifest is untrusted input. Each check
names the key (``definition[2].weight``) and says what is expected; the first problem
raises :class:`ManifestError`, which the loader turns into a ProjectError naming the file.
Model parameters inside ``settings`` are checked by the engine's own constructors
(:func:`arxpy.engine.config.check_settings`); here only their shape is.
"""

from __future__ import annotations

import math
from typing import Any

from arxpy.data.definition import DEFAULT_WEIGHT, AttributeType, DataKind
from arxpy.errors import ArxpyError
from arxpy.identifiers import IdentifierPlan
from arxpy.identifiers.keys import FINGERPRINT_DIGITS

#: Keys of ``settings`` and the JSON types each may hold (None: may be null).
_SETTING_TYPES: dict[str, tuple[type, ...]] = {
    "privacy_models": (list,),
    "quality_model": (dict, type(None)),
    "suppression_limit": (int, float),
    "strategy": (str,),
    "time_limit": (int, float, type(None)),
    "step_limit": (int, type(None)),
    "remove_suppressed": (bool,),
    # The chosen method and each other method's parameters (the GUI's method selector).
    "method": (str,),
    "method_parameters": (dict,),
    # Identifier treatments and date shifting with the key's fingerprint, never the key.
    "identifiers": (dict, type(None)),
    # Compare's classifier target and bins (the GUI's runs page).
    "compare": (dict,),
    # How linked event tables join the patient table (arxpy.workflows.linked_project).
    "linked": (dict, type(None)),
}
_TYPE_NAMES = {list: "a list", dict: "an object", int: "a number", float: "a number",
               str: "a string", bool: "true or false", type(None): "null"}


class ManifestError(ValueError):
    """One problem of ``project.json``: the key at fault and what it should hold."""

    def __init__(self, key: str, expected: str, got: Any) -> None:
        super().__init__(f"key '{key}' must be {expected}, got {_show(got)}")


def validate_manifest(manifest: Any, newest_schema: int) -> None:
    """Raise ManifestError for the first key of ``manifest`` that arxpy cannot use.

    A schema newer than ``newest_schema`` is not an error here: the caller says which
    arxpy to update to.
    """
    if not isinstance(manifest, dict):
        raise ManifestError("(top level)", "an object with the project's keys", manifest)
    version = manifest.get("schema_version")
    if not _is_int(version) or version < 1:
        raise ManifestError("schema_version", f"a whole number from 1 to {newest_schema}",
                            version)
    if version > newest_schema:
        return
    for key in ("name", "arxpy_version", "data"):
        if key in manifest and not isinstance(manifest[key], str):
            raise ManifestError(key, "a string", manifest[key])
    _check_definition(manifest.get("definition"))
    _check_hierarchies(manifest.get("hierarchies", {}), manifest["definition"])
    _check_settings(manifest.get("settings", {}))
    _check_events(manifest.get("events", {}))


def _check_definition(definition: Any) -> None:
    if not isinstance(definition, list):
        raise ManifestError("definition", "a list of attribute definitions", definition)
    seen: set[str] = set()
    for i, attribute in enumerate(definition):
        key = f"definition[{i}]"
        if not isinstance(attribute, dict):
            raise ManifestError(key, "an object with name, type and data_type", attribute)
        name = attribute.get("name")
        if not isinstance(name, str):
            raise ManifestError(f"{key}.name", "a string", name)
        if name in seen:
            raise ManifestError(f"{key}.name", "unique (it names another attribute too)", name)
        seen.add(name)
        _check_choice(attribute, "type", key, [t.value for t in AttributeType])
        _check_data_type(attribute.get("data_type", {"kind": "string"}), f"{key}.data_type")
        for bound in ("min_level", "max_level"):
            value = attribute.get(bound)
            if value is not None and (not _is_int(value) or value < 0):
                raise ManifestError(f"{key}.{bound}", "null or a whole number of 0 or more",
                                    value)
        weight = attribute.get("weight", DEFAULT_WEIGHT)
        if not _is_number(weight) or not weight > 0 or not math.isfinite(weight):
            raise ManifestError(f"{key}.weight", "a positive finite number", weight)


def _check_data_type(data_type: Any, key: str) -> None:
    if not isinstance(data_type, dict):
        raise ManifestError(key, "an object with a kind", data_type)
    if "kind" not in data_type:
        raise ManifestError(f"{key}.kind", "one of " + ", ".join(k.value for k in DataKind),
                            None)
    _check_choice(data_type, "kind", key, [k.value for k in DataKind])
    if data_type.get("format") is not None and not isinstance(data_type["format"], str):
        raise ManifestError(f"{key}.format", "null or a string", data_type["format"])
    order = data_type.get("order")
    if order is not None and not (isinstance(order, list)
                                  and all(isinstance(v, str) for v in order)):
        raise ManifestError(f"{key}.order", "null or a list of strings", order)


def _check_hierarchies(hierarchies: Any, definition: list[dict[str, Any]]) -> None:
    if not isinstance(hierarchies, dict):
        raise ManifestError("hierarchies", "an object mapping attributes to member files",
                            hierarchies)
    names = {a["name"] for a in definition}
    for attribute, member in hierarchies.items():
        if attribute not in names:
            raise ManifestError(f"hierarchies.{attribute}", "an attribute of the definition",
                                attribute)
        if not isinstance(member, str):
            raise ManifestError(f"hierarchies.{attribute}", "the name of a member file",
                                member)


def _check_events(events: Any) -> None:
    if not isinstance(events, dict):
        raise ManifestError("events", "an object mapping linked tables to member files",
                            events)
    for name, member in events.items():
        if not name.strip():
            raise ManifestError("events", "named tables", name)
        if not isinstance(member, str) or not member.startswith("events/"):
            raise ManifestError(f"events.{name}", "the name of a member file under events/",
                                member)


def _check_linked(linked: dict[str, Any]) -> None:
    if not isinstance(linked.get("link_column"), str):
        raise ManifestError("settings.linked.link_column", "a string",
                            linked.get("link_column"))
    for key in ("aggregates", "shifted"):
        names = linked.get(key, [])
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            raise ManifestError(f"settings.linked.{key}", "a list of strings", names)
    days = linked.get("shift_days", 1)
    if not _is_int(days) or days < 1:
        raise ManifestError("settings.linked.shift_days", "a whole number of 1 or more", days)


def _check_settings(settings: Any) -> None:
    if not isinstance(settings, dict):
        raise ManifestError("settings", "an object", settings)
    for key, types in _SETTING_TYPES.items():
        if key in settings:
            _check_type(settings[key], types, f"settings.{key}")
    for i, spec in enumerate(settings.get("privacy_models") or []):
        if not isinstance(spec, dict) or not isinstance(spec.get("kind"), str):
            raise ManifestError(f"settings.privacy_models[{i}]",
                                "an object with a string 'kind'", spec)
    for name, parameters in (settings.get("method_parameters") or {}).items():
        if not isinstance(parameters, dict):
            raise ManifestError(f"settings.method_parameters.{name}",
                                "an object of the method's parameters", parameters)
    if settings.get("identifiers"):
        _check_identifiers(settings["identifiers"])
    if settings.get("linked"):
        _check_linked(settings["linked"])
    quality = settings.get("quality_model")
    if quality is not None and not isinstance(quality.get("name"), str):
        raise ManifestError("settings.quality_model", "an object with a string 'name'",
                            quality)


def _check_identifiers(record: dict[str, Any]) -> None:
    fingerprint = record.get("key_fingerprint")
    if fingerprint is not None and not (
            isinstance(fingerprint, str) and len(fingerprint) == FINGERPRINT_DIGITS
            and all(c in "0123456789abcdef" for c in fingerprint)):
        raise ManifestError("settings.identifiers.key_fingerprint",
                            f"null or {FINGERPRINT_DIGITS} lower-case hex digits", fingerprint)
    try:
        IdentifierPlan.from_record(record)
    except (ArxpyError, KeyError, TypeError, AttributeError, ValueError) as exc:
        detail = f"missing {exc}" if isinstance(exc, KeyError) else str(exc).rstrip(".")
        raise ManifestError("settings.identifiers", "identifier treatments arxpy can "
                            f"read ({detail})", record) from None


def _check_choice(holder: dict[str, Any], field: str, key: str, allowed: list[str]) -> None:
    if field in holder and holder[field] not in allowed:
        raise ManifestError(f"{key}.{field}", "one of " + ", ".join(allowed), holder[field])


def _check_type(value: Any, types: tuple[type, ...], key: str) -> None:
    is_bool = isinstance(value, bool)
    if (is_bool and bool not in types) or not isinstance(value, types) or (
            isinstance(value, float) and not math.isfinite(value)):
        expected = " or ".join(dict.fromkeys(_TYPE_NAMES[t] for t in types))
        raise ManifestError(key, expected, value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _show(value: Any) -> str:
    """A short rendering of a bad value (manifests may hold huge ones)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
