"""Top-and-bottom coding of one numeric attribute (ARX's top/bottom coding dialog;
sdcMicro's ``topBotCoding``): values above ``top`` are released as ``>top``, values
below ``bottom`` as ``<bottom``; the rest, and values that are not numbers, as they are.
With ``convention="arx"`` values at or above ``top`` become ``>=top`` and a decimal
attribute's codes show the bound as Java does (``>=40.0``): ARX's labels, compared with
ARX 3.9.2 in docs/top-bottom-coding.md.

It hides outliers (the 104-year-old, the record charge) but bounds no attacker by
itself: its claim says how values were coded, and the verdict calls the release
anonymous only together with a protecting claim. This module is the whole method: the
declaration, the run, the release and its claim's checker (see docs/architecture.md,
"Adding a method").
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from decimal import Decimal

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition, DataKind
from arxpy.errors import ConfigurationError
from arxpy.formatting import plain
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.base import Method
from arxpy.methods.registry import register_method
from arxpy.params import Param
from arxpy.release import Claim, ClaimCheck, Release, register_claim_checker, table_sha256

#: The claim kind this method makes (checked by :func:`check_coding` below).
CODED = "top-bottom-coding"
#: sdcMicro's labels (>top, values above it) or ARX's (>=top, values at or above it).
CONVENTIONS = ("sdcmicro", "arx")


@register_method
class TopBottomCoding(Method):
    """Values of one numeric attribute beyond a threshold become one category."""

    name = "top-bottom-coding"
    label = "Top-and-bottom coding"
    description = ("Releases the values of a numeric attribute above a top code as one "
                   "category (>top) and below a bottom code as another (<bottom).")
    guidance = ("Choose it to hide the extremes of one numeric attribute (very old ages, very "
                "high incomes). It protects no record by itself: combine it with a privacy "
                "model.")
    reference = "Hundepool et al. (2012), Statistical Disclosure Control, §3.4.2"
    params = (
        Param("attribute", "attribute", label="attribute",
              help="the numeric attribute to code"),
        Param("top", "float", None, optional=True, label="top code",
              help="values above it are released as >top"),
        Param("bottom", "float", None, optional=True, label="bottom code",
              help="values below it are released as <bottom"),
        Param("convention", "choice", "sdcmicro", choices=CONVENTIONS, label="convention",
              help="sdcmicro: values above the top code become >top; arx: values at or "
                   "above it become >=top and decimal codes read as ARX's (>=40.0)"),
    )

    attribute: str
    top: float | None
    bottom: float | None
    convention: str

    def __init__(self, *args, **kwargs) -> None:  # noqa: D107
        super().__init__(*args, **kwargs)
        if self.top is None and self.bottom is None:
            raise ConfigurationError(f"{self.owner_name()}: give a top code, a bottom code "
                                     "or both.")
        if self.top is not None and self.bottom is not None and self.bottom > self.top:
            raise ConfigurationError(f"{self.owner_name()}: the bottom code "
                                     f"{plain(self.bottom)} lies above the top code "
                                     f"{plain(self.top)}.")

    def run(self, data: pd.DataFrame, definition: DataDefinition, *,
            hierarchies: Mapping[str, Hierarchy] | None = None,
            progress: Progress | None = None, cancel: CancelToken | None = None) -> Release:
        started = time.perf_counter()
        report = progress or (lambda fraction, message: None)
        definition.check_columns(data.columns)
        if self.attribute not in data.columns or self.attribute in definition.identifying:
            raise ConfigurationError(
                f"{self.owner_name()}: '{self.attribute}' is not a released attribute of "
                "this table.")
        report(0.0, f"Coding {self.attribute}")
        table = data.drop(columns=definition.identifying)
        codes = Codes(self.top, self.bottom, self.convention,
                      _is_decimal(definition, self.attribute))
        table[self.attribute] = codes.apply(table[self.attribute])
        release = Release(
            table=table, suppressed=np.zeros(len(data), dtype=bool), definition=definition,
            method=self.name, parameters=self.get_params(), claims=(self._claim(),),
            input_sha256=table_sha256(data, cancel),
            elapsed_seconds=time.perf_counter() - started)
        if cancel is not None:  # cancelled meanwhile: nothing is returned
            cancel.raise_if_cancelled()
        report(1.0, "Done")
        return release

    def _claim(self) -> Claim:
        above = "at or above" if self.convention == "arx" else "above"
        bounds = [f"{above} {plain(self.top)}" if self.top is not None else "",
                  f"below {plain(self.bottom)}" if self.bottom is not None else ""]
        return Claim(CODED, {"attribute": self.attribute, "top": self.top,
                             "bottom": self.bottom, "convention": self.convention},
                     (self.attribute,),
                     f"no value of {self.attribute} is released "
                     + " or ".join(b for b in bounds if b))


class Codes:
    """The two codes of one configuration: which numbers they replace and their labels."""

    def __init__(self, top: float | None, bottom: float | None, convention: str = "sdcmicro",
                 decimal: bool = False) -> None:
        self.top, self.bottom, self.arx = top, bottom, convention == "arx"
        # ARX formats a decimal bound with Java's Double.toString (40.0), an integer plainly.
        text = java_double if self.arx and decimal else plain
        self.top_label = None if top is None else (">=" if self.arx else ">") + text(top)
        self.bottom_label = None if bottom is None else "<" + text(bottom)

    def above(self, numbers: np.ndarray) -> np.ndarray:
        if self.top is None:
            return np.zeros(numbers.shape, dtype=bool)
        return numbers >= self.top if self.arx else numbers > self.top

    def below(self, numbers: np.ndarray) -> np.ndarray:
        if self.bottom is None:
            return np.zeros(numbers.shape, dtype=bool)
        return numbers < self.bottom

    def apply(self, values: pd.Series) -> pd.Series:
        """``values`` with the numbers beyond the codes replaced by their labels."""
        numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
        out = values.astype(object).to_numpy(copy=True)
        out[self.above(numbers)] = self.top_label
        out[self.below(numbers)] = self.bottom_label
        return pd.Series(out, index=values.index, name=values.name, dtype=object)


def java_double(value: float) -> str:
    """``value`` as Java's ``Double.toString`` writes it: 40.0, 18.5, 1.0E7, 1.5E-4."""
    number = float(value)
    if number == 0:
        return "0.0"
    if 1e-3 <= abs(number) < 1e7:
        return repr(number)  # both write the shortest digits, with ".0" when integral
    exact = Decimal(repr(number)).normalize()
    digits = "".join(map(str, exact.as_tuple().digits))
    sign = "-" if number < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exact.adjusted()}"


def _is_decimal(definition: DataDefinition, attribute: str) -> bool:
    return attribute in definition and definition[attribute].data_type.kind == DataKind.DECIMAL


@register_claim_checker(CODED, protects=False)
def check_coding(release: Release, claim: Claim) -> ClaimCheck:
    """Every released value is a code or, if a number, within [bottom, top]."""
    name = claim.parameters["attribute"]
    if name not in release.table.columns:
        return ClaimCheck(claim, None, f"'{name}' is not in the release")
    codes = Codes(claim.parameters.get("top"), claim.parameters.get("bottom"),
                  claim.parameters.get("convention", "sdcmicro"),
                  _is_decimal(release.definition, name))
    values = release.released()[name].astype(str)
    labels = {codes.top_label, codes.bottom_label} - {None}
    numbers = pd.to_numeric(values.where(~values.isin(labels)), errors="coerce").to_numpy()
    count = int(np.count_nonzero(codes.above(numbers) | codes.below(numbers)))
    coded = int(values.isin(labels).sum())
    return ClaimCheck(claim, count == 0,
                      f"{coded:,} values coded, {count:,} released beyond the codes")
