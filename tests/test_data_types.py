"""Missing values, type inference, validation and parsing (arxpy.data.types)."""

from __future__ import annotations

import datetime as dt
import decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.data.definition import DataKind, DataType
from arxpy.data.types import (
    MISSING_VALUES,
    canonical_number,
    format_value,
    infer_data_type,
    is_missing,
    ordinal_type,
    parse_values,
    validate_values,
)
from arxpy.errors import DefinitionError


def _series(*values: str, name: str = "x") -> pd.Series:
    return pd.Series(list(values), dtype=object, name=name)


def test_missing_spellings_ignore_case_and_surrounding_space():
    values = _series("", "NA", "n/a", " NULL ", "null", "?", "NaN", "None", "0", "-", "flu")
    assert is_missing(values).tolist() == [True] * 7 + [False] * 4
    assert {"", "na", "null", "?"} <= MISSING_VALUES


def test_is_missing_maps_back_to_every_record():
    values = pd.Series(["NA", "a"] * 50_000)
    flags = is_missing(values)
    assert flags.shape == (100_000,) and flags.sum() == 50_000 and flags[0] and not flags[1]
    assert is_missing(pd.Series([], dtype=object)).shape == (0,)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["1", "-2", "+3", "NA", ""], DataType(DataKind.INTEGER)),
        ([" 39", "40 "], DataType(DataKind.INTEGER)),
        (["1.5", "2", "-.5", "1e3", "?"], DataType(DataKind.DECIMAL)),
        (["1,5", "2", "NULL"], DataType(DataKind.DECIMAL, ",")),
        (["1.5", "1,5"], DataType(DataKind.STRING)),
        (["1,234,567"], DataType(DataKind.STRING)),
        (["2020-01-05", "1999-12-31", "NA"], DataType(DataKind.DATE, "%Y-%m-%d")),
        (["2020-01-05 10:11:12"], DataType(DataKind.DATE, "%Y-%m-%d %H:%M:%S")),
        (["05.03.2020", "31.12.1999"], DataType(DataKind.DATE, "%d.%m.%Y")),
        (["01/02/2020", "12/31/2020"], DataType(DataKind.DATE, "%m/%d/%Y")),
        (["01/02/2020", "13/01/2020"], DataType(DataKind.DATE, "%d/%m/%Y")),  # day > 12
        (["01/02/2020"], DataType(DataKind.DATE, "%m/%d/%Y")),  # ambiguous: month first
        (["31-12-2020"], DataType(DataKind.DATE, "%d-%m-%Y")),
        (["2020/12/31"], DataType(DataKind.DATE, "%Y/%m/%d")),
        (["2020-01", "1999-12"], DataType(DataKind.DATE, "%Y-%m")),
        (["1600-01-01", "2400-12-31"], DataType(DataKind.DATE, "%Y-%m-%d")),  # beyond pandas ns
        (["19991231", "20200105"], DataType(DataKind.DATE, "%Y%m%d")),
        (["19991231", "12345678"], DataType(DataKind.INTEGER)),  # not all dates
        (["18991231"], DataType(DataKind.INTEGER)),  # implausible year
        (["20201301"], DataType(DataKind.INTEGER)),  # month 13
        (["2020-02-30"], DataType(DataKind.STRING)),  # no such day
        (["flu", "1"], DataType(DataKind.STRING)),
        (["NA", "?", ""], DataType(DataKind.STRING)),  # nothing but missing values
        (["١٢"], DataType(DataKind.STRING)),  # non-ASCII digits are not numbers
    ],
)
def test_infer_data_type(values, expected):
    assert infer_data_type(pd.Series(values, dtype=object)) == expected


def test_ordinal_is_never_inferred_and_needs_a_valid_order():
    assert infer_data_type(_series("low", "high")).kind is DataKind.STRING
    assert ordinal_type(["low", "mid", "high"]) == DataType(
        DataKind.ORDINAL, order=("low", "mid", "high")
    )
    with pytest.raises(DefinitionError, match="'mid' appears twice"):
        ordinal_type(["low", "mid", "mid"])
    with pytest.raises(DefinitionError):
        ordinal_type([])


def test_validate_values_lists_rows_and_values_that_do_not_parse():
    values = _series("1", "x", "NA", "2.5", "x", "3")
    assert validate_values(values, DataType(DataKind.INTEGER)) == [(1, "x"), (3, "2.5"), (4, "x")]
    assert validate_values(values, DataType(DataKind.INTEGER), limit=1) == [(1, "x")]
    assert validate_values(values, DataType(DataKind.DECIMAL)) == [(1, "x"), (4, "x")]
    assert validate_values(values, DataType(DataKind.STRING)) == []
    dates = _series("2020-01-05", "05.01.2020", "")
    assert validate_values(dates, DataType(DataKind.DATE, "%Y-%m-%d")) == [(1, "05.01.2020")]
    ordinal = ordinal_type(["low", "high", "?"])
    assert validate_values(_series("low", "medium", "?", "NA"), ordinal) == [(1, "medium")]


def test_parse_numbers_with_missing_values():
    parsed = parse_values(_series("1", "NA", " 2 ", "-3"), DataType(DataKind.INTEGER))
    assert parsed.dtype == np.float64
    np.testing.assert_array_equal(parsed, [1.0, np.nan, 2.0, -3.0])
    comma = parse_values(_series("1,5", "2", ""), DataType(DataKind.DECIMAL, ","))
    np.testing.assert_array_equal(comma, [1.5, 2.0, np.nan])


def test_parse_dates_and_ordinal_ranks():
    german = DataType(DataKind.DATE, "%d.%m.%Y")
    dates = parse_values(_series("31.12.1999", "?", "01.01.1500"), german)
    assert dates.dtype == np.dtype("datetime64[s]")
    assert dates[0] == np.datetime64("1999-12-31") and np.isnat(dates[1])
    assert dates[2] == np.datetime64("1500-01-01")
    ranks = parse_values(_series("high", "low", "NA", "mid"), ordinal_type(["low", "mid", "high"]))
    np.testing.assert_array_equal(ranks, [2.0, 0.0, np.nan, 1.0])


def test_parse_values_refuses_invalid_values_and_strings():
    with pytest.raises(DefinitionError, match=r"2 values of attribute 'age' are not integer.*'x'"):
        parse_values(_series("1", "x", "x", name="age"), DataType(DataKind.INTEGER))
    with pytest.raises(DefinitionError, match="is a string"):
        parse_values(_series("a"), DataType(DataKind.STRING))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(10**12), 10**12), min_size=1, max_size=30))
def test_integers_infer_and_parse_back(numbers):
    values = pd.Series([str(n) for n in numbers] + ["NA"], dtype=object)
    data_type = infer_data_type(values)
    if data_type.kind is DataKind.DATE:  # only 8-digit values that are all valid dates
        assert all(len(str(n)) == 8 for n in numbers)
        return
    assert data_type == DataType(DataKind.INTEGER)
    np.testing.assert_array_equal(parse_values(values, data_type), [*numbers, np.nan])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dates(dt.date(1000, 1, 1), dt.date(9999, 12, 31)), min_size=1, max_size=20))
def test_dates_in_each_format_infer_and_parse_back(dates):
    for date_format in ("%Y-%m-%d", "%d.%m.%Y"):
        values = pd.Series([d.strftime(date_format) for d in dates], dtype=object)
        data_type = infer_data_type(values)
        assert data_type == DataType(DataKind.DATE, date_format)
        expected = np.array([np.datetime64(d, "s") for d in dates])
        np.testing.assert_array_equal(parse_values(values, data_type), expected)


def test_format_value_for_typed_sources():
    assert format_value(3.0) == "3"
    assert format_value(-0.0) == "0"
    assert format_value(0.1 + 0.2) == "0.30000000000000004"
    assert format_value(0.1 + 0.2, float_digits=15) == "0.3"
    assert format_value(1e20) == "1e+20" and format_value(123.0e13) == "1230000000000000"
    assert format_value(True) == "TRUE" and format_value(7) == "7"
    assert format_value(dt.datetime(2020, 1, 5)) == "2020-01-05"
    assert format_value(dt.datetime(2020, 1, 5, 10, 11, 12)) == "2020-01-05 10:11:12"
    assert format_value(dt.date(1999, 12, 31)) == "1999-12-31"
    assert format_value(dt.time(8, 30)) == "08:30:00"
    assert format_value(b"\x01\xff") == "01ff"
    assert format_value(decimal.Decimal("2.50")) == "2.5"


def test_canonical_number_only_for_lossless_texts():
    assert canonical_number("39") == 39 and canonical_number("-1.5") == -1.5
    assert canonical_number("1.5e-07") == 1.5e-07
    for text in ("007", "1.50", "1e5", "-0", "nan", "inf", "0.30000000000000004", "1,5", "x"):
        assert canonical_number(text) is None, text
