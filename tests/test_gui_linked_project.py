"""Linked tables in the project, through the window (issue 32's acceptance).

A custodian imports the linked example's patients and admissions with the wizard (link
column chosen there), pseudonymises the patient id, shifts the admission dates, marks
and generalises the quasi-identifiers, asks for 5-anonymity of the patient-level view,
anonymizes and exports both tables. The independent ``tests/audit.py`` judges the
patient view rebuilt with pandas from the exported files (admission rows counted per
pseudonym); the link between the exported tables is checked by set inclusion.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3

import audit as anonymity
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from arxpy.data.definition import AttributeType, DataDefinition, DataKind
from arxpy.errors import ProjectError
from arxpy.gui.import_wizard import ImportWizard
from arxpy.gui.project_actions import load_checked
from arxpy.hierarchy.io import read_hierarchy
from arxpy.linked_example import LINK_COLUMN, QUASI_IDENTIFIERS, write_linked_example
from arxpy.project import Project
from arxpy.workflows.risk_jobs import input_table

PATIENTS = 200
DATES = ("Admission date", "Discharge date")
SHIFT_DAYS = 30
CODES = "admissions:set:Diagnosis"


def _offsets(events: pd.DataFrame, source: pd.DataFrame, secret: bytes) -> pd.Series:
    """Each released patient's date shifts in days over both date columns (several
    values: inconsistent), from pseudonyms recomputed with Python's ``hmac``
    (docs/identifiers.md) and each patient's n-th released date against the n-th."""
    original = {hmac.new(secret, b"arxpy pseudonym v1\0default\0" + p.encode(),
                         hashlib.sha256).hexdigest()[:16]: p for p in source[LINK_COLUMN]}
    patients = events[LINK_COLUMN].map(original)
    assert patients.notna().all()  # every event names a patient of the source
    released = source[LINK_COLUMN].isin(set(patients))
    assert released.sum() == len(events)  # no event of a released patient is lost
    shifts = pd.concat([(_nth(patients, events[c]) - _nth(source[LINK_COLUMN], source[c]))
                        .dropna().dt.days for c in DATES])
    return shifts.groupby(level=0).unique()


def _nth(patients: pd.Series, dates: pd.Series) -> pd.Series:
    """Dates indexed by (patient, rank of the date among the patient's)."""
    frame = pd.DataFrame({"patient": patients.to_numpy(),
                          "date": pd.to_datetime(dates).to_numpy()}).sort_values(
        ["patient", "date"])
    frame["rank"] = frame.groupby("patient").cumcount()
    return frame.set_index(["patient", "rank"])["date"]


def _import(window, monkeypatch, folder) -> None:
    def run(wizard: ImportWizard) -> int:
        wizard.show()
        wizard.source_page.path.setText(str(folder / "patients.csv"))
        wizard.next()
        wizard.next()
        wizard.columns_page.set_column("ZIP code", kind=DataKind.STRING)
        wizard.next()
        assert wizard.currentPage() is wizard.linked_page
        wizard.linked_page.add_files([str(folder / "admissions.csv")])
        wizard.linked_page.link_column.setCurrentText(LINK_COLUMN)
        _tick(wizard.linked_page.aggregates, "set of Diagnosis")  # Configure adds the count
        wizard.button(QWizard.WizardButton.FinishButton).click()
        return wizard.result()

    monkeypatch.setattr(ImportWizard, "exec", run)
    window.projects.import_data()


def _tick(items, *texts: str) -> None:
    for i in range(items.count()):
        if items.item(i).text() in texts:
            items.item(i).setCheckState(Qt.CheckState.Checked)


def test_a_custodian_releases_linked_tables_5_anonymous_per_patient(
        window, qtbot, monkeypatch, tmp_path):
    write_linked_example(tmp_path, patients=PATIENTS)
    window.show()
    _import(window, monkeypatch, tmp_path)
    state = window.state
    assert list(state.events) == ["admissions"] and state.linked.link_column == LINK_COLUMN
    assert [a.name for a in state.linked.aggregates] == [CODES]  # ticked in the wizard
    assert state.definition[LINK_COLUMN].type is AttributeType.IDENTIFYING  # pseudonymised
    assert [t.kind for t in state.identifier_plan.treatments] == ["keyed-pseudonym"]
    assert not window.actions_by_name["linked_tables"].isEnabled()  # Export writes them
    assert window.keys.create(tmp_path / "ward.key")
    state.set_attribute("County", type=AttributeType.IDENTIFYING)
    for name in QUASI_IDENTIFIERS:
        state.set_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
        state.set_hierarchy(name, read_hierarchy(tmp_path / "hierarchies" / f"{name}.csv"))
    panel = window.configure.linked_panel
    assert panel.isVisible() and panel.tables.rowCount() == 2
    window.resize(1280, 720)  # the panel keeps the window within a laptop screen
    qtbot.wait(10)
    assert window.size().toTuple() == (1280, 720), window.minimumSizeHint().toTuple()
    _tick(panel.aggregates, "admissions per patient", "set of Diagnosis")
    _tick(panel.shifted, *DATES)  # the panel's range: ± SHIFT_DAYS
    assert state.linked.shifted == DATES and [a.name for a in state.linked.aggregates] == \
        ["admissions:count", CODES]
    state.update_settings(privacy_models=[{"kind": "k-anonymity", "k": 5}],
                          suppression_limit=0.1)
    frame, quasi = input_table(state)  # Risk's input: one row per patient
    assert len(frame) == PATIENTS and "admissions:count" in quasi and CODES in quasi

    assert window.anonymize() is not None
    qtbot.waitUntil(lambda: window.worker is None, timeout=60_000)
    assert state.result is not None and state.result.optimum is not None
    assert window.projects.export_data(tmp_path / "release")

    patients = pd.read_csv(tmp_path / "release" / "patients.csv", dtype=str, sep=None,
                           engine="python")
    events = pd.read_csv(tmp_path / "release" / "admissions.csv", dtype=str, sep=None,
                         engine="python")
    source = pd.read_csv(tmp_path / "admissions.csv", dtype=str, sep=None, engine="python")
    view = patients.assign(events=patients[LINK_COLUMN].map(
        events.groupby(LINK_COLUMN).size()).fillna(0))
    assert anonymity.k_anonymity(view, [*QUASI_IDENTIFIERS, "events", CODES]) >= 5
    assert "Diagnosis" not in events.columns  # released as the judged set only
    assert set(events[LINK_COLUMN]) <= set(patients[LINK_COLUMN])  # every event links
    assert not set(events[LINK_COLUMN]) & set(source[LINK_COLUMN])  # pseudonyms only
    assert "County" not in patients.columns
    offsets = _offsets(events, source, (tmp_path / "ward.key").read_bytes())
    assert len(offsets) == events[LINK_COLUMN].nunique()
    assert all(len(o) == 1 and 0 < abs(o[0]) <= SHIFT_DAYS for o in offsets)  # one each
    text = (tmp_path / "release" / "report.json").read_text()  # as --report writes it
    report = json.loads(text)
    assert report["verification"]["anonymous"] and report["output_order"]["shuffled"]
    assert report["linked"]["tables"][1] == {
        "name": "admissions", "role": "events", "file": "admissions.csv", "records": len(source),
        "released_records": len(events), "left_out": ["Diagnosis"]}
    assert report["linked"]["patients"]["suppressed"] == PATIENTS - len(patients)
    assert report["identifiers"]["key_fingerprint"] == state.settings["identifiers"][
        "key_fingerprint"]
    assert not any(p in text for p in source[LINK_COLUMN])

    window.projects.save_to(tmp_path / "ward.arxpy")  # the tables are part of the project
    reopened = Project.load(tmp_path / "ward.arxpy")
    assert list(reopened.events) == ["admissions"] and reopened.settings["linked"]


def test_the_wizard_links_other_tables_of_a_sqlite_database(qtbot, tmp_path):
    path = tmp_path / "clinic.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE patients (pid TEXT, age INTEGER)")
        connection.execute("CREATE TABLE visits (pid TEXT, day TEXT)")
        connection.execute("CREATE TABLE labs (pid TEXT, test TEXT)")
        connection.executemany("INSERT INTO patients VALUES (?, ?)", [("a", 30), ("b", 40)])
        connection.executemany("INSERT INTO visits VALUES (?, ?)", [("a", "2014-01-02")] * 3)
    wizard = ImportWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.source_page.path.setText(str(path))
    wizard.source_page.table.setCurrentText("patients")
    wizard.next()
    wizard.next()
    wizard.next()
    page = wizard.linked_page
    offered = [page.database_tables.item(i).text() for i in range(page.database_tables.count())]
    assert offered == ["labs", "visits"] and page.link_column.currentText() == "pid"
    page.database_tables.item(1).setCheckState(Qt.CheckState.Checked)
    judged = [page.aggregates.item(i).text() for i in range(page.aggregates.count())]
    assert judged == ["visits per patient", "first year of day"]
    _tick(page.aggregates, "first year of day")
    page.link_column.setCurrentText("age")  # no table of events holds it
    assert not page.validatePage() and "no column 'age'" in page.error.text()
    page.link_column.setCurrentText("pid")
    wizard.button(QWizard.WizardButton.FinishButton).click()
    project = wizard.project
    assert list(project.events) == ["visits"] and len(project.events["visits"]) == 3
    assert project.settings["linked"]["link_column"] == "pid"
    assert project.settings["linked"]["aggregates"] == ["visits:first-year:day"]
    assert project.definition["pid"].type is AttributeType.IDENTIFYING


def test_a_project_with_an_unreadable_aggregate_does_not_open(tmp_path):
    write_linked_example(tmp_path, patients=20)
    data = pd.read_csv(tmp_path / "patients.csv", dtype=str, keep_default_na=False)
    events = {"admissions": pd.read_csv(tmp_path / "admissions.csv", dtype=str,
                                        keep_default_na=False)}
    linked = {"link_column": LINK_COLUMN, "aggregates": ["admissions:sum"]}
    project = Project(data, DataDefinition.for_columns(data.columns), {}, {"linked": linked},
                      events=events)
    with pytest.raises(ProjectError, match="admissions:sum"):
        load_checked(project.save(tmp_path / "ward.arxpy"))


def test_the_panel_follows_undo_and_adds_and_removes_tables(qtbot, tmp_path):
    from arxpy.gui.linked_panel import LinkedTablesPanel
    from arxpy.gui.state import AppState
    from arxpy.workflows.linked_project import LinkedSettings

    write_linked_example(tmp_path, patients=20)
    read = lambda name: pd.read_csv(tmp_path / name, dtype=str, keep_default_na=False)  # noqa: E731
    data = read("patients.csv")
    state = AppState()
    state.set_project(Project(data, DataDefinition.for_columns(data.columns), name="ward"))
    panel = LinkedTablesPanel(state)
    qtbot.addWidget(panel)
    assert panel.isHidden()  # no event tables
    state.set_linked_tables({"admissions": read("admissions.csv")}, LinkedSettings(LINK_COLUMN),
                            "Add linked table")
    assert not panel.isHidden() and panel.tables.rowCount() == 2
    _tick(panel.aggregates, "admissions per patient")
    assert [a.name for a in state.linked.aggregates] == ["admissions:count"]
    state.undo_stack.undo()
    assert panel.aggregates.item(0).checkState() == Qt.CheckState.Unchecked
    read("admissions.csv").head(5).to_csv(tmp_path / "labs.csv", index=False)
    panel.add_files([str(tmp_path / "labs.csv")])
    assert list(state.events) == ["admissions", "labs"] and panel.tables.rowCount() == 3
    panel.add_files([str(tmp_path / "labs.csv")])
    assert "already named 'labs'" in panel.message.text()
    panel.remove_table("labs")
    assert list(state.events) == ["admissions"]
    assert state.undo_stack.undoText() == "Remove linked table 'labs'"
    _tick(panel.aggregates, "set of Diagnosis")  # a set is undone as the others are
    assert [a.name for a in state.linked.aggregates] == [CODES]
    state.undo_stack.undo()
    assert state.linked.aggregates == ()
