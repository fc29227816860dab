"""The import wizard: CSV with format and preview, columns and types, errors inline."""

import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from arxpy.data.definition import DataKind
from arxpy.gui.import_wizard import ImportWizard

CSV = "name;age;zip;admitted\nAnn;34;01234;2020-01-15\nBob;NA;02139;2020-03-02\n" \
      "Cy;51;01234;2021-07-30\n"


@pytest.fixture
def wizard(qtbot):
    wizard = ImportWizard()
    qtbot.addWidget(wizard)
    return wizard


def test_csv_through_the_wizard(wizard, tmp_path):
    path = tmp_path / "patients.csv"
    path.write_text(CSV, encoding="utf-8")
    wizard.show()
    wizard.source_page.path.setText(str(path))
    assert wizard.source_page.source() == "csv" and wizard.source_page.isComplete()
    wizard.next()
    page = wizard.format_page
    assert page.csv_format().delimiter == ";" and page.header.isChecked()
    assert page.preview.rowCount() == 3 and page.preview.item(0, 2).text() == "01234"
    page.header.setChecked(False)  # the preview follows the header choice
    assert page.preview.rowCount() == 4 and page.preview.item(0, 0).text() == "name"
    page.header.setChecked(True)
    wizard.next()
    columns = wizard.columns_page
    kinds = [columns.table.cellWidget(r, 1).currentData() for r in range(4)]
    assert kinds == ["string", "integer", "string", "date"]  # leading zeros: a code
    columns.set_column("age", kind=DataKind.DECIMAL)
    columns.set_column("name", include=False)
    wizard.button(QWizard.WizardButton.FinishButton).click()
    project = wizard.project
    assert project is not None and project.name == "patients"
    assert list(project.data.columns) == ["age", "zip", "admitted"]
    assert project.data["age"].tolist() == ["34", "NA", "51"]  # missing kept as its string
    assert project.definition["zip"].data_type.kind is DataKind.STRING
    assert project.definition["age"].data_type.kind is DataKind.DECIMAL
    assert project.definition["admitted"].data_type.format == "%Y-%m-%d"
    assert project.settings["privacy_models"] == []


def test_data_layer_errors_appear_on_the_pages(wizard, tmp_path):
    wizard.show()
    wizard.source_page.path.setText(str(tmp_path / "missing.csv"))
    assert "not a file" in wizard.source_page.error.text()
    assert not wizard.source_page.isComplete()
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n1,2\n3,4,5\n", encoding="utf-8")
    wizard.source_page.path.setText(str(ragged))
    wizard.next()
    page = wizard.format_page
    assert page.error.text() and not page.isComplete()
    assert "ragged.csv" in page.error.text() or "line" in page.error.text()
    page.encoding.setEditText("no-such-codec")
    assert "encoding" in page.error.text().lower()


def test_sqlite_table(wizard, tmp_path):
    path = tmp_path / "clinic.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE visits (id INTEGER, ward TEXT)")
        connection.executemany("INSERT INTO visits VALUES (?, ?)", [(1, "A"), (2, None)])
    wizard.show()
    wizard.source_page.path.setText(str(path))
    assert wizard.source_page.source() == "sqlite"
    assert wizard.source_page.table.currentText() == "visits"
    wizard.next()
    assert wizard.format_page.preview.rowCount() == 2
    wizard.next()
    wizard.button(QWizard.WizardButton.FinishButton).click()
    assert wizard.project.data["ward"].tolist() == ["A", "NULL"]


def test_excel_sheet(wizard, tmp_path):
    from openpyxl import Workbook

    path = tmp_path / "clinic.xlsx"
    book = Workbook()
    book.active.title = "Notes"
    sheet = book.create_sheet("Visits")
    for row in (["id", "ward"], [1, "A"], [2, "B"]):
        sheet.append(row)
    book.save(path)
    wizard.show()
    wizard.source_page.path.setText(str(path))
    assert wizard.source_page.source() == "excel"
    assert [wizard.source_page.table.itemText(i) for i in range(2)] == ["Notes", "Visits"]
    wizard.source_page.table.setCurrentText("Visits")
    wizard.next()
    assert wizard.format_page.preview.rowCount() == 2
    wizard.next()
    wizard.button(QWizard.WizardButton.FinishButton).click()
    assert wizard.project.data.to_dict("list") == {"id": ["1", "2"], "ward": ["A", "B"]}


# --- a wrong delimiter is questioned, codes are never assumed (issue 30) -----------------

SEMICOLONS = "age;sex;zip;diagnosis\n34;F;01234;flu\n51;M;02139;asthma\n29;F;01234;gout\n"


def test_a_delimiter_leaving_one_column_is_questioned_and_codes_stay_off(wizard, tmp_path):
    path = tmp_path / "semicolons.csv"
    path.write_text(SEMICOLONS, encoding="utf-8")
    wizard.show()
    wizard.source_page.path.setText(str(path))
    wizard.next()
    page = wizard.format_page
    assert page.csv_format().delimiter == ";" and page.notice.text() == ""
    page.delimiter.setCurrentIndex(page.delimiter.findData(","))  # the user's mistake
    assert page.preview.columnCount() == 1
    assert "probably semicolon (';')" in page.notice.text() and page.notice.isVisible()
    assert "3 semicolons" in page.notice.text()
    # Each line is one cell holding ';', which looked like a set of codes: never ticked.
    assert not page.set_valued.isChecked()
    wizard.next()
    assert wizard.currentPage() is wizard.columns_page  # no codes page
    wizard.back()
    page.delimiter.setCurrentIndex(page.delimiter.findData(";"))
    assert page.notice.text() == "" and page.preview.columnCount() == 4


def test_a_file_with_one_column_is_not_questioned(wizard, tmp_path):
    from arxpy.data.delimiter_check import likely_delimiter

    path = tmp_path / "one.csv"
    path.write_text("diagnosis\nflu\nasthma\n", encoding="utf-8")
    wizard.show()
    wizard.source_page.path.setText(str(path))
    wizard.next()
    assert wizard.format_page.notice.text() == ""
    # A ';' in some cells only (free text) is not a delimiter either.
    assert likely_delimiter("note", ["a; b", "c", "d"], ",") is None
    assert likely_delimiter("a|b|c", ["1|2|3", "4|5|6"], ",") == "|"


def test_the_columns_page_shows_the_import_warnings_as_plain_text(wizard, tmp_path):
    """Issue 28, defects 8 and 10: a renamed duplicate (released as it is unless given a
    role), numbers that may be codes and spellings that differ only by case are said on
    the page; a column name that looks like HTML is shown as written."""
    path = tmp_path / "dup.csv"
    rows = "".join(f"{30 + i},{i % 2 + 1},{['HIV', 'hiv ', 'flu'][i % 3]},{30 + i}\n"
                   for i in range(12))
    path.write_text("age,<b>sex</b>,diagnosis,age\n" + rows, encoding="utf-8")
    wizard.show()
    wizard.source_page.path.setText(str(path))
    wizard.next()
    wizard.next()
    label = wizard.columns_page.warnings
    text = label.text()
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert "a second 'age' is 'age (2)'" in text and "released as it is" in text
    assert "'<b>sex</b>' is numeric but holds only 2 distinct values" in text
    assert "'diagnosis' has 1 value spelled in ways that differ only by case" in text
    assert "'age' is numeric" not in text and "HIV" not in text
    assert len(text.splitlines()) == 3
    clean = tmp_path / "clean.csv"
    clean.write_text("age,town\n" + "".join(f"{30 + i},t{i}\n" for i in range(12)))
    wizard.back()
    wizard.back()
    wizard.source_page.path.setText(str(clean))
    wizard.next()
    wizard.next()
    assert wizard.columns_page.warnings.text() == ""
