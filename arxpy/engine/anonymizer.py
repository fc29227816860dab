"""Orchestration: validate the input, encode it, search the lattice, build a Result.

Every check a user can fail runs before the search starts, so a bad setting costs no
search time and leaves nothing half-done.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.local_recoding import recode_from
from arxpy.engine.microaggregation import lattice_definition
from arxpy.engine.prepare import prepare
from arxpy.engine.result import Result
from arxpy.engine.safepub import anonymize_safepub, differential_privacy_of
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.lattice.encoding import lattice_size_of
from arxpy.search import SearchContext, check_lattice_size, run_search

#: Share of the progress bar given to encoding and preparation.
_PREPARE_SHARE = 0.05
#: Share of the rest given to local recoding's passes, when configured.
_RECODING_SHARE = 0.3


def anonymize(
    frame: pd.DataFrame,
    definition: DataDefinition,
    hierarchies: Mapping[str, Hierarchy],
    config: AnonymizationConfig,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    *,
    weights: np.ndarray | None = None,
) -> Result:
    """Search the generalization lattice for the best transformation meeting ``config``.

    ``progress(fraction, message)`` is called from this thread with fraction in [0, 1];
    ``cancel.cancel()`` from any thread stops the run within 200 ms by raising
    :class:`~arxpy.errors.CancelledError` (no partial result). ``Result.elapsed_seconds``
    counts search time only. ``weights`` makes ``frame`` a histogram of distinct rows
    with their record counts (what a scalable engine's first pass builds): the search
    and its answers are the same as on the records.
    """
    if differential_privacy_of(config) is not None:
        if config.microaggregation:
            raise ConfigurationError(
                "Differential privacy releases generalized values only; remove the "
                "microaggregation or the differential privacy model.")
        return anonymize_safepub(frame, definition, hierarchies, config, progress, cancel,
                                 weights=weights)
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    report(0.0, "Checking and encoding the data")
    # Before any per-level array is built: deep hierarchies can take minutes to encode,
    # only to find the lattice too large for the strategy.
    size = lattice_size_of(lattice_definition(definition, config.microaggregation), hierarchies)
    if size is not None:
        check_lattice_size(size, config.strategy)
    if weights is not None and config.local_recoding:
        raise ConfigurationError(
            "Local recoding needs the records themselves, not a histogram of them; use "
            "--engine memory or set local recoding to 0.")
    # The run works on its own prepared clones of the models; the Result holds them.
    data, config = prepare(frame, definition, hierarchies, config, cancel, weights)
    cancel.raise_if_cancelled()

    search_share = (1.0 - _PREPARE_SHARE) * (1.0 - (_RECODING_SHARE if config.local_recoding
                                                    else 0.0))

    def search_progress(fraction: float, message: str) -> None:
        report(_PREPARE_SHARE + search_share * fraction, message)

    def recoding_progress(fraction: float, message: str) -> None:
        report(_PREPARE_SHARE + search_share + (1.0 - _PREPARE_SHARE - search_share) * fraction,
               message)

    context = SearchContext(
        data,
        config.privacy_models,
        config.quality_model,
        config.suppression_limit,
        cancel=cancel,
        progress=search_progress,
        time_limit=config.time_limit,
        step_limit=config.step_limit,
        strategy_settings=config.genetic_settings(),
    )
    started = time.perf_counter()
    outcome = run_search(context, config.strategy)
    cancel.raise_if_cancelled()
    passes = None
    if config.local_recoding and outcome.optimum is not None:
        passes = recode_from(context, config, outcome.optimum, cancel=cancel,
                             report=recoding_progress)
    elapsed = time.perf_counter() - started
    context.detach()  # the result must not keep the caller's progress callback alive
    result = Result(frame, definition, config, context, outcome, elapsed, passes=passes)
    report(1.0, "Done")
    return result

