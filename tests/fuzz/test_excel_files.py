"""Hostile Excel workbooks: every stored cell read, memory bounded by the cells present,
damaged XML a clear error (issue 12, item 3)."""

from __future__ import annotations

import re
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arxpy.data.excel_io import read_excel
from arxpy.errors import DataImportError

from .hostile import ENTITY_BOMB_DOCTYPE, rewrite_member, workbook

SHEET = "xl/worksheets/sheet1.xml"


def _understate_dimension(payload: bytes) -> bytes:
    patched, count = re.subn(rb'<dimension ref="[^"]*"', b'<dimension ref="A1:A5"', payload)
    assert count == 1
    return patched


def test_understated_dimension_keeps_every_record_and_column(tmp_path):
    cells = {"A1": "age", "B1": "sex"}
    for row in range(2, 51):
        cells[f"A{row}"], cells[f"B{row}"] = row, "MF"[row % 2]
    path = rewrite_member(workbook(tmp_path / "dim.xlsx", cells), SHEET, _understate_dimension)
    frame = read_excel(path)
    assert list(frame.columns) == ["age", "sex"] and len(frame) == 49
    assert frame["age"].tolist() == [str(r) for r in range(2, 51)]


def test_far_value_is_not_lost(tmp_path):
    path = rewrite_member(workbook(tmp_path / "far.xlsx",
                                   {"A1": "id", "A2": "first", "A200000": "last"}),
                          SHEET, _understate_dimension)
    frame = read_excel(path)
    assert len(frame) == 199_999
    assert frame["id"].iloc[0] == "first" and frame["id"].iloc[-1] == "last"


def test_stray_corner_cells_are_refused(tmp_path):
    # 17 KB that asked for 1,048,576 x 16,384 cells before.
    path = workbook(tmp_path / "corners.xlsx", {"A1": "x", "XFD1": "y", "A1048576": "z"})
    assert path.stat().st_size < 20_000
    with pytest.raises(DataImportError, match="stray cells"):
        read_excel(path)


def test_memory_is_bounded_by_the_cells_present(tmp_path):
    # Fewer rows than above so that tracing allocations stays fast; the dense table would
    # still be 2.4 billion cells.
    path = workbook(tmp_path / "corners.xlsx", {"A1": "x", "XFD1": "y", "A150000": "z"})
    tracemalloc.start()
    try:
        with pytest.raises(DataImportError, match="stray cells"):
            read_excel(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20


def test_sparse_but_real_table_is_read(tmp_path):
    cells = {"A1": "a", "C1": "c"}
    cells.update({f"A{r}": r for r in range(2, 300)})
    frame = read_excel(workbook(tmp_path / "sparse.xlsx", cells))
    assert list(frame.columns) == ["a", "Column 2", "c"] or frame.shape == (298, 3)
    assert frame.shape == (298, 3) and (frame.iloc[:, 2] == "").all()


@pytest.mark.parametrize("change", [
    lambda b: b[: len(b) // 2],
    lambda b: b.replace(b"<sheetData>", b"<sheetData><row><c r='A1'"),
    lambda b: b"\x00\xff" + b,
    lambda b: ENTITY_BOMB_DOCTYPE + _without_declaration(b).replace(
        b"<sheetData>", b"<sheetData>&i;", 1),
], ids=["truncated", "unclosed", "binary", "entity-bomb"])
def test_damaged_sheet_xml_is_a_clear_error(tmp_path, change):
    path = rewrite_member(workbook(tmp_path / "bad.xlsx", {"A1": "a", "A2": "1"}), SHEET,
                          change)
    with pytest.raises(DataImportError, match="bad.xlsx"):
        read_excel(path)


def _without_declaration(payload: bytes) -> bytes:
    return payload.split(b"?>", 1)[1] if payload.startswith(b"<?xml") else payload


def test_entity_bomb_in_the_workbook_part_is_a_clear_error(tmp_path):
    path = workbook(tmp_path / "wb.xlsx", {"A1": "name", "A2": "text"})

    def bomb(payload: bytes) -> bytes:
        return ENTITY_BOMB_DOCTYPE.replace(b"worksheet", b"workbook") + _without_declaration(
            payload).replace(b"<sheets>", b"<sheets>&i;", 1)

    rewrite_member(path, "xl/workbook.xml", bomb)
    with pytest.raises(DataImportError, match="wb.xlsx"):
        read_excel(path)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1,
                max_size=4))
def test_damaged_sheet_bytes_read_or_give_a_user_error(tmp_path, flips):
    def flip(payload: bytes) -> bytes:
        raw = bytearray(payload)
        for offset, value in flips:
            raw[offset % len(raw)] = value
        return bytes(raw)

    path = rewrite_member(workbook(tmp_path / "flip.xlsx", {"A1": "a", "B1": "b", "A2": 1,
                                                             "B2": "x"}), SHEET, flip)
    try:
        read_excel(path)
    except DataImportError:
        pass
