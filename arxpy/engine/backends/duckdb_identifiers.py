"""Identifier treatments applied by DuckDB as it reads the records (issue 32): keyed
pseudonyms, per-patient date shifts, masks and random replacement, out of core, with the
memory engine's output byte for byte (random replacements aside: no run repeats them).

The treated columns are a projection over the source (a join would reorder the records),
and the work is SQL on every core, or vectorized Arrow functions, not Python per value:

- HMAC-SHA-256 (RFC 2104) is the batch kernel's (:mod:`keyed_digests`: the GIL released,
  the key's blocks kept in this process); ``hex:N`` pseudonyms, a patient's offset and
  their identities come from its MACs, and the shifted dates from the offsets, in one
  Arrow function per chunk of records (:class:`_Chunk`). Without the kernel it
  is ``sha256(K^opad || unhex(sha256(K^ipad || label NUL value)))`` in SQL; the padded
  key blocks reach DuckDB only as prepared parameters of session variables of the step's
  own connection, never in SQL text (DuckDB echoes queries in its errors) or a message.
- ``hex:N`` is the digest's first N hex digits; ``prefix:P:N`` and ``digits`` are the MAC
  modulo 10^N (or 9 * 10^(L-1)) by eight 32-bit limbs in ``HUGEINT``, up to
  :data:`SQL_DIGITS` digits (longer numbers are rendered by Python from the digest).
- A patient's offset is drawn from its MAC as in :func:`offsets_drawn`, and its
  pseudonym rendered, once a distinct patient read first (:class:`_Patients`); a record
  finds them, and each date its shifted date in the table :class:`_DateTable` wrote from
  the distinct dates, by DuckDB's ``hash`` of its text (:class:`HashPositions`).
- ``keep-first``/``keep-last`` masks of ASCII values are ``translate``; a regular
  expression's groups (Python's ``re``, whose classes differ from RE2's) and non-ASCII
  values go through the memory engine's :func:`mask_values`, per batch's distinct values.
- Random replacement is a keyed pseudonym under a key drawn for the run and never kept.

The memory engine's whole-table checks hold: each pseudonym namespace keeps 24 bytes per
value it saw (MAC bits 64-127 for the value, the pseudonym's identity), handed over by a
vectorized Arrow function, so two values meeting in one pseudonym refuse the release
after the write (the written file is removed).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition, DataType
from arxpy.data.types import MISSING_VALUES, is_missing
from arxpy.engine.backends import keyed_digests
from arxpy.engine.backends.hash_positions import HashPositions
from arxpy.errors import ArxpyError, ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers.dates import (
    SHIFT_LABEL,
    _shift_column,
    date_format_of,
    offsets_drawn,
)
from arxpy.identifiers.formats import DIGITS, HEX, PREFIX, PseudonymFormat
from arxpy.identifiers.keys import PseudonymKey
from arxpy.identifiers.masking import KEEP_FIRST, REGEX, MaskRule, mask_values
from arxpy.identifiers.plan import (
    MASK,
    PSEUDONYM,
    PSEUDONYM_LABEL,
    RANDOM,
    RANDOM_LABEL,
    IdentifierPlan,
    Treatment,
    _refuse_collisions,
    too_few_values,
)
from arxpy.lattice.kernels import first_seen, unsure_texts

#: The most distinct patients whose offsets (and pseudonyms) are computed once each and
#: looked up, about 60 bytes per patient with its pseudonym; beyond, every record's are
#: computed from its own MACs.
_MOST_PATIENTS = 1 << 22
#: The most digits of a number computed in SQL: 10^28 * 2^32 stays below HUGEINT's 2^127.
SQL_DIGITS = 28
_TIME_DIRECTIVES = ("%H", "%I", "%M", "%S", "%f", "%p", "%X", "%c", "%T", "%R")
_COMPACT_ROWS = 1 << 20  # identities kept before duplicates are dropped
#: What ``str.strip`` strips (every character whose ``isspace()`` is true), for SQL.
WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003" \
    "\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_ALNUM = string.ascii_letters + string.digits
_LONGEST_MISSING = max(len(v) for v in MISSING_VALUES)  # characters


def _identifier(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _text(name: str) -> str:
    return f"COALESCE(CAST({_identifier(name)} AS VARCHAR), '')"


def _missing(text: str) -> str:
    """SQL of :func:`is_missing`: a missing value's spelling in any case between what
    ``str.strip`` strips (no character outside ASCII folds to one of its letters). A
    regular expression, not ``IN``: DuckDB makes a list of six a join, reordering records."""
    spaces = "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE)
    spellings = "|".join(re.escape(v) for v in sorted(MISSING_VALUES) if v)
    return f"regexp_full_match({text}, '[{spaces}]*(?i:{spellings})?[{spaces}]*')"


class _Failure(Exception):
    """Raised inside an Arrow function to stop DuckDB; the treatment keeps the cause."""


class DuckDBTreatment:
    """An identifier plan DuckDB applies while it reads: every treatment and date shifts.

    ``definition`` is the user's (before the treatments); :attr:`definition` the one the
    search and the output use. :meth:`prepare` reads the distinct values named by
    :attr:`unread` once (the engine's first scan, or its histogram's); :meth:`select`
    gives the treated table's SQL over a scan; :meth:`check` refuses pseudonyms that
    met, after a write, and completes the record. ``random_key``: the release's key of
    random replacements (one for all tables of a linked release), else drawn here.
    """

    def __init__(self, plan: IdentifierPlan, key: PseudonymKey | None,
                 definition: DataDefinition, random_key: PseudonymKey | None = None
                 ) -> None:
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
        self._random = {t.attribute: _Identities(t.format) for t in plan.of_kind(RANDOM)}
        # drawn for this run and never kept, so no two runs share a replacement
        self._random_key = random_key or (PseudonymKey(secrets.token_bytes(32))
                                          if self._random else None)
        self._masks = {t.attribute: _Masks(t.rule, plan.mask_character)
                       for t in plan.of_kind(MASK)}
        self._dates: dict[str, _DateTable] = {}
        self._patients: _Patients | None = None
        self._prepared = False
        self.failure: ArxpyError | None = None

    # -- reading the dates first --------------------------------------------------------

    @property
    def unread(self) -> list[str]:
        """The attributes whose distinct values :meth:`prepare` still needs."""
        shift = self.plan.date_shift
        if shift is None or self._prepared:
            return []
        return list(dict.fromkeys([*shift.attributes, shift.patient]))

    def treats(self, names: Collection[str]) -> bool:
        """Does the treated table differ from the source in one of ``names``?"""
        shift = self.plan.date_shift
        treated = {t.attribute for t in self.plan.treatments} | \
            set(shift.attributes if shift is not None else ())
        return bool(treated & set(names))

    def prepare(self, distinct_values: Any) -> None:
        """Read, check and parse each shifted attribute's distinct dates, and the distinct
        patients with their offsets (``distinct_values(names)`` gives the values of
        :attr:`unread` as text by name, from one scan)."""
        names = self.unread
        if not names:
            return
        shift = self.plan.date_shift
        read = distinct_values(names)
        self._prepared = True
        for name in shift.attributes:
            values = pd.Series(read[name], dtype=object, name=name)
            date_format = date_format_of(values, self._types.get(name), name)
            self._dates[name] = _DateTable(values, date_format, shift.days)
        patients = read[shift.patient]
        if len(patients) <= _MOST_PATIENTS:  # offsets and pseudonyms once a patient
            pseudonym = next((k for k in self._keyed() if k[0].attribute == shift.patient),
                             None)
            self._patients = _Patients.of(patients, self.key, shift.days, pseudonym)

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
        sets the key variables and registers the Arrow functions on ``connection``."""
        return self._query(connection, columns).sql(scan)

    def select_deferring(self, connection: Any, scan: str, columns: Sequence[str],
                         coded: Collection[str]) -> tuple[str, Deferred | None]:
        """:meth:`select`, with the columns computed per chunk in Python left to the
        caller's own Arrow function when none of them is in ``coded`` (the columns the
        SQL itself reads): (the SQL, what computes them, or None as in :meth:`select`)."""
        query = self._query(connection, columns, register=False)
        chunk = query.chunk
        if not chunk.steps or set(chunk.columns) & set(coded):
            if chunk.steps:
                self._register_chunk(connection, chunk)
            return query.sql(scan), None
        for name in chunk.columns:  # its raw text: unread, but the layer names it
            query.final[name] = _identifier(name)
        query.final[chunk.column] = _identifier(chunk.column)
        return query.sql(scan, packed=True), Deferred(chunk, self._keeping_failures)

    def _query(self, connection: Any, columns: Sequence[str], register: bool = True
               ) -> _Query:
        query = _Query(connection, columns)
        self._shift_into(query)
        self._keyed_into(query)
        for i, t in enumerate(self.plan.of_kind(MASK)):
            text = _text(t.attribute)
            python = self._register(connection, f"arxpy_mask_{i}", self._masks[t.attribute],
                                    ["VARCHAR"], "VARCHAR")
            masked = _masked(t.rule, self.plan.mask_character, text, python)
            query.final[t.attribute] = f"CASE WHEN {_missing(text)} THEN {text} " \
                                       f"ELSE {masked} END"
        if register and query.chunk.steps:
            self._register_chunk(connection, query.chunk)
        return query

    def _register_chunk(self, connection: Any, chunk: _Chunk) -> None:
        chunk.function = self._register(connection, "arxpy_treated", chunk,
                                        [chunk.arguments(connection)],
                                        chunk.results(connection))

    def _shift_into(self, query: _Query) -> None:
        """Each record's offset (looked up, else drawn from its MAC) and shifted dates."""
        shift = self.plan.date_shift
        if shift is None:
            return
        chunk, patient = query.chunk, _text(shift.patient)
        if self._patients is not None:  # a look-up costs less than a MAC a record
            query.patient = chunk.computed(_FoundPatients(
                self._patients, chunk.input(f"hash({patient})", "UBIGINT")))
            offset = chunk.computed(_LookedUp(self._patients.offsets, query.patient))
        elif keyed_digests.COMPILED:  # too many patients to keep: each record's MAC
            offset = chunk.computed(_Offsets(
                keyed_digests.KeyedDigests(self.key, SHIFT_LABEL), shift.days,
                chunk.input(patient, "VARCHAR")))
        else:
            mac = query.mac(self.key, SHIFT_LABEL, patient)
            # offsets_drawn: the MAC's first 64 bits modulo 2N onto -N..-1, 1..N
            drawn = f"(('0x' || left({mac}, 16))::UBIGINT % {2 * shift.days})::BIGINT"
            offset = chunk.input(f"{drawn} - {shift.days} + ({drawn} >= {shift.days})"
                                 "::BIGINT", "BIGINT")
        for name in shift.attributes:
            dates, text = self._dates[name], _text(name)
            # by day, the date's position among the distinct dates: no text crosses
            dated = chunk.input(f"hash({text})", "UBIGINT") if dates.by_day else \
                chunk.input(text, "VARCHAR")
            query.final[name] = chunk.released(_ShiftedDates(dates, offset, dated), name)

    def _keyed_into(self, query: _Query) -> None:
        """Pseudonyms and random replacements: rendered from each record's MAC, or the
        patient attribute's looked up; identities handed to their namespace."""
        shift, connection = self.plan.date_shift, query.connection
        for i, (t, key, label, identities, _names) in enumerate(self._keyed()):
            text = _text(t.attribute)
            if self._patients is not None and t.attribute == shift.patient:
                query.final[t.attribute] = query.chunk.released(_LookedUp(
                    self._patients.pseudonyms, query.patient), t.attribute)
                continue
            if keyed_digests.COMPILED and t.format.kind == HEX:  # no MAC text in SQL
                query.final[t.attribute] = query.chunk.released(_HexPseudonyms(
                    keyed_digests.KeyedDigests(key, label), t.format, identities,
                    query.chunk.input(text, "VARCHAR")), t.attribute)
                continue
            mac = query.mac(key, label, text)
            long = self._register(connection, f"arxpy_long_{i}", _LongNumbers(t.format, identities),
                                  ["VARCHAR", "VARCHAR"], "VARCHAR")
            shown = query.unused(f"arxpy_pseudonym_{i}")
            query.derived[shown] = _rendered(t.format, mac, text, long)
            seen = self._register(connection, f"arxpy_seen_{i}", _Seen(identities),
                                  ["UBIGINT"] * 3, "BOOLEAN")
            shown = _identifier(shown)
            query.final[t.attribute] = (
                f"CASE WHEN {_missing(text)} THEN {text} "
                f"WHEN {seen}({_identity(t.format, mac, shown)}) THEN {shown} END")

    def _keyed(self) -> Iterator[tuple[Treatment, PseudonymKey, str, _Identities, str]]:
        """Pseudonyms and random replacements: (treatment, key, label, identities kept,
        the attributes a message names)."""
        for t in self.plan.of_kind(PSEUDONYM):
            names = ", ".join(f"'{m.attribute}'" for m in self.plan.of_kind(PSEUDONYM)
                              if m.namespace == t.namespace)
            yield (t, self.key, f"{PSEUDONYM_LABEL}\0{t.namespace}",
                   self._namespaces[t.namespace], names)
        for t in self.plan.of_kind(RANDOM):
            yield (t, self._random_key, f"{RANDOM_LABEL}\0{t.attribute}",
                   self._random[t.attribute], f"'{t.attribute}'")

    def _register(self, connection: Any, name: str, function: Any,
                  parameters: list[Any], result: Any) -> str:
        """Register ``function`` as an Arrow function keeping an ArxpyError it raises
        (DuckDB would reword it); DuckDB reads the arity from the signature. Types are
        DuckDB's, or their names."""
        call = self._keeping_failures(function)
        arity = {1: lambda a: call(a), 2: lambda a, b: call(a, b),
                 3: lambda a, b, c: call(a, b, c)}[len(parameters)]
        from duckdb import sqltypes

        def typed(t: Any) -> Any:
            return getattr(sqltypes, t) if isinstance(t, str) else t

        connection.create_function(name, arity, [typed(p) for p in parameters],
                                   typed(result), type="arrow")
        return name

    def _keeping_failures(self, function: Any) -> Any:
        """``function``, keeping an ArxpyError it raises as the treatment's failure and
        raising one DuckDB passes on (it would reword the error)."""
        def call(*arrays: Any) -> Any:
            try:
                return function(*arrays)
            except ArxpyError as exc:
                self.failure = self.failure or exc
                raise _Failure("see the treatment's failure") from None
        return call

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
        """Refuse pseudonyms or replacements that met (removing ``written``, the file that
        holds them); record how many distinct values a mask's pattern did not match."""
        for detail in self.record["treatments"]:
            masks = self._masks.get(detail["attribute"])
            if masks is not None and masks.rule.kind == REGEX:
                detail["unmatched_distinct_values"] = len(masks.unmatched)
        kept = {names: identities for _, _, _, identities, names in self._keyed()}
        for names, identities in kept.items():
            try:
                if identities.too_long:
                    raise identities.fmt.too_long_refusal(names)
                self._refuse_too_few(names, identities)
                identities.refuse_collisions(names)
            except ConfigurationError:
                if written is not None:
                    Path(written).unlink(missing_ok=True)
                raise

    def _refuse_too_few(self, names: str, identities: _Identities) -> None:
        """Random replacements more than their format has: the memory engine's refusal
        (where it would draw again in vain) rather than the one of values that met."""
        random = next((a for a, i in self._random.items() if i is identities), None)
        capacity = identities.fmt.capacity
        if random is not None and capacity is not None and capacity < identities.distinct():
            raise too_few_values(identities.fmt, identities.distinct(), random)


class _Query:
    """The treated table's SQL in three layers: the MACs, what is computed from them
    (pseudonyms, offsets), then every column, so each MAC is computed once per record.

    HMAC-SHA-256 is SQL; each padded key block is a session variable set by a prepared
    parameter, so the SQL names the variable and never holds the key."""

    def __init__(self, connection: Any, columns: Sequence[str]) -> None:
        self.connection = connection
        self.unused = _Unused(columns)
        self.macs: dict[str, str] = {}
        self.derived: dict[str, str] = {}
        self.final = {name: _identifier(name) for name in columns}
        self.patient = ""  # the chunk's field of each record's patient's position, if any
        self.chunk = _Chunk(self.unused("arxpy_treated"))

    def mac(self, key: PseudonymKey, label: str, text: str) -> str:
        """A column of the hex digest of HMAC(key, label NUL text); its quoted name. The
        compiled kernel's Arrow function where built (a tenth of SQL's CPU), else SQL."""
        i = len(self.macs)
        name = self.unused(f"arxpy_mac_{i}")
        if keyed_digests.COMPILED:
            from duckdb.sqltypes import VARCHAR

            digests = keyed_digests.KeyedDigests(key, label)
            self.connection.create_function(
                f"arxpy_hmac_{i}", lambda values: keyed_digests.hex_digests(digests(values)),
                [VARCHAR], VARCHAR, type="arrow")
            self.macs[name] = f"arxpy_hmac_{i}({text})"
            return _identifier(name)
        inner, outer = key.padded_blocks(label)
        self.connection.execute(f"SET VARIABLE arxpy_inner_{i} = ?", [inner])
        self.connection.execute(f"SET VARIABLE arxpy_outer_{i} = ?", [outer])
        self.macs[name] = (f"sha256(getvariable('arxpy_outer_{i}') || unhex(sha256("
                           f"getvariable('arxpy_inner_{i}') || encode({text}))))")
        return _identifier(name)

    def sql(self, scan: str, packed: bool = False) -> str:
        """The treated table's SQL; ``packed``: the chunk's column is the struct of its
        inputs (the caller's function computes it), not its function's result."""
        inner, chunk = scan, self.chunk
        call = chunk.packed() if packed else f"{chunk.function}({chunk.packed()})"
        treated = {chunk.column: call} if chunk.steps else {}
        for layer in (self.macs, self.derived, treated):
            if layer:
                added = ", ".join(f"{sql} AS {_identifier(n)}" for n, sql in layer.items())
                inner = f"(SELECT *, {added} FROM {inner})"
        projected = ", ".join(f"{sql} AS {_identifier(n)}" for n, sql in self.final.items())
        return f"(SELECT {projected} FROM {inner})"


def _rendered(fmt: PseudonymFormat, mac: str, text: str, long: str) -> str:
    """SQL of :meth:`PseudonymFormat.render` from the hex digest ``mac``; numbers beyond
    :data:`SQL_DIGITS` digits by the Arrow function ``long``."""
    if fmt.kind == HEX:
        return f"left({mac}, {fmt.length})"
    if fmt.kind == PREFIX:
        if fmt.length > SQL_DIGITS:
            return f"{long}({mac}, {text})"
        number = _modulo(mac, str(10 ** fmt.length))
        return f"{_literal(fmt.prefix)} || lpad(({number})::VARCHAR, {fmt.length}, '0')"
    assert fmt.kind == DIGITS
    low = f"('1' || repeat('0', length({text}) - 1))::HUGEINT"  # 10^(length - 1)
    return (f"CASE WHEN length({text}) <= {SQL_DIGITS} THEN "
            f"({low} + {_modulo(mac, f'(9 * {low})')})::VARCHAR "
            f"WHEN NOT {_missing(text)} THEN {long}({mac}, {text}) END")


def _modulo(mac: str, modulus: str) -> str:
    """SQL of the 256-bit number ``mac`` (hex) modulo ``modulus`` (below 2^95): Horner's
    scheme over eight 32-bit limbs, each step below 2^127 in ``HUGEINT``."""
    number = "0::HUGEINT"
    for k in range(8):
        limb = f"('0x' || substr({mac}, {8 * k + 1}, 8))::UBIGINT"
        number = f"(({number}) * 4294967296 + {limb}) % {modulus}"
    return number


def _identity(fmt: PseudonymFormat, mac: str, shown: str) -> str:
    """SQL of (MAC bits 64-127, pseudonym identity high, low): the first 4N bits of
    ``hex:N`` (up to 128), else the MD5 of the number's text (128 bits)."""
    word = f"('0x' || substr({mac}, 17, 16))::UBIGINT"
    if fmt.kind == HEX:
        high = f"('0x' || left({mac}, {min(fmt.length, 16)}))::UBIGINT"
        low = "0::UBIGINT" if fmt.length <= 16 else \
            f"('0x' || substr({mac}, 17, {min(fmt.length, 32) - 16}))::UBIGINT"
    else:
        high = f"(md5_number({shown}) >> 64)::UBIGINT"
        low = f"(md5_number({shown}) & {2**64 - 1})::UBIGINT"
    return f"{word}, {high}, {low}"


def _masked(rule: MaskRule, character: str, text: str, python: str) -> str:
    """SQL of :func:`mask_values`: ``keep-first``/``keep-last`` of ASCII values by
    ``translate``; patterns and other values by the Arrow function ``python``."""
    if rule.kind == REGEX:
        return f"{python}({text})"

    def hidden_by(part: str) -> str:
        return f"translate({part}, '{_ALNUM}', {_literal(character * len(_ALNUM))})"

    if rule.kind == KEEP_FIRST:
        kept, hidden = f"left({text}, {rule.count})", f"substr({text}, {rule.count + 1})"
        joined = f"{kept} || {hidden_by(hidden)}"
    else:
        cut = f"greatest(length({text}) - {rule.count}, 0)"
        kept, hidden = f"substr({text}, {cut} + 1)", f"left({text}, {cut})"
        joined = f"{hidden_by(hidden)} || {kept}"
    # no letter or digit hidden: keeping the rest would release the value whole
    ascii_masked = (f"CASE WHEN length(translate({hidden}, '{_ALNUM}', '')) = "
                    f"length({hidden}) THEN {hidden_by(text)} ELSE {joined} END")
    return f"CASE WHEN strlen({text}) = length({text}) THEN {ascii_masked} " \
           f"ELSE {python}({text}) END"


class _Seen:
    """An Arrow function: (MAC bits 64-127, identity high, low) of pseudonyms -> true;
    hands them to the namespace's :class:`_Identities`."""

    def __init__(self, identities: _Identities) -> None:
        self.identities = identities

    def __call__(self, word: Any, high: Any, low: Any) -> Any:
        import pyarrow as pa

        rows = np.column_stack([_combined(a).to_numpy(zero_copy_only=False)
                                for a in (word, high, low)]).astype(np.uint64, copy=False)
        self.identities.add(rows)
        return pa.array(np.ones(len(rows), dtype=bool))


class _Chunk:
    """The treatments computed in Python as one Arrow function per chunk of records: a
    struct of their inputs (patients, dates' positions, values) to their outputs
    (shifted dates, ``hex:N`` pseudonyms, every value present: a missing one is kept
    as it is). Each Arrow function call costs its columns' crossing into Arrow and back
    and a turn on the GIL, about as much as the work at 10^7 records: one call a chunk,
    in place of five, or none when the release's own function computes them
    (:class:`Deferred`).

    Steps run in order on the chunk's fields; a step reads the fields it was given
    and its result becomes a field of its own (computed, or released as a column)."""

    def __init__(self, column: str) -> None:
        self.column = column  # the struct's column in the query
        self.function = ""  # the registered Arrow function's name
        self.inputs: dict[str, tuple[str, str]] = {}  # field: (SQL, DuckDB type name)
        self.steps: list[tuple[str, Any]] = []  # (field, step)
        self.columns: dict[str, str] = {}  # released column: its field

    def input(self, sql: str, type_name: str) -> str:
        """The field carrying ``sql``'s value (one field per distinct SQL)."""
        for field, (known, _) in self.inputs.items():
            if known == sql:
                return field
        field = f"i{len(self.inputs)}"
        self.inputs[field] = (sql, type_name)
        return field

    def computed(self, step: Any) -> str:
        """The field of ``step``'s result, for later steps."""
        field = f"s{len(self.steps)}"
        self.steps.append((field, step))
        return field

    def released(self, step: Any, column: str) -> str:
        """SQL of ``step``'s result (text), the treated ``column``, in the last layer."""
        field = self.computed(step)
        self.columns[column] = field
        return f"struct_extract({_identifier(self.column)}, {_literal(field)})"

    def arguments(self, connection: Any) -> Any:
        from duckdb import sqltypes

        return connection.struct_type({f: getattr(sqltypes, t)
                                       for f, (_, t) in self.inputs.items()})

    def results(self, connection: Any) -> Any:
        from duckdb.sqltypes import VARCHAR

        return connection.struct_type({f: VARCHAR for f in self.columns.values()})

    def packed(self) -> str:
        """SQL of the struct of the inputs."""
        return "struct_pack(" + ", ".join(f"{f} := {sql}" for f, (sql, _)
                                          in self.inputs.items()) + ")"

    def treated(self, batch: Any) -> dict[str, Any]:
        """A struct array of inputs -> each released column's texts, by column."""
        batch = _combined(batch)
        fields = {f: batch.field(f) for f in self.inputs}
        for field, step in self.steps:
            fields[field] = step(fields)
        return {column: fields[field] for column, field in self.columns.items()}

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        treated = self.treated(batch)
        return pa.StructArray.from_arrays(list(treated.values()),
                                          names=[self.columns[c] for c in treated])


class Deferred:
    """Treated columns the release's Arrow function computes itself, from the struct
    of their inputs in the scan's column :attr:`column`: their texts never cross into
    DuckDB and back (a quarter of a 10^7-record write). An error the treatments raise is
    the treatment's failure, as through their own function."""

    def __init__(self, chunk: _Chunk, kept: Any) -> None:
        self.column, self.columns = chunk.column, tuple(chunk.columns)
        self._chunk, self._kept = chunk, kept

    def arguments(self, connection: Any) -> Any:
        """DuckDB's type of the struct of inputs."""
        return self._chunk.arguments(connection)

    def __call__(self, batch: Any) -> dict[str, Any]:
        """A struct array of inputs -> each treated column's texts, by column."""
        return self._kept(self._chunk.treated)(batch)


class _Offsets:
    """A step: patient identifiers -> their offsets in days (int64), drawn from the
    batch kernel's MACs as :func:`offsets_drawn` draws them."""

    def __init__(self, digests: keyed_digests.KeyedDigests, days: int, patients: str
                 ) -> None:
        self.digests, self.days, self.patients = digests, days, patients

    def __call__(self, fields: dict[str, Any]) -> np.ndarray:
        return offsets_drawn(self.digests(fields[self.patients]), self.days)


class _ShiftedDates:
    """A step: (offsets, DuckDB's hashes of dates or dates with a time of day) -> the
    shifted dates, by :class:`_DateTable`."""

    def __init__(self, dates: _DateTable, offsets: str, dated: str) -> None:
        self.dates, self.offsets, self.dated = dates, offsets, dated

    def __call__(self, fields: dict[str, Any]) -> Any:
        offsets = _numbers(fields[self.offsets])
        if self.dates.by_day:
            return self.dates.by_hash(offsets, fields[self.dated])
        return self.dates(offsets, fields[self.dated])


class _HexPseudonyms:
    """A step: values -> their ``hex:N`` pseudonyms from the batch kernel's MACs, a
    missing value kept as it is; hands the present values' identities to the namespace,
    as :class:`_Seen` does for the SQL's."""

    def __init__(self, digests: keyed_digests.KeyedDigests, fmt: PseudonymFormat,
                 identities: _Identities | None, values: str) -> None:
        self.digests, self.fmt, self.identities = digests, fmt, identities
        self.values = values

    def __call__(self, fields: dict[str, Any]) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        values = _combined(fields[self.values])
        macs = self.digests(values)
        missing = _missing_values(values)
        anything_missing = missing.any()
        if self.identities is not None:
            present = macs[~missing] if anything_missing else macs
            self.identities.add(_identity_rows(self.fmt, present, None))
        shown = keyed_digests.hex_digests(macs, self.fmt.length)
        if not anything_missing:
            return shown
        return pc.if_else(pa.array(missing), values.cast(shown.type), shown)


class _LongNumbers:
    """An Arrow function: (hex digests, values) -> numbers longer than :data:`SQL_DIGITS`
    digits, rendered by :meth:`PseudonymFormat.render` (rare: ``prefix:P:N`` with a large
    N, ``digits`` of long values). A value too long for ``digits`` is left empty and
    told to the namespace (``identities``), which refuses the run after the write, in
    the memory engine's order of namespaces (a batch's first refusal would depend on
    the threads)."""

    def __init__(self, fmt: PseudonymFormat, identities: _Identities) -> None:
        self.fmt, self.identities = fmt, identities

    def __call__(self, macs: Any, values: Any) -> Any:
        import pyarrow as pa

        texts = np.array(_combined(values).to_pylist(), dtype=object)
        digests = [bytes.fromhex(m) for m in _combined(macs).to_pylist()]
        long = self.fmt.too_long(texts)
        if long.any():
            self.identities.too_long = True
            texts[long], digests = "", [b"" if x else d for x, d in zip(long, digests,
                                                                       strict=True)]
        return pa.array(self.fmt.render(digests, texts), type=pa.string())


class _Masks:
    """An Arrow function: values -> masked by the memory engine's :func:`mask_values`,
    per batch's distinct values; remembers (by hash) the distinct values a pattern did
    not match, for the report's count."""

    def __init__(self, rule: MaskRule, character: str) -> None:
        self.rule, self.character = rule, character
        self._pattern = re.compile(rule.pattern) if rule.kind == REGEX else None
        self.unmatched: set[int] = set()

    def __call__(self, values: Any) -> Any:
        import pyarrow as pa

        encoded = _combined(values).dictionary_encode()
        distinct = encoded.dictionary.to_pylist()
        masked, unmatched = mask_values(distinct, self.rule, self.character)
        if unmatched:
            self.unmatched.update(hash(v) for v in distinct
                                   if self._pattern.fullmatch(v) is None)
        return pa.array(masked, type=pa.string()).take(encoded.indices)


class _Patients:
    """Each distinct patient's offset, and pseudonym when the patient attribute is
    pseudonymized, computed once as the memory engine computes them, for the chunk's
    look-ups (:class:`_FoundPatients`, :class:`_LookedUp`): a record finds its patient
    by DuckDB's 64-bit ``hash`` of the identifier (:class:`HashPositions`), a tenth of
    the CPU of the two MACs it replaces; two patients sharing one hash, a chance of
    n^2 / 2^65, compute every record's offset and pseudonym instead."""

    def __init__(self, index: HashPositions, offsets: np.ndarray, pseudonyms: Any) -> None:
        self.index, self.offsets, self.pseudonyms = index, offsets, pseudonyms

    @classmethod
    def of(cls, patients: Sequence[str], key: PseudonymKey, days: int,
           pseudonym: tuple[Treatment, PseudonymKey, str, _Identities, str] | None
           ) -> _Patients | None:
        import pyarrow as pa

        texts = pa.array(np.asarray(patients, dtype=object), pa.string())
        index = _hash_index(texts)
        if index is None:
            return None
        # a million patients' MACs: the batch kernel's seconds against Python's minutes
        macs = keyed_digests.KeyedDigests(key, SHIFT_LABEL)(texts)
        shown = None
        if pseudonym is not None:
            shown = _Texts(_patient_pseudonyms(texts, key, pseudonym))
        return cls(index, offsets_drawn(macs, days), shown)


class _FoundPatients:
    """A step: DuckDB's hashes of patient identifiers -> their positions in
    :class:`_Patients`."""

    def __init__(self, patients: _Patients, hashes: str) -> None:
        self.patients, self.hashes = patients, hashes

    def __call__(self, fields: dict[str, Any]) -> np.ndarray:
        return _positions(self.patients.index, fields[self.hashes], "A patient identifier")


class _LookedUp:
    """A step: patients' positions -> their entries of a per-patient column (offsets,
    pseudonyms with missing values kept)."""

    def __init__(self, column: Any, positions: str) -> None:
        self.column, self.positions = column, positions

    def __call__(self, fields: dict[str, Any]) -> Any:
        return self.column.take(fields[self.positions])


def _patient_pseudonyms(texts: Any, key: PseudonymKey,
                        pseudonym: tuple[Treatment, PseudonymKey, str, _Identities, str]
                        ) -> Any:
    """The distinct patients' (an Arrow string array) pseudonyms, missing ones kept, as
    Arrow texts; their identities handed to the namespace: each once, whatever the
    records repeat."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t, _, label, identities, names = pseudonym
    missing = _missing_values(texts)  # a million patients: a tenth of is_missing's time
    if t.format.kind == HEX:  # a million patients: Arrow's texts, no Python string
        macs = keyed_digests.KeyedDigests(key, label)(texts)
        identities.add(_identity_rows(t.format, macs[~missing], None))
        shown = keyed_digests.hex_digests(macs, t.format.length)
        return pc.if_else(pa.array(missing), texts, shown) if missing.any() else shown
    values = texts.to_numpy(zero_copy_only=False).astype(object)
    present = values[~missing]
    t.format.check_values(present, names)
    macs = keyed_digests.KeyedDigests(key, label)(texts.filter(pa.array(~missing)))
    rendered = t.format.render([bytes(m) for m in macs], present)
    identities.add(_identity_rows(t.format, macs, rendered))
    whole = values.copy()
    whole[~missing] = rendered
    return pa.array(whole, type=pa.string())


def _hash_index(texts: Any) -> HashPositions | None:
    """DuckDB's ``hash`` of each text (a sequence or an Arrow string array), as a table
    of their positions; None when two texts share a hash (then find them another way)."""
    import duckdb
    import pyarrow as pa

    if not isinstance(texts, pa.Array):
        texts = pa.array(list(texts), type=pa.string())
    table = pa.table({"v": texts})
    # hash() is the same in every connection; a cursor is one without a new database
    with duckdb.default_connection().cursor() as connection:
        connection.register("arxpy_texts", table)
        hashes = np.asarray(connection.execute(
            "SELECT hash(v) AS h FROM arxpy_texts").fetchnumpy()["h"], dtype=np.uint64)
    return HashPositions.of(hashes)


def _positions(index: HashPositions, hashes: Any, what: str) -> np.ndarray:
    """Where each hash is in ``index``; refused when one is not."""
    at = index.find(_numbers(hashes))
    if (at < 0).any():
        raise ConfigurationError(
            f"{what} was not there when the values were read first: the data changed "
            "during the run. Run it again.")
    return at


def _identity_rows(fmt: PseudonymFormat, macs: np.ndarray, shown: np.ndarray | None
                   ) -> np.ndarray:
    """What :func:`_identity` computes in SQL, from (n, 32) MACs and pseudonyms."""
    rows = np.zeros((len(macs), 3), dtype=np.uint64)
    if not len(macs):
        return rows
    words = np.ascontiguousarray(macs).view(">u8").reshape(len(macs), 4)
    rows[:, 0] = words[:, 1]
    if fmt.kind == HEX:
        for column, word, digits in ((1, 0, min(fmt.length, 16)),
                                     (2, 1, min(fmt.length, 32) - 16)):
            if digits > 0:
                rows[:, column] = words[:, word] >> np.uint64(64 - 4 * digits)
        return rows
    # DuckDB's md5_number reads the digest as a little-endian 128-bit number
    numbers = np.frombuffer(b"".join(hashlib.md5(str(s).encode("utf-8")).digest()
                                     for s in shown), dtype="<u8").reshape(len(shown), 2)
    rows[:, 1], rows[:, 2] = numbers[:, 1], numbers[:, 0]
    return rows


class _Identities:
    """The distinct values a namespace saw, as (MAC bits 64-127, pseudonym identity
    high, low) 64-bit words. The MAC's bits 64-127 stand for the value (two values share
    them with a chance of n^2 / 2^65), the identity for the pseudonym: the MAC's first
    4N bits for ``hex:N`` (up to 128), a number's MD5 (:func:`_identity`). Two values
    with one identity are two values with one pseudonym."""

    def __init__(self, fmt: PseudonymFormat) -> None:
        self.fmt = fmt
        self._parts: list[np.ndarray] = []
        self._rows = 0
        self._compact_at = _COMPACT_ROWS  # grows with the distinct rows: linear time
        self._lock = threading.Lock()
        self.too_long = False  # a value too long for the format was seen

    def add(self, rows: np.ndarray) -> None:
        """Keep ``rows``, an (n, 3) uint64 array of (MAC bits 64-127, identity high, low)."""
        if not len(rows):
            return
        with self._lock:  # DuckDB's threads call in turn, but may interleave
            self._parts.append(rows)
            self._rows += len(rows)
            if self._rows > self._compact_at:
                before = self._rows
                self._compact()
                # values that hardly repeat (a record's own identifier) are hashed again
                # at each doubling for little: wait for four times as many then
                growth = 2 if 4 * self._rows < 3 * before else 4
                self._compact_at = max(_COMPACT_ROWS, growth * self._rows)

    def _whole(self) -> np.ndarray:
        whole = np.concatenate(self._parts) if self._parts else np.zeros((0, 3), np.uint64)
        self._parts = [whole]
        return whole

    def _compact(self) -> None:
        whole = self._whole()
        first = first_seen(whole[:, 0])
        if first is not None:
            whole = whole[first]
        self._parts, self._rows = [whole], len(whole)

    def distinct(self) -> int:
        """How many distinct values were seen."""
        self._compact()
        return self._rows

    def refuse_collisions(self, names: str) -> None:
        first_words = np.concatenate([p[:, 1] for p in self._parts]) if self._parts else \
            np.zeros(0, np.uint64)  # a third of the rows' bytes: no copy of the rest
        if first_seen(first_words) is None:  # no identity's first word twice
            return
        self._compact()
        (whole,) = self._parts
        one_word = not whole[:, 2].any()
        met = first_seen(whole[:, 1]) is not None if one_word else \
            bool(pd.DataFrame(whole[:, 1:]).duplicated().any())
        if met:  # the memory engine's message, with its counts
            identity = whole[:, 1] if one_word else \
                np.array([f"{a}:{b}" for a, b in whole[:, 1:]], dtype=object)
            _refuse_collisions(np.asarray(identity, dtype=object), self.fmt, names)


class _DateTable:
    """Shifts dates in the column's format, for the chunk's Arrow function.

    Dates without a time of day are looked up (:meth:`by_hash`): each date's position
    among the distinct dates is found by DuckDB's ``hash`` of it (:class:`HashPositions`:
    less CPU than a cast to an ``ENUM`` of them), and every day from the earliest date
    minus the widest shift to the latest plus it is written once, as the memory engine
    writes it. Dates with a time are shifted per
    batch by the memory engine's own function (:meth:`__call__`).
    """

    def __init__(self, distinct: pd.Series, date_format: str, days: int) -> None:
        self.date_format = date_format
        # validates every distinct value, as the memory engine does (refused with a count)
        _shift_column(distinct, np.ones(len(distinct), np.int64), date_format, days)
        self._found = None if any(d in date_format for d in _TIME_DIRECTIVES) else \
            _hash_index(distinct.tolist())
        self.by_day = self._found is not None  # else (or two dates sharing a hash) per batch
        if not self.by_day:
            return
        import pyarrow as pa

        from arxpy.data.definition import DataKind
        from arxpy.data.types import parse_values

        parsed = parse_values(distinct, DataType(DataKind.DATE, date_format))
        present = ~np.isnat(parsed)
        day = parsed.astype("datetime64[D]").astype(np.int64)
        low = int(day[present].min()) - days if present.any() else 0
        high = int(day[present].max()) + days if present.any() else 0
        # days after the table's first, below any offset's reach where a date is missing
        self._from_first = np.where(present, day - low, -4 * days - 1)
        self._missing = pa.array(distinct[~present].tolist(), type=pa.string())
        self._missing_at = np.cumsum(~present) - 1  # where a missing date is in _missing
        span = np.arange(low, high + 1, dtype=np.int64).astype("datetime64[D]")
        self._written = _Texts(pa.array(pd.Series(span.astype("datetime64[s]")).dt.strftime(
            date_format).to_numpy(dtype=object), type=pa.string()))

    def by_hash(self, offsets: Any, hashes: Any) -> Any:
        """(offsets, DuckDB's hashes of the dates) -> shifted dates, a missing date kept
        as it is; no text crosses."""
        import pyarrow as pa
        import pyarrow.compute as pc

        positions = self._found.find(_numbers(hashes))
        if (positions < 0).any():  # the data changed since the dates were read
            raise ConfigurationError(
                "A date of a shifted attribute was not there when the dates were read: the "
                "data changed during the run. Run it again.")
        shifted = self._from_first[positions] + _numbers(offsets)
        if shifted.min(initial=0) >= 0:  # no date missing: no mask to build
            return self._written.take(shifted)
        missing = shifted < 0
        kept = self._missing.take(np.where(missing, self._missing_at[positions], 0))
        return pc.if_else(pa.array(missing), kept, self._written.take(
            np.maximum(shifted, 0)))

    def __call__(self, offsets: Any, dates: Any) -> Any:
        """(offsets, dates with a time of day) -> shifted dates."""
        import pyarrow as pa

        offsets = _numbers(offsets)
        values = pd.Series(_combined(dates).to_numpy(zero_copy_only=False), dtype=object)
        return pa.array(_shift_column(values, offsets, self.date_format).to_numpy(),
                        type=pa.string())


class _Texts:
    """Texts taken by position, as Arrow's ``take``; texts of one width in bytes (dates in
    one format, ``hex:N`` pseudonyms) as one NumPy gather of their bytes (a third of
    ``take``'s time from a few thousand dates)."""

    def __init__(self, texts: Any) -> None:
        self._texts, self._bytes = texts, None
        n = len(texts)
        if not n or texts.null_count:
            return
        _, offsets, data = texts.buffers()
        offsets = np.frombuffer(offsets, np.int32, n + 1, texts.offset * 4)
        width = int(offsets[1] - offsets[0])
        if width and (np.diff(offsets) == width).all():
            self._bytes = np.frombuffer(data, np.uint8)[offsets[0]:offsets[-1]].reshape(n, width)

    def take(self, positions: np.ndarray, missing: np.ndarray | None = None) -> Any:
        """The texts at ``positions``, null where ``missing``."""
        import pyarrow as pa

        if self._bytes is None:
            return self._texts.take(pa.array(positions, mask=missing))
        n, width = len(positions), self._bytes.shape[1]
        validity = None if missing is None else \
            pa.py_buffer(np.packbits(~missing, bitorder="little"))
        return pa.Array.from_buffers(
            pa.string(), n, [validity, pa.py_buffer(np.arange(0, width * n + 1, width,
                                                              dtype=np.int32)),
                             pa.py_buffer(self._bytes[positions])],
            null_count=-1 if missing is not None else 0)


def _combined(array: Any) -> Any:
    return array.combine_chunks() if hasattr(array, "combine_chunks") else array


def _missing_values(values: Any) -> np.ndarray:
    """:func:`is_missing` of an Arrow string array's values, read from its buffers (the
    SQL's regular expression cost as much as a MAC): a value longer than every missing
    spelling that starts and ends with printable ASCII is whole after ``str.strip``, so
    present; only the others (:func:`unsure_texts`: short ones, odd ends) are asked."""
    import pyarrow as pa

    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = values.cast(pa.large_string())  # e.g. a string view: other buffers
    n = len(values)
    _, offsets, data = values.buffers()
    width = np.dtype(np.int32 if pa.types.is_string(values.type) else np.int64)
    offsets = np.frombuffer(offsets, dtype=width, count=n + 1,
                            offset=values.offset * width.itemsize)
    data = np.frombuffer(data, np.uint8) if data is not None else np.zeros(1, np.uint8)
    unsure = unsure_texts(offsets, data, _LONGEST_MISSING)
    missing = np.zeros(n, dtype=bool)
    if unsure.any():
        missing[unsure] = is_missing(values.filter(pa.array(unsure)).to_pylist())
    return missing


def _numbers(array: Any) -> np.ndarray:
    """An Arrow array (or a NumPy one) as NumPy."""
    if isinstance(array, np.ndarray):
        return array
    return _combined(array).to_numpy(zero_copy_only=False)


class _Unused:
    """Names for helper columns that no column of the data has."""

    def __init__(self, taken: Sequence[str]) -> None:
        self._taken = set(taken)

    def __call__(self, name: str) -> str:
        while name in self._taken:
            name += "_"
        self._taken.add(name)
        return name
