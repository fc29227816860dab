"""Information loss measured the same way for a release of any method (Compare's rows).

Each figure compares the release with the input it was made from, without anything a
method keeps of its own:

- **entropy loss**: ARX's non-uniform entropy per declared quasi-identifier
  (:func:`~arxpy.analysis.statistics.entropy_loss`, 0 = unchanged, 1 = everything
  suppressed), averaged. It needs each record's released row (:meth:`Release.recode`),
  so it does not apply to synthetic rows.
- **error of means / of standard deviations**: per numeric attribute (integer or
  decimal data type, not identifying), ``|released - original| / |original|`` of the
  published values (interval midpoints for generalized or boxed values), averaged. An
  attribute whose published values carry no number at all (generalized to ``*``,
  masked) or that the release leaves out counts as an error of 1: its statistics are
  lost, not exact. A quasi-identifier left out likewise counts as entropy loss 1.
- **change of correlations**: the mean absolute change of the pairwise Pearson
  correlations between numeric attributes.

A figure that does not apply is a sentence saying why (starting ``"not applicable"``).
:func:`attribute_losses` gives the same measures per attribute (Compare's loss bars).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from arxpy.analysis.generalized import read_numeric
from arxpy.analysis.statistics import entropy_loss
from arxpy.data.definition import DataDefinition, DataKind
from arxpy.errors import ConfigurationError
from arxpy.release import Release

ENTROPY = "information loss (entropy, mean over quasi-identifiers)"
MEANS = "error of means (numeric attributes)"
DEVIATIONS = "error of standard deviations"
CORRELATIONS = "change of correlations"
ROWS = (ENTROPY, MEANS, DEVIATIONS, CORRELATIONS)
SYNTHETIC = "not applicable: synthetic rows stand for no record"
NO_ROWS = "not applicable: the release publishes no records with attributes"
#: The error of a statistic whose attribute publishes no number at all.
LOST = 1.0
#: Columns of :func:`attribute_losses`.
ENTROPY_LOSS, MEAN_ERROR, DEVIATION_ERROR = ("entropy loss", "error of mean",
                                             "error of standard deviation")


def utility_figures(original: pd.DataFrame, release: Release,
                    definition: DataDefinition | None = None) -> dict[str, object]:
    """The rows of :data:`ROWS` for ``release`` of ``original`` (its input), over the
    attributes ``definition`` declares (default: the release's own definition, which a
    method that leaves attributes out may have narrowed)."""
    if release.input_rows() is None:
        return dict.fromkeys(ROWS, NO_ROWS)
    definition = definition or release.definition
    published = release.released()
    numeric = numeric_attributes(original, release, definition)
    return {ENTROPY: _entropy(original, release, definition),
            **_moments(original, published, numeric),
            CORRELATIONS: _correlations(original, published, numeric)}


def attribute_losses(original: pd.DataFrame, release: Release,
                     definition: DataDefinition | None = None) -> pd.DataFrame | str:
    """Per attribute (rows), the measures of :data:`ROWS` before averaging: entropy loss
    of each quasi-identifier, error of mean and of standard deviation of each numeric
    attribute (NaN where a measure does not apply to an attribute). ``attrs["why"]``
    says why a whole column does not apply; a sentence instead of a table when nothing
    does. ``definition`` as for :func:`utility_figures`."""
    if release.input_rows() is None:
        return NO_ROWS
    definition = definition or release.definition
    numeric = numeric_attributes(original, release, definition)
    entropies = _entropies(original, release, definition)
    moments = _attribute_moments(original, release.released(), numeric)
    names = list(dict.fromkeys([*(entropies if isinstance(entropies, dict) else []),
                                *numeric]))
    if not names:
        return "not applicable: no quasi-identifier or numeric attribute is released"
    table = pd.DataFrame(
        {ENTROPY_LOSS: [entropies.get(n, math.nan) if isinstance(entropies, dict)
                        else math.nan for n in names],
         MEAN_ERROR: [moments.get(n, (math.nan, math.nan))[0] for n in names],
         DEVIATION_ERROR: [moments.get(n, (math.nan, math.nan))[1] for n in names]},
        index=pd.Index(names, name="attribute"))
    table.attrs["why"] = {ENTROPY_LOSS: entropies} if isinstance(entropies, str) else {}
    return table


def numeric_attributes(original: pd.DataFrame, release: Release,
                       definition: DataDefinition | None = None) -> list[str]:
    """Integer and decimal attributes of the input that are not identifying (a release
    that leaves one out has lost its statistics)."""
    kinds = (DataKind.INTEGER, DataKind.DECIMAL)
    definition = definition or release.definition
    identifying = set(definition.identifying)
    return [a.name for a in definition
            if a.data_type.kind in kinds and a.name in original.columns
            and a.name not in identifying]


def _entropy(original: pd.DataFrame, release: Release, definition: DataDefinition) -> object:
    losses = _entropies(original, release, definition)
    return losses if isinstance(losses, str) else float(np.mean(list(losses.values())))


def _entropies(original: pd.DataFrame, release: Release,
               definition: DataDefinition) -> dict[str, float] | str:
    """Entropy loss per declared quasi-identifier (1 for one the release leaves out),
    or why it does not apply."""
    if release.synthetic:
        return SYNTHETIC
    qis = [q for q in definition.quasi_identifiers if q in original.columns]
    if not any(q in release.table.columns for q in qis):
        return "not applicable: no declared quasi-identifier is released"
    try:
        aligned = release.recode(original)
    except ConfigurationError as exc:
        return f"not applicable: {exc}"
    rows = release.input_rows()
    suppressed = np.zeros(len(rows), dtype=bool)
    suppressed[rows] = np.asarray(release.suppressed, dtype=bool)
    return {q: float(entropy_loss(original[q], aligned[q], suppressed))
            if q in aligned.columns else LOST for q in qis}


def _published_numbers(published: pd.DataFrame, name: str) -> np.ndarray:
    """The numbers published of ``name``; none (all NaN) if the release leaves it out."""
    if name not in published.columns:
        return np.full(len(published), np.nan)
    return _numbers(published[name])


def _numbers(values: pd.Series) -> np.ndarray:
    reading = read_numeric(values.astype(str))
    return np.where(reading.numeric, reading.midpoint, np.nan)


def _moments(original: pd.DataFrame, published: pd.DataFrame,
             numeric: list[str]) -> dict[str, object]:
    if not numeric:
        return dict.fromkeys((MEANS, DEVIATIONS), "not applicable: no numeric attribute")
    errors = _attribute_moments(original, published, numeric).values()
    return {MEANS: _mean([m for m, _ in errors]), DEVIATIONS: _mean([d for _, d in errors])}


def _attribute_moments(original: pd.DataFrame, published: pd.DataFrame,
                       numeric: list[str]) -> dict[str, tuple[float, float]]:
    """Per numeric attribute, the relative errors of its mean and standard deviation."""
    errors = {}
    for name in numeric:
        before = pd.to_numeric(original[name], errors="coerce").to_numpy(dtype=float)
        after = _published_numbers(published, name)
        if len(after) and not np.isfinite(after).any():  # every number generalized away
            errors[name] = (LOST, LOST)
            continue
        errors[name] = (_relative(np.nanmean(before), _nanmean(after)),
                        _relative(np.nanstd(before, ddof=1), _nanstd(after)))
    return errors


def _correlations(original: pd.DataFrame, published: pd.DataFrame,
                  numeric: list[str]) -> object:
    if len(numeric) < 2:
        return "not applicable: fewer than two numeric attributes"
    before = pd.DataFrame({n: pd.to_numeric(original[n], errors="coerce") for n in numeric})
    after = pd.DataFrame({n: _published_numbers(published, n) for n in numeric})
    r_before, r_after = before.corr(), after.corr()
    # A pair whose published numbers are gone has lost its correlation entirely.
    changes = [abs(r_before.loc[a, b]) if after[a].isna().all() or after[b].isna().all()
               else abs(r_after.loc[a, b] - r_before.loc[a, b])
               for a, b in itertools.combinations(numeric, 2)]
    return _mean(changes)


def _relative(before: float, after: float) -> float:
    if math.isnan(before) or math.isnan(after):
        return math.nan
    return abs(after - before) / abs(before) if before else abs(after - before)


def _nanmean(values: np.ndarray) -> float:
    return float(np.nanmean(values)) if np.isfinite(values).any() else math.nan


def _nanstd(values: np.ndarray) -> float:
    return float(np.nanstd(values, ddof=1)) if np.isfinite(values).sum() > 1 else math.nan


def _mean(values: list[float]) -> object:
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return "not applicable: nothing numeric is published"
    return float(np.mean(finite))
