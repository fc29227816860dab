"""Compare candidates of any runs on one input, with an optional classifier target (no Qt).

The GUI's Compare calls this; it is :func:`arxpy.analysis.compare.compare_releases` with
the input table (information loss across methods) and, when a target is chosen, seed
004's classifier accuracy on it (the target binned at ``bins`` if numeric).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from arxpy.analysis.classification import ClassificationConfig, ClassificationTask, bin_values
from arxpy.analysis.compare import compare_releases
from arxpy.data.definition import DataDefinition
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken
from arxpy.release import Release


def compare_candidates(releases: Mapping[str, Release], original: pd.DataFrame,
                       definition: DataDefinition, hierarchies: Mapping[str, Hierarchy],
                       target: str | None = None, bins: Sequence[float] | None = None, *,
                       cancel: CancelToken | None = None) -> pd.DataFrame:
    """The comparison table of ``releases`` of ``original`` (see compare_releases)."""
    task = None
    if target:
        table = original.copy()
        if bins:
            table[target] = bin_values(original[target], bins)
        task = ClassificationTask(table, definition, hierarchies, ClassificationConfig(target))
    return compare_releases(releases, original, task, bins or None, cancel=cancel)
