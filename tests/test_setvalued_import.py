"""Importing set-valued attributes: layouts, normalisation, duplicates, errors (spec 002 §6)."""

from __future__ import annotations

import pandas as pd
import pytest

from arxpy.data.transactions import read_code_sets
from arxpy.errors import DataImportError


def test_codes_in_one_cell_are_normalised_and_duplicates_counted():
    frame = pd.DataFrame({"pid": ["a", "b", "c"], "age": ["30", "40", "50"],
                          "codes": ["295.01; 29501;401.9", "", "v58.61 ; XYZ9"]})
    codes, records, report = read_code_sets(frame, codes_column="codes", id_column="pid")
    assert codes.to_sets() == [{"29501", "4019"}, set(), {"V5861", "XYZ9"}]
    assert list(records.columns) == ["pid", "age"]
    assert (report.duplicates_dropped, report.empty_records) == (1, 1)
    assert report.unknown_codes == ("XYZ9",)
    assert report.summary() == "set, 4 distinct codes, 1.33 avg, 2 max"
    assert any("XYZ9" in w for w in report.warnings())


def test_multiset_mode_numbers_repeated_occurrences():
    frame = pd.DataFrame({"codes": ["250.01;250.01;401.9"]})
    codes, _, report = read_code_sets(frame, codes_column="codes", multiset=True)
    assert codes.to_sets() == [{"25001#1", "25001#2", "4019#1"}]
    assert (report.occurrences_renamed, report.duplicates_dropped) == (1, 0)


def test_long_layout_groups_rows_by_id_in_order_of_first_appearance():
    frame = pd.DataFrame({"id": ["p2", "p1", "p2", "p2"],
                          "dx": ["401.9", "295.01", "4019", ""]})
    codes, records, report = read_code_sets(frame, "long", codes_column="dx", id_column="id")
    assert records["id"].tolist() == ["p2", "p1"]
    assert codes.to_sets() == [{"4019"}, {"29501"}]
    assert report.duplicates_dropped == 1


def test_wide_layout_reads_numbered_columns_and_ignores_empty_entries():
    frame = pd.DataFrame({"id": ["x", "y"], "dx2": ["401.9", ""], "dx1": ["295.01", "E888.9"],
                          "dx10": ["V58.61", None], "dxa": ["ignored", "ignored"]})
    codes, records, _ = read_code_sets(frame, "wide", id_column="id")
    assert codes.to_sets() == [{"29501", "4019", "V5861"}, {"E8889"}]
    assert list(records.columns) == ["id", "dxa"]


def test_a_csv_file_with_semicolon_joined_codes(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("patient_id,codes\nP1,295.01;401.9\nP2,401.9\nP3,V58.61;295.01;E888.9\n")
    codes, records, report = read_code_sets(path, codes_column="codes", id_column="patient_id")
    assert records["patient_id"].tolist() == ["P1", "P2", "P3"]
    assert codes.to_sets()[2] == {"V5861", "29501", "E8889"}
    assert report.records == 3


def test_a_csv_whose_only_regular_character_is_the_code_delimiter(tmp_path):
    # Every record has two codes: ';' looks like the field delimiter to a sniffer.
    path = tmp_path / "d.csv"
    path.write_text("patient_id,codes\nP1,295.01;401.9\nP2,401.9;250.00\nP3,V58.61;295.01\n")
    codes, records, _ = read_code_sets(path, codes_column="codes", id_column="patient_id")
    assert records["patient_id"].tolist() == ["P1", "P2", "P3"]
    assert codes.to_sets() == [{"29501", "4019"}, {"4019", "25000"}, {"V5861", "29501"}]


@pytest.mark.parametrize("kwargs, message", [
    ({"codes_column": "dx"}, "no column 'dx'.*codes, pid"),
    ({"codes_column": "codes", "delimiter": "."}, "contains '.'"),
    ({"codes_column": "codes", "id_column": "nope"}, "no column 'nope' for the id column"),
    ({"layout": "long", "codes_column": "codes"}, "Name the id column"),
    ({"layout": "wide"}, "No columns named dx1"),
    ({"layout": "diagonal"}, "Unknown layout"),
])
def test_mistakes_get_messages_that_say_what_to_change(kwargs, message):
    frame = pd.DataFrame({"codes": ["401.9"], "pid": ["a"]})
    with pytest.raises(DataImportError, match=message):
        read_code_sets(frame, **kwargs)


def test_empty_input_and_repeated_ids_are_refused():
    with pytest.raises(DataImportError, match="no records"):
        read_code_sets(pd.DataFrame({"codes": []}), codes_column="codes")
    frame = pd.DataFrame({"codes": ["401.9", "295.01"], "pid": ["a", "a"]})
    with pytest.raises(DataImportError, match="use the long layout"):
        read_code_sets(frame, codes_column="codes", id_column="pid")
