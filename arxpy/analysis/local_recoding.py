"""Utility of a locally recoded release, per pass and combined (ARX has none: #83, #365).

Each pass of local recoding releases some records at its own levels. This table says,
per pass, how many records it searched and released, how many stayed suppressed after
it, its score under its own quality model (on its own records, as ARX's process
statistics), and the granularity of the records it released; then the same for the
global release of the first pass alone and for the combined release.

Granularity is ARX's (``StatisticsQuality.getGranularity().getArithmeticMean()``): from
each record's share of its hierarchy's rows under its released value (1 if suppressed),
averaged per attribute, then over attributes, normalized by the smallest share 1/d the
same way (:func:`granularity`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from arxpy.analysis import statistics
from arxpy.errors import ConfigurationError
from arxpy.release import Release

COLUMNS = ["transformation", "records", "released", "suppressed after", "score",
           "granularity"]
#: Row labels besides the passes' numbers.
GLOBAL, COMBINED = "global (first pass only)", "combined"


def record_shares(frame: pd.DataFrame, release: Release) -> tuple[np.ndarray, np.ndarray]:
    """(records, quasi-identifiers) share of the hierarchy's rows under each record's
    released value (1 if suppressed), and each quasi-identifier's smallest share 1/d."""
    passes = release.passes
    if passes is None or release.transformation is None:
        raise ConfigurationError("This release was not locally recoded; it has one "
                                 "transformation for every record.")
    levels = passes.levels_of_records()
    columns, smallest = [], []
    for j, name in enumerate(release.transformation):
        codes, uniques = pd.factorize(frame[name].astype(str), sort=False)
        hierarchy = release.hierarchies[name]
        columns.append(statistics.record_shares(codes, np.asarray(uniques, dtype=object),
                                                hierarchy, levels[:, j]))
        smallest.append(1.0 / len(hierarchy.rows))
    shares = np.column_stack(columns) if columns else np.zeros((len(frame), 0))
    return shares, np.asarray(smallest)


def pass_figures(frame: pd.DataFrame, release: Release) -> pd.DataFrame:
    """One row per pass, then the first pass's global release and the combined release
    (columns :data:`COLUMNS`; ``frame`` is the release's input)."""
    passes = release.passes
    shares, smallest = record_shares(frame, release)
    of_record = passes.of_record
    released = passes.released_per_pass()
    names = list(release.transformation)
    rows, index = [], []
    for step in passes.passes:
        mine = of_record == step.index
        later = int(np.count_nonzero(of_record > step.index) + np.count_nonzero(of_record < 0))
        rows.append([", ".join(f"{q}={v}" for q, v in zip(names, step.levels, strict=True)),
                     step.records, int(released[step.index]), later, step.score,
                     granularity(shares[mine], smallest)])
        index.append(step.index)
    first = np.where((of_record == 0)[:, None], shares, 1.0)
    suppressed = int(np.count_nonzero(of_record < 0))
    rows.append(["", len(of_record), int(released[0]), len(of_record) - int(released[0]),
                 passes.passes[0].score, granularity(first, smallest)])
    rows.append(["", len(of_record), len(of_record) - suppressed, suppressed, math.nan,
                 granularity(shares, smallest)])
    index += [GLOBAL, COMBINED]
    return pd.DataFrame(rows, columns=COLUMNS, index=pd.Index(index, name="pass"))


def granularity(shares: np.ndarray, smallest: np.ndarray) -> float:
    """ARX's granularity of records with these shares (rows: records, columns:
    quasi-identifiers): ``1 - (mean(m) - mean(1/d)) / (1 - mean(1/d))`` with ``m`` each
    attribute's mean share (``QualityMeasureColumnOriented.getArithmeticMean``, which
    aggregates before normalizing); NaN without records."""
    if not shares.size:
        return math.nan
    low = float(smallest.mean())
    if low >= 1.0:
        return 1.0
    loss = (float(np.nanmean(shares, axis=0).mean()) - low) / (1.0 - low)
    return 1.0 - min(max(loss, 0.0), 1.0)
