"""ARX hierarchy CSV files: reading, writing, encodings, errors, the Adult hierarchies."""

from __future__ import annotations

import os

import pandas as pd
import pytest
from conftest import ADULT_DIR as ADULT
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.errors import HierarchyError
from arxpy.hierarchy import (
    Hierarchy,
    format_hierarchy_csv,
    parse_hierarchy_csv,
    read_hierarchy,
    validate_hierarchy,
    write_hierarchy,
)

ADULT_HEIGHTS = {
    "sex": 2, "age": 5, "race": 2, "marital-status": 3, "education": 4,
    "native-country": 3, "workclass": 3, "occupation": 3, "salary-class": 2,
}

TRICKY = Hierarchy([
    ("a;b", 'say "hi"', "*"),
    (" lead", "trail ", "*"),
    ("", "NA", "*"),
    ("line\nbreak", "cr\rhere", "*"),
    ("Zürich", "Städte", "*"),
    ("plain", "x", "*"),
])


def test_format_quotes_only_where_arx_needs_it():
    text = format_hierarchy_csv(Hierarchy([("a;b", 'say "hi"', " x", "*"), ("1", "1-5", "*")]))
    assert text == '"a;b";"say ""hi""";" x";*\n1;1-5;*\n'


def test_round_trip_is_exact(tmp_path):
    path = tmp_path / "h.csv"
    write_hierarchy(TRICKY, path)
    assert read_hierarchy(path) == TRICKY


def test_lone_empty_value_survives_round_trip(tmp_path):
    hierarchy = Hierarchy([("",), ("a",)])
    write_hierarchy(hierarchy, tmp_path / "h.csv")
    assert read_hierarchy(tmp_path / "h.csv") == hierarchy


def test_other_delimiter(tmp_path):
    hierarchy = Hierarchy([("a,b", "x;y", "*"), ("c", "x;y", "*")])
    write_hierarchy(hierarchy, tmp_path / "h.csv", delimiter=",")
    assert (tmp_path / "h.csv").read_text() == '"a,b",x;y,*\nc,x;y,*\n'
    assert read_hierarchy(tmp_path / "h.csv", delimiter=",") == hierarchy


@pytest.mark.parametrize("delimiter", ["", ";;", '"', "\n"])
def test_bad_delimiter_is_refused(delimiter):
    with pytest.raises(HierarchyError, match="Delimiter"):
        parse_hierarchy_csv("a;*\n", delimiter=delimiter)


def test_ragged_rows_load_as_written():
    hierarchy = parse_hierarchy_csv("a;x;*\nb;*\nc;x;*;+\n")
    assert hierarchy.rows == (("a", "x", "*"), ("b", "*"), ("c", "x", "*", "+"))
    assert [p.kind for p in validate_hierarchy(hierarchy)] == ["ragged", "ragged"]


def test_blank_lines_and_crlf_are_handled():
    hierarchy = parse_hierarchy_csv("a;x;*\r\n\r\nb;x;*\r\n\r\n")
    assert hierarchy.rows == (("a", "x", "*"), ("b", "x", "*"))


def test_fields_are_kept_exactly():
    hierarchy = parse_hierarchy_csv(' a ;NA;;"?"\n')
    assert hierarchy.rows == ((" a ", "NA", "", "?"),)


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("Zürich;Schweiz;*\n".encode(), None),
        (b"\xef\xbb\xbf" + "Zürich;Schweiz;*\n".encode(), None),
        ("Zürich;Schweiz;*\n".encode("latin-1"), None),
        ("Zürich;Schweiz;*\n".encode("utf-16"), None),
        ("Zürich;Schweiz;*\n".encode("cp1252"), "cp1252"),
    ],
    ids=["utf8", "utf8-bom", "latin1", "utf16-bom", "explicit"],
)
def test_encodings_are_detected(tmp_path, data, encoding):
    path = tmp_path / "h.csv"
    path.write_bytes(data)
    assert read_hierarchy(path, encoding=encoding).rows == (("Zürich", "Schweiz", "*"),)


def test_windows_bytes_decode_as_cp1252_like_data_files(tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes("5 €;*\n".encode("cp1252"))  # 0x80 is the euro sign in cp1252
    assert read_hierarchy(path).rows == (("5 €", "*"),)


def test_wrong_explicit_encoding_names_the_file(tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes("Zürich;*\n".encode("latin-1"))
    with pytest.raises(HierarchyError, match=r"h\.csv.*not valid utf-8"):
        read_hierarchy(path, encoding="utf-8")
    with pytest.raises(HierarchyError, match="Unknown encoding"):
        read_hierarchy(path, encoding="no-such-codec")


def test_missing_file_names_the_file(tmp_path):
    with pytest.raises(HierarchyError, match=r"nothere\.csv does not exist"):
        read_hierarchy(tmp_path / "nothere.csv")


def test_folder_is_refused(tmp_path):
    with pytest.raises(HierarchyError, match="is a folder"):
        read_hierarchy(tmp_path)


def test_write_replaces_atomically(tmp_path, monkeypatch):
    path = tmp_path / "h.csv"
    path.write_text("old;*\n")

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(HierarchyError, match=r"h\.csv.*disk is full"):
        write_hierarchy(TRICKY, path)
    assert path.read_text() == "old;*\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.csv"]  # no temporary left
    monkeypatch.undo()
    write_hierarchy(TRICKY, path)
    assert read_hierarchy(path) == TRICKY
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.csv"]


def test_write_into_missing_folder_fails_cleanly(tmp_path):
    with pytest.raises(HierarchyError, match=r"Cannot write .*h\.csv.*does not exist"):
        write_hierarchy(TRICKY, tmp_path / "no" / "h.csv")


field_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(field_text, min_size=1, max_size=5), max_size=8))
def test_any_rows_round_trip_through_text(rows):
    hierarchy = Hierarchy(rows)
    assert parse_hierarchy_csv(format_hierarchy_csv(hierarchy)) == hierarchy


# --- the Adult benchmark hierarchies (ARX's own files) ---------------------------------


@pytest.fixture(scope="module")
def adult_data() -> pd.DataFrame:
    if not (ADULT / "adult.csv").exists():
        pytest.skip(f"Adult benchmark data not found at {ADULT}")
    return pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)


@pytest.mark.parametrize("attribute", sorted(ADULT_HEIGHTS))
def test_adult_hierarchies_read_and_validate(adult_data, attribute, tmp_path):
    hierarchy = read_hierarchy(ADULT / f"adult_hierarchy_{attribute}.csv")
    assert hierarchy.height == ADULT_HEIGHTS[attribute]
    assert hierarchy.is_rectangular
    assert validate_hierarchy(hierarchy, adult_data[attribute], attribute) == []
    write_hierarchy(hierarchy, tmp_path / "copy.csv")
    assert read_hierarchy(tmp_path / "copy.csv") == hierarchy


def test_adult_age_hierarchy_content(adult_data):
    hierarchy = read_hierarchy(ADULT / "adult_hierarchy_age.csv")
    assert hierarchy.rows[0] == ("1", "0-4", "0-9", "0-19", "*")
    assert hierarchy.mapping(4) == dict.fromkeys(hierarchy.values, "*")
