"""A SafePub run: sample the records, search the sample, release it (issue 33).

ARX 3.9.2 draws the sample when the data are prepared (``EDDifferentialPrivacy.initialize``:
each record kept with probability β, a ``DataSubset``), lets every record be suppressed
(``absMaxOutliers = numOutputRecords``), searches with ``DataDependentEDDPAlgorithm`` and
releases every input row, the ones the sampling left out suppressed. arxpy does the same
with a seeded generator (ARX uses ``SecureRandom``): the sample, then the search's draws.
Records are sampled by their input position (:class:`RecordSample`), so a record engine
draws the same sample from the same seed and only sends the sampled counts of its
histogram; a histogram without them is sampled by thinning each row's count binomially
(the same distribution of sample counts).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.backends.base import RecordSample
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.prepare import prepare
from arxpy.engine.result import Result
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.params import drawn_seed
from arxpy.privacy.differential_privacy import EDDifferentialPrivacy
from arxpy.search import SearchContext
from arxpy.search.safepub import search_safepub


def differential_privacy_of(config: AnonymizationConfig) -> EDDifferentialPrivacy | None:
    """The configuration's (ε, δ)-differential privacy model, if any (ARX allows one)."""
    found = [m for m in config.privacy_models if isinstance(m, EDDifferentialPrivacy)]
    if len(found) > 1:
        raise ConfigurationError("Configure (ε, δ)-differential privacy once, not "
                                 f"{len(found)} times.")
    return found[0] if found else None


def _check(config: AnonymizationConfig) -> None:
    """ARX's ``ARXConfiguration``/``ARXAnonymizer`` refusals, as one line each."""
    if config.local_recoding:
        raise ConfigurationError("Differential privacy does not support local recoding "
                                 "(ARX neither); set local recoding to 0.")
    for model in config.privacy_models:
        if model.kind in ("k-map", "delta-presence") and \
                getattr(model, "population", None) is not None:
            raise ConfigurationError(
                "Differential privacy cannot be combined with a population table or "
                f"research subset ({model.describe()}), as in ARX; remove one of them.")


def sample_rows(rows: int, weights: np.ndarray | None, sample: RecordSample,
                rng: np.random.Generator) -> np.ndarray:
    """Per row, the records kept: 0/1 per record (each kept with probability β), or a
    histogram row's count thinned binomially."""
    if weights is None:
        return sample.kept(np.arange(rows)).astype(np.int64)
    return rng.binomial(np.asarray(weights, dtype=np.int64), sample.beta)


def record_sample(model: EDDifferentialPrivacy) -> RecordSample:
    """The model's sample: its seed (drawn when not given) and β."""
    return RecordSample(model.seed if model.seed is not None else drawn_seed(), model.beta)


def anonymize_safepub(frame: pd.DataFrame, definition: DataDefinition,
                      hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig,
                      progress: Progress | None = None, cancel: CancelToken | None = None,
                      *, weights: np.ndarray | None = None, sampled: np.ndarray | None = None,
                      sample: RecordSample | None = None) -> Result:
    """SafePub on ``frame`` (records, or a histogram with ``weights`` and, drawn by its
    engine with ``sample``, the ``sampled`` records of each row): the Result's optimum is
    the walk's choice, its releases suppress every record not sampled."""
    cancel = cancel or CancelToken()
    report = ThrottledProgress(progress)
    report(0.0, "Sampling the records")
    _check(config)
    model = differential_privacy_of(config)
    assert model is not None
    sample = sample or record_sample(model)
    seed = sample.seed
    rng = np.random.default_rng(seed)
    kept = sampled if sampled is not None else sample_rows(len(frame), weights, sample, rng)
    records = len(frame) if weights is None else int(np.asarray(weights).sum())
    taken = kept > 0
    # Every record may be suppressed (ARX: absMaxOutliers = all output records).
    run_config = dataclasses.replace(config, suppression_limit=1.0, strategy="heuristic")
    data, run_config = prepare(frame[taken], definition, hierarchies, run_config, cancel,
                               None if weights is None else kept[taken])
    prepared = differential_privacy_of(run_config)
    prepared.record_sample(taken, seed, records)
    context = SearchContext(data, run_config.privacy_models, run_config.quality_model, 1.0,
                            cancel=cancel, progress=lambda f, m: report(0.05 + 0.95 * f, m))
    started = time.perf_counter()
    outcome, walk = search_safepub(context, prepared, records, run_config.quality_model.name,
                                   rng)
    if walk is not None:
        outcome.notes.update(dp_steps_taken=float(len(walk.pivots) - 1))
        if outcome.optimum is not None:
            outcome.notes.update(dp_score=walk.scores[outcome.optimum.levels])
    cancel.raise_if_cancelled()
    context.detach()
    result = Result(frame if weights is None else frame[taken], definition, run_config,
                    context, outcome, time.perf_counter() - started)
    report(1.0, "Done")
    return result
