"""The interval views' background work, as plain jobs (no Qt) run by JobWorker.

They join a finished run's method (arxpy.methods) to the analyses of its release
(arxpy.analysis), which the two sibling layers cannot do themselves. Each takes
``progress`` and ``cancel`` keyword arguments like every engine job, so tests call
them directly. The condensation compare mode's job is a workflow shared with
``arxpy compare-models`` (:mod:`arxpy.workflows.model_preservation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from arxpy.analysis.interval_report import SWEEP_STATISTICS, statistics_table, width_sweep
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.interval_boxes import IntervalGeneralisation, numeric_columns


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
