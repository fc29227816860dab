"""Missing values, data-type inference, validation and parsing of string columns.

Tables hold strings exactly as read; this module decides what those strings mean.
Every function works on the *distinct* values of a column (``pandas.factorize``) and
maps the result back with integer codes, so a million records cost little more than
their distinct values.

Rules (all documented choices, shown to users by the GUI):

- Missing: after stripping surrounding whitespace and ignoring case, a value in
  :data:`MISSING_VALUES` (empty, ``NA``, ``N/A``, ``NaN``, ``NULL``, ``?``) is missing.
  Missing values stay in the table as their own string; they are only skipped here.
- Surrounding whitespace is ignored when parsing numbers and dates (``" 39"`` is 39).
- Integer: optional sign and ASCII digits, optionally followed by a point and zeros
  (``5.0``, ``5.``): pandas and R write integer columns that way once a value is
  missing, and the values are still integers. Decimal: ``.`` as decimal separator with an
  optional exponent, or - when no value contains a ``.`` and some value is ``d,d`` -
  ``,`` as decimal separator (``DataType(DECIMAL, format=",")``). Thousands separators
  are not recognized (``1,234,567`` is a string).
- Date: the first format of :data:`DATE_FORMATS` under which every value parses.
  ``%m/%d/%Y`` is tried before ``%d/%m/%Y``, so the data decide: a first field above
  12 rules out month-first. Eight-digit integers are dates (``%Y%m%d``) only when every
  value is a valid date in the years 1900-2099; otherwise they stay integers.
- Ordinal is never inferred: the order comes from the user (:func:`ordinal_type`).
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from arxpy.data.definition import DataKind, DataType
from arxpy.errors import DefinitionError

#: Lower-case spellings of a missing value (compared after strip() and lower()).
MISSING_VALUES: frozenset[str] = frozenset({"", "na", "n/a", "nan", "null", "?"})

#: Date formats tried by :func:`infer_data_type`, in order of preference.
DATE_FORMATS: tuple[str, ...] = (
    "%Y-%m-%d",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%d.%m.%Y",
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%d-%m-%Y",
    "%Y/%m/%d",
    "%Y-%m",
)

#: Compact ISO dates; only inferred for 8-digit integers (see module docstring).
COMPACT_DATE_FORMAT = "%Y%m%d"
_COMPACT_YEARS = (1900, 2099)

_INTEGER = r"[+-]?[0-9]+"
_INTEGRAL = r"[+-]?[0-9]+(?:\.0*)?"  # an integer, possibly written as a decimal (5.0)
_DECIMAL_POINT = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_DECIMAL_COMMA = r"[+-]?[0-9]+(?:,[0-9]+)?"
DECIMAL_COMMA = ","  # DataType.format of a decimal column written with a decimal comma
_INTEGER_RE = re.compile(_INTEGER)
_INTEGRAL_RE = re.compile(_INTEGRAL)
_DECIMAL_POINT_RE = re.compile(_DECIMAL_POINT)
_DECIMAL_COMMA_RE = re.compile(_DECIMAL_COMMA)
# A format is first tried on this many distinct values, so string columns fail fast.
_DATE_PROBE = 64


def is_missing(values: pd.Series | Sequence[str]) -> np.ndarray:
    """Boolean array, True where the value is a missing-value spelling."""
    codes, uniques = _factorize(values)
    flags = np.fromiter(
        (str(u).strip().lower() in MISSING_VALUES for u in uniques), bool, len(uniques)
    )
    return flags[codes] if len(codes) else np.zeros(0, bool)


def ordinal_type(order: Sequence[str]) -> DataType:
    """An ordinal data type whose values rank in the given order (lowest first)."""
    order = [str(v) for v in order]
    seen: set[str] = set()
    for value in order:
        if value in seen:
            raise DefinitionError(
                f"Value '{value}' appears twice in the ordinal order; list each value once."
            )
        seen.add(value)
    if not order:
        raise DefinitionError("An ordinal data type needs the order of its values.")
    return DataType(DataKind.ORDINAL, order=tuple(order))


def infer_data_type(values: pd.Series | Sequence[str]) -> DataType:
    """The most specific data type under which every non-missing value parses.

    Tries integer, decimal, date (formats in :data:`DATE_FORMATS`) and falls back to
    string; a column with no non-missing value is a string. Never returns ordinal.
    """
    _, uniques = _factorize(values)
    # Plain loops over the distinct values: pandas' string methods loop in Python too,
    # and their fixed cost per call dominates on wide tables of few values.
    stripped = (str(u).strip() for u in uniques)
    texts = [t for t in stripped if t.lower() not in MISSING_VALUES]
    if not texts:
        return DataType(DataKind.STRING)
    if _all_match(_INTEGRAL_RE, texts):
        if _all_match(_INTEGER_RE, texts) and _are_compact_dates(texts):
            return DataType(DataKind.DATE, COMPACT_DATE_FORMAT)
        return DataType(DataKind.INTEGER)
    if _all_match(_DECIMAL_POINT_RE, texts):
        return DataType(DataKind.DECIMAL)
    if _all_match(_DECIMAL_COMMA_RE, texts):
        return DataType(DataKind.DECIMAL, DECIMAL_COMMA)
    for date_format in DATE_FORMATS:
        if _all_dates(texts, date_format):
            return DataType(DataKind.DATE, date_format)
    return DataType(DataKind.STRING)


def _all_match(pattern: re.Pattern[str], texts: list[str]) -> bool:
    return all(pattern.fullmatch(t) for t in texts)


def looks_typed(value: str) -> bool:
    """True if a single value is a number or a date in one of :data:`DATE_FORMATS`
    (what :func:`infer_data_type` would find for it alone, missing spellings aside).

    Used to tell a header row (names) from a data row when sniffing files, once per
    header cell: plain ``re`` and ``strptime``, since pandas costs milliseconds a call
    and a header may have thousands of cells.
    """
    text = str(value).strip()
    if text.lower() in MISSING_VALUES:
        return False
    if any(p.fullmatch(text) for p in (_INTEGRAL_RE, _DECIMAL_POINT_RE, _DECIMAL_COMMA_RE)):
        return True
    # Every date format starts with a number: names fail here, without strptime.
    return text[:1].isdigit() and any(_is_date(text, f) for f in DATE_FORMATS)


def _is_date(text: str, date_format: str) -> bool:
    try:
        dt.datetime.strptime(text, date_format)
    except ValueError:
        return False
    return True


def validate_values(
    values: pd.Series | Sequence[str], data_type: DataType, limit: int | None = None
) -> list[tuple[int, str]]:
    """(row, value) for each non-missing value that does not parse under ``data_type``.

    ``row`` is the 0-based position in ``values``. At most ``limit`` entries (all when
    None), in row order. Strings accept everything; an ordinal value that is listed in
    its order is valid even if it spells a missing value.
    """
    codes, uniques = _factorize(values)
    _, invalid = _parse_uniques(uniques, data_type)
    rows = np.flatnonzero(invalid[codes]) if len(codes) else np.zeros(0, np.int64)
    if limit is not None:
        rows = rows[:limit]
    return [(int(r), str(uniques[codes[r]])) for r in rows]


def parse_values(values: pd.Series | Sequence[str], data_type: DataType) -> np.ndarray:
    """Values as numbers for statistics, one per input value.

    Integer/decimal: float64. Date: datetime64[s]. Ordinal: float64 rank in the order
    (0 = lowest). Missing values become NaN (NaT for dates). Raises DefinitionError if a
    value does not parse, or for strings, which have no numeric meaning.
    """
    name = getattr(values, "name", None)
    if data_type.kind in (DataKind.STRING, DataKind.SET):
        raise DefinitionError(
            f"Attribute '{name}' is a {data_type.kind.value}; choose a numeric, date or "
            "ordinal data type to compute numeric statistics."
        )
    codes, uniques = _factorize(values)
    parsed, invalid = _parse_uniques(uniques, data_type)
    if invalid.any():
        bad = [str(u) for u in uniques[invalid][:3]]
        raise DefinitionError(
            f"{int(invalid[codes].sum())} values of attribute '{name}' are not "
            f"{data_type.describe()} (for example {', '.join(repr(b) for b in bad)}); "
            "fix the values or choose another data type."
        )
    return parsed[codes] if len(codes) else parsed[:0]


def format_value(value: object, float_digits: int | None = None) -> str:
    """The string arxpy stores for a typed value read from Excel or a database.

    Integral floats lose the spurious ``.0`` (``3.0`` -> ``"3"``); other floats use
    ``float_digits`` significant digits, or the shortest exact form when None.
    Dates become ISO ``YYYY-MM-DD`` (with `` HH:MM:SS`` when the time is not midnight),
    booleans ``TRUE``/``FALSE``, bytes their hexadecimal digits. ``None`` is not
    handled here (each source has its own rule).
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float | decimal.Decimal):
        return _format_float(float(value), float_digits)
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0) and value.tzinfo is None:
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def canonical_number(text: str, float_digits: int = 15) -> int | float | None:
    """The number ``text`` denotes if :func:`format_value` writes it back identically.

    ``"39"`` -> 39 and ``"1.5"`` -> 1.5, but ``"007"``, ``"1.50"``, ``"1e5"`` -> None, so
    that storing the number instead of the text (for example in Excel, which keeps 15
    significant digits) loses nothing when read back with ``float_digits``.
    """
    number: int | float
    if _INTEGER_RE.fullmatch(text):
        number = int(text)
        return number if str(number) == text and abs(number) < 10**float_digits else None
    if _DECIMAL_POINT_RE.fullmatch(text):
        number = float(text)
        return number if format_value(number, float_digits) == text else None
    return None


def _format_float(value: float, digits: int | None) -> str:
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if digits is None:
        return repr(value)
    return format(value, f".{digits}g")


def _factorize(values: pd.Series | Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and distinct values; None/NaN (not expected) count as ""."""
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    codes, uniques = pd.factorize(series, sort=False)  # NaN gets code -1
    uniques = np.asarray(uniques, dtype=object)
    if len(codes) and codes.min() < 0:
        codes = np.where(codes < 0, len(uniques), codes)
        uniques = np.append(uniques, np.array([""], dtype=object))
    return codes, uniques


def _parse_uniques(uniques: np.ndarray, data_type: DataType) -> tuple[np.ndarray, np.ndarray]:
    """Parsed value and invalid flag for each distinct value."""
    texts = pd.Series([str(u) for u in uniques], dtype=object)
    stripped = texts.str.strip()
    missing = stripped.str.lower().isin(MISSING_VALUES).to_numpy()
    kind = data_type.kind
    if kind in (DataKind.STRING, DataKind.SET):  # every text is a string or a set of codes
        return texts.to_numpy(), np.zeros(len(texts), bool)
    if kind is DataKind.ORDINAL:
        rank = {v: float(i) for i, v in enumerate(data_type.order or ())}
        parsed = np.array([rank.get(t, np.nan) for t in texts], dtype=float)
        return parsed, np.isnan(parsed) & ~missing
    if kind is DataKind.DATE:
        parsed = _parse_dates(stripped.where(~missing, ""), data_type.format or "")
        return parsed, np.isnat(parsed) & ~missing
    parsed = _parse_numbers(stripped, missing, data_type)
    return parsed, np.isnan(parsed) & ~missing


def _parse_numbers(stripped: pd.Series, missing: np.ndarray, data_type: DataType) -> np.ndarray:
    comma = data_type.kind is DataKind.DECIMAL and data_type.format == DECIMAL_COMMA
    if data_type.kind is DataKind.INTEGER:
        pattern = _INTEGRAL
    else:
        pattern = _DECIMAL_COMMA if comma else _DECIMAL_POINT
    ok = stripped.str.fullmatch(pattern).to_numpy(dtype=bool) & ~missing
    if comma:
        stripped = stripped.str.replace(",", ".", regex=False)
    parsed = np.full(len(stripped), np.nan)
    parsed[ok] = stripped[ok].astype(float).to_numpy()
    return parsed


def _parse_dates(texts: pd.Series, date_format: str, first_failure: bool = False) -> np.ndarray:
    """datetime64[s] per text, NaT where it does not parse.

    pandas parses fast but only within 1677-2262; values it rejects are retried with
    ``datetime.strptime`` (years 1-9999), stopping at the first real failure when
    ``first_failure`` is set (enough for inference, which needs every value).
    """
    parsed = pd.to_datetime(texts, format=date_format, errors="coerce")
    result = parsed.to_numpy().astype("datetime64[s]")
    for i in np.flatnonzero(np.isnat(result)):
        try:
            result[i] = np.datetime64(dt.datetime.strptime(texts.iloc[i], date_format), "s")
        except ValueError:
            if first_failure:
                break
    return result


def _all_dates(texts: list[str], date_format: str) -> bool:
    """True if every text parses as a date in ``date_format``."""
    if not _is_date(texts[0], date_format):  # most columns fail here, without pandas
        return False
    series = pd.Series(texts, dtype=object)
    for part in (series.iloc[:_DATE_PROBE], series):
        if np.isnat(_parse_dates(part, date_format, first_failure=True)).any():
            return False
    return True


def _are_compact_dates(texts: list[str]) -> bool:
    if not all(len(t) == 8 for t in texts):
        return False
    parsed = _parse_dates(pd.Series(texts, dtype=object), COMPACT_DATE_FORMAT,
                          first_failure=True)
    if np.isnat(parsed).any():
        return False
    years = parsed.astype("datetime64[Y]").astype(int) + 1970
    return bool(((years >= _COMPACT_YEARS[0]) & (years <= _COMPACT_YEARS[1])).all())
