"""Which pass of a local recoding released each record (ARX's ``optimizeIterative``).

Local recoding runs the lattice search again on the records the previous pass
suppressed; each record keeps the levels of the pass that released it. The release
carries this as :class:`RecodingPasses`: one pass index per input record (-1 while
suppressed) and, per pass, its transformation, the records it was given, the records it
released and its score. Explore and Utility show these per-pass figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: ``of_record`` of a record no pass released.
NOT_RELEASED = -1


@dataclass(frozen=True)
class RecodingPass:
    """One pass: the search's optimum on the records still suppressed before it."""

    index: int
    levels: tuple[int, ...]
    #: Records the pass searched over (all records for pass 0).
    records: int
    #: Records it released (the others stay suppressed for the next pass).
    released: int
    #: Raw score of its optimum under the pass's quality model (on its own records).
    score: float
    #: The gs-factor of the pass's quality model (None: the model takes none).
    gs_factor: float | None = None

    def to_dict(self, quasi_identifiers: Sequence[str]) -> dict[str, Any]:
        return {"pass": self.index,
                "transformation": dict(zip(quasi_identifiers, self.levels, strict=True)),
                "records": self.records, "released": self.released, "score": self.score,
                "gs_factor": self.gs_factor}


@dataclass(frozen=True, eq=False)
class RecodingPasses:
    """The passes of a locally recoded release and the pass of each input record."""

    passes: tuple[RecodingPass, ...]
    #: Per input record, the index of the pass that released it, or ``NOT_RELEASED``.
    of_record: np.ndarray

    def levels_of_records(self) -> np.ndarray:
        """(records, quasi-identifiers) levels each record was released at; the rows of
        suppressed records are -1."""
        width = len(self.passes[0].levels) if self.passes else 0
        table = np.array([p.levels for p in self.passes], dtype=np.int64).reshape(-1, width)
        out = np.full((len(self.of_record), width), NOT_RELEASED, dtype=np.int64)
        released = self.of_record >= 0
        out[released] = table[self.of_record[released]]
        return out

    def released_per_pass(self) -> np.ndarray:
        """Records released by each pass, counted from ``of_record`` (int64)."""
        kept = self.of_record[self.of_record >= 0]
        return np.bincount(kept, minlength=len(self.passes)).astype(np.int64)

    def table(self, quasi_identifiers: Sequence[str]) -> pd.DataFrame:
        """One row per pass: transformation, records given, released, score, gs-factor."""
        rows = [{"pass": p.index, "transformation": _levels_text(quasi_identifiers, p.levels),
                 "records": p.records, "released": p.released, "score": p.score,
                 "gs-factor": p.gs_factor} for p in self.passes]
        columns = ["pass", "transformation", "records", "released", "score", "gs-factor"]
        return pd.DataFrame(rows, columns=columns).set_index("pass")

    def to_dict(self, quasi_identifiers: Sequence[str]) -> dict[str, Any]:
        return {"passes": [p.to_dict(quasi_identifiers) for p in self.passes],
                "suppressed_records": int(np.count_nonzero(self.of_record < 0))}


def _levels_text(quasi_identifiers: Sequence[str], levels: Sequence[int]) -> str:
    return ", ".join(f"{q}={v}" for q, v in zip(quasi_identifiers, levels, strict=True))
