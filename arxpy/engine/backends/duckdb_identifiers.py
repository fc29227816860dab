"""Keyed pseudonyms and per-patient date shifts applied by DuckDB as it reads the records
(issue 32): out of core, in Arrow batches, with the memory engine's pseudonyms and dates
byte for byte.

The treated columns are a projection over the source (a join would reorder the records):
one Arrow function per pseudonymized attribute and per shifted date attribute, and one
for each patient's offset. A batch's distinct values are hashed with the same
:class:`~arxpy.identifiers.keys.PseudonymKey` and rendered by the same
:class:`~arxpy.identifiers.formats.PseudonymFormat` as in memory, so the SQL never holds
the key. HMAC stays in Python: DuckDB's own ``sha256`` (hex text in and out) is slower
per value (``benchmarks/identifiers.py --duckdb``; docs/identifiers.md).

What the memory engine checks on the whole table is checked here too: the distinct
dates of each shifted attribute are read first (validated and parsed once, so a batch
only looks days up), and each namespace keeps the 128-bit MAC and the pseudonym's
identity of every distinct value it saw, so two values meeting in one pseudonym refuse
the release after the write (the written file is removed). Masks and random replacement
need every distinct value at once and stay with the memory engine.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition, DataType
from arxpy.data.types import MISSING_VALUES, is_missing
from arxpy.errors import ArxpyError, ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers.dates import _shift_column, date_format_of, patient_offsets
from arxpy.identifiers.formats import DIGITS, HEX, PseudonymFormat
from arxpy.identifiers.keys import PseudonymKey
from arxpy.identifiers.plan import (
    MASK,
    PSEUDONYM,
    PSEUDONYM_LABEL,
    RANDOM,
    IdentifierPlan,
    _refuse_collisions,
)

#: The most digits whose numbers fit the 64-bit identities of the collision check.
MAX_ENGINE_DIGITS = 19
_TIME_DIRECTIVES = ("%H", "%I", "%M", "%S", "%f", "%p", "%X", "%c", "%T", "%R")
_COMPACT_ROWS = 1 << 20  # identities kept before duplicates are dropped
_LONGEST_MISSING = max(map(len, MISSING_VALUES))
#: A memo's values asked before it judges whether they come back, and its size.
_MEMO_SAMPLE, _MEMO_ENTRIES = 1 << 16, 1 << 21


def _identifier(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _text(name: str) -> str:
    return f"COALESCE(CAST({_identifier(name)} AS VARCHAR), '')"


class _Failure(Exception):
    """Raised inside an Arrow function to stop DuckDB; the treatment keeps the cause."""


class DuckDBTreatment:
    """An identifier plan DuckDB applies while it reads: pseudonyms and date shifts.

    ``definition`` is the user's (before the treatments); :attr:`definition` the one the
    search and the output use. :meth:`prepare` reads the distinct dates once;
    :meth:`select` gives the treated table's SQL over a scan; :meth:`check` refuses
    pseudonyms that met, after a write.
    """

    def __init__(self, plan: IdentifierPlan, key: PseudonymKey | None,
                 definition: DataDefinition) -> None:
        refuse_unsupported(plan)
        plan.check(definition)
        if plan.needs_key and key is None:
            raise ConfigurationError(
                "Keyed pseudonyms and date shifts need a key: give its key file (create "
                "one with 'arxpy keygen --pseudonym KEYFILE').")
        self.plan, self.key = plan, key
        self.definition = plan.treated_definition(definition)
        self.record = plan.record(self.definition, key)
        self._types = {a.name: a.data_type for a in definition}
        self._namespaces = {t.namespace: _Identities(t.format) for t in plan.of_kind(PSEUDONYM)}
        self._dates: dict[str, _DateTable] = {}
        self.failure: ArxpyError | None = None

    # -- reading the dates first --------------------------------------------------------

    def prepare(self, distinct_values: Any) -> None:
        """Read, check and parse each shifted attribute's distinct dates
        (``distinct_values(name)`` gives them as text)."""
        shift = self.plan.date_shift
        if shift is None:
            return
        for name in shift.attributes:
            values = pd.Series(distinct_values(name), dtype=object, name=name)
            date_format = date_format_of(values, self._types.get(name), name)
            self._dates[name] = _DateTable(values, date_format, shift.days)

    def refuse_uncovered(self, frame: pd.DataFrame, hierarchies: Mapping[str, Hierarchy]
                         ) -> None:
        """The memory engine's check that a shifted date's hierarchy covers the shifted
        dates, on the histogram's distinct values."""
        from arxpy.identifiers.plan import _refuse_uncovered

        shift = self.plan.date_shift
        if shift is not None:
            _refuse_uncovered({n: frame[n] for n in shift.attributes if n in frame},
                              hierarchies, shift.days)

    # -- the treated table --------------------------------------------------------------

    def select(self, connection: Any, scan: str, columns: Sequence[str]) -> str:
        """The SQL of the treated table over ``scan`` (every column, treated ones as text);
        registers the Arrow functions on ``connection``."""
        from duckdb.sqltypes import BIGINT, VARCHAR

        expressions = {name: _identifier(name) for name in columns}
        offset = _unused("arxpy_offset", columns)
        inner = "*"
        shift = self.plan.date_shift
        if shift is not None:
            connection.create_function("arxpy_offset", self._guarded(_Offsets(
                self.key, shift.days)), [VARCHAR], BIGINT, type="arrow")
            inner = f"*, arxpy_offset({_text(shift.patient)}) AS {_identifier(offset)}"
            for i, name in enumerate(shift.attributes):
                connection.create_function(f"arxpy_shift_{i}", self._guarded(
                    self._dates[name]), [BIGINT, VARCHAR], VARCHAR, type="arrow")
                expressions[name] = f"arxpy_shift_{i}({_identifier(offset)}, {_text(name)})"
        for i, t in enumerate(self.plan.of_kind(PSEUDONYM)):
            function = _Pseudonyms(self.key, t.namespace, t.format, t.attribute,
                                   self._namespaces[t.namespace])
            connection.create_function(f"arxpy_pseudonym_{i}", self._guarded(function),
                                       [VARCHAR], VARCHAR, type="arrow")
            expressions[t.attribute] = f"arxpy_pseudonym_{i}({_text(t.attribute)})"
        projected = ", ".join(f"{sql} AS {_identifier(name)}"
                              for name, sql in expressions.items())
        return f"(SELECT {projected} FROM (SELECT {inner} FROM {scan}))"

    def _guarded(self, function: Any) -> Any:
        """``function`` keeping an ArxpyError it raises (DuckDB would reword it); DuckDB
        reads the arity from the signature, so one or two arguments are spelled out."""
        def call(*arrays: Any) -> Any:
            try:
                return function(*arrays)
            except ArxpyError as exc:
                self.failure = self.failure or exc
                raise _Failure("see the treatment's failure") from None
        if isinstance(function, _DateTable):
            return lambda offsets, dates: call(offsets, dates)
        return lambda values: call(values)

    @contextmanager
    def failures(self) -> Iterator[None]:
        """Re-raise what an Arrow function refused, in place of DuckDB's wrapping."""
        try:
            yield
        except Exception:
            if self.failure is not None:
                raise self.failure from None
            raise

    def check(self, written: Path | None = None) -> None:
        """Refuse pseudonyms that met (removing ``written``, the file that holds them)."""
        for namespace, identities in self._namespaces.items():
            names = ", ".join(f"'{t.attribute}'" for t in self.plan.of_kind(PSEUDONYM)
                              if t.namespace == namespace)
            try:
                identities.refuse_collisions(names)
            except ConfigurationError:
                if written is not None:
                    Path(written).unlink(missing_ok=True)
                raise


def refuse_unsupported(plan: IdentifierPlan) -> None:
    """What the DuckDB engine cannot apply: masks, random replacement, long numbers."""
    if plan.of_kind(MASK) or plan.of_kind(RANDOM):
        raise ConfigurationError(
            "Masks (--mask) and random replacement (--replace-random) need every distinct "
            "value at once and run with --engine memory; leave out --engine duckdb or them.")
    for t in plan.of_kind(PSEUDONYM):
        if t.format.kind != HEX and (t.format.kind == DIGITS
                                     or t.format.length > MAX_ENGINE_DIGITS):
            what = "digits" if t.format.kind == DIGITS else str(t.format)
            raise ConfigurationError(
                f"--engine duckdb makes pseudonyms hex:N or prefix:P with up to "
                f"{MAX_ENGINE_DIGITS} digits; '{what}' runs with --engine memory.")


class _Pseudonyms:
    """An Arrow function: a batch of values -> their pseudonyms (missing values kept)."""

    def __init__(self, key: PseudonymKey, namespace: str, fmt: PseudonymFormat,
                 attribute: str, identities: _Identities) -> None:
        self.key, self.fmt, self.attribute = key, fmt, attribute
        self.label = f"{PSEUDONYM_LABEL}\0{namespace}"
        self.identities = identities

        self.memo = _Memo()

    def __call__(self, values: Any) -> Any:
        import pyarrow as pa

        encoded = _combined(values).dictionary_encode()
        uniques = encoded.dictionary.to_numpy(zero_copy_only=False)
        missing = _missing(encoded.dictionary, uniques)
        present = uniques[~missing]
        known, new = self.memo.recall(present)
        if new.any():
            fresh = present[new]
            macs = self.key.digests(self.label, fresh)
            self.identities.add(macs)
            known[new] = self._rendered(macs, fresh)
            self.memo.keep(fresh, known[new])
        whole = uniques.astype(object)  # missing values stay as they are
        whole[~missing] = known
        return pa.array(whole, type=pa.string()).take(encoded.indices)

    def _rendered(self, macs: list[bytes], values: np.ndarray) -> np.ndarray:
        """The pseudonyms: ``hex:N`` cut from the MACs' hex digits in one piece (what
        :meth:`PseudonymFormat.render` gives), others rendered by it."""
        if self.fmt.kind != HEX:
            return self.fmt.render(macs, values)
        digits = np.frombuffer(b"".join(macs).hex().encode("ascii"), dtype="S64")
        return digits.astype(f"U{self.fmt.length}").astype(object)


class _Memo:
    """The results of values seen in recent batches. A patient's rows are spread over
    many batches, so each patient's HMAC is computed once instead of once per batch; a
    record identifier never comes back, so after :data:`_MEMO_SAMPLE` values asked with
    fewer than 1 in 20 found the memo turns itself off. At most :data:`_MEMO_ENTRIES`
    values are kept (then it starts again empty)."""

    def __init__(self) -> None:
        self._entries: dict[Any, Any] = {}
        self._asked = self._found = 0
        self._on = True

    def recall(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The kept result of each value (None where there is none) and where none is."""
        if not self._on:
            return np.empty(len(values), dtype=object), np.ones(len(values), dtype=bool)
        get = self._entries.get
        known = np.array([get(v) for v in values] + [None], dtype=object)[:-1]
        new = np.equal(known, None)
        self._asked += len(values)
        self._found += len(values) - int(new.sum())
        if self._asked >= _MEMO_SAMPLE and self._found * 20 < self._asked:
            self._on, self._entries = False, {}
        return known, new

    def keep(self, values: np.ndarray, results: np.ndarray) -> None:
        if not self._on:
            return
        if len(self._entries) + len(values) > _MEMO_ENTRIES:
            self._entries = {}
        self._entries.update(zip(values.tolist(), results.tolist(), strict=True))


def _missing(dictionary: Any, uniques: np.ndarray) -> np.ndarray:
    """:func:`is_missing` of a batch's distinct values, asked only of those that could be
    missing: short ones, or ones not starting and ending with a letter or digit (a
    longer value is never stripped down to a missing value's spelling)."""
    import pyarrow.compute as pc

    plain_ends = pc.and_(pc.ascii_is_alnum(pc.utf8_slice_codeunits(dictionary, 0, 1)),
                         pc.ascii_is_alnum(pc.utf8_slice_codeunits(dictionary, -1, 2**31)))
    could = pc.or_(pc.less_equal(pc.utf8_length(dictionary), _LONGEST_MISSING),
                   pc.invert(plain_ends))
    could = could.to_numpy(zero_copy_only=False)
    missing = np.zeros(len(uniques), dtype=bool)
    if could.any():
        missing[could] = is_missing(pd.Series(uniques[could], dtype=object))
    return missing


class _Identities:
    """The distinct values a namespace saw, as (MAC bits 64-127, pseudonym identity
    high, low) 64-bit words. The MAC's bits 64-127 stand for the value (two values share
    them with a chance of n^2 / 2^65), the identity for the pseudonym: the MAC's first
    4N bits for ``hex:N`` (up to 128), the number of ``prefix:P:N``. Two values with one
    identity are two values with one pseudonym."""

    def __init__(self, fmt: PseudonymFormat) -> None:
        self.fmt = fmt
        self._parts: list[np.ndarray] = []
        self._rows = 0
        self._compact_at = _COMPACT_ROWS  # doubles with the distinct rows: linear time

    def add(self, macs: list[bytes]) -> None:
        if not macs:
            return
        words = np.frombuffer(b"".join(macs), dtype=">u8").reshape(len(macs), 4)
        rows = np.empty((len(macs), 3), dtype=np.uint64)
        rows[:, 0] = words[:, 1]
        rows[:, 1:] = self._pseudonym_words(words, macs)
        self._parts.append(rows)
        self._rows += len(rows)
        if self._rows > self._compact_at:
            self._compact()
            self._compact_at = max(_COMPACT_ROWS, 2 * self._rows)

    def _pseudonym_words(self, words: np.ndarray, macs: list[bytes]) -> np.ndarray:
        out = np.zeros((len(macs), 2), dtype=np.uint64)
        if self.fmt.kind == HEX:
            bits = 4 * min(self.fmt.length, 32)
            out[:, 0] = words[:, 0] >> np.uint64(64 - bits) if bits < 64 else words[:, 0]
            if bits > 64:
                out[:, 1] = words[:, 1] >> np.uint64(128 - bits) if bits < 128 \
                    else words[:, 1]
            return out
        modulus = 10 ** self.fmt.length  # prefix:P:N, N <= 19: the number fits 64 bits
        out[:, 0] = np.fromiter((int.from_bytes(m) % modulus for m in macs), np.uint64,
                                len(macs))
        return out

    def _compact(self) -> None:
        whole = np.concatenate(self._parts) if self._parts else np.zeros((0, 3), np.uint64)
        whole = whole[~pd.Series(whole[:, 0]).duplicated().to_numpy()]
        self._parts, self._rows = [whole], len(whole)

    def refuse_collisions(self, names: str) -> None:
        self._compact()
        (whole,) = self._parts
        identity = pd.Series(whole[:, 1]) if not whole[:, 2].any() else \
            pd.Series([f"{a}:{b}" for a, b in whole[:, 1:]], dtype=object)
        if identity.duplicated().any():  # the memory engine's message, with its counts
            _refuse_collisions(identity.to_numpy(dtype=object), self.fmt, names)


class _Offsets:
    """An Arrow function: a batch of patient identifiers -> their offsets in days."""

    def __init__(self, key: PseudonymKey, days: int) -> None:
        self.key, self.days = key, days
        self.memo = _Memo()

    def __call__(self, patients: Any) -> Any:
        import pyarrow as pa

        encoded = _combined(patients).dictionary_encode()
        uniques = encoded.dictionary.to_numpy(zero_copy_only=False)
        known, new = self.memo.recall(uniques)
        if new.any():
            fresh = uniques[new]
            known[new] = patient_offsets(self.key, list(fresh), self.days)
            self.memo.keep(fresh, known[new])
        return pa.array(known.astype(np.int64), type=pa.int64()).take(encoded.indices)


class _DateTable:
    """An Arrow function: (offsets, dates) -> shifted dates in the column's format.

    Dates without a time of day are looked up: every day from the earliest date minus
    the widest shift to the latest plus it is written once, as the memory engine writes
    it. Dates with a time are shifted per batch by the memory engine's own function.
    """

    def __init__(self, distinct: pd.Series, date_format: str, days: int) -> None:
        self.date_format = date_format
        # validates every distinct value, as the memory engine does (refused with a count)
        _shift_column(distinct, np.ones(len(distinct), np.int64), date_format)
        self._texts = pd.Index(distinct.to_numpy(dtype=object))
        self._by_day = not any(d in date_format for d in _TIME_DIRECTIVES)
        if not self._by_day:
            return
        from arxpy.data.definition import DataKind
        from arxpy.data.types import parse_values

        parsed = parse_values(distinct, DataType(DataKind.DATE, date_format))
        present = ~np.isnat(parsed)
        day = parsed.astype("datetime64[D]").astype(np.int64)
        self._day = np.where(present, day, 0)
        self._present = present
        low = int(day[present].min()) - days if present.any() else 0
        high = int(day[present].max()) + days if present.any() else 0
        self._first = low
        span = np.arange(low, high + 1, dtype=np.int64).astype("datetime64[D]")
        import pyarrow as pa

        self._written = pa.array(pd.Series(span.astype("datetime64[s]")).dt.strftime(
            date_format).to_numpy(dtype=object), type=pa.string())

    def __call__(self, offsets: Any, dates: Any) -> Any:
        import pyarrow as pa

        offsets = _combined(offsets).to_numpy(zero_copy_only=False)
        dates = _combined(dates)
        if not self._by_day:
            values = pd.Series(dates.to_numpy(zero_copy_only=False), dtype=object)
            return pa.array(_shift_column(values, offsets, self.date_format).to_numpy(),
                            type=pa.string())
        import pyarrow.compute as pc

        encoded = dates.dictionary_encode()
        at = self._texts.get_indexer(encoded.dictionary.to_numpy(zero_copy_only=False))
        if (at < 0).any():  # the data changed since the dates were read
            raise ConfigurationError(
                "A date of a shifted attribute was not there when the dates were read: the "
                "data changed during the run. Run it again.")
        rows = at[encoded.indices.to_numpy(zero_copy_only=False)]
        present = self._present[rows]
        shifted = np.where(present, self._day[rows] + offsets - self._first, 0)
        return pc.if_else(pa.array(present), self._written.take(pa.array(shifted)), dates)


def _combined(array: Any) -> Any:
    return array.combine_chunks() if hasattr(array, "combine_chunks") else array


def _unused(name: str, taken: Sequence[str]) -> str:
    while name in taken:
        name += "_"
    return name

