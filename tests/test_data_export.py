"""Atomic writes and table export (arxpy.data.atomic, arxpy.data.export)."""

from __future__ import annotations

import os
import stat

import pandas as pd
import pytest

import arxpy.data.export as export_module
from arxpy.data.atomic import atomic_write
from arxpy.data.csv_io import CsvFormat, read_csv
from arxpy.data.excel_io import read_excel
from arxpy.data.export import csv_text, export_table
from arxpy.errors import DataExportError, ProjectError


def _leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- atomic_write -------------------------------------------------------------------------


def test_atomic_write_replaces_the_target_only_at_the_end(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with atomic_write(target, encoding="utf-8") as handle:
        handle.write("new ü")
        assert target.read_text() == "old"  # not yet visible
    assert target.read_text(encoding="utf-8") == "new ü"
    assert _leftovers(tmp_path) == []


def test_exception_midway_leaves_the_original_and_no_temporary_file(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"original")

    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        with atomic_write(target, "wb") as handle:
            handle.write(b"half of the ")
            raise Boom
    assert target.read_bytes() == b"original"
    assert _leftovers(tmp_path) == []


def test_failing_rename_leaves_the_original(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    target.write_text("original")

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(DataExportError, match="permission denied"):
        with atomic_write(target) as handle:
            handle.write("new")
    assert target.read_text() == "original"
    assert _leftovers(tmp_path) == []


def test_missing_folder_is_a_clear_error_of_the_chosen_type(tmp_path):
    target = tmp_path / "no" / "such" / "out.csv"
    with pytest.raises(DataExportError, match=r"folder .* does not exist"):
        with atomic_write(target) as handle:
            handle.write("x")
    with pytest.raises(ProjectError, match=str(target)):
        with atomic_write(target, error_type=ProjectError) as handle:
            handle.write("x")


def test_target_that_is_a_folder(tmp_path):
    with pytest.raises(DataExportError, match="it is a folder"):
        with atomic_write(tmp_path) as handle:
            handle.write("x")
    assert _leftovers(tmp_path.parent) == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_read_only_folder(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(DataExportError, match="permission denied"):
            export_table(pd.DataFrame({"a": ["1"]}), folder / "out.csv")
    finally:
        folder.chmod(stat.S_IRWXU)


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_existing_permissions_are_kept(tmp_path):
    target = tmp_path / "shared.csv"
    target.write_text("old")
    target.chmod(0o640)
    with atomic_write(target) as handle:
        handle.write("new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_invalid_mode_is_a_programming_error(tmp_path):
    with pytest.raises(ValueError):
        with atomic_write(tmp_path / "x", "a"):
            pass


# --- export_table -------------------------------------------------------------------------


def test_export_csv_default_is_comma_utf8_with_minimal_safe_quoting(tmp_path):
    frame = pd.DataFrame({"name": ["Zürich", "a;b", 'say "hi"', " pad", ""], "n": list("12345")})
    path = export_table(frame, tmp_path / "out.csv")
    assert path.read_bytes().decode("utf-8") == (
        'name,n\nZürich,1\n"a;b",2\n"say ""hi""",3\n" pad",4\n,5\n'
    )


def test_export_csv_with_another_delimiter_and_encoding(tmp_path):
    frame = pd.DataFrame({"city": ["Zürich", "x,y"], "n": ["1", "2"]})
    path = export_table(frame, tmp_path / "out.csv", delimiter=";", encoding="latin-1")
    assert path.read_bytes() == 'city;n\nZ\xfcrich;1\n"x,y";2\n'.encode("latin-1")
    back = read_csv(path, CsvFormat(";", '"', "latin-1", True))
    pd.testing.assert_frame_equal(back, frame)
    tsv = export_table(frame, tmp_path / "out.tsv")
    assert tsv.read_text(encoding="utf-8").splitlines()[0] == "city\tn"


def test_non_string_cells_are_formatted(tmp_path):
    frame = pd.DataFrame({"a": [1.0, 2.5, None], "b": [3, 4, 5]})
    path = export_table(frame, tmp_path / "typed.csv")
    assert path.read_text() == "a,b\n1,3\n2.5,4\n,5\n"


def test_one_column_table_keeps_empty_cells(tmp_path):
    frame = pd.DataFrame({"v": ["", "a", ""]})
    path = export_table(frame, tmp_path / "one.csv")
    assert path.read_text() == 'v\n""\na\n""\n'
    pd.testing.assert_frame_equal(read_csv(path), frame)


def test_unencodable_character_names_it_and_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    with pytest.raises(DataExportError, match=r"'€'.*Choose the UTF-8 encoding"):
        export_table(pd.DataFrame({"price": ["5 €"]}), target, encoding="latin-1")
    assert target.read_text() == "old"
    assert _leftovers(tmp_path) == []


def test_failure_while_writing_leaves_the_old_export(tmp_path, monkeypatch):
    target = tmp_path / "out.csv"
    target.write_text("previous export")
    calls = []

    def failing_text(*args, **kwargs):
        calls.append(args)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(export_module, "_csv_bytes", failing_text)
    with pytest.raises(DataExportError, match="disk is full"):
        export_table(pd.DataFrame({"a": ["1"]}), target)
    assert calls and target.read_text() == "previous export"
    assert _leftovers(tmp_path) == []


def test_disk_full_during_the_write_is_a_data_export_error(tmp_path, monkeypatch):
    target = tmp_path / "out.xlsx"
    target.write_bytes(b"previous workbook")

    def full_disk(self, handle):
        handle.write(b"PK partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("openpyxl.workbook.workbook.Workbook.save", full_disk)
    with pytest.raises(DataExportError, match="disk is full"):
        export_table(pd.DataFrame({"a": ["1"]}), target)
    assert target.read_bytes() == b"previous workbook"
    assert _leftovers(tmp_path) == []


def test_missing_folder_and_unknown_format(tmp_path):
    frame = pd.DataFrame({"a": ["1"]})
    with pytest.raises(DataExportError, match="does not exist"):
        export_table(frame, tmp_path / "missing" / "out.csv")
    with pytest.raises(DataExportError, match="extension"):
        export_table(frame, tmp_path / "out.dat")
    assert export_table(frame, tmp_path / "out.dat", format="csv").read_text() == "a\n1\n"
    with pytest.raises(DataExportError, match="Unknown export format"):
        export_table(frame, tmp_path / "out.csv", format="parquet")
    with pytest.raises(DataExportError, match="no columns"):
        export_table(pd.DataFrame(), tmp_path / "empty.csv")
    with pytest.raises(DataExportError, match="Delimiter"):
        export_table(frame, tmp_path / "q.csv", delimiter='"')


def test_excel_export_writes_numbers_as_numbers_and_formulas_as_text(tmp_path):
    from openpyxl import load_workbook

    frame = pd.DataFrame({"age": ["39", "007"], "cmd": ["=HYPERLINK(\"x\")", "ok"]})
    path = export_table(frame, tmp_path / "out.xlsx", sheet_name="Export")
    sheet = load_workbook(path)["Export"]
    assert sheet["A2"].value == 39 and sheet["A3"].value == "007"
    assert sheet["B2"].data_type == "s" and sheet["B2"].value == '=HYPERLINK("x")'
    pd.testing.assert_frame_equal(read_excel(path), frame)


def test_excel_refuses_control_characters_and_bad_sheet_names(tmp_path):
    target = tmp_path / "out.xlsx"
    with pytest.raises(DataExportError, match=r"column 'a'.*control character"):
        export_table(pd.DataFrame({"a": ["bell\x07"]}), target)
    with pytest.raises(DataExportError, match="Sheet name"):
        export_table(pd.DataFrame({"a": ["1"]}), target, sheet_name="a/b")
    assert not target.exists()


def test_csv_text_of_an_empty_table_is_its_header():
    assert csv_text(["a", "b;c"], [pd.Series([], dtype=object)] * 2) == 'a,"b;c"\n'
