"""Top-and-bottom coding of one numeric attribute (ARX's top/bottom coding dialog;
sdcMicro's ``topBotCoding``): values above ``top`` are released as ``>top``, values
below ``bottom`` as ``<bottom``; the rest, and values that are not numbers, as they are.

It hides outliers (the 104-year-old, the record charge) but bounds no attacker by
itself: its claim says how values were coded, and the verdict calls the release
anonymous only together with a protecting claim. This module is the whole method: the
declaration, the run, the release and its claim's checker (see docs/architecture.md,
"Adding a method").
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
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
    )

    attribute: str
    top: float | None
    bottom: float | None

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
        table[self.attribute] = code_values(table[self.attribute], self.top, self.bottom)
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
        bounds = [f"above {plain(self.top)}" if self.top is not None else "",
                  f"below {plain(self.bottom)}" if self.bottom is not None else ""]
        return Claim(CODED, {"attribute": self.attribute, "top": self.top,
                             "bottom": self.bottom}, (self.attribute,),
                     f"no value of {self.attribute} is released "
                     + " or ".join(b for b in bounds if b))


def top_label(top: float) -> str:
    return f">{plain(top)}"


def bottom_label(bottom: float) -> str:
    return f"<{plain(bottom)}"


def code_values(values: pd.Series, top: float | None, bottom: float | None) -> pd.Series:
    """``values`` with numbers above ``top`` and below ``bottom`` replaced by their codes."""
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    out = values.astype(object).to_numpy(copy=True)
    if top is not None:
        out[numbers > top] = top_label(top)
    if bottom is not None:
        out[numbers < bottom] = bottom_label(bottom)
    return pd.Series(out, index=values.index, name=values.name, dtype=object)


@register_claim_checker(CODED, protects=False)
def check_coding(release: Release, claim: Claim) -> ClaimCheck:
    """Every released value is a code or, if a number, within [bottom, top]."""
    name = claim.parameters["attribute"]
    if name not in release.table.columns:
        return ClaimCheck(claim, None, f"'{name}' is not in the release")
    top, bottom = claim.parameters.get("top"), claim.parameters.get("bottom")
    values = release.released()[name].astype(str)
    codes = {top_label(top) if top is not None else None,
             bottom_label(bottom) if bottom is not None else None}
    numbers = pd.to_numeric(values.where(~values.isin(codes)), errors="coerce")
    beyond = ((numbers > top) if top is not None else False) | \
        ((numbers < bottom) if bottom is not None else False)
    count = int(np.count_nonzero(beyond))
    coded = int(values.isin(codes).sum())
    return ClaimCheck(claim, count == 0,
                      f"{coded:,} values coded, {count:,} released beyond the codes")
