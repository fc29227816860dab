"""A run whose records stay with a record engine: histogram, search, write.

``anonymize_source`` asks the engine for the histogram of distinct (quasi-identifier,
tracked) value combinations, searches the lattice on it (the same search, the same
answers as on the records: tests/test_histogram_search.py), and returns a
:class:`ScaledRun`; its :meth:`ScaledRun.write` has the engine write a transformation's
output from an :class:`OutputPlan` of lookup tables, so no record passes through
Python.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.anonymizer import anonymize
from arxpy.engine.apply import GENERALIZATION, claims_of, completely_generalized
from arxpy.engine.backends.base import (
    Histogram,
    OutputPlan,
    RecordEngine,
    RecordSample,
    RecordSource,
    WriteSummary,
)
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.prepare import tracked_attributes
from arxpy.engine.result import Result
from arxpy.engine.safepub import anonymize_safepub, differential_privacy_of, record_sample
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress, progress_part
from arxpy.release import SUPPRESSED_VALUE, ClassStatistics

#: Engines that draw SafePub's sample by record position (the histogram's sampled counts).
SAMPLING_ENGINES = ("memory", "duckdb")

#: Share of the progress bar given to the histogram pass.
_HISTOGRAM_SHARE = 0.5


@dataclass(frozen=True)
class ScaledRun:
    """The search result over a histogram, and what is needed to write its output."""

    result: Result
    histogram: Histogram
    source: RecordSource
    definition: DataDefinition  # of every column of the source
    engine: RecordEngine
    #: SafePub's sample, drawn by the engine (None without differential privacy).
    sample: RecordSample | None = None

    def output_plan(self, levels: Sequence[int] | None = None) -> OutputPlan:
        """Lookup tables for ``levels`` (default: the optimum)."""
        plan = output_plan(self.result, self.definition, self.histogram.columns, levels)
        if self.sample is None:
            return plan
        # Every input record is written; those not sampled are suppressed too.
        left_out = self.histogram.n_records - plan.records
        return replace(plan, sample=self.sample, records=self.histogram.n_records,
                       suppressed_records=plan.suppressed_records + left_out)

    def release_dict(self, levels: Sequence[int] | None = None) -> dict[str, Any]:
        """The keys of :meth:`arxpy.release.Release.to_dict` that a histogram gives.

        Method, parameters, transformation, anonymous, claims, class statistics and
        elapsed seconds are the same as the in-memory release's; ``input_sha256`` and
        ``output_sha256`` (digests of the tables in memory), ``versions`` and ``seed``
        are absent: the records never were in memory.
        """
        result = self.result
        levels = _levels_or_optimum(result, levels)
        context = result.context()
        classes, _ = context.grouper.group_records(levels)
        kept = context.kept(classes)
        sizes = classes.sizes[kept]
        check = result.outcome.checks.get(levels) or context.evaluate(levels, classes)
        names = list(context.lattice.names)
        released = int(sizes.sum())
        # With SafePub every input record is in the output, those not sampled suppressed.
        records = classes.n_records if self.sample is None else self.histogram.n_records
        statistics = ClassStatistics(
            n_classes=int(len(sizes)), min_size=int(sizes.min()) if len(sizes) else 0,
            max_size=int(sizes.max()) if len(sizes) else 0,
            mean_size=float(sizes.mean()) if len(sizes) else 0.0,
            suppressed_records=records - released, records=records,
            completely_generalized_records=completely_generalized(context.data, levels, released))
        return {
            "method": GENERALIZATION, "parameters": result.config.to_dict(),
            "transformation": dict(zip(names, levels, strict=True)),
            "anonymous": bool(check.anonymous),
            "claims": [c.to_dict() for c in claims_of(result.config, names)],
            "classes": statistics.to_dict(), "elapsed_seconds": result.elapsed_seconds,
        }

    def write(self, path: str | Path, *, levels: Sequence[int] | None = None,
              delimiter: str = ";", shuffle_seed: int | None = None,
              progress: Progress | None = None,
              cancel: CancelToken | None = None) -> WriteSummary:
        """Write ``levels``' output (default: the optimum); with ``shuffle_seed`` its rows
        in the order that seed gives (:func:`~arxpy.engine.backends.base.shuffle_keys`),
        None keeps the input's order."""
        plan = replace(self.output_plan(levels), shuffle_seed=shuffle_seed)
        return self.engine.write(self.source, plan, Path(path), delimiter=delimiter,
                                 progress=progress, cancel=cancel)


def anonymize_source(source: RecordSource, definition: DataDefinition,
                     hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig,
                     engine: RecordEngine, *, progress: Progress | None = None,
                     cancel: CancelToken | None = None,
                     check_histogram: Callable[[pd.DataFrame], None] | None = None
                     ) -> ScaledRun:
    """Search the lattice over ``engine``'s histogram of ``source``; ``check_histogram``
    sees the distinct rows first (a shifted date's hierarchy must cover them)."""
    cancel = cancel or CancelToken()
    columns = engine.columns(source)
    definition.check_columns(columns)
    needed = list(dict.fromkeys(definition.quasi_identifiers + tracked_attributes(config)))
    for name in needed:
        definition[name]  # raises DefinitionError naming an unknown attribute

    dp = differential_privacy_of(config)
    sample = None if dp is None else record_sample(dp)
    if sample is not None and engine.name not in SAMPLING_ENGINES:
        raise ConfigurationError(
            f"Differential privacy runs with --engine {' or '.join(SAMPLING_ENGINES)}; the "
            f"{engine.name} engine cannot draw its sample yet.")
    histogram = engine.histogram(source, needed,
                                 progress=progress_part(progress, 0.0, _HISTOGRAM_SHARE),
                                 cancel=cancel, **({} if sample is None else {"sample": sample}))
    if check_histogram is not None:
        check_histogram(histogram.frame)
    kept = DataDefinition(a for a in definition if a.name in needed)
    search_progress = progress_part(progress, _HISTOGRAM_SHARE, 1 - _HISTOGRAM_SHARE)
    if sample is not None:
        result = anonymize_safepub(histogram.frame[needed], kept, hierarchies, config,
                                   search_progress, cancel, weights=histogram.counts,
                                   sampled=histogram.sampled, sample=sample)
        return ScaledRun(result, histogram, source, definition, engine, sample)
    result = anonymize(histogram.frame[needed], kept, hierarchies, config,
                       progress=search_progress, cancel=cancel, weights=histogram.counts)
    return ScaledRun(result, histogram, source, definition, engine)


@dataclass(frozen=True)
class FileRun:
    """A file anonymized through a record engine: the run, what was written, and the
    seconds of each step (histogram, search, write)."""

    run: ScaledRun
    written: WriteSummary
    seconds: dict[str, float]
    shuffle_seed: int | None = None  # None: rows in input order


def anonymize_file(data: str | Path, output: str | Path, definition: DataDefinition,
                   hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig,
                   engine: RecordEngine, *, keep_order: bool = False,
                   shuffle_seed: int | None = None, progress: Progress | None = None,
                   cancel: CancelToken | None = None) -> FileRun:
    """Anonymize the CSV or Parquet file ``data`` and write the optimum's output to
    ``output`` (CSV with ``;``, or Parquet for a ``.parquet`` name); the search takes 80 %
    of the progress bar, the write the rest. Rows are shuffled by ``shuffle_seed`` (None:
    a drawn seed, kept in the result) unless ``keep_order``."""
    import time

    from arxpy.params import drawn_seed

    if not keep_order and shuffle_seed is None:
        shuffle_seed = drawn_seed()
    shuffle_seed = None if keep_order else shuffle_seed
    started = time.perf_counter()
    run = anonymize_source(RecordSource.of_file(data), definition, hierarchies, config,
                           engine, progress=progress_part(progress, 0.0, 0.8), cancel=cancel)
    searched = time.perf_counter()
    written = run.write(output, shuffle_seed=shuffle_seed,
                        progress=progress_part(progress, 0.8, 0.2), cancel=cancel)
    return FileRun(run, written, {"histogram": run.histogram.seconds,
                                  "search": searched - started - run.histogram.seconds,
                                  "write": written.seconds}, shuffle_seed)


def output_plan(result: Result, definition: DataDefinition, columns: Sequence[str],
                levels: Sequence[int] | None = None) -> OutputPlan:
    """What an engine needs to write ``levels``' output of a histogram ``result``."""
    levels = _levels_or_optimum(result, levels)
    context = result.context()
    classes, _ = context.grouper.group_records(levels)
    kept = context.kept(classes)
    labels, suppressed = {}, {}
    for j, (qi, level) in enumerate(zip(context.data.quasi_identifiers, levels, strict=True)):
        names = np.asarray(qi.labels[level], dtype=object)
        rows = qi.hierarchy.rows
        labels[qi.name] = pd.DataFrame({
            "value": [r[0] for r in rows],
            "label": names[qi.level_maps[level]],
        })
        suppressed[qi.name] = names[classes.keys[~kept, j]]
    released = [c for c in columns if c not in set(definition.identifying)]
    return OutputPlan(columns=tuple(released), labels=labels,
                      suppressed=pd.DataFrame(suppressed, columns=list(labels)),
                      remove_suppressed=result.config.remove_suppressed,
                      suppressed_value=SUPPRESSED_VALUE, records=classes.n_records,
                      suppressed_records=int(classes.sizes[~kept].sum()))


def _levels_or_optimum(result: Result, levels: Sequence[int] | None) -> tuple[int, ...]:
    if levels is None:
        if result.optimum is None:
            raise ConfigurationError(
                "No transformation satisfies the privacy models within the suppression "
                "limit; there is no output to write.")
        levels = result.optimum.levels
    return tuple(int(v) for v in levels)
