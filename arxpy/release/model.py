"""What every anonymization method returns: a :class:`Release`.

A release is the output table plus everything needed to judge and reproduce it: which
input records were suppressed, the group (equivalence class, cluster, box) of each
record where the method has groups, the privacy properties the method claims in a
form an independent checker can test, the method and its parameters, hashes of input
and output, software versions, seed and elapsed time. Utility, Risk, Compare, Export,
the HTML report and the CLI read releases and nothing method-specific, so releases of
different methods on the same input compare side by side.
"""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.codes import group_sizes
from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken
from arxpy.release.claims import Claim
from arxpy.release.passes import RecodingPasses
from arxpy.release.verdict import Verdict, judge
from arxpy.release.wildcards import pattern_sizes

#: What a suppressed record shows in every quasi-identifier (ARX's convention).
SUPPRESSED_VALUE = "*"


@dataclass(frozen=True)
class ClassStatistics:
    """Groups of a release among its released records (suppressed records left out)."""

    n_classes: int
    min_size: int
    max_size: int
    mean_size: float
    suppressed_records: int
    records: int
    #: Released records with a single value in every quasi-identifier (ARX counts them
    #: as suppressed at the top of the lattice).
    completely_generalized_records: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


#: Rows hashed between two looks at a cancel token (about 0.1 s).
HASH_STEP = 100_000


def table_sha256(frame: pd.DataFrame, cancel: CancelToken | None = None) -> str:
    """SHA-256 over a table's column names and pandas' stable per-row hashes.

    Equal tables (same columns, values and row order) give equal digests on every
    machine; hashing row hashes instead of a CSV keeps this fast on millions of rows.
    Row hashes do not depend on their neighbours, so the table is hashed in steps, with
    ``cancel`` looked at between them (a second on 10^6 rows).
    """
    digest = hashlib.sha256()
    digest.update("\x1f".join(map(str, frame.columns)).encode("utf-8"))
    for start in range(0, len(frame), HASH_STEP):
        if cancel is not None:
            cancel.raise_if_cancelled()
        rows = pd.util.hash_pandas_object(_as_text_objects(frame.iloc[start:start + HASH_STEP]),
                                          index=False)
        digest.update(np.ascontiguousarray(rows.to_numpy(dtype=np.uint64)).tobytes())
    return digest.hexdigest()


def _as_text_objects(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame.astype(object)`` as pandas hashes it, with numbers already turned into text.

    pandas hashes a cell that is not a string as ``str(cell)``, converting every distinct
    value through numpy's unicode arrays (0.8 s for 2*10^5 distinct floats). Doing the same
    ``str`` here on the distinct values only gives identical row hashes in a tenth of it.
    """
    columns = {}
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        columns[position] = (_numbers_as_text(column) if column.dtype.kind in "biuf"
                             else column.astype(object))
    text = pd.DataFrame(columns, index=frame.index)
    text.columns = frame.columns
    return text


def _numbers_as_text(column: pd.Series) -> pd.Series:
    """Each number as ``str`` of the Python object ``astype(object)`` makes; NaN stays."""
    codes, distinct = pd.factorize(column.to_numpy(), use_na_sentinel=True)
    labels = np.array([str(value) for value in distinct.astype(object)] + [np.nan],
                      dtype=object)
    return pd.Series(labels[codes], index=column.index, dtype=object)


def software_versions() -> dict[str, str]:
    """Versions that decide a release's bytes: arxpy, Python and the numeric stack."""
    from arxpy._version import __version__

    return {"arxpy": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "pandas": pd.__version__}


@dataclass(frozen=True, eq=False)
class Release:
    """The output of one anonymization method on one input.

    ``table`` has the input's rows in input order and its columns minus identifying
    attributes; suppressed rows stay with ``*`` in every quasi-identifier (use
    :meth:`released` or :meth:`export_table` to leave them out). ``suppressed`` and
    ``groups`` are per input row; ``groups`` is -1 for suppressed rows and None for
    methods without groups. ``hierarchies`` say how generalized values read.
    """

    table: pd.DataFrame
    suppressed: np.ndarray
    definition: DataDefinition
    method: str
    parameters: Mapping[str, Any]
    claims: tuple[Claim, ...]
    input_sha256: str
    groups: np.ndarray | None = None
    hierarchies: Mapping[str, Hierarchy] = field(default_factory=dict)
    transformation: Mapping[str, int] | None = None
    seed: int | None = None
    elapsed_seconds: float = 0.0
    versions: Mapping[str, str] = field(default_factory=software_versions)
    remove_suppressed: bool = False
    completely_generalized_records: int = 0
    #: Rows are generated, not input records (condensation): equal values in released
    #: rows do not mean the same people, so the attacker's class view does not apply.
    synthetic: bool = False
    #: Cell suppression: a quasi-identifier cell showing ``*`` matches any value
    #: (sdcMicro's convention), so a record's class is every record compatible with it.
    wildcard_cells: bool = False
    #: Local recoding: the pass that released each record and each pass's figures
    #: (None: one transformation for every record). ``transformation`` is then the first
    #: pass's.
    passes: RecodingPasses | None = None

    # --- the verdict --------------------------------------------------------------------

    @cached_property
    def verdict(self) -> Verdict:
        """Every claim checked independently, and the attacker's view (the one verdict)."""
        return judge(self)

    def verify(self) -> Verdict:
        return self.verdict

    @property
    def anonymous(self) -> bool:
        """Derived: the release claims something, every claim holds when checked
        independently, and the declared quasi-identifiers keep the promised class size."""
        return self.verdict.anonymous

    # --- what was released ------------------------------------------------------------

    @property
    def quasi_identifiers(self) -> list[str]:
        return [q for q in self.definition.quasi_identifiers if q in self.table.columns]

    @property
    def records(self) -> int:
        return int(len(self.suppressed))

    @property
    def suppressed_records(self) -> int:
        return int(self.suppressed.sum())

    def released(self) -> pd.DataFrame:
        """The published records only (suppressed rows left out)."""
        return self.table.loc[~self.suppressed]

    def input_rows(self) -> np.ndarray | None:
        """The input record each table row stands for (None: rows stand for no single
        record, e.g. a reconstruction of a set-valued document). Rows are in input order
        unless a method says otherwise."""
        return np.arange(len(self.table))

    def recode(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The records of ``frame`` in the release's representation, one row per record
        in ``frame``'s order: levels for the lattice, boxes for intervals, patterns or
        ``*`` for kPB-MS, group representatives for microaggregation.

        Records of the release's own input are read off the release (suppressed ones show
        what the release shows for them). A transformation also recodes new records
        through its hierarchies. Raises ConfigurationError where neither applies.
        """
        if table_sha256(frame) == self.input_sha256:
            rows = self.input_rows()
            if rows is None or self.synthetic:
                raise ConfigurationError(
                    f"A '{self.method}' release publishes generated rows, not one row per "
                    "record, so records cannot be recoded into it.")
            aligned = np.empty(len(rows), dtype=np.int64)
            aligned[rows] = np.arange(len(rows))
            return self.table.iloc[aligned].reset_index(drop=True)
        if self.passes is not None:
            raise ConfigurationError(
                "A locally recoded release generalizes each record at the levels of the pass "
                "that released it, so it recodes only the records it was made from.")
        if self.transformation is not None:
            out = frame.drop(columns=[c for c in self.definition.identifying
                                      if c in frame.columns]).reset_index(drop=True)
            for name, level in self.transformation.items():
                mapping = {str(row[0]): row[level] for row in self.hierarchies[name].rows}
                values = out[name].astype(str)
                unknown = sorted(set(values) - set(mapping))
                if unknown:
                    raise ConfigurationError(
                        f"'{name}' has values its hierarchy does not cover: "
                        f"{', '.join(unknown[:5])}.")
                out[name] = values.map(mapping)
            return out
        raise ConfigurationError(
            f"A '{self.method}' release recodes only the records it was made from.")

    def export_table(self, remove_suppressed: bool | None = None) -> pd.DataFrame:
        """The table as exported: suppressed rows kept with ``*`` or left out."""
        remove = self.remove_suppressed if remove_suppressed is None else remove_suppressed
        return self.released() if remove else self.table

    @property
    def levels(self) -> tuple[int, ...] | None:
        """The transformation as a level vector in quasi-identifier order, if any."""
        if self.transformation is None:
            return None
        return tuple(int(v) for v in self.transformation.values())

    @cached_property
    def class_sizes(self) -> np.ndarray:
        """Sizes of the groups among released records: the method's groups where it has
        them, otherwise the records sharing all quasi-identifier values."""
        if self.groups is not None:
            kept = self.groups[~self.suppressed]
            sizes = np.bincount(kept) if kept.size else np.zeros(0, dtype=np.int64)
            return sizes[sizes > 0].astype(np.int64)
        if self.wildcard_cells:  # per released pattern, the records compatible with it
            return pattern_sizes(self.released(), self.quasi_identifiers)
        return group_sizes(self.released(), self.quasi_identifiers)

    @cached_property
    def statistics(self) -> ClassStatistics:
        sizes = self.class_sizes
        return ClassStatistics(
            n_classes=int(len(sizes)),
            min_size=int(sizes.min()) if len(sizes) else 0,
            max_size=int(sizes.max()) if len(sizes) else 0,
            mean_size=float(sizes.mean()) if len(sizes) else 0.0,
            suppressed_records=self.suppressed_records,
            records=self.records,
            completely_generalized_records=self.completely_generalized_records,
        )

    @cached_property
    def output_sha256(self) -> str:
        return table_sha256(self.export_table())

    # --- reports ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-able provenance and figures (not the table itself)."""
        return {
            "method": self.method,
            "parameters": _jsonable(self.parameters),
            "transformation": None if self.transformation is None else dict(self.transformation),
            "anonymous": self.anonymous,
            "claims": [c.to_dict() for c in self.claims],
            "verification": self.verdict.to_dict(),
            "classes": self.statistics.to_dict(),
            "input_sha256": self.input_sha256,
            "output_sha256": self.output_sha256,
            "versions": dict(self.versions),
            "seed": self.seed,
            "elapsed_seconds": self.elapsed_seconds,
            **({} if self.passes is None else
               {"local_recoding": self.passes.to_dict(list(self.transformation or {}))}),
        }

    def summary(self) -> pd.DataFrame:
        """One row per figure (lifelines' style): value and a description."""
        s = self.statistics
        rows = [
            ("method", self.method, "anonymization method"),
            ("verdict", self.verdict.headline, "claims checked independently and the "
             "attacker's view over the declared quasi-identifiers"),
            ("records", s.records, "input records"),
            ("suppressed records", s.suppressed_records, "records left out of the release"),
            ("groups", s.n_classes, "equivalence classes / clusters among released records"),
            ("smallest group", s.min_size, "records in the smallest group"),
            ("mean group size", s.mean_size, "released records per group"),
            ("elapsed seconds", self.elapsed_seconds, "time the method took"),
        ]
        rows += [(f"claim {i + 1}", c.description or c.kind, "privacy property claimed")
                 for i, c in enumerate(self.claims)]
        if self.transformation is not None:
            shown = ", ".join(f"{k}={v}" for k, v in self.transformation.items())
            rows.append(("transformation", shown, "hierarchy level per quasi-identifier"
                         + (" (first pass)" if self.passes is not None else "")))
        if self.passes is not None:
            released = self.passes.released_per_pass()
            rows.append(("local recoding passes", len(self.passes.passes),
                         "passes of the search over the records the previous pass suppressed"))
            rows += [(f"released by pass {p.index}", int(released[p.index]),
                      f"records at levels {', '.join(map(str, p.levels))}")
                     for p in self.passes.passes]
        return pd.DataFrame(rows, columns=["figure", "value", "description"]).set_index("figure")


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
