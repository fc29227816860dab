"""Checks before any work: validate the configuration and data, then encode.

Every check a user can fail runs here, before a search or an apply starts, so a bad
setting costs no search time and leaves nothing half-done.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from typing import TypeVar

import numpy as np
import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.microaggregation import (
    aggregated_only,
    check_microaggregation,
    lattice_definition,
)
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken
from arxpy.lattice.encoding import EncodedData, encode

T = TypeVar("T")


def tracked_attributes(config: AnonymizationConfig) -> list[str]:
    """Attributes whose per-class distributions the configured models need."""
    names = [m.sensitive_attribute for m in config.privacy_models if m.sensitive_attribute]
    names += config.quality_model.tracked_attributes
    return list(dict.fromkeys(names))


def clone(model: T) -> T:
    """A fresh copy of a model for one run (scikit-learn's ``clone``): what the run
    prepares is stored on the copy, never on the object the user or a later run shares."""
    return model.clone() if hasattr(model, "clone") else copy.deepcopy(model)


def prepare(frame: pd.DataFrame, definition: DataDefinition,
            hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig,
            cancel: CancelToken | None = None, weights: np.ndarray | None = None,
            ) -> tuple[EncodedData, AnonymizationConfig]:
    """Validate everything and encode; raises an ArxpyError for any user mistake.

    Returns the encoded data and the run's own configuration: ``config`` with prepared
    clones of its models (``config`` itself is left untouched). ``cancel`` is checked
    between attributes and models (CancelledError). ``weights`` makes ``frame`` a
    histogram of distinct rows with their record counts (see :class:`EncodedData`).
    """
    cancel = cancel or CancelToken()
    config = dataclasses.replace(config.validate(),
                                 privacy_models=[clone(m) for m in config.privacy_models],
                                 quality_model=clone(config.quality_model))
    definition.check_columns(frame.columns)
    if not definition.quasi_identifiers:
        raise ConfigurationError(
            "No attribute is a quasi-identifier; mark at least one and give it a hierarchy."
        )
    tracked = tracked_attributes(config)
    for name in tracked:
        definition[name]  # raises DefinitionError naming the unknown attribute
    _check_sensitive(definition, config)
    check_microaggregation(definition, config.microaggregation)
    if config.microaggregation and weights is not None:
        raise ConfigurationError(
            "Microaggregation needs the records themselves, not a histogram of them; use "
            "--engine memory or remove the microaggregation.")
    # Attributes aggregated without clustering leave the lattice; their distributions
    # per class are tracked for the aggregates and the quality model.
    aggregated = [n for n in definition.names if n in aggregated_only(config.microaggregation)]
    data = encode(frame, lattice_definition(definition, config.microaggregation), hierarchies,
                  [*tracked, *aggregated], cancel.raise_if_cancelled, weights)
    data = dataclasses.replace(data, aggregated=tuple(aggregated))
    for model in config.privacy_models:
        model.validate(data)
    config.quality_model.validate(data)
    for model in config.privacy_models:
        cancel.raise_if_cancelled()
        model.prepare(data)
    cancel.raise_if_cancelled()
    config.quality_model.prepare(data)
    return data, config


def _check_sensitive(definition: DataDefinition, config: AnonymizationConfig) -> None:
    """Models protecting an attribute need it marked sensitive, as ARX requires."""
    for model in config.privacy_models:
        name = model.sensitive_attribute
        if name and definition[name].type is AttributeType.QUASI_IDENTIFYING:
            raise ConfigurationError(
                f"{model.describe()} protects '{name}', but '{name}' is a "
                "quasi-identifier; an attribute cannot be both quasi-identifying and "
                "sensitive (sensitive values are released ungeneralized). Remove the model "
                f"or make '{name}' sensitive."
            )
        if name and definition[name].type is not AttributeType.SENSITIVE:
            raise ConfigurationError(
                f"{model.describe()} protects '{name}', but '{name}' is "
                f"{definition[name].type.value}; mark it sensitive."
            )
