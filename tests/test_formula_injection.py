"""Spreadsheet formula injection: neutralised on request (CLI), by default in the GUI
when such values exist, a warning when written raw; Excel keeps text cells (item 9)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.data.export import export_table
from arxpy.data.formulas import FormulaWarning, is_formula_like, neutralize
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.io import write_hierarchy
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy.kanonymity import KAnonymity

ATTACK = "=cmd|' /C calc'!A0"


@pytest.mark.parametrize(("text", "formula"), [
    (ATTACK, True), ("+SUM(A1:A2)", True), ("-2+3", True), ("@SUM(A1)", True),
    ("\tfoo", True), ("\r=1", True), ("=1", True),
    ("-5", False), ("+1.5e3", False), ("-.5", False), ("-", False), ("@", False),
    ("", False), ("flu", False), ("a=b", False), ("1-2", False),
])
def test_formula_like_values(text, formula):
    assert is_formula_like(text) is formula
    assert neutralize(text) == ("'" + text if formula else text)


def _raw_csv(path) -> str:
    return path.read_text(encoding="utf-8")


def test_csv_export_neutralizes_cells_and_headers(tmp_path):
    frame = pd.DataFrame({"=HYPERLINK(1)": [ATTACK, "-5", "@x1"], "b": ["+1+1", "ok", "-"]})
    path = export_table(frame, tmp_path / "out.csv", neutralize_formulas=True)
    back = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert list(back.columns) == ["'=HYPERLINK(1)", "b"]
    assert back.iloc[:, 0].tolist() == ["'" + ATTACK, "-5", "'@x1"]
    assert back["b"].tolist() == ["'+1+1", "ok", "-"]


def test_raw_csv_export_warns_and_keeps_the_values(tmp_path):
    frame = pd.DataFrame({"a": [ATTACK, "x"], "b": ["1", "2"]})
    with pytest.warns(FormulaWarning, match="a"):
        path = export_table(frame, tmp_path / "raw.csv")
    assert pd.read_csv(path, dtype=str)["a"].tolist() == [ATTACK, "x"]


def test_no_warning_without_formula_values(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FormulaWarning)
        export_table(pd.DataFrame({"a": ["-5", "x"]}), tmp_path / "clean.csv")


def test_excel_export_writes_formula_like_values_as_text_cells(tmp_path):
    from openpyxl import load_workbook

    frame = pd.DataFrame({"a": [ATTACK, "+A1", "@SUM(A1)", "-1+2"]})
    path = export_table(frame, tmp_path / "out.xlsx")
    sheet = load_workbook(path).active
    cells = [sheet.cell(row=r, column=1) for r in range(2, 6)]
    assert [c.value for c in cells] == frame["a"].tolist()
    assert all(c.data_type == "s" for c in cells)  # text, never a formula


def test_hierarchy_labels_are_neutralized(tmp_path):
    path = tmp_path / "h.csv"
    write_hierarchy(Hierarchy([["1", "=1+1", "*"], ["2", "@x", "*"]]), path,
                    neutralize_formulas=True)
    assert path.read_text() == "1;'=1+1;*\n2;'@x;*\n"


@pytest.fixture
def files(tmp_path):
    rows = ["age;note"] + [f"{20 + i % 4};{ATTACK if i % 2 else 'fine'}" for i in range(40)]
    (tmp_path / "data.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "age.csv").write_text("\n".join(f"{a};*" for a in range(20, 24)) + "\n")
    return tmp_path


def _anonymize(folder, *extra):
    return main(["anonymize", "--data", str(folder / "data.csv"), "--delimiter", ";",
                 "--hierarchy", f"age={folder / 'age.csv'}", "--k", "2", *extra])


def test_cli_warns_when_formulas_are_written_raw(files, capsys):
    assert _anonymize(files, "--output", str(files / "out.csv")) == 0
    assert "arxpy: warning:" in capsys.readouterr().err
    out = pd.read_csv(files / "out.csv", sep=";", dtype=str)
    assert ATTACK in set(out["note"])


def test_cli_neutralize_formulas(files, capsys):
    assert _anonymize(files, "--output", str(files / "out.csv"), "--neutralize-formulas") == 0
    assert "warning" not in capsys.readouterr().err
    out = pd.read_csv(files / "out.csv", sep=";", dtype=str)
    assert set(out["note"]) == {"fine", "'" + ATTACK}


def test_cli_tsv_output_is_tab_separated(files):
    assert _anonymize(files, "--output", str(files / "out.tsv"), "--neutralize-formulas") == 0
    header = (files / "out.tsv").read_text().splitlines()[0]
    assert header == "age\tnote"


def _result(values):
    frame = pd.DataFrame({"age": ["20", "21"] * 4, "note": values * (8 // len(values))})
    definition = DataDefinition.for_columns(frame.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING)
    return anonymize(frame, definition, {"age": Hierarchy([["20", "*"], ["21", "*"]])},
                     AnonymizationConfig([KAnonymity(2)]))


@pytest.mark.parametrize(("values", "checked"), [([ATTACK, "x"], True), (["x", "-5"], False)])
def test_gui_export_neutralizes_by_default_when_formulas_exist(qtbot, tmp_path, values,
                                                              checked):
    from arxpy.gui.explore.export_dialog import ExportDialog

    result = _result(values)
    dialog = ExportDialog(result, result.optimum.levels, tmp_path / "out.csv")
    qtbot.addWidget(dialog)
    assert dialog.neutralize.isChecked() is checked
    assert dialog.formula_note.isVisibleTo(dialog) is checked
    dialog.report.setChecked(False)
    with qtbot.waitSignal(dialog.exported, timeout=10000):
        dialog.start_export()
    written = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    if checked:
        assert "'" + ATTACK in set(written["note"]) and ATTACK not in set(written["note"])


def test_gui_export_warns_when_the_user_turns_neutralizing_off(qtbot, tmp_path):
    from arxpy.gui.explore.export_dialog import ExportDialog

    result = _result([ATTACK, "x"])
    dialog = ExportDialog(result, result.optimum.levels, tmp_path / "out.csv")
    qtbot.addWidget(dialog)
    dialog.neutralize.setChecked(False)
    assert dialog.formula_note.text().startswith("Warning:")
    assert "note" in dialog.formula_note.text()
