"""Checks before any work: validate the configuration and data, then encode.

Every check a user can fail runs here, before a search or an apply starts, so a bad
setting costs no search time and leaves nothing half-done.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine.config import AnonymizationConfig
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.encoding import EncodedData, encode


def tracked_attributes(config: AnonymizationConfig) -> list[str]:
    """Attributes whose per-class distributions the configured models need."""
    names = [m.sensitive_attribute for m in config.privacy_models if m.sensitive_attribute]
    names += config.quality_model.tracked_attributes
    return list(dict.fromkeys(names))


def prepare(frame: pd.DataFrame, definition: DataDefinition,
            hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig) -> EncodedData:
    """Validate everything and encode; raises an ArxpyError for any user mistake."""
    config.validate()
    definition.check_columns(frame.columns)
    if not definition.quasi_identifiers:
        raise ConfigurationError(
            "No attribute is a quasi-identifier; mark at least one and give it a hierarchy."
        )
    tracked = tracked_attributes(config)
    for name in tracked:
        definition[name]  # raises DefinitionError naming the unknown attribute
    _check_sensitive(definition, config)
    data = encode(frame, definition, hierarchies, tracked)
    for model in config.privacy_models:
        model.validate(data)
    config.quality_model.validate(data)
    for model in config.privacy_models:
        model.prepare(data)
    config.quality_model.prepare(data)
    return data


def _check_sensitive(definition: DataDefinition, config: AnonymizationConfig) -> None:
    """Models protecting an attribute need it marked sensitive, as ARX requires."""
    for model in config.privacy_models:
        name = model.sensitive_attribute
        if name and definition[name].type is not AttributeType.SENSITIVE:
            raise ConfigurationError(
                f"{model.describe()} protects '{name}', but '{name}' is "
                f"{definition[name].type.value}; mark it sensitive."
            )
