"""Per-patient date shifting: every date of one patient moves by the same number of days.

The offset of a patient is drawn from HMAC-SHA-256(key, ``"arxpy date shift v1"`` NUL
patient identifier): uniform over -N..-1 and 1..N days (never 0, so no patient keeps
true dates). The same key and identifier give the same offset in every table and run,
so intervals within a patient are kept exactly, also across the tables of one release.
Shifting happens before generalization: shifted dates are then generalized and
checked like any other value. A missing patient identifier is one identifier of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.data.definition import DataKind, DataType
from arxpy.data.types import infer_data_type, parse_values, validate_values
from arxpy.errors import ConfigurationError
from arxpy.identifiers.keys import PseudonymKey

SHIFT_LABEL = "arxpy date shift v1"
#: The widest shift offered: ten years each way.
MAX_SHIFT_DAYS = 3650


@dataclass(frozen=True)
class DateShift:
    """Shift the dates of ``attributes`` by each ``patient``'s offset within ±``days``."""

    attributes: tuple[str, ...]
    patient: str
    days: int

    def __post_init__(self) -> None:
        if not self.attributes:
            raise ConfigurationError("Name the date attributes to shift (--date-shift ATTR).")
        if isinstance(self.days, bool) or not isinstance(self.days, int) \
                or not 1 <= self.days <= MAX_SHIFT_DAYS:
            raise ConfigurationError(
                f"The date shift must be a whole number of days from 1 to {MAX_SHIFT_DAYS} "
                f"(--shift-days N); got {self.days!r}.")
        if self.patient in self.attributes:
            raise ConfigurationError(
                f"'{self.patient}' is the patient attribute; it cannot also be a date to "
                "shift.")
        if len(set(self.attributes)) != len(self.attributes):
            raise ConfigurationError("A date attribute is named twice in --date-shift.")

    def to_dict(self) -> dict:
        return {"attributes": list(self.attributes), "patient": self.patient,
                "days": self.days, "range_days": [-self.days, self.days],
                "zero_excluded": True}

    @classmethod
    def from_dict(cls, record: dict) -> DateShift:
        return cls(tuple(record["attributes"]), record["patient"], int(record["days"]))


def patient_offsets(key: PseudonymKey, patients: list[str], days: int) -> np.ndarray:
    """The offset in days (int64, ±1..±``days``) of each patient identifier."""
    macs = key.digests(SHIFT_LABEL, patients)
    return offsets_drawn(np.frombuffer(b"".join(macs), dtype=np.uint8).reshape(-1, 32), days)


def offsets_drawn(macs: np.ndarray, days: int) -> np.ndarray:
    """The offsets (int64, ±1..±``days``) drawn from patients' MACs under
    :data:`SHIFT_LABEL`, an (n, 32) uint8 array: the first 64 bits modulo 2N."""
    if not len(macs):
        return np.zeros(0, np.int64)
    draws = np.ascontiguousarray(macs[:, :8]).view(">u8")[:, 0] % np.uint64(2 * days)
    draws = draws.astype(np.int64)  # 2^64 mod 2N leaves a bias below 2^-50: negligible
    return np.where(draws < days, draws - days, draws - days + 1)


def shift_dates(frame: pd.DataFrame, shift: DateShift, key: PseudonymKey,
                data_types: dict[str, DataType]) -> dict[str, pd.Series]:
    """The shifted column of each date attribute (same format; missing values kept).

    ``data_types`` give each attribute's declared type; a date attribute without a date
    type is read in the format its values have.
    """
    codes, patients = pd.factorize(frame[shift.patient].astype(str), sort=False)
    offsets = patient_offsets(key, [str(p) for p in patients], shift.days)[codes]
    return {name: _shift_column(frame[name], offsets,
                                date_format_of(frame[name], data_types.get(name), name),
                                shift.days)
            for name in shift.attributes}


def date_format_of(values: pd.Series, declared: DataType | None, attribute: str) -> str:
    """The declared date format of ``attribute``, else the one its values have."""
    data_type = declared if declared is not None and declared.kind is DataKind.DATE \
        else infer_data_type(values)
    if data_type.kind is not DataKind.DATE:
        raise ConfigurationError(
            f"The values of '{attribute}' are not dates in a format arxpy recognizes, so "
            "they cannot be shifted; declare its date format (--type ATTR=date:%Y-%m-%d).")
    date_format = data_type.format or ""
    if "%d" not in date_format and "%j" not in date_format:
        raise ConfigurationError(
            f"The dates of '{attribute}' ({date_format}) have no day, so a shift by days "
            "would not keep intervals; shift a date attribute with days.")
    return date_format


def shiftable_dates(distinct: pd.Series, date_format: str, days: int | None = None
                    ) -> np.ndarray:
    """The dates (datetime64, NaT where missing) of the distinct values of a column to
    shift, named by the Series; refuses values that are not dates in ``date_format`` and,
    with ``days`` (the shift range), dates a shift could move out of four-digit years."""
    date_type = DataType(DataKind.DATE, date_format)
    bad = validate_values(distinct, date_type)
    if bad:  # counted, not listed: the values may identify someone
        raise ConfigurationError(
            f"{len(bad)} distinct values of '{distinct.name}' are not dates in the format "
            f"{date_format}; correct them or declare the format they have.")
    dates = parse_values(distinct, date_type)
    if days is not None:
        _refuse_beyond_years(dates, days, str(distinct.name))
    return dates


#: The first and last day a shifted date may fall on: its year keeps four digits, as the
#: column's format writes them (strftime pads no further, and has no year 10000).
_FIRST_DAY, _LAST_DAY = np.datetime64("1000-01-01", "D"), np.datetime64("9999-12-31", "D")


def _refuse_beyond_years(dates: np.ndarray, days: int, attribute: str) -> None:
    """Refuse dates within ``days`` of the years 1000 and 9999, which a shift could move
    out of the format (whichever their patients' offsets: every engine refuses alike)."""
    day = dates.astype("datetime64[D]")
    day = day[~np.isnat(day)]
    near = (day < _FIRST_DAY + np.timedelta64(days, "D")) | \
        (day > _LAST_DAY - np.timedelta64(days, "D"))
    if near.any():  # counted, not listed
        raise ConfigurationError(
            f"{int(near.sum())} distinct dates of '{attribute}' lie within {days} days of "
            "the years 1000 or 9999 (a placeholder such as 9999-12-31?): shifted, they "
            "could leave the four-digit year. Replace them with an empty cell or correct "
            "them.")


def _shift_column(values: pd.Series, offsets: np.ndarray, date_format: str,
                  days: int | None = None) -> pd.Series:
    """``values`` (dates in ``date_format``) moved by ``offsets`` days; ``days``: the
    shift range, for :func:`shiftable_dates`' check (None: checked before)."""
    codes, uniques = pd.factorize(values, sort=False)
    distinct = pd.Series(uniques, dtype=object, name=values.name)
    dates = shiftable_dates(distinct, date_format, days)[codes]
    shifted = dates + offsets.astype("timedelta64[D]")
    present = ~np.isnat(shifted)
    days, positions = pd.factorize(shifted[present].astype(np.int64), sort=False)
    texts = pd.Series(np.asarray(positions).astype("datetime64[s]")).dt.strftime(date_format)
    out = values.to_numpy(dtype=object, copy=True)
    out[present] = texts.to_numpy(dtype=object)[days]
    return pd.Series(out, index=values.index, name=values.name, dtype=object)
