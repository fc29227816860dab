"""Cell suppression (sdcMicro's ``localSuppression``): single quasi-identifier cells are
released as ``*`` instead of whole records, until every record is compatible with at
least k records.

A suppressed cell matches any value (sdcMicro's convention, ``freqCalc`` with
alpha = 1): a record's frequency fk counts the records equal to it wherever both show a
value, itself included. The greedy follows sdcMicro's ``suppSubset`` (Templ, Kowarik &
Meindl 2015, §3.5): while some record has fk < k, each such record gets one more ``*``,
in the least important attribute in which it differs from its nearest records (those
differing in the fewest shown values). Unlike sdcMicro, which updates the table after
every record, one sweep decides for all of its records on the table as the sweep found
it, and records with equal values decide together (they are counted once, weighted).
See docs/cell-suppression.md for the cost and measured times.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from arxpy.arrays import first_appearances
from arxpy.data.codes import group_codes
from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.base import Method
from arxpy.methods.registry import register_method
from arxpy.params import Param
from arxpy.release import Claim, ClaimCheck, Release, register_claim_checker, table_sha256
from arxpy.release.claims import ROUNDING
from arxpy.release.wildcards import (
    SUPPRESSED_CELL,
    WILDCARD,
    compatible_counts,
    compatible_records,
    wildcard_codes,
)

#: The claim kinds this method makes (checked by :func:`check_cell_k_anonymity` and
#: :func:`check_cell_average_risk`).
CELL_K_ANONYMITY = "cell-k-anonymity"
CELL_AVERAGE_RISK = "cell-average-risk"
#: The share of the progress bar the k pass takes when an average risk follows it.
K_SHARE = 0.8

#: Cells (problem patterns x patterns x attributes) compared at once: bounds memory to
#: about 20 MB and the time between two looks at the cancel token.
CHUNK_CELLS = 20_000_000


@register_method
class CellSuppression(Method):
    """Suppress single quasi-identifier cells until the table is k-anonymous."""

    name = "cell-suppression"
    label = "Cell suppression (local suppression)"
    description = ("Releases single quasi-identifier cells as * (matching any value) until "
                   "every record is compatible with at least k records.")
    guidance = ("Choose it when whole records must stay and only a few values may go: it "
                "keeps every record and every unsuppressed value exact. Order the "
                "quasi-identifiers by importance; the least important lose cells first.")
    reference = ("Templ, Kowarik & Meindl (2015), Statistical Disclosure Control for "
                 "Micro-Data Using the R Package sdcMicro, J. Stat. Softw. 67(4), §3.5")
    params = (
        Param("k", "int", None, low=2, label="k", suggested=5,
              help="every record must be compatible with at least k records, itself "
                   "included (a * matches any value)"),
        Param("average_risk", "float", None, optional=True, low=0.0, low_open=True, high=1.0,
              label="average risk",
              help="largest average re-identification risk, the mean of 1/fk over the "
                   "records (a * matching any value); k is raised until it holds"),
        Param("importance", "attributes", None, optional=True, ordered=True,
              label="importance order",
              help="quasi-identifiers from most to least important; cells of the least "
                   "important are suppressed first (default: fewest distinct values "
                   "first, as sdcMicro; unlisted ones follow in that order)",
              step="sdcMicro importance vector"),
    )

    k: int
    average_risk: float | None
    importance: tuple[str, ...] | None

    def run(self, data: pd.DataFrame, definition: DataDefinition, *,
            hierarchies: Mapping[str, Hierarchy] | None = None,
            progress: Progress | None = None, cancel: CancelToken | None = None) -> Release:
        started = time.perf_counter()
        report = progress or (lambda fraction, message: None)
        definition.check_columns(data.columns)
        qis = [q for q in definition.quasi_identifiers if q in data.columns]
        if not qis:
            raise ConfigurationError(f"{self.owner_name()}: declare at least one "
                                     "quasi-identifier (Configure).")
        self._check_reachable(len(data))
        order = self.least_important_first(data, qis)
        report(0.0, "Suppressing cells")
        codes = self._suppress(wildcard_codes(data, qis, SUPPRESSED_CELL),
                               [qis.index(a) for a in order], report, cancel)
        table = data.drop(columns=definition.identifying)
        for j, name in enumerate(qis):
            column = table[name].astype(object).to_numpy(copy=True)
            column[codes[:, j] == WILDCARD] = SUPPRESSED_CELL
            table[name] = pd.Series(column, index=table.index, dtype=object)
        release = Release(
            table=table, suppressed=np.zeros(len(data), dtype=bool), definition=definition,
            method=self.name, parameters=self.get_params(), claims=self._claims(qis),
            input_sha256=table_sha256(data, cancel), wildcard_cells=True,
            elapsed_seconds=time.perf_counter() - started)
        if cancel is not None:  # cancelled meanwhile: nothing is returned
            cancel.raise_if_cancelled()
        report(1.0, "Done")
        return release

    def _check_reachable(self, records: int) -> None:
        if records < self.k:
            raise ConfigurationError(f"{self.owner_name()}: k = {self.k} exceeds the "
                                     f"{records:,} records; choose k of at most {records:,}.")
        if self.average_risk is not None and self.average_risk * records < 1:
            raise ConfigurationError(
                f"{self.owner_name()}: an average risk of {self.average_risk:g} is below "
                f"1/{records:,}, the least any release of {records:,} records has; choose "
                f"at least {1 / records:.2g}.")

    def _suppress(self, codes: np.ndarray, least_first: Sequence[int], report: Progress,
                  cancel: CancelToken | None) -> np.ndarray:
        """k first; then, for an average risk, k raised one at a time until it holds
        (fk >= k for every record bounds the mean of 1/fk by 1/k, so it ends by
        k = ceil(1/threshold))."""
        if self.average_risk is None:
            return suppress_cells(codes, self.k, least_first, report, cancel)
        codes = suppress_cells(codes, self.k, least_first,
                               lambda f, m: report(K_SHARE * f, m), cancel)
        k, last = self.k, max(math.ceil(1 / self.average_risk), self.k + 1)
        while average_risk_of(codes, cancel) > self.average_risk * (1 + 1e-12):
            k += 1
            report(K_SHARE + (1 - K_SHARE) * 0.95 * (k - self.k) / (last - self.k),
                   f"Average risk above {self.average_risk:g}: raising k to {k}")
            codes = suppress_cells(codes, k, least_first, lambda f, m: None, cancel)
        return codes

    def least_important_first(self, data: pd.DataFrame, qis: Sequence[str]) -> list[str]:
        """The quasi-identifiers from least to most important: the listed order, then
        the rest by distinct values (more values, less important: sdcMicro's default)."""
        listed = list(self.importance or ())
        foreign = [a for a in listed if a not in qis]
        if foreign:
            raise ConfigurationError(
                f"{self.owner_name()}: the importance order names '{foreign[0]}', which is "
                "not a quasi-identifier of this table; list quasi-identifiers only.")
        rest = sorted((a for a in qis if a not in listed), key=lambda a: data[a].nunique())
        return list(reversed(listed + rest))

    def _claims(self, qis: Sequence[str]) -> tuple[Claim, ...]:
        claims = [Claim(CELL_K_ANONYMITY, {"k": self.k}, tuple(qis),
                        f"{self.k}-anonymity with suppressed cells: every record is "
                        f"compatible with at least {self.k} records, a * matching any value",
                        min_class_size=self.k)]
        if self.average_risk is not None:
            claims.append(Claim(
                CELL_AVERAGE_RISK, {"threshold": self.average_risk}, tuple(qis),
                f"average re-identification risk at most {self.average_risk:g}: the mean "
                "of 1/fk over the records, a * matching any value",
                max_marketer_risk=self.average_risk))
        return tuple(claims)


def average_risk_of(codes: np.ndarray, cancel: CancelToken | None = None) -> float:
    """The mean of 1/fk over the records of ``codes`` (WILDCARD matching any value)."""
    groups, count = _patterns_of(codes)
    weights = np.bincount(groups, minlength=count).astype(float)
    fk = compatible_counts(codes[first_appearances(groups)], weights, cancel)
    return float(np.sum(weights / fk) / weights.sum())


def suppress_cells(codes: np.ndarray, k: int, least_first: Sequence[int],
                   report: Progress, cancel: CancelToken | None = None) -> np.ndarray:
    """``codes`` (records x attributes) with cells set to WILDCARD until every record is
    compatible with at least ``k`` records; ``least_first`` orders the columns from
    least to most important. Needs at least k records; ends within one sweep per column
    (each sweep gives every record still below k one more wildcard)."""
    groups, count = _patterns_of(codes)  # equal records decide together
    patterns = codes[first_appearances(groups)]
    weights = np.bincount(groups, minlength=count).astype(float)
    first_problems = None
    while True:
        fk = compatible_counts(patterns, weights, cancel)
        problems = np.flatnonzero(fk < k)
        if not problems.size:
            return patterns[groups]
        # fk only grows as cells are suppressed, so the records below k only get fewer.
        first_problems = first_problems or int(weights[problems].sum())
        left = int(weights[problems].sum())
        report(0.95 * (1 - left / first_problems), f"{left:,} records below k")
        columns = _columns_to_suppress(patterns, problems, least_first, cancel)
        patterns = patterns.copy()
        patterns[problems, columns] = WILDCARD
        merged, count = _patterns_of(patterns)
        weights = np.bincount(merged, weights, minlength=count)
        patterns = patterns[first_appearances(merged)]
        groups = merged[groups]


def _patterns_of(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Each row's distinct pattern and their count (codes shifted: combining needs
    codes >= 0, and WILDCARD is -1)."""
    return group_codes(list((codes - WILDCARD).T))


def _columns_to_suppress(patterns: np.ndarray, problems: np.ndarray,
                         least_first: Sequence[int], cancel: CancelToken | None
                         ) -> np.ndarray:
    """Per problem pattern, the column to suppress: the least important one in which it
    differs from one of its nearest patterns (fewest differing shown values, > 0), as
    sdcMicro's ``cpp_calcSuppInds`` and the loop over columns after it."""
    shown = patterns != WILDCARD
    out = np.empty(problems.size, dtype=np.int64)
    chunk = max(1, CHUNK_CELLS // patterns.size)
    for start in range(0, problems.size, chunk):
        if cancel is not None:
            cancel.raise_if_cancelled()
        rows = problems[start:start + chunk]
        differs = [(patterns[rows, j, None] != patterns[None, :, j])
                   & shown[rows, j, None] & shown[None, :, j]
                   for j in range(patterns.shape[1])]
        distance = np.sum(differs, axis=0, dtype=np.int16)
        nearest_distance = np.where(distance > 0, distance, np.iinfo(np.int16).max).min(axis=1)
        nearest = distance == nearest_distance[:, None]
        chosen = np.full(rows.size, -1, dtype=np.int64)
        for j in least_first:
            pick = (chosen < 0) & (differs[j] & nearest).any(axis=1)
            chosen[pick] = j
        out[start:start + chunk] = chosen
    return out


def _released_or_settled(release: Release, claim: Claim
                         ) -> tuple[pd.DataFrame, ClaimCheck | None]:
    """The released records, or the check that needs none: a claimed attribute missing
    from the release (not checkable), or nothing released (holds)."""
    missing = [a for a in claim.attributes if a not in release.table.columns]
    if missing:
        return release.table, ClaimCheck(claim, None, f"'{missing[0]}' is not in the release")
    released = release.released()
    if not len(released):
        return released, ClaimCheck(claim, True, "no record released")
    return released, None


@register_claim_checker(CELL_K_ANONYMITY)
def check_cell_k_anonymity(release: Release, claim: Claim) -> ClaimCheck:
    """Every released record is compatible with at least k released records over the
    claimed attributes, itself included, a ``*`` cell matching any value."""
    k = int(claim.parameters["k"])
    released, settled = _released_or_settled(release, claim)
    if settled is not None:
        return settled
    fk = compatible_records(released, claim.attributes, SUPPRESSED_CELL)
    cells = int((released[list(claim.attributes)] == SUPPRESSED_CELL).to_numpy().sum())
    return ClaimCheck(claim, int(fk.min()) >= k,
                      f"fewest compatible records {int(fk.min()):,}, at least {k:,} claimed; "
                      f"{cells:,} cells suppressed")


@register_claim_checker(CELL_AVERAGE_RISK)
def check_cell_average_risk(release: Release, claim: Claim) -> ClaimCheck:
    """The mean over released records of 1/fk, fk the released records compatible with
    the record (a ``*`` cell matching any value), is at most the threshold."""
    threshold = float(claim.parameters["threshold"])
    released, settled = _released_or_settled(release, claim)
    if settled is not None:
        return settled
    average = float(np.mean(1.0 / compatible_records(released, claim.attributes,
                                                     SUPPRESSED_CELL)))
    return ClaimCheck(claim, average <= threshold * (1 + ROUNDING) + ROUNDING,
                      f"average risk {average:.4g}, at most {threshold:.4g} claimed")
