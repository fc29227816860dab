"""Local recoding as ARX does it: the lattice search again on the records a pass suppressed.

ARX 3.9.2's ``ARXResult.optimizeIterative(handle, gsFactor, maxIterations, 0)`` calls
``optimize`` (= ``optimizeFast(handle, NaN, gsFactor)``) until a pass releases nothing,
no record is suppressed, fewer remain than the smallest class a model allows
(``isOptimizable``: ``getMinimalGroupSize``) or ``maxIterations`` passes ran. Each pass
searches the suppressed records alone with a copy of the configuration
(``ARXConfiguration.getInstanceForLocalRecoding``): the same privacy models and
suppression limit (a fraction of the pass's records), the quality model with the given
gs-factor, and the full data's distributions for the models that read one
(``DataManagerSubset`` delegates them). The records the pass's optimum keeps take its
levels; the rest stay suppressed for the next pass. docs/engine.md has the details and
the comparison with ARX.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from arxpy.data.codes import group_codes
from arxpy.engine.apply import completely_generalized
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.prepare import clone
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken
from arxpy.lattice.encoding import EncodedData
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.sensitive import SensitiveAttributeModel
from arxpy.quality.base import QualityModel
from arxpy.release import SUPPRESSED_VALUE, Release
from arxpy.release.passes import NOT_RELEASED, RecodingPass, RecodingPasses
from arxpy.search import Check, SearchContext, run_search

Report = Callable[[float, str], None]


def records_of(context: SearchContext, levels: tuple[int, ...]) -> np.ndarray:
    """Per record of the context's data, is it released by transformation ``levels``?

    As ARX, records generalized to one value in every quasi-identifier count as
    suppressed when the suppression limit allows any (its outlier flag), so a pass that
    could only release them releases nothing.
    """
    classes, inverse = context.grouper.group_records(levels)
    kept = context.kept(classes)[inverse]
    data = context.data
    if context.max_suppressed > 0 and completely_generalized(data, levels, 1):
        kept[:] = False
    return kept


def subset(data: EncodedData, rows: np.ndarray) -> EncodedData:
    """The records ``rows`` of ``data`` with the same dictionaries and hierarchies."""
    if data.weights is not None:
        raise ConfigurationError(
            "Local recoding needs the records themselves; a scalable engine's histogram "
            "cannot be recoded (use --engine memory).")
    return dataclasses.replace(
        data, n_records=int(rows.size),
        quasi_identifiers=[dataclasses.replace(q, codes=q.codes[rows])
                           for q in data.quasi_identifiers],
        tracked={name: dataclasses.replace(t, codes=t.codes[rows])
                 for name, t in data.tracked.items()})


def _models_for(models: Sequence[PrivacyModel], full: EncodedData,
                part: EncodedData) -> list[PrivacyModel]:
    """Fresh models prepared for one pass: distributions of the full data (ARX's
    ``DataManagerSubset``), everything else of the pass's records."""
    prepared = []
    for model in models:
        fresh = clone(model)
        fresh.prepare(full if isinstance(fresh, SensitiveAttributeModel) else part)
        prepared.append(fresh)
    return prepared


def _quality_for(model: QualityModel, gs_factor: float, part: EncodedData) -> QualityModel:
    """The pass's quality model: ``model`` with the pass's gs-factor where it takes one."""
    params = model.get_params()
    fresh = type(model)(**{**params, "gs_factor": gs_factor}) if "gs_factor" in params \
        else clone(model)
    fresh.prepare(part)
    return fresh


def _smallest_class(models: Sequence[PrivacyModel]) -> int:
    """ARX's ``getMinimalGroupSize``: no pass can release fewer records than this."""
    return max((m.guaranteed_class_size or 1 for m in models), default=1)


def recode_from(context: SearchContext, config: AnonymizationConfig, optimum: Check, *,
                cancel: CancelToken | None = None, report: Report | None = None
                ) -> RecodingPasses:
    """The search's optimum as the first pass, then the passes of local recoding on the
    records it suppressed (``context`` and ``config``: the search's own)."""
    released = records_of(context, optimum.levels)
    gs_factor = config.quality_model.get_params().get("gs_factor")
    first = RecodingPass(0, optimum.levels, context.data.n_records, int(released.sum()),
                         float(optimum.score), gs_factor)
    return recode_locally(context.data, config, first, released, cancel=cancel,
                          report=report)


def recode_locally(data: EncodedData, config: AnonymizationConfig, first: RecodingPass,
                   released: np.ndarray, *, cancel: CancelToken | None = None,
                   report: Report | None = None) -> RecodingPasses:
    """Up to ``config.local_recoding`` passes after ``first`` (the search's optimum,
    which released the records flagged in ``released``). ``config`` is the run's
    prepared configuration; ``report(fraction, message)`` gets 0..1 over the passes."""
    cancel = cancel or CancelToken()
    report = report or (lambda fraction, message: None)
    of_record = np.where(released, 0, NOT_RELEASED).astype(np.int32)
    passes = [first]
    budget = config.local_recoding
    smallest = _smallest_class(config.privacy_models)
    for index in range(1, budget + 1):
        rows = np.flatnonzero(of_record == NOT_RELEASED)
        if rows.size == 0 or rows.size < smallest:
            break
        step = _one_pass(data, config, rows, index, cancel,
                         lambda f, m, i=index: report((i - 1 + f) / budget, m))
        if step is None:
            break
        found, kept = step
        of_record[rows[kept]] = index
        passes.append(found)
    cancel.raise_if_cancelled()
    report(1.0, "Local recoding done")
    return RecodingPasses(tuple(passes), of_record)


def _one_pass(data: EncodedData, config: AnonymizationConfig, rows: np.ndarray, index: int,
              cancel: CancelToken, report: Report) -> tuple[RecodingPass, np.ndarray] | None:
    """The search on the records ``rows``: the pass and which of them it releases, or
    None when it releases none."""
    part = subset(data, rows)
    gs_factor = config.local_recoding_gs_factor
    context = SearchContext(
        part, _models_for(config.privacy_models, data, part),
        _quality_for(config.quality_model, gs_factor, part), config.suppression_limit,
        cancel=cancel, progress=lambda f, m: report(f, f"Local recoding, pass {index}: {m}"),
        time_limit=config.time_limit, step_limit=config.step_limit,
        strategy_settings=config.genetic_settings())
    outcome = run_search(context, config.strategy)
    cancel.raise_if_cancelled()
    if outcome.optimum is None:
        return None
    kept = records_of(context, outcome.optimum.levels)
    if not kept.any():
        return None
    gs = gs_factor if "gs_factor" in config.quality_model.get_params() else None
    return RecodingPass(index, outcome.optimum.levels, int(rows.size), int(kept.sum()),
                        float(outcome.optimum.score), gs), kept


def locally_recoded(release: Release, passes: RecodingPasses, data: EncodedData) -> Release:
    """``release`` (the first pass's) with each later pass's records at that pass's levels,
    the records no pass released suppressed, and groups of equal released values."""
    table = release.table.copy()
    levels = passes.levels_of_records()
    released = passes.of_record != NOT_RELEASED
    columns = []
    for j, qi in enumerate(data.quasi_identifiers):
        values = np.empty(len(table), dtype=object)
        values[~released] = SUPPRESSED_VALUE
        for level in np.unique(levels[released, j]):
            rows = released & (levels[:, j] == level)
            values[rows] = np.asarray(qi.labels[level], dtype=object)[
                qi.level_maps[level][qi.codes[rows]]]
        table[qi.name] = values
        columns.append(values)
    generalized = sum(completely_generalized(data, p.levels, int(n))
                      for p, n in zip(passes.passes, passes.released_per_pass(), strict=True))
    return dataclasses.replace(
        release, table=table, suppressed=~released, passes=passes,
        groups=_released_groups(columns, released),
        completely_generalized_records=int(generalized))


def _released_groups(columns: list[np.ndarray], released: np.ndarray) -> np.ndarray:
    """Per record, its class among released records with equal quasi-identifier values
    (what an attacker sees across passes); -1 for suppressed records."""
    groups = np.full(len(released), -1, dtype=np.int64)
    if released.any():
        codes = [pd.factorize(c[released], sort=False)[0].astype(np.int64) for c in columns]
        groups[released], _ = group_codes(codes)
    return groups
