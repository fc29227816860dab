"""What the condensation result views show, computed without Qt (Gal et al. 2014, §2.0).

A condensation release's rows are shuffled; :func:`input_order` puts each synthetic row
back in the slot of the input record it was generated for, which the position-paired
comparisons (basic statistics, conditional privacy) need. :func:`survival_comparison`
gives both Kaplan-Meier curves and their largest gap, and
:func:`preservation_by_method` runs a method R times and compares the recipient's
declared models on every repetition (the GUI's model-preservation job).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.analysis.model_preservation import ModelPreservation, ModelSpec, compare_models
from arxpy.analysis.release_fidelity import (
    basic_statistics,
    conditional_privacy_table,
    kaplan_meier,
    kaplan_meier_difference,
)
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress, ThrottledProgress
from arxpy.release import Release

#: One repetition of a method: seed -> its release's table in input order.
Anonymizer = Callable[[int], pd.DataFrame]


def input_order(release: Release) -> pd.DataFrame:
    """The release's rows in the input order of the records they were generated for.

    Condensation releases say in ``order`` which input slot each output row filled;
    releases without it are already in input order.
    """
    order = getattr(release, "order", None)
    table = release.table
    if order is None:
        return table.reset_index(drop=True)
    return table.iloc[np.argsort(order, kind="stable")].reset_index(drop=True)


def released_mask(release: Release) -> np.ndarray:
    """True for the input records whose synthetic row is released (not suppressed)."""
    order = getattr(release, "order", None)
    suppressed = np.asarray(release.suppressed, dtype=bool)
    if order is not None:
        suppressed = suppressed[np.argsort(order, kind="stable")]
    return ~suppressed


@dataclass(frozen=True)
class SurvivalComparison:
    """Kaplan-Meier curves (tables of :func:`kaplan_meier`) before and after."""

    original: pd.DataFrame
    anonymized: pd.DataFrame
    #: Largest absolute difference between the two step functions over all times.
    max_difference: float
    #: Released records that entered the anonymized curve (suppressed ones do not).
    anonymized_records: int


def survival_comparison(original: pd.DataFrame, anonymized: pd.DataFrame, time: str,
                        event: str, event_value: str) -> SurvivalComparison:
    """Both survival curves of ``time`` with events ``event == event_value``.

    Suppressed rows (``*``) of the anonymized table are left out of its curve.
    """
    for name in (time, event):
        if name not in original.columns or name not in anonymized.columns:
            raise ConfigurationError(f"No attribute '{name}' for the survival curves.")
    kept = anonymized.loc[anonymized[time].astype(str) != "*"]
    times = []
    for label, table in (("original", original), ("anonymized", kept)):
        values = pd.to_numeric(table[time], errors="coerce")
        if values.isna().any():
            raise ConfigurationError(
                f"Survival time '{time}' must be numeric in the {label} data; choose a "
                "numeric time attribute.")
        times.append(values.to_numpy(np.float64))
    events = [t[event].astype(str).to_numpy() == str(event_value) for t in (original, kept)]
    return SurvivalComparison(
        kaplan_meier(times[0], events[0]), kaplan_meier(times[1], events[1]),
        kaplan_meier_difference(original, kept, time, event, str(event_value)), len(kept))


def released_statistics(original: pd.DataFrame, release: Release,
                        columns: Sequence[str] | None = None
                        ) -> tuple[pd.DataFrame, dict[str, float]]:
    """Basic statistics (original vs anonymized, Δ%) and conditional privacy Π(A|B) of the
    release's columns, over the records that are released (suppressed ones left out of
    both sides, so that a ``*`` never reads as a category)."""
    anonymized = input_order(release)
    kept = released_mask(release)
    names = [c for c in (columns or anonymized.columns) if c in original.columns]
    before = original[names].reset_index(drop=True).loc[kept].reset_index(drop=True)
    after = anonymized[names].loc[kept].reset_index(drop=True)
    return basic_statistics(before, after), conditional_privacy_table(before, after)


def preservation_by_method(original: pd.DataFrame, variants: Mapping[str, Anonymizer],
                           analyses: Sequence[ModelSpec], repeats: int, seed: int,
                           alpha: float = 0.05, *, progress: Progress | None = None,
                           cancel: CancelToken | None = None
                           ) -> dict[str, ModelPreservation]:
    """Each variant (label -> anonymizer) run ``repeats`` times with seeds seed..seed+R-1
    and the declared analyses compared on every repetition (a job).

    Raises ConfigurationError before any anonymization when an analysis cannot be fitted
    on the original data.
    """
    if repeats < 1:
        raise ConfigurationError("Repetitions must be at least 1.")
    if not analyses:
        raise ConfigurationError("Declare at least one analysis to compare.")
    if not variants:
        raise ConfigurationError("Choose at least one method to compare.")
    report = ThrottledProgress(progress)
    out: dict[str, ModelPreservation] = {}
    share = 1.0 / len(variants)
    for v, (label, anonymize) in enumerate(variants.items()):
        start = v * share

        def fitted(fraction: float, message: str, start: float = start) -> None:
            report(start + share * (0.5 + 0.5 * fraction), message)

        tables = _repetitions(label, anonymize, repeats, seed, start, share, report, cancel)
        out[label] = compare_models(original, tables, analyses, alpha, progress=fitted,
                                    cancel=cancel)
    report(1.0, "Done")
    return out


def _repetitions(label: str, anonymize: Anonymizer, repeats: int, seed: int, start: float,
                 share: float, report: ThrottledProgress, cancel: CancelToken | None
                 ) -> Iterator[pd.DataFrame]:
    """Lazily: compare_models fits the original first and fails fast on a bad analysis."""
    for r in range(repeats):
        if cancel is not None:
            cancel.raise_if_cancelled()
        report(start + share * 0.5 * r / repeats, f"{label}: repetition {r + 1} of {repeats}")
        yield anonymize(seed + r)


def metric_summary(results: Mapping[str, ModelPreservation]) -> pd.DataFrame:
    """Long table: method, model, metric, mean, sd, fit_failures, repetitions."""
    rows = []
    for label, preservation in results.items():
        summary = preservation.summary()
        for model, row in summary.iterrows():
            for metric in ("pct_sig_changed", "pct_dir_changed", "pct_outside_ci"):
                rows.append((label, model, metric, row[f"{metric}_mean"], row[f"{metric}_sd"],
                             int(row["fit_failures"]), int(row["repetitions"])))
    return pd.DataFrame(rows, columns=["method", "model", "metric", "mean", "sd",
                                       "fit_failures", "repetitions"])
