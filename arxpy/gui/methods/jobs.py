"""The method result views' background work, as plain jobs (no Qt) run by JobWorker.

They join a finished run's method (arxpy.methods) to the analyses of its release
(arxpy.analysis), which the two sibling layers cannot do themselves. Each takes
``progress`` and ``cancel`` keyword arguments like every engine job, so tests call
them directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from arxpy.analysis.condensation_report import (
    Anonymizer,
    input_order,
    preservation_by_method,
    released_mask,
)
from arxpy.analysis.interval_report import SWEEP_STATISTICS, statistics_table, width_sweep
from arxpy.analysis.model_preservation import (
    ModelPreservation,
    ModelSpec,
    analysed_covariates,
)
from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.base import Method
from arxpy.methods.interval_boxes import IntervalGeneralisation, numeric_columns
from arxpy.methods.registry import method_classes

#: The condensation family, in the order the compare mode lists them.
CONDENSATION_METHODS = ("improved-condensation", "condensation", "tfrp", "mdav")
#: What the compare mode offers: the family and the paper's k-anonymity baseline.
COMPARED_METHODS = (*CONDENSATION_METHODS, "k-anonymity-baseline")


def sibling_method(method: Method, name: str, analyses: Sequence[ModelSpec],
                   columns: Sequence[str] = ()) -> Method:
    """Method ``name`` with ``method``'s shared settings (k, generator, kinds ...).

    Improved condensation needs a survival time: it comes from ``method`` when that is
    improved condensation too, else from the first declared Cox analysis (spec §6: the
    declarations set the defaults). The k-anonymity baseline generalizes the declared
    analyses' covariates (the outcomes stay as they are), as ``compare-models`` does.
    """
    cls = method_classes()[name]
    own = method.get_params()
    names = {p.name for p in cls.params}
    params = {key: value for key, value in own.items() if key in names}
    if "time" in names and not params.get("time"):
        cox = next((a for a in analyses if a.type == "cox"), None)
        if cox is None:
            raise ConfigurationError(
                "Improved condensation needs a survival time: declare a Cox analysis, "
                "or leave improved condensation out of the comparison.")
        params.update(time=cox.time, status=cox.event, event_value=cox.event_value)
    if "quasi_identifiers" in names and not params.get("quasi_identifiers"):
        order = list(columns) or list(dict.fromkeys(c for a in analyses for c in a.covariates))
        params["quasi_identifiers"] = analysed_covariates(analyses, order)
    return cls(**params)


def anonymizer(method: Method, data: pd.DataFrame, definition: DataDefinition,
               cancel: CancelToken | None) -> Anonymizer:
    """seed -> the released rows of ``method`` run with that seed, in input order
    (suppressed records are not released, so the recipient's models never see them).
    A method without a seed is deterministic: it runs once and its table stands for
    every repetition (the same object, so the models are fitted once)."""
    params = method.get_params()
    seeded = "seed" in params
    tables: list[pd.DataFrame] = []

    def run(seed: int) -> pd.DataFrame:
        if tables and not seeded:
            return tables[0]
        settings = {**params, "seed": seed} if seeded else params
        release = type(method)(**settings).run(data, definition, cancel=cancel)
        tables[:] = [input_order(release).loc[released_mask(release)].reset_index(drop=True)]
        return tables[0]

    return run


def model_preservation_job(method: Method, data: pd.DataFrame, definition: DataDefinition,
                           analyses: Sequence[ModelSpec], repeats: int, seed: int,
                           compare_with: Sequence[str] = (), alpha: float = 0.05, *,
                           ks: Sequence[int] = (), label: str | None = None,
                           progress: Progress | None = None,
                           cancel: CancelToken | None = None) -> dict[str, ModelPreservation]:
    """The run's method (and the methods in ``compare_with``) at the run's k or at each
    of ``ks``, repeated ``repeats`` times with seeds seed..seed+R-1, the analyses
    compared on each (the compare mode of spec §6)."""
    methods = {label or method.label: method}
    for name in compare_with:
        if name != method.name:
            sibling = sibling_method(method, name, analyses, list(data.columns))
            methods[sibling.label] = sibling
    ks = list(dict.fromkeys(ks)) or [method.k]
    for k in ks:
        if not 1 <= k <= len(data):
            raise ConfigurationError(f"k = {k} is not between 1 and the {len(data)} records.")
    variants = {}
    for name, m in methods.items():
        for k in ks:
            at_k = type(m)(**{**m.get_params(), "k": k})
            key = name if ks == [method.k] else f"{name}, k={k}"
            variants[key] = anonymizer(at_k, data, definition, cancel)
    return preservation_by_method(data, variants, analyses, repeats, seed, alpha,
                                  progress=progress, cancel=cancel)


def k_sweep_job(method: IntervalGeneralisation, data: pd.DataFrame, ks: Sequence[int],
                statistics: Sequence[str] = SWEEP_STATISTICS, ddof: int = 0, *,
                extra: Sequence[str] = (), progress: Progress | None = None,
                cancel: CancelToken | None = None) -> pd.DataFrame:
    """Widths of ``statistics`` per attribute, of a covariance or correlation the boxes
    target and of the ``extra`` statistics (width limits) for the boxes of every k."""
    params = method.get_params()
    top = len(data)
    usable = [k for k in ks if 2 <= k <= top]
    if not usable:
        raise ConfigurationError(f"Choose k between 2 and the {top} records for the sweep.")

    def boxes_for_k(k: int) -> tuple[np.ndarray, np.ndarray]:
        boxes = type(method)(**{**params, "k": k}).boxes(data, cancel=cancel)
        return boxes.record_lo(), boxes.record_hi()

    return width_sweep(boxes_for_k, list(method.attributes), usable, statistics, ddof,
                       extra=list(dict.fromkeys([*target_pairs(method), *extra])),
                       progress=progress, cancel=cancel)


def target_pairs(method: IntervalGeneralisation) -> list[str]:
    """The two-attribute statistic the boxes were shaped for, if any (``cov:A,B``)."""
    target = method.target
    kinds = {"covariance": "cov", "correlation": "corr"}
    if target.kind in kinds and len(target.attributes) == 2:
        return [f"{kinds[target.kind]}:{','.join(target.attributes)}"]
    return []


def original_values(method: IntervalGeneralisation, data: pd.DataFrame
                    ) -> dict[str, np.ndarray]:
    """The true values of the boxed attributes (for the data holder's view only)."""
    values = numeric_columns(data, method.attributes)
    return {a: values[:, i] for i, a in enumerate(method.attributes)}


def statistics_job(bounds: Mapping[str, Any], statistics: str,
                   original: Mapping[str, np.ndarray] | None, ddof: int = 0, *,
                   progress: Progress | None = None, cancel: CancelToken | None = None
                   ) -> pd.DataFrame:
    """The interval-statistics table (a job: exact enumerations can take a while)."""
    if progress is not None:
        progress(0.0, "Computing interval statistics")
    return statistics_table(bounds, statistics, original, ddof, cancel=cancel)
