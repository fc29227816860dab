"""Advice about what a table's values may mean, given as warnings, never as errors.

Two things the data types cannot tell: a numeric column with few distinct values may
hold category codes (sex 1/2, stage 1-4), which methods that average or box numbers
treat as quantities; and one value spelled several ways that differ only by case or
surrounding spaces ("HIV", "hiv", "HIV ") counts as several values, so l-diversity and
the other models over sensitive values count more diversity than there is.

Messages name the attribute and counts only, never values. The command line prints
each :class:`DataWarning` as one ``arxpy: warning:`` line; the import wizard shows them
on its columns page.
"""

from __future__ import annotations

import warnings

import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.data.types import MISSING_VALUES
from arxpy.formatting import plural

#: A numeric column with at most this many distinct values may hold category codes.
CODE_VALUES_LIMIT = 10
#: ... when its records repeat them: on average at least this many records per distinct
#: value (eight ages in a table of eight records are not codes).
CODE_REPEATS = 5


class DataWarning(UserWarning):
    """Something in the data the user should check before releasing it."""


class CategoricalCodesWarning(DataWarning):
    """A numeric attribute whose few distinct values may be category codes."""


class ValueVariantsWarning(DataWarning):
    """Values that differ only by case or surrounding whitespace."""


def code_count(values: pd.Series) -> int:
    """The number of distinct non-missing values if they are few enough to be codes
    (at most :data:`CODE_VALUES_LIMIT`, each repeated :data:`CODE_REPEATS` times on
    average), else 0. Spellings of one number ("5", "5.0") count once."""
    spellings, records = _present(values)
    distinct = pd.to_numeric(spellings, errors="coerce").nunique()
    few = 2 <= distinct <= CODE_VALUES_LIMIT and records >= CODE_REPEATS * distinct
    return int(distinct) if few else 0


def variant_groups(values: pd.Series) -> int:
    """How many values are spelled in several ways that differ only by case or
    surrounding whitespace ("HIV", "hiv", "HIV " are one group of three spellings)."""
    spellings, _ = _present(values)
    counts = spellings.str.strip().str.casefold().value_counts()
    return int((counts > 1).sum())


def codes_warning(name: str, values: pd.Series) -> CategoricalCodesWarning | None:
    """The warning for a column treated as numeric, or None when it is no concern."""
    distinct = code_count(values)
    if not distinct:
        return None
    return CategoricalCodesWarning(
        f"Attribute '{name}' is numeric but holds only {distinct} distinct values; if "
        "they are category codes, declare it categorical (a string), since methods that "
        "average or box numbers treat codes as quantities.")


def variants_warning(name: str, values: pd.Series,
                     sensitive: bool = True) -> ValueVariantsWarning | None:
    """The warning for a column whose values come in case/whitespace variants, or None.

    ``sensitive`` words it for a sensitive attribute (the privacy models' count of
    distinct values); otherwise for any attribute (each spelling is its own value).
    """
    groups = variant_groups(values)
    if not groups:
        return None
    if sensitive:
        return ValueVariantsWarning(
            f"Sensitive attribute '{name}' has {plural(groups, 'value')} spelled in ways that "
            "differ only by case or surrounding spaces; l-diversity and the other "
            "models count each spelling as a distinct value. Unify the spellings in the "
            "source if they mean the same.")
    return ValueVariantsWarning(
        f"Attribute '{name}' has {plural(groups, 'value')} spelled in ways that differ only by "
        "case or surrounding spaces; each spelling counts as a value of its own.")


def warn_sensitive_variants(frame: pd.DataFrame, definition: DataDefinition) -> None:
    """A :class:`ValueVariantsWarning` for each sensitive attribute with variants."""
    for attribute in definition:
        if attribute.type is AttributeType.SENSITIVE and attribute.name in frame:
            warning = variants_warning(attribute.name, frame[attribute.name])
            if warning is not None:
                warnings.warn(warning, stacklevel=2)


def _present(values: pd.Series) -> tuple[pd.Series, int]:
    """The distinct non-missing spellings and the number of records holding one
    (distinct values first: a million records cost little more than their values)."""
    codes, uniques = pd.factorize(values.astype(object).fillna(""), sort=False)
    spellings = pd.Series(uniques, dtype=object).astype(str)
    present = ~spellings.str.strip().str.lower().isin(MISSING_VALUES).to_numpy()
    records = int(present[codes].sum()) if len(codes) else 0
    return spellings[present].reset_index(drop=True), records
