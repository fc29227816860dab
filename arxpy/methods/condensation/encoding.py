"""Tables to numeric matrices and back, in the recipient's own data space.

Gal et al. require the output to keep "their standard variables with their original
permissible values" (L151-152): no PCA-space output. Categoricals become *full* one-hot
blocks (spec §7.4 [I], not L-1 dummies), so the synthetic dummies of a cluster still sum
to exactly 1 and argmax decoding is well defined; integers are rounded and clipped to the
observed range, continuous values clipped (spec §2.2 decision 8 [I]). Clipping is counted.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition, DataKind, DataType
from arxpy.data.types import infer_data_type, is_missing, parse_values
from arxpy.data.value_checks import codes_warning
from arxpy.errors import ConfigurationError

#: How an attribute is encoded and decoded.
ATTRIBUTE_KINDS = ("categorical", "integer", "continuous")

#: Largest magnitude of a numeric value: the methods square values and sum the squares
#: over all records (variances, covariances, distances), which overflows a float near
#: 1e154; no measurement in any unit comes near this bound.
MAX_MAGNITUDE = 1e100


@dataclass(frozen=True)
class Block:
    """One attribute's columns in the encoded matrix."""

    name: str
    kind: str
    start: int
    stop: int
    #: The category of each one-hot column (categorical only).
    levels: tuple[str, ...] = ()
    low: float = 0.0
    high: float = 0.0

    @property
    def columns(self) -> slice:
        return slice(self.start, self.stop)


@dataclass(frozen=True)
class Encoded:
    """The attributes as one float matrix (rows = records) and how to read it back."""

    matrix: np.ndarray
    blocks: tuple[Block, ...]

    def block(self, name: str) -> Block:
        for block in self.blocks:
            if block.name == name:
                return block
        raise ConfigurationError(f"Attribute '{name}' is not among the condensed attributes.")


def attribute_kind(frame: pd.DataFrame, definition: DataDefinition, name: str,
                   types: Mapping[str, str]) -> str:
    """The encoding of one attribute: the user's choice, else the data type, else inferred.

    [I] A fresh import (:meth:`DataDefinition.for_columns`) types every column as
    string, so when *no* attribute of the definition has another type, a column whose
    values all parse as numbers is treated as numeric: integer when every value is
    integral, also when written as ``5.0`` (pandas and R exports), so the release stays
    in the integer domain. A numeric column with few distinct values gets a
    :class:`~arxpy.data.value_checks.CategoricalCodesWarning`. A definition that types anything
    declared its strings on purpose: they stay categorical (identifiers such as a ZIP
    code or a hospital ID keep their leading zeros) unless ``types`` says otherwise.
    Values with leading zeros ("0123") are never inferred as numbers: they are codes,
    and a number would drop the zeros.
    """
    if name in types:
        return types[name]
    data_type = definition[name].data_type if name in definition else DataType()
    if data_type.kind is DataKind.STRING and not _types_anything(definition) \
            and not _has_leading_zeros(frame[name]):
        data_type = infer_data_type(frame[name])
        warning = codes_warning(name, frame[name]) if data_type.is_numeric else None
        if warning is not None:  # inferred as numbers: say they may be codes
            warnings.warn(warning, stacklevel=3)
    if data_type.kind is DataKind.INTEGER:
        return "integer"
    if data_type.kind is DataKind.DECIMAL:
        return "continuous"
    return "categorical"


def _types_anything(definition: DataDefinition) -> bool:
    return any(a.data_type.kind is not DataKind.STRING for a in definition)


def _has_leading_zeros(column: pd.Series) -> bool:
    """Some value is a zero followed by a digit ("007", "-0123"): a code, not a number."""
    values = pd.Series(pd.unique(column.astype(str)), dtype=object).str.strip()
    return bool(values.str.match(r"^[+-]?0\d").any())


def encode(frame: pd.DataFrame, definition: DataDefinition, attributes: Sequence[str],
           types: Mapping[str, str]) -> Encoded:
    """The named attributes of ``frame`` as a float matrix (categoricals one-hot)."""
    blocks: list[Block] = []
    parts: list[np.ndarray] = []
    start = 0
    for name in attributes:
        kind = attribute_kind(frame, definition, name, types)
        if kind == "categorical":
            codes, levels = pd.factorize(frame[name].astype(str), sort=True)
            part = np.zeros((len(frame), len(levels)))
            part[np.arange(len(frame)), codes] = 1.0
            block = Block(name, kind, start, start + len(levels), tuple(map(str, levels)))
        else:
            values = _numbers(frame[name], definition, name, kind)
            part = values[:, None]
            low, high = (float(values.min()), float(values.max())) if len(values) else (0, 0)
            block = Block(name, kind, start, start + 1, (), low, high)
        blocks.append(block)
        parts.append(part)
        start = block.stop
    matrix = np.hstack(parts) if parts else np.zeros((len(frame), 0))
    return Encoded(np.ascontiguousarray(matrix, dtype=np.float64), tuple(blocks))


def _numbers(column: pd.Series, definition: DataDefinition, name: str, kind: str) -> np.ndarray:
    missing = is_missing(column)
    if missing.any():
        raise ConfigurationError(
            f"Attribute '{name}' has {int(missing.sum())} missing values; condensation needs "
            "a value in every record of a numeric attribute. Fill or remove them, or declare "
            "the attribute categorical.")
    data_type = definition[name].data_type if name in definition else DataType()
    if not data_type.is_numeric:
        data_type = DataType(DataKind.INTEGER if kind == "integer" else DataKind.DECIMAL)
    try:
        values = np.asarray(parse_values(column.rename(name), data_type), dtype=np.float64)
    except Exception as exc:  # DefinitionError: say which setting to change
        raise ConfigurationError(f"{exc} Or declare '{name}' categorical.") from None
    _check_magnitudes(values, column, name)
    return values


def _check_magnitudes(values: np.ndarray, column: pd.Series, name: str) -> None:
    """Refuse infinite values and values beyond :data:`MAX_MAGNITUDE` (they overflow)."""
    bad = ~(np.abs(values) <= MAX_MAGNITUDE)  # NaN counts as bad too
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ConfigurationError(
            f"Attribute '{name}' holds {column.iloc[row]!r} (row {row + 1}); condensation "
            f"computes variances and distances and works with numbers of magnitude up to "
            f"{MAX_MAGNITUDE:g}. Rescale the attribute (another unit) or declare it "
            "categorical.")


def decode(raw: np.ndarray, encoded: Encoded, clip: bool = True
           ) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """Permissible values per attribute from a raw synthetic matrix, and clip counts.

    Categorical: the level with the largest dummy. Integer: rounded, then clipped to the
    observed [min, max]. Continuous: clipped to the observed [min, max] unless ``clip``
    is false. Returns (values by attribute, number of clipped values by attribute).
    """
    values: dict[str, np.ndarray] = {}
    clipped: dict[str, int] = {}
    for block in encoded.blocks:
        part = raw[:, block.columns]
        if block.kind == "categorical":
            values[block.name] = np.asarray(block.levels, dtype=object)[part.argmax(axis=1)]
            clipped[block.name] = 0
            continue
        column = np.rint(part[:, 0]) if block.kind == "integer" else part[:, 0].copy()
        if block.kind == "integer" or clip:
            outside = (column < block.low) | (column > block.high)
            clipped[block.name] = int(outside.sum())
            column = np.clip(column, block.low, block.high)
        else:
            clipped[block.name] = 0
        values[block.name] = column
    return values, clipped


def as_text(values: np.ndarray, kind: str) -> np.ndarray:
    """Decoded values as the strings arxpy tables hold."""
    if kind == "categorical":
        return values.astype(object)
    if kind == "integer":
        return values.astype(np.int64).astype(str).astype(object)
    return np.char.mod("%.10g", values).astype(object)
