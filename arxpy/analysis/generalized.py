"""Numbers from generalized values: what statistics of an output can honestly use.

A generalized numeric attribute holds labels such as ``[20, 30[`` instead of ages. The
rule arxpy applies (and the Utility perspective states next to every figure):

* a plain number stands for itself;
* a bounded interval ``[a, b[`` / ``[a, b]`` / ``]a, b]`` / ``]a, b[`` stands for its
  midpoint ``(a + b) / 2`` in the *estimates* (mean, standard deviation, quartiles,
  minimum, maximum), and for its bounds in the *bounds* of the mean: the true mean of the
  records lies between the mean of the lower bounds and that of the upper bounds;
* anything else - ``*``, a suppressed record, a masked value such as ``7850*``, an
  open-ended label such as ``<10`` or ``>=90``, a missing value - carries no number and
  is left out; how many values were left out is reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_PLAIN = re.compile(rf"^\s*({_NUMBER})\s*$")
_INTERVAL = re.compile(rf"^\s*[\[\]\(]\s*({_NUMBER})\s*[,;]\s*({_NUMBER})\s*[\[\]\)]\s*$")


@dataclass(frozen=True)
class NumericReading:
    """Each value read as a number range: ``low <= true value <= high`` (NaN: no number)."""

    low: np.ndarray  # float64
    high: np.ndarray  # float64
    interval: np.ndarray  # bool: the value was an interval (low < high possible)

    @property
    def midpoint(self) -> np.ndarray:
        return (self.low + self.high) / 2.0

    @property
    def numeric(self) -> np.ndarray:
        """True where the value carries a number (plain or bounded interval)."""
        return ~np.isnan(self.low)


def _read_label(label: str) -> tuple[float, float, bool]:
    plain = _PLAIN.match(label)
    if plain:
        value = float(plain.group(1))
        return value, value, False
    interval = _INTERVAL.match(label)
    if interval:
        low, high = float(interval.group(1)), float(interval.group(2))
        if low <= high:
            return low, high, True
    return np.nan, np.nan, False


def read_numeric(values: pd.Series | Sequence[str]) -> NumericReading:
    """Read each value as a number or a bounded interval (see the module's rule).

    Works on the distinct values, so a column of any length costs its distinct labels.
    """
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    parsed = np.array([_read_label(str(u)) for u in uniques], dtype=float).reshape(-1, 3)
    low, high, interval = parsed[codes, 0], parsed[codes, 1], parsed[codes, 2].astype(bool)
    return NumericReading(low, high, interval)
