"""One way from a configuration and a transformation to a :class:`~arxpy.release.Release`.

Explore, the Utility and Risk perspectives, ``arxpy risk/evaluate --transformation``,
the study and every export go through :func:`release_of` (via :func:`apply` or
:meth:`Result.release`), so the same transformation means the same table everywhere:
classes failing a privacy model are suppressed as the search suppresses them, and the
release is anonymous only if they fit the suppression limit and every dataset-level
condition holds.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.microaggregation import aggregate_column, aggregated_only
from arxpy.engine.prepare import prepare
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken
from arxpy.lattice.encoding import EncodedData
from arxpy.release import SUPPRESSED_VALUE, Claim, Release, table_sha256
from arxpy.release.claims import SUPPRESSION_LIMIT
from arxpy.search import SearchContext

#: The method name of releases made by full-domain generalization.
GENERALIZATION = "generalization"


def parse_transformation(text: str, quasi_identifiers: Sequence[str]) -> dict[str, int]:
    """``"ATTR=LEVEL,ATTR=LEVEL"`` as levels; quasi-identifiers not named are at level 0."""
    levels = dict.fromkeys(quasi_identifiers, 0)
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.rpartition("=")
        if not sep or not name:
            raise ConfigurationError(
                f"Cannot read '{item}' in the transformation; write ATTR=LEVEL.")
        if name not in levels:
            raise ConfigurationError(
                f"'{name}' in the transformation is not a quasi-identifier; quasi-identifiers: "
                f"{', '.join(quasi_identifiers) or 'none'}.")
        try:
            levels[name] = int(value)
        except ValueError:
            raise ConfigurationError(
                f"Level '{value}' of '{name}' is not a whole number.") from None
    return levels


def level_vector(context: SearchContext, levels: Sequence[int] | Mapping[str, int]
                 ) -> tuple[int, ...]:
    """``levels`` (a vector, or levels by name with unnamed ones at 0) checked against
    the lattice."""
    names = context.lattice.names
    if isinstance(levels, Mapping):
        unknown = [n for n in levels if n not in names]
        if unknown:
            raise ConfigurationError(
                f"'{unknown[0]}' in the transformation is not a quasi-identifier; "
                f"quasi-identifiers: {', '.join(names)}.")
        levels = [int(levels.get(name, 0)) for name in names]
    vector = tuple(int(v) for v in levels)
    if not context.lattice.contains(vector):
        raise ConfigurationError(
            f"Transformation {dict(zip(names, vector, strict=False))} is outside the lattice: "
            f"levels run from {list(context.lattice.bottom)} to {list(context.lattice.top)} "
            f"for {', '.join(names)}.")
    return vector


def claims_of(config: AnonymizationConfig, quasi_identifiers: Sequence[str],
              hierarchies: Mapping[str, Hierarchy] | None = None) -> tuple[Claim, ...]:
    """The privacy models of ``config`` as claims over ``quasi_identifiers``, and the
    suppression limit as a claim of its own (ARX calls a transformation anonymous only
    within it). ``hierarchies`` give the checkers a sensitive attribute's hierarchy."""
    claims = []
    for model in config.privacy_models:
        parameters = model.claim_parameters()
        kind = model.kind
        attribute = parameters.get("attribute")
        evidence = {"hierarchy": hierarchies[attribute]} \
            if hierarchies and attribute in hierarchies else {}
        claims.append(Claim(kind, parameters, tuple(quasi_identifiers), model.describe(),
                            model.guaranteed_class_size, model.marketer_risk_limit,
                            evidence=evidence))
    limit = float(config.suppression_limit)
    claims.append(Claim(SUPPRESSION_LIMIT, {"limit": limit}, (),
                        f"at most {100 * limit:g} % of records suppressed"))
    return tuple(claims)


def _claim_hierarchies(context: SearchContext) -> dict[str, Hierarchy]:
    """Hierarchies of the tracked (sensitive) attributes, for the claim checkers."""
    tracked = getattr(context.data, "tracked", {}) or {}
    return {name: t.hierarchy for name, t in tracked.items()
            if getattr(t, "hierarchy", None) is not None}


def completely_generalized(data: EncodedData, levels: Sequence[int], kept: int) -> int:
    """Kept records with a single value in every quasi-identifier (ARX counts them as
    suppressed too): all kept records when every level has one value, else none."""
    single = all(qi.domain_size(level) == 1
                 for qi, level in zip(data.quasi_identifiers, levels, strict=True))
    return kept if single else 0


def sampled_rows(config: AnonymizationConfig, rows: int) -> np.ndarray | None:
    """The input rows a model sampled (SafePub), or None when every row was searched."""
    for model in config.privacy_models:
        sample = getattr(model, "sample", None)
        if sample is not None and len(sample) == rows:
            return sample
    return None


def run_seed(config: AnonymizationConfig) -> int | None:
    """The seed a model's randomness used in the run (SafePub), if any."""
    return next((m.seed_used for m in config.privacy_models
                 if getattr(m, "seed_used", None) is not None), None)


def release_of(context: SearchContext, frame: pd.DataFrame, definition: DataDefinition,
               config: AnonymizationConfig, levels: tuple[int, ...], *,
               input_sha256: str, elapsed_seconds: float = 0.0,
               cancel: CancelToken | None = None) -> Release:
    """The release of transformation ``levels`` of the table ``context`` encodes
    (``cancel`` looked at between its steps)."""
    check = cancel.raise_if_cancelled if cancel is not None else (lambda: None)
    if context.data.weights is not None:
        # A histogram's rows are not records: its engine writes the release instead.
        raise ConfigurationError(
            "This result was computed from a histogram of the records by a scalable engine; "
            "write its output with that engine (arxpy anonymize --engine ... --output).")
    classes, inverse = context.grouper.group_records(levels)
    check()
    kept = context.kept(classes)
    # SafePub searched a sample: the rows it left out are released suppressed, as ARX.
    sample = sampled_rows(config, len(frame))
    rows = np.arange(len(frame)) if sample is None else np.flatnonzero(sample)
    suppressed = np.ones(len(frame), dtype=bool)
    suppressed[rows] = ~kept[inverse]
    table = frame.drop(columns=definition.identifying).copy(deep=False)
    for qi, level in zip(context.data.quasi_identifiers, levels, strict=True):
        check()
        labels = np.full(len(frame), SUPPRESSED_VALUE, dtype=object)
        labels[rows] = np.asarray(qi.labels[level], dtype=object)[qi.level_maps[level][qi.codes]]
        labels[suppressed] = SUPPRESSED_VALUE
        table[qi.name] = labels
    names = list(context.lattice.names)
    groups = np.full(len(frame), -1, dtype=np.int64)
    groups[rows] = inverse
    groups[suppressed] = -1
    for name, m in config.microaggregation.items():
        check()
        column = aggregate_column(frame[name], definition[name].data_type, groups, m)
        column[suppressed] = SUPPRESSED_VALUE
        table[name] = column
    return Release(
        table=table, suppressed=suppressed, definition=definition, method=GENERALIZATION,
        parameters=config.to_dict(),
        claims=claims_of(config, names, _claim_hierarchies(context)),
        input_sha256=input_sha256, groups=groups,
        # A clustered attribute releases aggregates, not its hierarchy's labels.
        hierarchies={q.name: q.hierarchy for q in context.data.quasi_identifiers
                     if q.name not in config.microaggregation},
        transformation=dict(zip(names, levels, strict=True)),
        elapsed_seconds=elapsed_seconds, remove_suppressed=config.remove_suppressed,
        seed=run_seed(config),
        completely_generalized_records=completely_generalized(
            context.data, levels, int((~suppressed).sum())),
    )


def _without_aggregated(transformation: Sequence[int] | Mapping[str, int],
                        config: AnonymizationConfig) -> Sequence[int] | Mapping[str, int]:
    """Levels by name without the attributes aggregated outside the lattice (level 0 of
    every declared quasi-identifier, as ``--transformation`` reads it, names them too)."""
    if not isinstance(transformation, Mapping):
        return transformation
    aggregated = aggregated_only(config.microaggregation)
    leveled = [name for name in aggregated if transformation.get(name)]
    if leveled:
        raise ConfigurationError(
            f"'{leveled[0]}' is microaggregated, not generalized; leave it out of the "
            "transformation.")
    return {name: level for name, level in transformation.items() if name not in aggregated}


def apply(frame: pd.DataFrame, definition: DataDefinition,
          hierarchies: Mapping[str, Hierarchy], config: AnonymizationConfig,
          transformation: Sequence[int] | Mapping[str, int]) -> Release:
    """The release of one transformation under ``config``, without searching the lattice.

    ``transformation`` is a level per quasi-identifier (in definition order) or levels
    by name (unnamed quasi-identifiers at level 0). Costs one grouping of the records.
    """
    started = time.perf_counter()
    data, config = prepare(frame, definition, hierarchies, config)
    context = SearchContext(data, config.privacy_models, config.quality_model,
                            config.suppression_limit)
    levels = level_vector(context, _without_aggregated(transformation, config))
    release = release_of(context, frame, definition, config, levels,
                         input_sha256=table_sha256(frame))
    return dataclasses.replace(release, elapsed_seconds=time.perf_counter() - started)
