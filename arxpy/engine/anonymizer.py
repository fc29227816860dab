"""Orchestration: validate the input, encode it, search the lattice, build a Result.

Every check a user can fail runs before the search starts, so a bad setting costs no
search time and leaves nothing half-done.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.engine.result import Result
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.encoding import EncodedData, encode
from arxpy.lattice.search import SearchContext, run_search

#: Share of the progress bar given to encoding and preparation.
_PREPARE_SHARE = 0.05


def tracked_attributes(config: AnonymizationConfig) -> list[str]:
    """Attributes whose per-class distributions the configured models need."""
    names = [m.sensitive_attribute for m in config.privacy_models if m.sensitive_attribute]
    names += config.quality_model.tracked_attributes
    return list(dict.fromkeys(names))


def prepare(frame: pd.DataFrame, definition: DataDefinition,
            hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig,
            cancel: CancelToken | None = None) -> EncodedData:
    """Validate everything and encode; raises an ArxpyError for any user mistake.

    ``cancel`` is checked between attributes and models (CancelledError)."""
    cancel = cancel or CancelToken()
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
    data = encode(frame, definition, hierarchies, tracked, cancel.raise_if_cancelled)
    for model in config.privacy_models:
        model.validate(data)
    config.quality_model.validate(data)
    for model in config.privacy_models:
        cancel.raise_if_cancelled()
        model.prepare(data)
    cancel.raise_if_cancelled()
    config.quality_model.prepare(data)
    return data


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


def anonymize(
    frame: pd.DataFrame,
    definition: DataDefinition,
    hierarchies: Mapping[str, Hierarchy],
    config: AnonymizationConfig,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Result:
    """Search the generalization lattice for the best transformation meeting ``config``.

    ``progress(fraction, message)`` is called from this thread with fraction in [0, 1];
    ``cancel.cancel()`` from any thread stops the run within 200 ms by raising
    :class:`~arxpy.errors.CancelledError` (no partial result). ``Result.elapsed_seconds``
    counts search time only.
    """
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    report(0.0, "Checking and encoding the data")
    data = prepare(frame, definition, hierarchies, config, cancel)
    cancel.raise_if_cancelled()

    def search_progress(fraction: float, message: str) -> None:
        report(_PREPARE_SHARE + (1.0 - _PREPARE_SHARE) * fraction, message)

    context = SearchContext(
        data,
        config.privacy_models,
        config.quality_model,
        config.suppression_limit,
        cancel=cancel,
        progress=search_progress,
        time_limit=config.time_limit,
    )
    started = time.perf_counter()
    outcome = run_search(context, config.strategy)
    elapsed = time.perf_counter() - started
    cancel.raise_if_cancelled()
    result = Result(frame, definition, config, context, outcome, elapsed)
    report(1.0, "Done")
    return result
