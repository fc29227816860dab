"""Excel (.xlsx) and SQLite import (arxpy.data.excel_io, arxpy.data.sql_io)."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import Workbook

from arxpy.data.excel_io import list_sheets, read_excel
from arxpy.data.export import export_table
from arxpy.data.sql_io import list_tables, quote_identifier, read_sqlite
from arxpy.errors import DataImportError

# --- Excel ------------------------------------------------------------------------------


@pytest.fixture
def workbook_path(tmp_path):
    """A workbook written by openpyxl with typed cells, as Excel would store them."""
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Patients"
    sheet.append(["id", "age", "weight", "admitted", "smoker", "note", "id"])
    sheet.append([1, 34, 70.5, dt.datetime(2020, 1, 5), True, "flu", "a"])
    sheet.append([2, 51.0, 0.1 + 0.2, dt.datetime(2020, 1, 5, 8, 30), False, None, "b"])
    sheet.append([None] * 7)  # an empty row between records is a record of empty cells
    # A formula never calculated by Excel has no stored value: it reads as empty.
    sheet.append([4, 7, 1e-7, dt.date(1999, 12, 31), 1, "=B2+1", "c"])
    sheet.append([None] * 7)  # trailing empty rows are dropped
    workbook.create_sheet("Other").append(["x"])
    path = tmp_path / "patients.xlsx"
    workbook.save(path)
    return path


def test_list_sheets(workbook_path):
    assert list_sheets(workbook_path) == ["Patients", "Other"]


def test_cells_read_as_excel_shows_them(workbook_path):
    frame = read_excel(workbook_path)
    assert list(frame.columns) == ["id", "age", "weight", "admitted", "smoker", "note", "id (2)"]
    assert frame.values.tolist() == [
        ["1", "34", "70.5", "2020-01-05", "TRUE", "flu", "a"],
        ["2", "51", "0.3", "2020-01-05 08:30:00", "FALSE", "", "b"],
        ["", "", "", "", "", "", ""],
        ["4", "7", "1e-07", "1999-12-31", "1", "", "c"],
    ]


def test_sheet_choice_and_header_switch(workbook_path):
    other = read_excel(workbook_path, sheet="Other", has_header=False)
    assert other.to_dict("list") == {"Column 1": ["x"]}
    with pytest.raises(DataImportError, match="no sheet 'Nope'.*Patients, Other"):
        read_excel(workbook_path, sheet="Nope")


def test_excel_round_trip_through_export(tmp_path):
    frame = pd.DataFrame(
        {
            "age": ["39", "007", "1.5", "1.50", "", "NA"],
            "formula": ["=1+1", "#N/A", "=", "a\nb", "Zürich", "TRUE"],
            "id": ["12345678901234567890", "-0", "1e5", "0.1", "3", "x"],
        }
    )
    path = export_table(frame, tmp_path / "out.xlsx")
    pd.testing.assert_frame_equal(read_excel(path), frame)


_EXCEL_TEXT = st.text(
    st.characters(exclude_categories=("Cs", "Cc")) | st.sampled_from(["\n", "\t", "=", "0", "."]),
    max_size=8,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(st.tuples(_EXCEL_TEXT, st.integers(-(10**6), 10**6).map(str), _EXCEL_TEXT),
                  min_size=1, max_size=8)
)
def test_excel_round_trip_property(tmp_path, rows):
    # Excel has no empty rows at the end and normalizes \r (XML line ends); see excel_io.
    rows[-1] = (rows[-1][0], rows[-1][1], rows[-1][2] or "last")
    frame = pd.DataFrame(rows, columns=["a", "n", "b"], dtype=object)
    path = export_table(frame, tmp_path / "prop.xlsx")
    pd.testing.assert_frame_equal(read_excel(path), frame)


def test_not_a_workbook_and_old_format(tmp_path):
    bad = tmp_path / "bad.xlsx"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(DataImportError, match="not a readable Excel"):
        list_sheets(bad)
    old = tmp_path / "old.xls"
    old.write_bytes(b"\xd0\xcf\x11\xe0")
    with pytest.raises(DataImportError, match="save it as .xlsx"):
        read_excel(old)
    with pytest.raises(DataImportError, match="does not exist"):
        read_excel(tmp_path / "missing.xlsx")


# --- SQLite -----------------------------------------------------------------------------


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "clinic.sqlite"
    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE patients (id INTEGER, age REAL, name TEXT, photo BLOB, mixed);
        INSERT INTO patients VALUES (1, 34.0, 'Ann', x'00ff', 5);
        INSERT INTO patients VALUES (2, 51.5, NULL, NULL, 'text');
        INSERT INTO patients VALUES (3, NULL, 'Zürich', NULL, 2.25);
        CREATE TABLE "odd ""name""; DROP TABLE patients" (v TEXT);
        INSERT INTO "odd ""name""; DROP TABLE patients" VALUES ('safe');
        CREATE VIEW adults AS SELECT id, age FROM patients WHERE age >= 18;
        """
    )
    connection.commit()
    connection.close()
    return path


def test_list_tables_includes_views_sorted(database):
    assert list_tables(database) == ["adults", 'odd "name"; DROP TABLE patients', "patients"]


def test_read_sqlite_values_as_strings(database):
    frame = read_sqlite(database, "patients")
    assert list(frame.columns) == ["id", "age", "name", "photo", "mixed"]
    assert frame.values.tolist() == [
        ["1", "34", "Ann", "00ff", "5"],
        ["2", "51.5", "NULL", "NULL", "text"],
        ["3", "NULL", "Zürich", "NULL", "2.25"],
    ]
    assert read_sqlite(database, "adults")["age"].tolist() == ["34", "51.5"]


def test_table_names_are_quoted_safely(database):
    frame = read_sqlite(database, 'odd "name"; DROP TABLE patients')
    assert frame["v"].tolist() == ["safe"]
    assert "patients" in list_tables(database)
    assert quote_identifier('a"b') == '"a""b"'


def test_unknown_table_missing_file_and_not_a_database(database, tmp_path):
    with pytest.raises(DataImportError, match="no table 'nope'.*patients"):
        read_sqlite(database, "nope")
    missing = tmp_path / "missing.db"
    with pytest.raises(DataImportError, match="does not exist"):
        list_tables(missing)
    assert not missing.exists()  # read-only: never created
    text = tmp_path / "text.db"
    text.write_text("not a database at all, just some text " * 10)
    with pytest.raises(DataImportError, match="not a SQLite database"):
        list_tables(text)


def test_empty_table_keeps_its_columns(tmp_path):
    path = tmp_path / "empty.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (a, b)")
    connection.close()
    frame = read_sqlite(path, "t")
    assert list(frame.columns) == ["a", "b"] and len(frame) == 0
